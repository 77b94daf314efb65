//! csvload against peers that stop answering without closing (issue 20): a TCP proxy that
//! stalls a data connection mid-COPY (both sockets stay open, nothing is forwarded either
//! way), and a listener that accepts and never answers. Before `--io-timeout` and the
//! whole-attempt `connect_timeout`, both hung csvload forever; here the harness timeout
//! turns a hang into a failure.

use crate::support::cmd::wait_output_timeout;
use crate::support::pg::{self, Pg};
use crate::support::proxy::{Fault, Proxy};
use std::net::TcpListener;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

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
    let proxy = Proxy::start(
        pg.port(),
        vec![Fault::None, Fault::StallAfter(csv.len() / 3)],
    );
    let port = proxy.port();
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
    proxy.release();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(proxy.hits(), 1, "{err}");
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
