//! The connection service file, read as libpq's `parseServiceInfo` and `parseServiceFile` read
//! it: the service named by `service=` or PGSERVICE is looked up in PGSERVICEFILE (or else
//! `~/.pg_service.conf` when it exists), and, when not found there, in
//! `PGSYSCONFDIR/pg_service.conf` (PGSYSCONFDIR's default: [`SYSCONFDIR`]). Its keywords fill
//! in only what the connection string left out.

use super::conninfo::{KEYWORDS, Params, is_space};
use std::path::{Path, PathBuf};

/// Where Debian's libpq (the PostgreSQL packages of Debian and Ubuntu) looks for
/// `pg_service.conf` when PGSYSCONFDIR is not set.
pub const SYSCONFDIR: &str = "/etc/postgresql-common";

/// Fills `p` from the service `name` (the caller resolved `service=` or PGSERVICE):
/// `service_file` is PGSERVICEFILE, `home` the home directory, `sysconfdir` PGSYSCONFDIR.
/// Errors are libpq's words.
pub fn apply(
    p: &mut Params,
    name: &str,
    service_file: Option<&str>,
    home: Option<&Path>,
    sysconfdir: Option<&str>,
) -> Result<(), String> {
    let first = match service_file {
        Some(f) => Some(PathBuf::from(f)),
        None => home
            .map(|h| h.join(".pg_service.conf"))
            .filter(|f| f.exists()),
    };
    if let Some(file) = first
        && read_file(&file, name, p)?
    {
        return Ok(());
    }
    let sys = Path::new(sysconfdir.unwrap_or(SYSCONFDIR)).join("pg_service.conf");
    if sys.exists() && read_file(&sys, name, p)? {
        return Ok(());
    }
    Err(format!("definition of service \"{name}\" not found"))
}

/// One service file: whether the group `[name]` was found; its keywords set where `p` has
/// none. A line with no `=` or an unknown keyword is a syntax error, as in libpq.
fn read_file(file: &Path, name: &str, p: &mut Params) -> Result<bool, String> {
    let text = std::fs::read(file)
        .map_err(|_| format!("service file \"{}\" not found", file.display()))?;
    let text = String::from_utf8_lossy(&text);
    let mut found = false;
    for (n, line) in text.split('\n').enumerate() {
        let line = line.trim_matches(is_space);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(group) = line.strip_prefix('[') {
            if found {
                // The next group ends the one wanted.
                return Ok(true);
            }
            // libpq compares the name and then wants a ']' right after it.
            found = group.strip_prefix(name).is_some_and(|r| r.starts_with(']'));
            continue;
        }
        if !found {
            continue;
        }
        let syntax = || {
            format!(
                "syntax error in service file \"{}\", line {}",
                file.display(),
                n + 1
            )
        };
        if line.starts_with("ldap") {
            // libpq built with LDAP looks the service up there; csvload refuses by name.
            return Err(format!(
                "LDAP lookup in service file \"{}\", line {}, is not supported",
                file.display(),
                n + 1
            ));
        }
        let (key, value) = line.split_once('=').ok_or_else(syntax)?;
        if key == "service" {
            return Err(format!(
                "nested service specifications not supported in service file \"{}\", line {}",
                file.display(),
                n + 1
            ));
        }
        if !KEYWORDS.contains(&key) {
            return Err(syntax());
        }
        if p.get(key).is_none() {
            p.set(key, value);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_files_as_libpq_reads_them() {
        let d = tempfile::tempdir().unwrap();
        let user = d.path().join("user.conf");
        std::fs::write(
            &user,
            "# c\n[a]\nhost=h1\nport=1\n\n[b] \n  sslmode=require\t\n[c]\nport = 5\n[d]\nservice=a\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("pg_service.conf"),
            "[a]\nhost=sys\n[s]\nuser=u\n",
        )
        .unwrap();
        let sys = d.path().to_str().unwrap();
        let get = |name: &str, pre: &[(&str, &str)]| {
            let mut p = Params::default();
            for (k, v) in pre {
                p.set(k, v);
            }
            apply(&mut p, name, Some(user.to_str().unwrap()), None, Some(sys)).map(|()| {
                p.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(get("a", &[]).unwrap(), ["host=h1", "port=1"]);
        // What the string gives wins.
        assert_eq!(get("a", &[("host", "x")]).unwrap(), ["host=x", "port=1"]);
        assert_eq!(get("b", &[]).unwrap(), ["sslmode=require"]);
        // Not in the first file: the system file.
        assert_eq!(get("s", &[]).unwrap(), ["user=u"]);
        assert!(get("c", &[]).unwrap_err().contains("syntax error"));
        assert!(get("d", &[]).unwrap_err().contains("nested service"));
        assert!(get("zz", &[]).unwrap_err().contains("\"zz\" not found"));
        // A PGSERVICEFILE that does not exist is an error.
        let mut p = Params::default();
        let e = apply(&mut p, "a", Some("/nonexistent/x"), None, Some(sys)).unwrap_err();
        assert!(
            e.contains("service file \"/nonexistent/x\" not found"),
            "{e}"
        );
    }
}
