//! Connecting the way psql does: DATABASE as a libpq URL, `key=value` string or bare database
//! name, completed from the PG* environment variables and the password file, over TLS with
//! libpq's `sslmode` rules (see [`super::tls`]), to the first of several hosts that answers.
//!
//! The `postgres` crate parses connection strings but refuses libpq keywords it lacks
//! (`verify-full`, `sslrootcert`, ...), reads no environment and no `.pgpass`; so the string is
//! parsed here ([`super::conninfo`]), the keywords csvload handles are taken out and the rest is
//! handed to `postgres::Config`. Hosts are tried here one by one (not by tokio-postgres) because
//! libpq's rules differ per host: the password file entry, TLS (never on a Unix socket), the
//! `allow`/`prefer` fallbacks, and `target_session_attrs` values tokio-postgres lacks.

use super::stall;
use super::tls::{self, SslMode, Tls};
use crate::io::error::{Error, Result};
use postgres::{Client, Config, NoTls};
use std::net::IpAddr;
use std::path::PathBuf;

mod hosts;
mod pgpass;

/// One host of the list, with its port and password resolved.
#[derive(Clone, Debug)]
struct HostSpec {
    /// The `host` entry (a name, an address, or a socket directory starting with `/`).
    host: String,
    /// The `hostaddr` entry, if given: connect here, verify the certificate against `host`.
    hostaddr: Option<IpAddr>,
    port: u16,
    password: Option<String>,
    /// The password file the password came from (for messages).
    password_file: Option<PathBuf>,
}

impl HostSpec {
    fn unix(&self) -> bool {
        self.hostaddr.is_none() && self.host.starts_with('/')
    }

    fn describe(&self) -> String {
        let h = match (&self.hostaddr, self.host.is_empty()) {
            (Some(a), true) => a.to_string(),
            (Some(a), false) => format!("{} ({a})", self.host),
            (None, _) => self.host.clone(),
        };
        format!("{h}:{}", self.port)
    }
}

/// libpq's `target_session_attrs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attrs {
    Any,
    ReadWrite,
    ReadOnly,
    Primary,
    Standby,
    PreferStandby,
}

/// Where to connect, with every default resolved.
#[derive(Clone)]
pub struct Target {
    /// Everything but hosts, ports, password and TLS.
    base: Config,
    hosts: Vec<HostSpec>,
    tls: Tls,
    random: bool,
    attrs: Attrs,
    /// libpq's `connect_timeout`: the longest wait for one host (TCP, TLS, startup,
    /// authentication); `None`: wait forever.
    connect_timeout: Option<std::time::Duration>,
}

/// Registers a new connection with the stall watchdog (stall.rs): its socket and its server
/// process (a retry ends the one it replaces). With `--io-timeout` the server also ends a
/// transaction left idle that long: a stalled connection's, whose uncommitted batch would
/// otherwise keep its locks (and its journal key) until the server's own TCP timeouts.
/// csvload itself never leaves a transaction idle between two statements.
fn watch(c: &mut Client, sock: Option<stall::Sock>) {
    let backend = stall::backend_of(c);
    if let Some(t) = stall::io_timeout() {
        let ms = t.as_millis().min(i32::MAX as u128);
        // Best effort: a server without the setting keeps its own.
        let _ = c.batch_execute(&format!("SET idle_in_transaction_session_timeout = {ms}"));
    }
    stall::watch(sock, backend);
}

impl Target {
    /// Opens one connection: to the first host of the list that accepts it (in a random
    /// order with `load_balance_hosts=random`, so `-j` connections spread over the hosts).
    /// A failure is exit 2 and names each host's reason.
    pub fn connect(&self) -> Result<Client> {
        let mut order: Vec<usize> = (0..self.hosts.len()).collect();
        if self.random {
            fastrand::shuffle(&mut order);
        }
        let mut failures = Vec::new();
        // prefer-standby: a standby if any, else any server (libpq's second pass).
        let passes = match self.attrs {
            Attrs::PreferStandby => vec![Attrs::Standby, Attrs::Any],
            a => vec![a],
        };
        for want in passes {
            for &i in &order {
                let h = &self.hosts[i];
                // The attempt (with libpq's target_session_attrs check, part of a libpq
                // connect) is cut when connect_timeout passes, or else the --io-timeout: a
                // startup that gets no answer is a request left unanswered. Its socket is told
                // apart for the --io-timeout watchdog (stall.rs).
                let limit = self.connect_timeout.or(stall::io_timeout());
                let at = stall::connect(limit, || {
                    self.connect_host(h)
                        .and_then(|mut c| check_attrs(&mut c, want).map(|()| c))
                });
                let attempt = match (at.out, at.timed_out, self.connect_timeout) {
                    (_, true, Some(t)) => Err(format!(
                        "timeout expired: no answer within connect_timeout={} s",
                        t.as_secs()
                    )),
                    (_, true, None) => Err(stall::explain_connect()),
                    (r, false, _) => r,
                };
                match attempt {
                    // Every session sets what csvload relies on (session.rs) before use.
                    Ok(mut c) => {
                        super::session::apply(&mut c)?;
                        watch(&mut c, at.sock);
                        return Ok(c);
                    }
                    Err(why) => failures.push((h.describe(), why)),
                }
            }
        }
        let db = self
            .base
            .get_dbname()
            .or(self.base.get_user())
            .unwrap_or("");
        Err(usage(&match failures.as_slice() {
            [(host, why)] => format!("cannot connect to {host}/{db}: {why}"),
            all => format!(
                "cannot connect to database {db} on any of its hosts: {}",
                all.iter()
                    .map(|(host, why)| format!("{host}: {why}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }))
    }

    /// A new connection for a retry on this thread: [`Self::connect`], then the server
    /// process of the connection it replaces is ended (see [`stall::end_previous`]).
    pub fn reconnect(&self) -> Result<Client> {
        let mut c = self.connect()?;
        stall::end_previous(&mut c);
        Ok(c)
    }

    /// One host, with libpq's sslmode fallbacks. The error is in words.
    fn connect_host(&self, h: &HostSpec) -> std::result::Result<Client, String> {
        let mut cfg = self.base.clone();
        if h.unix() {
            cfg.host_path(&h.host);
        } else if !h.host.is_empty() {
            cfg.host(&h.host);
        }
        if let Some(a) = h.hostaddr {
            cfg.hostaddr(a);
        }
        cfg.port(h.port);
        if let Some(pw) = &h.password {
            cfg.password(pw);
        }
        let words = |e: &postgres::Error| words(e, self.tls.mode, h);
        // libpq never uses TLS on a Unix socket, whatever sslmode says.
        let mode = if h.unix() {
            SslMode::Disable
        } else {
            self.tls.mode
        };
        let plain = |cfg: &mut Config| {
            cfg.ssl_mode(postgres::config::SslMode::Disable)
                .connect(NoTls)
        };
        let with_tls = |cfg: &mut Config, m: postgres::config::SslMode| match self.tls.connector() {
            Some(c) => cfg.ssl_mode(m).connect(c),
            None => plain(cfg),
        };
        use postgres::config::SslMode as Pm;
        match mode {
            SslMode::Disable => plain(&mut cfg).map_err(|e| words(&e)),
            // allow: plain first; TLS when the server refuses it (e.g. hostssl only).
            SslMode::Allow => match plain(&mut cfg) {
                Err(e) if e.as_db_error().is_some() => with_tls(&mut cfg, Pm::Require)
                    .map_err(|e2| format!("{} (without TLS: {})", words(&e2), words(&e))),
                r => r.map_err(|e| words(&e)),
            },
            // prefer: TLS when offered; plain again when the TLS attempt fails.
            SslMode::Prefer => match with_tls(&mut cfg, Pm::Prefer) {
                Err(e) if is_tls_failure(&e) || e.as_db_error().is_some() => plain(&mut cfg)
                    .map_err(|e2| format!("{} (with TLS: {})", words(&e2), words(&e))),
                r => r.map_err(|e| words(&e)),
            },
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                with_tls(&mut cfg, Pm::Require).map_err(|e| words(&e))
            }
        }
    }

    /// `host:port/dbname` of the first host, for messages (never the password).
    pub fn describe(&self) -> String {
        let db = self
            .base
            .get_dbname()
            .or(self.base.get_user())
            .unwrap_or("");
        format!("{}/{db}", self.hosts[0].describe())
    }
}

fn usage(m: &str) -> Error {
    Error::Usage(m.to_string())
}

fn is_tls_failure(e: &postgres::Error) -> bool {
    e.to_string() == "error performing TLS handshake"
}

/// The error and its causes, joined.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.ends_with(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}

/// A connection failure in words: the server's SQLSTATE, message, detail and hint, what a
/// TLS failure was, or the network error.
fn words(e: &postgres::Error, mode: SslMode, h: &HostSpec) -> String {
    if let Some(d) = e.as_db_error() {
        let mut m = format!(
            "{}: {} (SQLSTATE {})",
            d.severity(),
            d.message(),
            d.code().code()
        );
        if let Some(x) = d.detail() {
            m.push_str(&format!("; DETAIL: {x}"));
        }
        if let Some(x) = d.hint() {
            m.push_str(&format!("; HINT: {x}"));
        }
        let why = match d.code().code() {
            "3D000" => Some("the database does not exist on this server".to_string()),
            "28P01" => Some(match &h.password_file {
                Some(f) => format!("wrong password (the password came from {})", f.display()),
                None => "wrong password for this user".into(),
            }),
            "28000" => Some(
                "the server refused this login: the role does not exist, no pg_hba.conf entry \
                 lets it in this way, or the entry's requirement (e.g. a client certificate) \
                 was not met"
                    .into(),
            ),
            "53300" => Some("the server has no free connection slot (lower -j)".into()),
            "57P03" => Some("the server is starting up or shutting down".into()),
            _ => None,
        };
        if let Some(w) = why {
            m.push_str(&format!(" -- {w}"));
        }
        return m;
    }
    if let Some(w) = tls::explain(e) {
        return w;
    }
    let text = chain(e);
    if text.contains("server does not support TLS") {
        return format!(
            "the server does not support TLS (it refused the SSL request); sslmode={} does not \
             continue without TLS, so nothing else was sent",
            mode.name()
        );
    }
    if text.contains("password missing") {
        return "the server asks for a password and none was given (password=, PGPASSWORD or \
                the password file ~/.pgpass)"
            .into();
    }
    text
}

/// libpq's `target_session_attrs` check on a new connection.
fn check_attrs(c: &mut Client, want: Attrs) -> std::result::Result<(), String> {
    let one = |c: &mut Client, sql: &str| -> std::result::Result<String, String> {
        let rows = c.simple_query(sql).map_err(|e| chain(&e))?;
        rows.iter()
            .find_map(|m| match m {
                postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                _ => None,
            })
            .ok_or_else(|| format!("no answer to {sql}"))
    };
    let ok = match want {
        Attrs::Any | Attrs::PreferStandby => return Ok(()),
        Attrs::ReadWrite => one(c, "SHOW transaction_read_only")? == "off",
        Attrs::ReadOnly => one(c, "SHOW transaction_read_only")? == "on",
        Attrs::Primary => one(c, "SELECT pg_catalog.pg_is_in_recovery()")? == "f",
        Attrs::Standby => one(c, "SELECT pg_catalog.pg_is_in_recovery()")? == "t",
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "server is not {} (target_session_attrs)",
            match want {
                Attrs::ReadWrite => "read-write",
                Attrs::ReadOnly => "read-only",
                Attrs::Primary => "a primary",
                _ => "a standby",
            }
        ))
    }
}
