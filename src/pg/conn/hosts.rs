//! A parsed connection string completed as libpq completes it (`conninfo_add_defaults`,
//! `pqConnectOptions2`): the service file, then the PG* environment, then the defaults (the
//! effective OS user, the database named after the user), and the host, hostaddr and port
//! lists paired up, each host with its password (from the password file when none was given).
//! Precedence as libpq's: keywords given > the service > the environment > defaults.

use super::conninfo::{KEYWORDS, Params};
use super::{pgpass, service};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// The environment variable libpq reads for each keyword (`PQconninfoOptions`); a variable
/// that is set applies even when empty, as libpq's `getenv` test does.
pub const ENV_DEFAULTS: &[(&str, &str)] = &[
    ("user", "PGUSER"),
    ("password", "PGPASSWORD"),
    ("passfile", "PGPASSFILE"),
    ("channel_binding", "PGCHANNELBINDING"),
    ("connect_timeout", "PGCONNECT_TIMEOUT"),
    ("dbname", "PGDATABASE"),
    ("host", "PGHOST"),
    ("hostaddr", "PGHOSTADDR"),
    ("port", "PGPORT"),
    ("client_encoding", "PGCLIENTENCODING"),
    ("options", "PGOPTIONS"),
    ("application_name", "PGAPPNAME"),
    ("sslmode", "PGSSLMODE"),
    ("sslnegotiation", "PGSSLNEGOTIATION"),
    ("sslcompression", "PGSSLCOMPRESSION"),
    ("sslcert", "PGSSLCERT"),
    ("sslkey", "PGSSLKEY"),
    ("sslcertmode", "PGSSLCERTMODE"),
    ("sslrootcert", "PGSSLROOTCERT"),
    ("sslcrl", "PGSSLCRL"),
    ("sslcrldir", "PGSSLCRLDIR"),
    ("sslsni", "PGSSLSNI"),
    ("requirepeer", "PGREQUIREPEER"),
    ("require_auth", "PGREQUIREAUTH"),
    ("ssl_min_protocol_version", "PGSSLMINPROTOCOLVERSION"),
    ("ssl_max_protocol_version", "PGSSLMAXPROTOCOLVERSION"),
    ("gssencmode", "PGGSSENCMODE"),
    ("krbsrvname", "PGKRBSRVNAME"),
    ("gsslib", "PGGSSLIB"),
    ("gssdelegation", "PGGSSDELEGATION"),
    ("target_session_attrs", "PGTARGETSESSIONATTRS"),
    ("load_balance_hosts", "PGLOADBALANCEHOSTS"),
];

/// What libpq reads besides the string: environment variables, the home directory (for
/// `~/.pgpass`, `~/.pg_service.conf`, `~/.postgresql`) and the effective OS user.
pub struct Env<'a> {
    /// An environment variable (None: not set; `Some("")`: set and empty).
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// libpq's `pqGetHomeDirectory`: HOME when set and not empty, else the user's home from
    /// the password database.
    pub home: Option<PathBuf>,
    /// libpq's `pg_fe_getauthname`: the effective user's name, or why it is unknown.
    pub os_user: Result<String, String>,
}

impl Env<'static> {
    /// The process's own environment, home and effective user.
    pub fn process() -> Env<'static> {
        let (name, dir) = match effective_user() {
            Ok((n, d)) => (Ok(n), Some(d)),
            Err(e) => (Err(e), None),
        };
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or(dir);
        Env {
            var: &|k| std::env::var(k).ok(),
            home,
            os_user: name,
        }
    }
}

/// The effective user's name and home directory (`getpwuid_r(geteuid())`, as libpq).
fn effective_user() -> Result<(String, PathBuf), String> {
    use std::ffi::CStr;
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: geteuid cannot fail; getpwuid_r writes only into the buffers given, and the
    // strings read afterwards point into `buf`, which outlives their use.
    unsafe {
        let uid = libc::geteuid();
        let mut pw: libc::passwd = std::mem::zeroed();
        let mut out: *mut libc::passwd = std::ptr::null_mut();
        let mut buf = vec![0 as libc::c_char; 16384];
        let rc = libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut out);
        if rc != 0 || out.is_null() {
            return Err(format!(
                "could not look up local user ID {uid}: {}",
                if rc != 0 {
                    std::io::Error::from_raw_os_error(rc).to_string()
                } else {
                    "user does not exist".into()
                }
            ));
        }
        let name = CStr::from_ptr(pw.pw_name).to_string_lossy().into_owned();
        let dir = std::ffi::OsStr::from_bytes(CStr::from_ptr(pw.pw_dir).to_bytes());
        Ok((name, PathBuf::from(dir)))
    }
}

/// One host of the list, with its port and password resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// The `host` entry (a name, an address, or a socket directory starting with `/`); empty
    /// when only `hostaddr` was given.
    pub host: String,
    /// The `hostaddr` entry, if given: connect here, verify the certificate against `host`.
    pub hostaddr: Option<IpAddr>,
    /// The port.
    pub port: u16,
    /// The password: given, or from the password file.
    pub password: Option<String>,
    /// The password file the password came from (for messages).
    pub password_file: Option<PathBuf>,
}

impl Host {
    /// Whether this is a Unix-socket directory (libpq's `is_unixsock_path`).
    pub fn unix(&self) -> bool {
        self.hostaddr.is_none() && self.host.starts_with('/')
    }

    /// `host:port` (with the address when both were given), for messages.
    pub fn describe(&self) -> String {
        let h = match (&self.hostaddr, self.host.is_empty()) {
            (Some(a), true) => a.to_string(),
            (Some(a), false) => format!("{} ({a})", self.host),
            (None, _) => self.host.clone(),
        };
        format!("{h}:{}", self.port)
    }
}

/// A connection string with every default resolved.
#[derive(Debug)]
pub struct Resolved {
    /// The keywords other than the host, port, password and service ones, after the service
    /// file and the environment (`user` and `dbname` always set, never empty).
    pub params: Params,
    /// The hosts in the order given.
    pub hosts: Vec<Host>,
}

/// Completes `p` as libpq does (`tool` names the program in warnings).
pub fn resolve(mut p: Params, env: &Env, tool: &str) -> Result<Resolved, String> {
    // The service: the keyword, else PGSERVICE (libpq reads it before any other variable).
    let name = match p.take("service") {
        Some(s) => Some(s),
        None => (env.var)("PGSERVICE"),
    };
    if let Some(name) = name {
        service::apply(
            &mut p,
            &name,
            (env.var)("PGSERVICEFILE").as_deref(),
            env.home.as_deref(),
            (env.var)("PGSYSCONFDIR").as_deref(),
        )?;
    }
    for (key, var) in ENV_DEFAULTS {
        if p.get(key).is_none()
            && let Some(v) = (env.var)(var)
        {
            p.set(key, &v);
        }
    }
    // The old PGREQUIRESSL: "1..." is sslmode=require when nothing set sslmode.
    if p.get("sslmode").is_none() && (env.var)("PGREQUIRESSL").is_some_and(|v| v.starts_with('1')) {
        p.set("sslmode", "require");
    }
    debug_assert!(p.iter().all(|(k, _)| KEYWORDS.contains(&k)));
    if p.get("user").is_none_or(str::is_empty) {
        p.set("user", &env.os_user.clone()?);
    }
    let user = p.get("user").unwrap_or_default().to_string();
    if p.get("dbname").is_none_or(str::is_empty) {
        p.set("dbname", &user);
    }
    let dbname = p.get("dbname").unwrap_or_default().to_string();
    let password = p.take("password").filter(|pw| !pw.is_empty());
    let passfile = p.take("passfile");
    let host_list = p.take("host").unwrap_or_default();
    let addr_list = p.take("hostaddr").unwrap_or_default();
    let port_list = p.take("port").unwrap_or_default();

    // pqConnectOptions2: the host and hostaddr lists pair up; one port serves all.
    let split = |s: &str| -> Vec<String> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split(',').map(|x| x.trim().to_string()).collect()
        }
    };
    let mut hosts = split(&host_list);
    let addrs = split(&addr_list);
    if !hosts.is_empty() && !addrs.is_empty() && hosts.len() != addrs.len() {
        return Err(format!(
            "could not match {} host names to {} hostaddr values",
            hosts.len(),
            addrs.len()
        ));
    }
    if hosts.is_empty() {
        hosts = vec![String::new(); addrs.len().max(1)];
    }
    let ports = split(&port_list);
    if ports.len() > 1 && ports.len() != hosts.len() {
        return Err(format!(
            "could not match {} port numbers to {} hosts",
            ports.len(),
            hosts.len()
        ));
    }
    let pgpass = passfile
        .filter(|f| !f.is_empty())
        .map(PathBuf::from)
        .or_else(|| env.home.as_ref().map(|h| h.join(".pgpass")));
    let mut out = Vec::with_capacity(hosts.len());
    for (i, host) in hosts.into_iter().enumerate() {
        let hostaddr = match addrs.get(i).filter(|a| !a.is_empty()) {
            Some(a) => Some(
                a.parse::<IpAddr>()
                    .map_err(|_| format!("invalid hostaddr \"{a}\": not an IP address"))?,
            ),
            None => None,
        };
        let host = if host.is_empty() && hostaddr.is_none() {
            default_host()
        } else {
            host
        };
        let port_text = ports.get(i).or(ports.first()).cloned().unwrap_or_default();
        let port = if port_text.is_empty() {
            5432
        } else {
            port_text
                .parse::<u16>()
                .map_err(|_| format!("invalid port number: \"{port_text}\""))?
        };
        let mut h = Host {
            host,
            hostaddr,
            port,
            password: password.clone(),
            password_file: None,
        };
        if h.password.is_none()
            && let Some(file) = &pgpass
        {
            // libpq 16+ looks the host name up if given, else the address (libpq 15 looked
            // up `localhost` for an address without a name).
            let key_host = if h.host.is_empty() {
                addrs.get(i).cloned().unwrap_or_default()
            } else {
                h.host.clone()
            };
            // An empty password from the file is no password (libpq: "no password
            // supplied"), and the lookup stops at that line all the same.
            if let Some(pw) = pgpass::lookup(tool, file, &key_host, &port_text, &dbname, &user)
                && !pw.is_empty()
            {
                h.password = Some(pw);
                h.password_file = Some(file.clone());
            }
        }
        out.push(h);
    }
    Ok(Resolved {
        params: p,
        hosts: out,
    })
}

/// Where libpq connects when no host is given: its socket directory when it exists, else
/// TCP localhost.
fn default_host() -> String {
    if Path::new(pgpass::DEFAULT_SOCKET_DIR).is_dir() {
        pgpass::DEFAULT_SOCKET_DIR.into()
    } else {
        "localhost".into()
    }
}
