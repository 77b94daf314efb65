//! csvload against peers that stop answering without closing (issue 20): a TCP proxy that
//! stalls a data connection mid-COPY (both sockets stay open, nothing is forwarded either
//! way), and a listener that accepts and never answers. Before `--io-timeout` and the
//! whole-attempt `connect_timeout`, both hung csvload forever; here the harness timeout
//! turns a hang into a failure.

use crate::support::cmd::wait_output_timeout;
use crate::support::pg::{self, Pg};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A TCP proxy on 127.0.0.1 to `port` whose connection number `victim` stops forwarding,
/// both ways, once `after` bytes went from the client to the server; its sockets stay open
/// (a dead NAT entry or a frozen peer, whose kernel still acknowledges) until `release` is
/// set. Returns the proxy's port and the number of stalls.
fn stalling_proxy(
    port: u16,
    victim: usize,
    after: usize,
    release: Arc<AtomicBool>,
) -> (u16, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let me = l.local_addr().unwrap().port();
    let stalls = Arc::new(AtomicUsize::new(0));
    let stalls2 = stalls.clone();
    std::thread::spawn(move || {
        for (k, c) in l.incoming().enumerate() {
            let Ok(client) = c else { return };
            let server = TcpStream::connect(("127.0.0.1", port)).unwrap();
            let stalled = Arc::new(AtomicBool::new(false));
            let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (stalled2, stalls, release, release2) = (
                stalled.clone(),
                stalls2.clone(),
                release.clone(),
                release.clone(),
            );
            // Holds the sockets, forwarding nothing, until released.
            let hold = move |release: &AtomicBool| {
                while !release.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
            };
            std::thread::spawn(move || {
                let (mut from, mut to) = (client, server);
                let mut sent = 0usize;
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    let n = match from.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if k == victim && sent + n >= after {
                        let _ = to.write_all(&buf[..after - sent]);
                        stalled.store(true, Ordering::SeqCst);
                        stalls.fetch_add(1, Ordering::SeqCst);
                        hold(&release);
                        return;
                    }
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    sent += n;
                }
                let _ = to.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let (mut from, mut to) = (s2, c2);
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    let n = match from.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if stalled2.load(Ordering::SeqCst) {
                        hold(&release2);
                        return;
                    }
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = to.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    (me, stalls)
}

/// csvload as the test's superuser with `args`, killed (and the test failed) after `limit`.
fn csvload(pg: &Pg, args: &[&str], limit: Duration) -> Output {
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().expect("run csvload");
    wait_output_timeout(child, limit, "csvload")
}

/// Issue 20: a data connection that stalls mid-COPY (no RST, no FIN) is taken as lost after
/// `--io-timeout`, its server process is ended (it holds the batch's uncommitted rows, which
/// the table's primary key would make the retry wait for) and the batch is retried once:
/// exit 0, exactly the rows, no duplicate, one retry said. Before: csvload waited forever
/// (the harness timeout failed the test).
#[test]
fn stalled_connection_retried_exactly_once() {
    let Some(pg) = Pg::start_tcp() else { return };
    pg.createdb("s");
    pg.psql("s", "CREATE TABLE t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let rows = 200_000u64;
    let mut csv = String::with_capacity(rows as usize * 24);
    for i in 1..=rows {
        csv.push_str(&format!("{i},\"value {i}\"\n"));
    }
    std::fs::write(dir.path().join("t.csv"), &csv).unwrap();
    let m = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{"schema": "public", "name": "t", "file": "t.csv",
            "columns": [{"name": "id", "type": "integer", "not_null": true},
                        {"name": "v", "type": "text", "not_null": false}],
            "rows": rows, "bytes": 0, "header": false, "null": ""}]
    });
    let mp = dir.path().join("m.json");
    std::fs::write(&mp, m.to_string()).unwrap();
    // Connection 0 is the main one, 1 the worker (stalled in its second batch's COPY), 2
    // its reconnection.
    let release = Arc::new(AtomicBool::new(false));
    let (port, stalls) = stalling_proxy(pg.port(), 1, csv.len() / 3, release.clone());
    let db = format!("host=127.0.0.1 port={port} dbname=s user=postgres sslmode=disable");
    let t0 = Instant::now();
    let out = csvload(
        &pg,
        &[
            "-m",
            mp.to_str().unwrap(),
            "-j",
            "1",
            "--batch-rows",
            "50000",
            "--io-timeout",
            "2s",
            "-q",
            &db,
        ],
        Duration::from_secs(120),
    );
    let took = t0.elapsed();
    release.store(true, Ordering::SeqCst);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(stalls.load(Ordering::SeqCst), 1, "{err}");
    let retries: Vec<&str> = err.lines().filter(|l| l.contains("; retry ")).collect();
    assert_eq!(retries.len(), 1, "one retry said: {err}");
    assert!(
        retries[0].contains("neither answered nor took data for 2 s (--io-timeout)"),
        "{err}"
    );
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert_eq!(
        pg.psql(
            "s",
            "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t"
        )
        .trim(),
        format!("{rows}|{rows}|1|{rows}")
    );
    assert_eq!(
        pg.psql(
            "s",
            "SELECT sum(records), count(*) FILTER (WHERE last) FROM dumpshard.load_journal"
        )
        .trim(),
        format!("{rows}|1")
    );
}

/// Issue 20: `connect_timeout` bounds the whole attempt, as in libpq: a listener that accepts
/// and never answers (TCP connects at once; the startup or TLS request goes unanswered)
/// fails after the timeout with exit 2 and says so. Before: tokio-postgres bounded only the
/// TCP connect, and csvload waited forever.
#[test]
fn connect_timeout_bounds_an_unanswered_startup() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    // Accepts and keeps every connection, answering nothing.
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        for c in l.incoming() {
            kept.push(c);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let sql = dir.path().join("s.sql");
    std::fs::write(&sql, "SELECT 1;\n").unwrap();
    let run = |extra: &[&str], conninfo: &str| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_csvload"));
        for (k, _) in std::env::vars() {
            if k.starts_with("PG") {
                c.env_remove(k);
            }
        }
        c.args(["--schema", sql.to_str().unwrap()])
            .args(extra)
            .arg(format!(
                "host=127.0.0.1 port={port} dbname=x user=u {conninfo}"
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let t0 = Instant::now();
        let out = wait_output_timeout(c.spawn().unwrap(), Duration::from_secs(60), "csvload");
        (out, t0.elapsed())
    };
    let (out, took) = run(&[], "connect_timeout=2");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("cannot connect to 127.0.0.1:{port}/x"))
            && err.contains("timeout expired: no answer within connect_timeout=2 s"),
        "{err}"
    );
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(30),
        "{took:?}"
    );
    // Without connect_timeout, the --io-timeout bounds the attempt (an unanswered startup
    // is a request left unanswered).
    let (out, took) = run(&["--io-timeout", "1500ms"], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "timeout expired: no answer within 1500 ms (--io-timeout; no connect_timeout given)"
        ),
        "{err}"
    );
    assert!(took >= Duration::from_millis(1500), "{took:?}");
}
