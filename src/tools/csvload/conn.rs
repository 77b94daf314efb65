//! Connecting the way psql does: DATABASE as a libpq URL, `key=value` string or bare database
//! name, completed from the PG* environment variables and the password file, over TLS with
//! libpq's `sslmode` rules (see [`crate::pg::conn::tls`]), to the first of several hosts that answers.
//!
//! The `postgres` crate parses connection strings but refuses libpq keywords it lacks
//! (`verify-full`, `sslrootcert`, ...), reads no environment, no service file and no
//! `.pgpass`; so the string is parsed and completed by `pg::conn` (libpq's rules), the keywords
//! csvload handles are taken out and the rest is handed to `postgres::Config`. Hosts are tried
//! here one by one (not by tokio-postgres) because libpq's rules differ per host: the password
//! file entry, TLS (never on a Unix socket), the `allow`/`prefer` fallbacks, which failures
//! move on to the next host, and `target_session_attrs` values tokio-postgres lacks.

use super::stall;
use crate::io::error::{Error, Result};
use crate::pg::conn::hosts::Host as HostSpec;
use crate::pg::conn::tls::{self, SslMode, Tls};
use postgres::tls::{MakeTlsConnect, TlsConnect};
use postgres::{Client, Config, NoTls};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod hosts;

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
        'passes: for want in passes {
            for &i in &order {
                let h = &self.hosts[i];
                // The attempt (with libpq's target_session_attrs check, part of a libpq
                // connect) is cut when connect_timeout passes, or else the --io-timeout: a
                // startup that gets no answer is a request left unanswered. Its socket is told
                // apart for the --io-timeout watchdog (stall.rs).
                let limit = self.connect_timeout.or(stall::io_timeout());
                let at = stall::connect(limit, || {
                    self.connect_host(h).and_then(|mut c| {
                        check_attrs(&mut c, want).map(|()| c).map_err(Failed::next)
                    })
                });
                let attempt = match (at.out, at.timed_out, self.connect_timeout) {
                    (_, true, Some(t)) => Err(Failed::next(format!(
                        "timeout expired: no answer within connect_timeout={} s",
                        t.as_secs()
                    ))),
                    (_, true, None) => Err(Failed::next(stall::explain_connect())),
                    (r, false, _) => r,
                };
                match attempt {
                    // Every session sets what csvload relies on (session.rs) before use.
                    Ok(mut c) => {
                        super::session::apply(&mut c)?;
                        watch(&mut c, at.sock);
                        return Ok(c);
                    }
                    Err(f) => {
                        failures.push((h.describe(), f.why));
                        // libpq moves on to the next host only when this one could not be
                        // reached or is of the wrong kind (target_session_attrs); a server
                        // that refused TLS, failed its certificate check or refused the login
                        // ends the attempt (libpq's docs: "If a connection is established
                        // successfully, but authentication fails, the remaining hosts in the
                        // list are not tried").
                        if !f.next_host {
                            break 'passes;
                        }
                    }
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

    /// One host, with libpq's sslmode fallbacks. The error is in words, with whether libpq
    /// would try the next host.
    fn connect_host(&self, h: &HostSpec) -> std::result::Result<Client, Failed> {
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
        let fail = |e: &postgres::Error| Failed {
            why: words(e, self.tls.mode, h),
            next_host: unreachable(e),
        };
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
        // Whether the server accepted the SSLRequest (the TLS handshake began): libpq's
        // prefer falls back to a plain connection only after a TLS session failed, never after
        // a plain login the server turned down (that would send the password twice).
        let tls_began = Arc::new(AtomicBool::new(false));
        let with_tls = |cfg: &mut Config, m: postgres::config::SslMode| match self.tls.connector() {
            Some(c) => cfg.ssl_mode(m).connect(Flagged {
                inner: c,
                began: tls_began.clone(),
            }),
            None => plain(cfg),
        };
        use postgres::config::SslMode as Pm;
        if !mode.requires_tls() {
            return match mode {
                SslMode::Disable => plain(&mut cfg).map_err(|e| fail(&e)),
                // allow: plain first; TLS when the server refuses it (e.g. hostssl only).
                SslMode::Allow => match plain(&mut cfg) {
                    Err(e) if e.as_db_error().is_some() => {
                        with_tls(&mut cfg, Pm::Require).map_err(|e2| Failed {
                            why: format!("{} (without TLS: {})", fail(&e2).why, fail(&e).why),
                            next_host: unreachable(&e2),
                        })
                    }
                    r => r.map_err(|e| fail(&e)),
                },
                // prefer: TLS when offered; plain again when the TLS session failed.
                _ => match with_tls(&mut cfg, Pm::Prefer) {
                    Err(e)
                        if tls_began.load(Ordering::SeqCst)
                            && (is_tls_failure(&e) || e.as_db_error().is_some()) =>
                    {
                        plain(&mut cfg).map_err(|e2| Failed {
                            why: format!("{} (with TLS: {})", fail(&e2).why, fail(&e).why),
                            next_host: unreachable(&e2),
                        })
                    }
                    r => r.map_err(|e| fail(&e)),
                },
            };
        }
        with_tls(&mut cfg, Pm::Require).map_err(|e| fail(&e))
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

/// A host that could not be used: why, in words, and whether libpq would go on to the next.
struct Failed {
    why: String,
    next_host: bool,
}

impl Failed {
    /// A failure after which libpq tries the next host.
    fn next(why: String) -> Failed {
        Failed {
            why,
            next_host: true,
        }
    }
}

/// Whether the server could not be reached at all (libpq then tries the next host): a
/// network error, not a refusal by a server that answered (an error message, a refused
/// SSLRequest, a failed TLS handshake or certificate check, a password it asked for).
fn unreachable(e: &postgres::Error) -> bool {
    if e.as_db_error().is_some() || tls::explain(e).is_some() || is_tls_failure(e) {
        return false;
    }
    let text = chain(e);
    if text.contains("server does not support TLS") || text.contains("password missing") {
        return false;
    }
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<std::io::Error>().is_some() {
            return true;
        }
        cur = err.source();
    }
    false
}

/// A TLS connector that records whether the server accepted the SSLRequest: tokio-postgres
/// calls `connect` only after the server's `S`.
struct Flagged<M> {
    inner: M,
    began: Arc<AtomicBool>,
}

/// [`Flagged`]'s per-connection half.
struct FlaggedConnect<T> {
    inner: T,
    began: Arc<AtomicBool>,
}

impl<S, M: MakeTlsConnect<S>> MakeTlsConnect<S> for Flagged<M> {
    type Stream = M::Stream;
    type TlsConnect = FlaggedConnect<M::TlsConnect>;
    type Error = M::Error;

    fn make_tls_connect(
        &mut self,
        domain: &str,
    ) -> std::result::Result<Self::TlsConnect, M::Error> {
        Ok(FlaggedConnect {
            inner: self.inner.make_tls_connect(domain)?,
            began: self.began.clone(),
        })
    }
}

impl<S, T: TlsConnect<S>> TlsConnect<S> for FlaggedConnect<T> {
    type Stream = T::Stream;
    type Error = T::Error;
    type Future = T::Future;

    fn connect(self, stream: S) -> T::Future {
        self.began.store(true, Ordering::SeqCst);
        self.inner.connect(stream)
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
