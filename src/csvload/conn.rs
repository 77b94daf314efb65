//! Connecting the way psql does: DATABASE as a libpq URL or `key=value` string, completed from
//! the PG* environment variables and the password file.
//!
//! The `postgres` crate parses both connection-string forms but reads no environment and no
//! `.pgpass`; psql users expect both, so the defaults libpq applies are filled in here.

use crate::error::{Error, Result};
use postgres::config::{Host, SslMode};
use postgres::{Client, Config, NoTls};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where to connect, with every default resolved.
#[derive(Clone)]
pub struct Target {
    config: Config,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Target {
    /// Parses DATABASE (empty: everything from the environment) and fills what it leaves
    /// open from PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGPASSFILE (or ~/.pgpass),
    /// PGSSLMODE, PGAPPNAME and PGCONNECT_TIMEOUT.
    pub fn parse(database: &str) -> Result<Target> {
        let bad = |e: &dyn std::fmt::Display| Error::Usage(format!("invalid DATABASE: {e}"));
        let mut config: Config = if database.trim().is_empty() {
            Config::new()
        } else {
            database.parse().map_err(|e| bad(&e))?
        };
        if config.get_hosts().is_empty() {
            let host = env("PGHOST").unwrap_or_else(|| {
                // libpq's compiled-in default on Debian-family systems, else TCP localhost.
                if Path::new("/var/run/postgresql").is_dir() {
                    "/var/run/postgresql".into()
                } else {
                    "localhost".into()
                }
            });
            config.host(&host);
        }
        if config.get_ports().is_empty()
            && let Some(p) = env("PGPORT")
        {
            let port = p
                .parse()
                .map_err(|_| Error::Usage(format!("PGPORT '{p}' is not a port number")))?;
            config.port(port);
        }
        if config.get_user().is_none() {
            let user = env("PGUSER").unwrap_or_else(os_user);
            config.user(&user);
        }
        if config.get_dbname().is_none()
            && let Some(db) = env("PGDATABASE")
        {
            config.dbname(&db);
        }
        if config.get_application_name().is_none() {
            config.application_name(&env("PGAPPNAME").unwrap_or_else(|| "csvload".into()));
        }
        if config.get_connect_timeout().is_none()
            && let Some(t) = env("PGCONNECT_TIMEOUT").and_then(|t| t.parse::<u64>().ok())
            && t > 0
        {
            config.connect_timeout(Duration::from_secs(t.max(2)));
        }
        if !database.contains("sslmode")
            && let Some(mode) = env("PGSSLMODE")
        {
            config.ssl_mode(match mode.as_str() {
                "disable" => SslMode::Disable,
                "allow" | "prefer" => SslMode::Prefer,
                "require" | "verify-ca" | "verify-full" => SslMode::Require,
                _ => return Err(Error::Usage(format!("PGSSLMODE '{mode}' is not valid"))),
            });
        }
        if config.get_ssl_mode() == SslMode::Require {
            return Err(Error::Usage(
                "sslmode=require: this csvload is built without TLS support; use \
                 sslmode=disable or prefer (plain connection), or a TLS-terminating proxy"
                    .into(),
            ));
        }
        if config.get_password().is_none() {
            if let Some(pw) = env("PGPASSWORD") {
                config.password(pw);
            } else if let Some(pw) = pgpass_lookup(&config) {
                config.password(pw);
            }
        }
        Ok(Target { config })
    }

    /// Opens one connection. A failure is exit 2 (connection problem).
    pub fn connect(&self) -> Result<Client> {
        self.config
            .connect(NoTls)
            .map_err(|e| Error::Usage(format!("cannot connect to {}: {}", self.describe(), e)))
            .and_then(|mut c| super::session::apply(&mut c).map(|()| c))
    }

    /// `host:port/dbname` for messages (never the password).
    pub fn describe(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(Host::Tcp(h)) => h.clone(),
            Some(Host::Unix(p)) => p.display().to_string(),
            None => String::new(),
        };
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        let db = self
            .config
            .get_dbname()
            .or(self.config.get_user())
            .unwrap_or("");
        format!("{host}:{port}/{db}")
    }
}

fn os_user() -> String {
    env("USER")
        .or_else(|| env("LOGNAME"))
        .unwrap_or_else(|| "postgres".into())
}

fn pgpass_path() -> Option<PathBuf> {
    env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".pgpass")))
}

/// The password for this host, port, database and user from the password file, matched as
/// libpq does: first matching line wins, `*` matches anything, a socket directory matches
/// `localhost`; a file readable by group or others is ignored.
fn pgpass_lookup(config: &Config) -> Option<String> {
    let path = pgpass_path()?;
    let meta = std::fs::metadata(&path).ok()?;
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "csvload: warning: password file {} has group or world access; ignored \
                 (chmod 0600 it)",
                path.display()
            );
            return None;
        }
    }
    let text = std::fs::read_to_string(&path).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        _ => "localhost".into(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or("").to_string();
    let db = config.get_dbname().unwrap_or(&user).to_string();
    pgpass_match(&text, [&host, &port, &db, &user])
}

/// The password of the first line of `text` whose four fields match `want`.
pub(crate) fn pgpass_match(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_pgpass(line);
        if fields.len() < 5 {
            continue;
        }
        if (0..4).all(|i| fields[i] == "*" || fields[i] == want[i]) {
            return Some(fields[4..].join(":"));
        }
    }
    None
}

/// Splits a password-file line at unescaped `:` (`\:` and `\\` are escapes).
fn split_pgpass(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.last_mut().unwrap().push(n);
                }
            }
            ':' if out.len() < 5 => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines() {
        let text = "# c\nother:5432:*:*:no\nlocalhost:5432:db:u\\:x:p\\:w:rest\n*:*:*:*:any\n";
        assert_eq!(
            pgpass_match(text, ["localhost", "5432", "db", "u:x"]).as_deref(),
            Some("p:w:rest")
        );
        assert_eq!(
            pgpass_match(text, ["h", "1", "d", "u"]).as_deref(),
            Some("any")
        );
        assert_eq!(pgpass_match("a:b:c:d\n", ["a", "b", "c", "d"]), None);
    }
}
