//! The target's identity (`--same-target FILE`): the server and database a resolved
//! connection actually reaches, recorded by the first run and compared by every later one.
//!
//! A connection string is not a target: `service=pagila` follows whatever the service file
//! says today, `dbname=shop` whatever `PGHOST` or `~/.pgpass` lead to. A load resumed, or a
//! verification repeated, against another server or database would otherwise report on a
//! target that never held the earlier loads (issue 61: a service retargeted at an empty
//! database, and the rerun said nothing and exited 0). So the identity is asked of the server:
//! its system identifier (`pg_control_system()`, the same on a primary and its physical
//! standbys; CockroachDB's cluster id instead) and the database's OID (a database dropped and
//! created again under the same name is another database: the loads are gone with the old
//! one). The name and the address reached are kept for the words only.

use crate::io::error::{Error, Result};
use crate::io::names::{Escaped, display_path};
use postgres::Client;
use std::path::Path;

/// What a connection reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `system identifier N` or `cluster id U`; `None` when the server tells neither.
    pub server: Option<String>,
    /// The database's OID (text; CockroachDB's are large).
    pub database_oid: String,
    /// The database's name (words only: a renamed database is still the same one).
    pub database: String,
    /// `address:port`, or `a Unix socket` (words only).
    pub reached: String,
}

/// Asks the server who it is. Each question is its own statement (no transaction is open),
/// so one a server lacks fails alone.
pub fn of(client: &mut Client) -> Result<Identity> {
    let one = |c: &mut Client, q: &str| -> Option<String> {
        c.query_opt(q, &[])
            .ok()
            .flatten()
            .and_then(|r| r.get::<_, Option<String>>(0))
    };
    let server = one(
        client,
        "SELECT 'system identifier ' || system_identifier::text FROM pg_catalog.pg_control_system()",
    )
    .or_else(|| one(client, "SELECT 'cluster id ' || crdb_internal.cluster_id()::text"));
    let row = client
        .query_one(
            "SELECT pg_catalog.current_database()::text, \
             coalesce((SELECT oid::text FROM pg_catalog.pg_database \
                       WHERE datname = pg_catalog.current_database()), ''), \
             coalesce(host(pg_catalog.inet_server_addr()) || ':' || \
                      pg_catalog.inet_server_port()::text, 'a Unix socket')",
            &[],
        )
        .map_err(|e| {
            Error::Usage(format!(
                "asking the target who it is: {}",
                super::server_message(&e)
            ))
        })?;
    Ok(Identity {
        server,
        database: row.get(0),
        database_oid: row.get(1),
        reached: row.get(2),
    })
}

impl Identity {
    /// `database "shop" (OID 16384) of the server with system identifier N, reached at A`.
    pub fn words(&self) -> String {
        format!(
            "database \"{}\" (OID {}) of the server with {}, reached at {}",
            Escaped(&self.database),
            self.database_oid,
            self.server.as_deref().unwrap_or("no identifier it tells"),
            self.reached
        )
    }

    /// The file's text: `key=value` lines after a comment saying what it is.
    fn text(&self) -> String {
        format!(
            "# csvload --same-target: the target the loads of this file's owner went into\n\
             server={}\ndatabase_oid={}\ndatabase={}\nreached={}\n",
            self.server.as_deref().unwrap_or(""),
            self.database_oid,
            self.database.replace(['\n', '\r'], " "),
            self.reached
        )
    }

    /// Reads a file written by [`Identity::text`].
    fn parse(text: &str) -> Option<Identity> {
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix('='))
                .map(str::to_string)
        };
        Some(Identity {
            server: get("server").filter(|s| !s.is_empty()),
            database_oid: get("database_oid")?,
            database: get("database")?,
            reached: get("reached")?,
        })
    }

    /// The same target: the same server (where both know it) and the same database.
    pub fn same(&self, other: &Identity) -> bool {
        self.database_oid == other.database_oid
            && match (&self.server, &other.server) {
                (Some(a), Some(b)) => a == b,
                // A server that tells no identifier is known by its address instead.
                _ => {
                    self.server.is_none() && other.server.is_none() && self.reached == other.reached
                }
            }
    }
}

/// `--same-target FILE`: compares what `client` reached with the identity FILE records (exit
/// 2, in words, when it is another server or database), or records it when FILE does not
/// exist (created whole or not at all: written beside it and linked into place, so two runs
/// starting at once agree on one). Returns what was reached, and whether it was recorded now.
pub fn same_target(client: &mut Client, file: &Path) -> Result<(Identity, bool)> {
    let now = of(client)?;
    let recorded = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match record(&now, file)? {
            None => return Ok((now, true)),
            // Another run recorded it meanwhile: compared as if it had been there.
            Some(t) => t,
        },
        Err(e) => return Err(Error::io(file, e)),
    };
    let Some(was) = Identity::parse(&recorded) else {
        return Err(Error::file(
            display_path(file),
            "not a target identity written by csvload --same-target (remove it to record the \
             target this run reaches)",
        ));
    };
    if !now.same(&was) {
        let db = |i: &Identity| {
            format!(
                "database \"{}\" (OID {})",
                Escaped(&i.database),
                i.database_oid
            )
        };
        let what = if now.server == was.server && now.server.is_some() {
            format!(
                "{}, not {} where the earlier loads went (both of the server with {})",
                db(&now),
                db(&was),
                now.server.as_deref().unwrap_or_default()
            )
        } else {
            format!(
                "{}, not {} where the earlier loads went",
                now.words(),
                was.words()
            )
        };
        return Err(Error::Usage(format!(
            "the target reached is not the one {} records: this connection reaches {what}. The \
             connection string, a service file, PG* variables or ~/.pgpass lead elsewhere now; \
             nothing was done. Connect to the recorded target, or remove {} to load into this \
             one (which holds none of the earlier loads)",
            display_path(file),
            display_path(file)
        )));
    }
    Ok((now, false))
}

/// Creates `file` holding `id`, unless it exists: `Ok(None)` when created, `Ok(Some(text))`
/// with what another run wrote first.
fn record(id: &Identity, file: &Path) -> Result<Option<String>> {
    let tmp = file.with_file_name(format!(
        ".{}.{}.tmp",
        file.file_name()
            .map_or("identity".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    std::fs::write(&tmp, id.text()).map_err(|e| Error::io(&tmp, e))?;
    let linked = std::fs::hard_link(&tmp, file);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::read_to_string(file)
            .map(Some)
            .map_err(|e| Error::io(file, e)),
        Err(e) => Err(Error::io(file, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(server: Option<&str>, oid: &str, reached: &str) -> Identity {
        Identity {
            server: server.map(str::to_string),
            database_oid: oid.into(),
            database: "shop\ndb".into(),
            reached: reached.into(),
        }
    }

    /// The file reads back as what was written (a newline in a database name cannot add a
    /// line), and sameness is the server and the OID, never the name or address alone.
    #[test]
    fn file_round_trip_and_sameness() {
        let a = id(Some("system identifier 1"), "16384", "a Unix socket");
        let back = Identity::parse(&a.text()).unwrap();
        assert_eq!(back.server, a.server);
        assert_eq!(back.database_oid, "16384");
        assert_eq!(back.database, "shop db");
        assert!(a.same(&back));
        assert!(a.same(&id(Some("system identifier 1"), "16384", "10.0.0.1:5432")));
        assert!(!a.same(&id(Some("system identifier 2"), "16384", "a Unix socket")));
        assert!(!a.same(&id(Some("system identifier 1"), "16385", "a Unix socket")));
        assert!(!a.same(&id(None, "16384", "a Unix socket")));
        let n = id(None, "5", "h:1");
        assert!(n.same(&id(None, "5", "h:1")));
        assert!(!n.same(&id(None, "5", "h:2")));
        assert!(Identity::parse("server=x\n").is_none());
    }
}
