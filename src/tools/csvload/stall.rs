//! Stalled connections: a peer that stops answering without closing (a dead NAT entry, a
//! frozen node, a pulled cable, a proxy or server process that is stuck) is taken as lost
//! after a bounded wait, so the data phase's retry path (journal lookup before resend) takes
//! over instead of csvload waiting forever.
//!
//! TCP keepalives and `tcp_user_timeout` (conn.rs) see a peer whose kernel stopped answering;
//! they cannot see one whose kernel still acknowledges while nothing comes back (a stuck
//! proxy or server process), and tokio-postgres's `connect_timeout` bounds only the TCP
//! connect, not the startup and authentication after it. Both bounds here work on the socket
//! itself: the `postgres` crate gives no access to its socket and no way to stop a blocked
//! call, so the socket a connect created is found among the process's descriptors (see
//! [`connect`]), and when the wait is over it is shut down (`shutdown(2)` both ways), which
//! ends the blocked call with a closed connection, an error the retry path already handles.
//!
//! [`net`] marks the calls during which a request is outstanding (the data phase's COPY
//! writes, the end of COPY, the journal row, COMMIT, the journal lookup); a watchdog thread
//! cuts a connection that stayed in such a call for the `--io-timeout` without any of them
//! returning. Reading the input between the calls never counts.

use std::cell::RefCell;
use std::collections::HashSet;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// One stream socket of this process: its descriptor and its inode, so a descriptor closed
/// and reused for another socket is not taken for the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sock {
    fd: RawFd,
    ino: u64,
}

/// Connects are made one at a time while their sockets are told apart (see [`connect`]).
static CONNECTING: Mutex<()> = Mutex::new(());

/// The inode of `fd` when it is a stream socket.
fn stream_socket(fd: RawFd) -> Option<u64> {
    // SAFETY: fstat and getsockopt only write into the buffers given; a closed or foreign
    // descriptor just fails.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 || st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
            return None;
        }
        let mut ty: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        if libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TYPE,
            (&mut ty as *mut libc::c_int).cast(),
            &mut len,
        ) != 0
            || ty != libc::SOCK_STREAM
        {
            return None;
        }
        Some(st.st_ino as u64)
    }
}

/// Every stream socket the process holds now.
fn sockets() -> HashSet<Sock> {
    let fds: Vec<RawFd> = match std::fs::read_dir("/proc/self/fd") {
        Ok(d) => d
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect(),
        // No /proc: the low descriptors, where a few dozen connections live.
        Err(_) => (0..4096).collect(),
    };
    fds.into_iter()
        .filter_map(|fd| stream_socket(fd).map(|ino| Sock { fd, ino }))
        .collect()
}

/// Shuts `s` down both ways if its descriptor still is that socket.
fn cut(s: Sock) {
    if stream_socket(s.fd) == Some(s.ino) {
        // SAFETY: shutdown on a descriptor checked to be this socket; it closes nothing.
        unsafe {
            libc::shutdown(s.fd, libc::SHUT_RDWR);
        }
    }
}

/// What [`connect`] found.
pub struct Connected<T> {
    /// What the connect returned.
    pub out: T,
    /// The one socket it left open, if it left exactly one.
    pub sock: Option<Sock>,
    /// True when `timeout` passed before it returned (its sockets were cut).
    pub timed_out: bool,
}

/// Runs `f` (one connection attempt) and tells its socket apart: connects run one at a time,
/// and the socket is the one stream socket that exists after `f` and did not before. With
/// `timeout`, the sockets `f` opened are cut when it has not returned by then (libpq's
/// `connect_timeout` covers the whole attempt: TCP, TLS, startup and authentication).
pub fn connect<T>(timeout: Option<Duration>, f: impl FnOnce() -> T) -> Connected<T> {
    // Nothing to bound and nothing to watch: connects run side by side.
    if timeout.is_none() && io_timeout().is_none() {
        return Connected {
            out: f(),
            sock: None,
            timed_out: false,
        };
    }
    let _one = CONNECTING.lock().unwrap_or_else(|p| p.into_inner());
    let before = sockets();
    let fired = Arc::new(AtomicBool::new(false));
    let (done, wait) = mpsc::channel::<()>();
    let timer = timeout.map(|d| {
        let (before, fired) = (before.clone(), fired.clone());
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(d) {
                fired.store(true, Ordering::SeqCst);
                for s in sockets().difference(&before) {
                    cut(*s);
                }
            }
        })
    });
    let out = f();
    drop(done);
    if let Some(t) = timer {
        let _ = t.join();
    }
    let new: Vec<Sock> = sockets().difference(&before).copied().collect();
    Connected {
        out,
        sock: if new.len() == 1 { Some(new[0]) } else { None },
        timed_out: fired.load(Ordering::SeqCst),
    }
}

/// `--io-timeout`'s DURATION: a number of seconds, or a number with `ms`, `s`, `min` or `h`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = (&t[..split], t[split..].trim());
    let n: f64 = num
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite())
        .ok_or_else(|| format!("'{s}' is not a duration (e.g. 300, 90s, 5min, 500ms)"))?;
    let scale = match unit {
        "" | "s" => 1.0,
        "ms" => 0.001,
        "min" | "m" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "'{s}': unknown unit '{unit}' (use ms, s, min or h)"
            ));
        }
    };
    Duration::try_from_secs_f64(n * scale).map_err(|e| format!("'{s}': {e}"))
}

/// One connection's state as the watchdog sees it.
#[derive(Debug)]
struct Slot {
    sock: Option<Sock>,
    /// Since when a request has been outstanding with nothing returned; `None`: idle.
    waiting: Option<Instant>,
    /// The watchdog cut this connection.
    cut: bool,
    /// The server process behind it: `pg_backend_pid()` and its start time (text), so a
    /// retry can end it (see [`end_previous`]).
    backend: Option<(i32, String)>,
}

/// The `--io-timeout` in milliseconds; 0: none.
static IO_TIMEOUT_MS: AtomicU64 = AtomicU64::new(0);

/// Every connection being watched.
static SLOTS: Mutex<Vec<Weak<Mutex<Slot>>>> = Mutex::new(Vec::new());

thread_local! {
    /// The connection this thread opened last (each data-phase worker uses only its own).
    static CURRENT: RefCell<Option<Arc<Mutex<Slot>>>> = const { RefCell::new(None) };
    /// The one this thread opened before it (the one a retry replaces).
    static PREVIOUS: RefCell<Option<Arc<Mutex<Slot>>>> = const { RefCell::new(None) };
}

/// Sets the `--io-timeout` (`None`: wait forever) and starts the watchdog.
pub fn set_io_timeout(t: Option<Duration>) {
    let ms = t.map_or(0, |d| d.as_millis().max(1) as u64);
    if IO_TIMEOUT_MS.swap(ms, Ordering::SeqCst) == 0 && ms > 0 {
        std::thread::spawn(watchdog);
    }
}

/// The `--io-timeout`, if any.
pub fn io_timeout() -> Option<Duration> {
    match IO_TIMEOUT_MS.load(Ordering::SeqCst) {
        0 => None,
        ms => Some(Duration::from_millis(ms)),
    }
}

/// Checks the watched connections a few times per timeout, at most once a second.
fn watchdog() {
    loop {
        let Some(limit) = io_timeout() else {
            return;
        };
        std::thread::sleep((limit / 4).clamp(Duration::from_millis(20), Duration::from_secs(1)));
        let mut slots = SLOTS.lock().unwrap_or_else(|p| p.into_inner());
        slots.retain(|w| w.strong_count() > 0);
        for w in slots.iter() {
            let Some(s) = w.upgrade() else { continue };
            // The slot's lock is held while cutting: the worker cannot leave its call and
            // drop the connection (closing the descriptor) meanwhile.
            let mut s = s.lock().unwrap_or_else(|p| p.into_inner());
            if !s.cut
                && let (Some(since), Some(sock)) = (s.waiting, s.sock)
                && since.elapsed() >= limit
            {
                s.cut = true;
                cut(sock);
            }
        }
    }
}

/// Makes the connection just opened on this thread (with socket `sock` and server process
/// `backend`) the one [`net`] watches.
pub fn watch(sock: Option<Sock>, backend: Option<(i32, String)>) {
    let slot = Arc::new(Mutex::new(Slot {
        sock,
        waiting: None,
        cut: false,
        backend,
    }));
    SLOTS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Arc::downgrade(&slot));
    let old = CURRENT.with(|c| c.borrow_mut().replace(slot));
    PREVIOUS.with(|p| *p.borrow_mut() = old);
}

/// Runs `f`, a call that waits for the server, on this thread's current connection, marked
/// as waiting: the watchdog cuts the connection when `f` has not returned within the
/// `--io-timeout`.
pub fn net<T>(f: impl FnOnce() -> T) -> T {
    let slot = CURRENT.with(|c| c.borrow().clone());
    let Some(slot) = slot.filter(|_| IO_TIMEOUT_MS.load(Ordering::Relaxed) > 0) else {
        return f();
    };
    slot.lock().unwrap_or_else(|p| p.into_inner()).waiting = Some(Instant::now());
    let out = f();
    slot.lock().unwrap_or_else(|p| p.into_inner()).waiting = None;
    out
}

/// `why` a try failed, in words that say the connection was cut for silence when the
/// watchdog cut this thread's current connection.
pub fn explain(why: String) -> String {
    let cut = CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|s| s.lock().unwrap_or_else(|p| p.into_inner()).cut)
    });
    match (cut, io_timeout()) {
        (true, Some(t)) => format!(
            "the server neither answered nor took data for {} (--io-timeout): the connection \
             is taken as lost",
            words(t)
        ),
        _ => why,
    }
}

/// Why a connection attempt was given up when the `--io-timeout` (there being no
/// `connect_timeout`) cut it.
pub fn explain_connect() -> String {
    format!(
        "timeout expired: no answer within {} (--io-timeout; no connect_timeout given)",
        io_timeout().map_or_else(|| "0 s".into(), words)
    )
}

/// A duration as the user gave it, roughly: `90 s`, `2 min`, `250 ms`.
fn words(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// Ends, from `client` (the new connection of this thread's retry), the server process of
/// the connection it replaces, and waits (at most 30 s) until it is gone: a stalled
/// connection's server process may still hold the batch's uncommitted rows (a retry's COPY
/// into a table with a unique key would wait for them) or be in the middle of its COMMIT;
/// once it is gone the journal says for certain whether that batch committed. The process is
/// named by its pid and start time, so a retry on another server of a host list ends
/// nothing there. Best effort: a server without `pg_stat_activity` or the right to end it
/// leaves it to its own timeouts.
pub fn end_previous(client: &mut postgres::Client) {
    let prev = PREVIOUS.with(|p| p.borrow_mut().take());
    let Some((pid, start)) = prev.and_then(|s| s.lock().ok()?.backend.clone()) else {
        return;
    };
    let alive = "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity \
                 WHERE pid = $1 AND backend_start::text = $2";
    if client.query(alive, &[&pid, &start]).is_err() {
        return;
    }
    let gone_by = Instant::now() + Duration::from_secs(30);
    let check = "SELECT 1 FROM pg_catalog.pg_stat_activity WHERE pid = $1 \
                 AND backend_start::text = $2";
    while Instant::now() < gone_by {
        match client.query(check, &[&pid, &start]) {
            Ok(rows) if rows.is_empty() => return,
            Ok(_) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => return,
        }
    }
}

/// The server process behind `client`: its pid and start time (`None` where the server has
/// no `pg_stat_activity`).
pub fn backend_of(client: &mut postgres::Client) -> Option<(i32, String)> {
    let row = client
        .query_opt(
            "SELECT pid, backend_start::text FROM pg_catalog.pg_stat_activity \
             WHERE pid = pg_catalog.pg_backend_pid()",
            &[],
        )
        .ok()??;
    Some((row.try_get(0).ok()?, row.try_get(1).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// The socket a connect opens is the one told apart, and a connect that does not return
    /// within its timeout has it cut (a listener that accepts and never answers).
    #[test]
    fn connect_finds_and_cuts_its_socket() {
        // Never accepted: the kernel completes the handshake, and the server's end is no
        // descriptor of this process (it would be a second new socket).
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t0 = Instant::now();
        let c = connect(Some(Duration::from_millis(300)), || {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            let mut b = [0u8; 1];
            // Blocks until the timer cuts the socket (then reads end of file).
            (s.read(&mut b).unwrap_or(0), s)
        });
        assert!(c.timed_out);
        assert_eq!(c.out.0, 0);
        assert!(t0.elapsed() >= Duration::from_millis(300));
        let fd = std::os::fd::AsRawFd::as_raw_fd(&c.out.1);
        assert_eq!(c.sock.map(|s| s.fd), Some(fd));
        drop(l);
        let c = connect(Some(Duration::from_secs(5)), || 7);
        assert!(!c.timed_out);
        assert_eq!((c.out, c.sock), (7, None));
        assert_eq!(words(Duration::from_secs(120)), "2 min");
        assert_eq!(words(Duration::from_millis(1500)), "1500 ms");
        assert_eq!(parse_duration("300"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("5min"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("").is_err());
    }
}
