//! A TCP proxy on loopback for csvload's network-failure tests: per connection it passes
//! everything, cuts both ways, loses a COMMIT's answer, or stalls (forwards nothing and keeps
//! its sockets open), so one proxy serves every test of lost and frozen connections.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// What the proxy does to one connection.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// Pass everything.
    None,
    /// Cut both ways once this many bytes went from the client to the server.
    CutAfter(usize),
    /// Pass the Nth COMMIT to the server, then cut before its answer reaches the client:
    /// the COMMIT's outcome is unknown to the client (it did commit).
    LoseCommitReply(usize),
    /// Stop forwarding, both ways, once this many bytes went from the client to the server;
    /// the sockets stay open (a dead NAT entry or a frozen peer, whose kernel still
    /// acknowledges) until [`Proxy::release`] or the proxy is dropped.
    StallAfter(usize),
}

/// A running proxy; connection k gets `faults[k]` (then [`Fault::None`]).
pub struct Proxy {
    port: u16,
    hits: Arc<AtomicUsize>,
    release: Arc<AtomicBool>,
}

impl Proxy {
    /// Listens on 127.0.0.1 (a free port) and forwards each connection to `port` there.
    pub fn start(port: u16, faults: Vec<Fault>) -> Proxy {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let me = l.local_addr().unwrap().port();
        let hits = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(AtomicBool::new(false));
        let (hits2, release2) = (hits.clone(), release.clone());
        std::thread::spawn(move || {
            for (k, c) in l.incoming().enumerate() {
                let Ok(client) = c else { return };
                let fault = faults.get(k).copied().unwrap_or(Fault::None);
                let server = TcpStream::connect(("127.0.0.1", port)).unwrap();
                connection(client, server, fault, hits2.clone(), release2.clone());
            }
        });
        Proxy {
            port: me,
            hits,
            release,
        }
    }

    /// The port clients connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// How many connections got their fault (cut, lost reply or stalled) so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// Lets stalled connections go: their forwarding threads end and close the sockets.
    pub fn release(&self) {
        self.release.store(true, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.release();
    }
}

/// Blocks until `release` is set (a stalled connection's threads hold its sockets open).
fn hold(release: &AtomicBool) {
    while !release.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Forwards one connection both ways on two threads, doing `fault` to it.
fn connection(
    client: TcpStream,
    server: TcpStream,
    fault: Fault,
    hits: Arc<AtomicUsize>,
    release: Arc<AtomicBool>,
) {
    // Set once the fault happened: the other direction then stops too.
    let struck = Arc::new(AtomicBool::new(false));
    let lose_reply = Arc::new(AtomicBool::new(false));
    let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let (struck2, lose2, release2) = (struck.clone(), lose_reply.clone(), release.clone());
    let strike = move |struck: &AtomicBool| {
        if !struck.swap(true, Ordering::SeqCst) {
            hits.fetch_add(1, Ordering::SeqCst);
        }
    };
    let strike2 = strike.clone();
    let kill = |a: &TcpStream, b: &TcpStream| {
        let _ = a.shutdown(Shutdown::Both);
        let _ = b.shutdown(Shutdown::Both);
    };
    // Client to server.
    std::thread::spawn(move || {
        let (mut from, mut to) = (client, server);
        let mut sent = 0usize;
        let mut commits = 0usize;
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let chunk = &buf[..n];
            if let Fault::CutAfter(limit) | Fault::StallAfter(limit) = fault
                && sent + n >= limit
            {
                let _ = to.write_all(&chunk[..limit - sent]);
                strike(&struck);
                if let Fault::StallAfter(_) = fault {
                    hold(&release);
                    return;
                }
                kill(&from, &to);
                break;
            }
            if let Fault::LoseCommitReply(nth) = fault
                && chunk.windows(7).any(|w| w == b"COMMIT\0")
            {
                commits += 1;
                if commits == nth {
                    lose_reply.store(true, Ordering::SeqCst);
                }
            }
            if to.write_all(chunk).is_err() {
                break;
            }
            sent += n;
        }
        let _ = to.shutdown(Shutdown::Write);
    });
    // Server to client.
    std::thread::spawn(move || {
        let (mut from, mut to) = (s2, c2);
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if let Fault::StallAfter(_) = fault
                && struck2.load(Ordering::SeqCst)
            {
                hold(&release2);
                return;
            }
            if lose2.load(Ordering::SeqCst) {
                strike2(&struck2);
                kill(&from, &to);
                break;
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
