//! csvload's `--target-kind` (issue 20 item 5). No CockroachDB or YugabyteDB server is
//! available here, so: a fake server speaking the PostgreSQL protocol that answers
//! `SELECT version()` as CockroachDB or YugabyteDB does proves the detection and which session
//! statements each kind sends; a real PostgreSQL loaded with `--target-kind cockroachdb` runs
//! that kind's load path for real (small batches, each an explicit transaction with its journal
//! row, COPY's keyword options, no advisory lock, two runs at once kept apart by the journal's
//! primary key); `--target-kind yugabytedb` against
//! PostgreSQL shows a refused kind setting stops with the server's words.

use crate::support::pg::{self, Pg};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Runs `c` to its end, at most 60 s.
fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null());
    crate::support::cmd::output_within(&mut c).expect("run csvload")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A pgdump2csv manifest of `public.t (id int, v text)` in `file`, NULL token `\N`.
fn manifest(dir: &Path, file: &str, rows: u64) -> PathBuf {
    let j = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{
            "schema": "public", "name": "t", "file": file,
            "columns": [{"name": "id", "type": "integer", "not_null": true},
                        {"name": "v", "type": "text", "not_null": false}],
            "rows": rows, "bytes": 0, "header": false, "null": "\\N",
        }]
    });
    let p = dir.join("m.json");
    std::fs::write(&p, j.to_string()).unwrap();
    p
}

/// What the fake server was sent: `("Q", sql)` for simple queries, `("P", sql)` for parsed
/// (extended protocol) ones, in order, over all connections.
type Seen = Arc<Mutex<Vec<(char, String)>>>;

/// A fake PostgreSQL on 127.0.0.1 (trust login, no TLS) whose `version()` is `version`: it
/// answers simple queries (the session's SETs) with success, `SELECT version()` with the text,
/// and every other statement with an error. Serves connections one after another until `stop`.
fn fake_server(version: &'static str) -> (u16, Seen, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    let seen: Seen = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let (s2, st2) = (seen.clone(), stop.clone());
    let h = std::thread::spawn(move || {
        let t0 = Instant::now();
        while !st2.load(Ordering::SeqCst) && t0.elapsed() < Duration::from_secs(60) {
            match l.accept() {
                Ok((c, _)) => serve(c, version, &s2),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    });
    (port, seen, stop, h)
}

fn msg(t: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![t];
    m.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// One connection of [`fake_server`].
fn serve(mut c: TcpStream, version: &str, seen: &Seen) {
    c.set_nonblocking(false).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let read_n = |c: &mut TcpStream, n: usize| -> Option<Vec<u8>> {
        let mut b = vec![0u8; n];
        c.read_exact(&mut b).ok()?;
        Some(b)
    };
    // Startup (after an SSLRequest, answered 'N', if one comes).
    loop {
        let Some(len) = read_n(&mut c, 4) else { return };
        let len = u32::from_be_bytes(len.try_into().unwrap()) as usize;
        let Some(body) = read_n(&mut c, len - 4) else {
            return;
        };
        if body[..4] == [4, 210, 22, 47] {
            c.write_all(b"N").unwrap();
            continue;
        }
        break;
    }
    let mut out = msg(b'R', &0u32.to_be_bytes());
    out.extend(msg(b'K', &[0, 0, 0, 1, 0, 0, 0, 2]));
    out.extend(msg(b'Z', b"I"));
    c.write_all(&out).unwrap();
    let mut failed = false;
    loop {
        let Some(h) = read_n(&mut c, 5) else { return };
        let len = u32::from_be_bytes(h[1..5].try_into().unwrap()) as usize;
        let Some(body) = read_n(&mut c, len - 4) else {
            return;
        };
        let mut out = Vec::new();
        match h[0] {
            b'Q' if cstr(&body).contains("current_setting(") => {
                // A setting read with current_setting(name, true): the fake has it on (as an
                // older YugabyteDB could have yb_silence_advisory_locks_not_supported_error).
                seen.lock().unwrap().push(('Q', cstr(&body)));
                let mut f = vec![0, 1];
                f.extend_from_slice(b"current_setting\0");
                f.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
                f.extend_from_slice(&25u32.to_be_bytes());
                f.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0]);
                out.extend(msg(b'T', &f));
                let mut d = vec![0, 1];
                d.extend_from_slice(&2u32.to_be_bytes());
                d.extend_from_slice(b"on");
                out.extend(msg(b'D', &d));
                out.extend(msg(b'C', b"SELECT 1\0"));
                out.extend(msg(b'Z', b"I"));
            }
            b'Q' => {
                seen.lock().unwrap().push(('Q', cstr(&body)));
                out.extend(msg(b'C', b"SET\0"));
                out.extend(msg(b'Z', b"I"));
            }
            b'P' => {
                let name_end = body.iter().position(|&b| b == 0).unwrap();
                let sql = cstr(&body[name_end + 1..]);
                failed = !sql.contains("version()");
                seen.lock().unwrap().push(('P', sql));
                if !failed {
                    out.extend(msg(b'1', b""));
                }
            }
            b'D' if !failed => {
                out.extend(msg(b't', &[0, 0]));
                let mut f = vec![0, 1];
                f.extend_from_slice(b"version\0");
                f.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
                f.extend_from_slice(&25u32.to_be_bytes());
                f.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0]);
                out.extend(msg(b'T', &f));
            }
            b'B' if !failed => out.extend(msg(b'2', b"")),
            b'E' if !failed => {
                let mut d = vec![0, 1];
                d.extend_from_slice(&(version.len() as u32).to_be_bytes());
                d.extend_from_slice(version.as_bytes());
                out.extend(msg(b'D', &d));
                out.extend(msg(b'C', b"SELECT 1\0"));
            }
            b'C' if !failed => out.extend(msg(b'3', b"")),
            b'S' => {
                if failed {
                    let mut e = Vec::new();
                    for f in [&b"SERROR"[..], b"C0A000", b"Mnot in the fake server"] {
                        e.extend_from_slice(f);
                        e.push(0);
                    }
                    e.push(0);
                    out.extend(msg(b'E', &e));
                    failed = false;
                }
                out.extend(msg(b'Z', b"I"));
            }
            b'X' => return,
            _ => {}
        }
        if !out.is_empty() && c.write_all(&out).is_err() {
            return;
        }
    }
}

/// Runs `csvload --verify-only` against a fake server answering `version`; returns what it
/// was sent and csvload's stderr.
fn against_fake(version: &'static str, extra: &[&str]) -> (Vec<(char, String)>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), "").unwrap();
    let m = manifest(dir.path(), "t.csv", 0);
    let (port, seen, stop, h) = fake_server(version);
    let mut c = Command::new(env!("CARGO_BIN_EXE_csvload"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PG") {
            c.env_remove(k);
        }
    }
    c.env("HOME", dir.path())
        .arg("--verify-only")
        // --io-timeout adds its own `SET idle_in_transaction_session_timeout` (tested in
        // csvload_stall.rs); the statements counted here are the session's and the kind's.
        .args(["--io-timeout", "0"])
        .arg("-m")
        .arg(&m)
        .args(extra)
        .arg(format!(
            "host=127.0.0.1 port={port} user=u dbname=d sslmode=disable connect_timeout=10"
        ));
    let o = run(c);
    stop.store(true, Ordering::SeqCst);
    h.join().unwrap();
    let err = text(&o.stderr);
    // The fake server fails the count: verification fails, nothing crashes.
    assert!(matches!(o.status.code(), Some(1 | 2)), "{err}");
    let seen = seen.lock().unwrap().clone();
    (seen, err)
}

fn simple(seen: &[(char, String)]) -> Vec<String> {
    seen.iter()
        .filter(|(k, _)| *k == 'Q')
        .map(|(_, s)| s.clone())
        .collect()
}

/// Detection from `version()`: CockroachDB's text (at its start) and YugabyteDB's `-YB-`
/// choose those kinds; each kind's session statements are exactly the ones sent, after the
/// common settings; a `--target-kind` that differs from what `version()` says is used, with a
/// warning.
#[test]
fn kind_detected_from_version_and_its_session_statements_sent() {
    let common = dumpshard::tools::csvload::session::sql();
    let (seen, err) = against_fake(
        "CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/15, go1.22.2)",
        &[],
    );
    assert!(
        seen.iter()
            .any(|(k, s)| *k == 'P' && s == "SELECT version()")
    );
    assert_eq!(simple(&seen), std::slice::from_ref(&common), "{err}");
    assert!(
        err.contains("target kind cockroachdb: batches of 1000 records"),
        "{err}"
    );
    assert!(!err.contains("warning"), "{err}");

    let (seen, err) = against_fake(
        "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang",
        &[],
    );
    // yb_silence_advisory_locks_not_supported_error read, and (on here) turned off with a
    // warning, before the kind's settings.
    assert_eq!(
        simple(&seen),
        [
            common.clone(),
            "SELECT pg_catalog.current_setting('yb_silence_advisory_locks_not_supported_error', true)".into(),
            "SET yb_silence_advisory_locks_not_supported_error = off".into(),
            "SET yb_default_copy_from_rows_per_transaction = 0".into(),
            "SET yb_disable_transactional_writes = off".into(),
        ],
        "{err}"
    );
    assert!(
        err.contains("warning: yb_silence_advisory_locks_not_supported_error was on")
            && err.matches("was on").count() == 1,
        "{err}"
    );
    assert!(
        err.contains("target kind yugabytedb: batches of 20000 records"),
        "{err}"
    );

    // PostgreSQL: the common settings only, nothing said about the kind.
    let (seen, err) = against_fake("PostgreSQL 15.8 on x86_64-pc-linux-gnu", &[]);
    assert_eq!(simple(&seen), std::slice::from_ref(&common), "{err}");
    assert!(!err.contains("target kind"), "{err}");

    // Given and different: a warning, and the given kind's statements.
    let (seen, err) = against_fake(
        "CockroachDB CCL v24.1.0",
        &["--target-kind", "yugabytedb", "--batch-rows", "500"],
    );
    assert!(
        err.contains("warning: --target-kind yugabytedb but the server's version()")
            && err.contains("looks like cockroachdb"),
        "{err}"
    );
    assert!(err.contains("batches of 500 records"), "{err}");
    assert_eq!(simple(&seen).len(), 5, "{seen:?}");
}

/// A `--schema` script converted for a newer release than the server (its
/// `-- dumpshard-target:` line) is refused before anything runs; one for the server's own
/// release goes on (and fails later only because the fake server runs nothing).
#[test]
fn script_for_a_newer_release_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run_with = |header: &str| -> String {
        let s = dir.path().join("s.sql");
        std::fs::write(&s, format!("\\restrict k\n\n-- dumpshard-target: {header}\nCREATE TABLE public.a (x INT8);\n\n\\unrestrict k\n")).unwrap();
        let (port, seen, stop, h) = fake_server("CockroachDB CCL v24.3.2 (x86_64-pc-linux-gnu)");
        let mut c = Command::new(env!("CARGO_BIN_EXE_csvload"));
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("PG") {
                c.env_remove(k);
            }
        }
        c.env("HOME", dir.path())
            .args(["--io-timeout", "0", "--schema"])
            .arg(&s)
            .arg(format!(
                "host=127.0.0.1 port={port} user=u dbname=d sslmode=disable connect_timeout=10"
            ));
        let o = run(c);
        stop.store(true, Ordering::SeqCst);
        h.join().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let seen = seen.lock().unwrap().clone();
        let err = text(&o.stderr);
        if err.contains("was converted for") {
            assert!(
                !seen.iter().any(|(_, q)| q.contains("CREATE TABLE")),
                "{seen:?}"
            );
        }
        err
    };
    let err = run_with("cockroachdb:25.2");
    assert!(
        err.contains("s.sql was converted for cockroachdb:25.2")
            && err.contains("the server is cockroachdb:24.3")
            && err.contains("--target-version cockroachdb:24.3"),
        "{err}"
    );
    let err = run_with("cockroachdb:24.3");
    assert!(!err.contains("was converted for"), "{err}");
}

/// `--target-kind cockroachdb` against a real PostgreSQL: the CockroachDB load path runs for
/// real. 2,500 records load exactly in batches of 1,000 (three journal rows, each its own
/// transaction with its COPY), with `COPY ... WITH CSV NULL '\N'`, and without the advisory
/// lock: another session holding the table's lock does not make it wait (on CockroachDB that
/// lock is a stub, so the journal's primary key is what keeps two runs apart).
#[test]
fn cockroach_rules_load_postgresql_exactly_in_small_batches_without_advisory_lock() {
    let Some(pg) = Pg::start_with(&pg::Opts {
        settings: vec![("log_statement".into(), "all".into())],
        ..pg::Opts::default()
    }) else {
        return;
    };
    pg.createdb("c");
    pg.psql("c", "CREATE TABLE public.t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::new();
    for i in 1..=2500 {
        match i % 4 {
            0 => csv.push_str(&format!("{i},\\N\n")),
            1 => csv.push_str(&format!("{i},\"a,\"\"b\"\"\nc\"\n")),
            2 => csv.push_str(&format!("{i},\"\\N\"\n")),
            _ => csv.push_str(&format!("{i},\n")),
        }
    }
    std::fs::write(dir.path().join("t.csv"), &csv).unwrap();
    let m = manifest(dir.path(), "t.csv", 2500);
    // Another session holds the advisory lock a PostgreSQL-kind run would wait for.
    let j = dumpshard::tools::csvload::journal::Journal::parse("dumpshard.load_journal").unwrap();
    let key = dumpshard::tools::csvload::lock_key(&j, "public.t");
    let mut holder = pg
        .client("psql")
        .args(["-X", "-q", "-d", "c", "-c"])
        .arg(format!(
            "SELECT pg_advisory_lock({key}); SELECT pg_sleep(60)"
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while pg
        .psql(
            "c",
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted",
        )
        .trim()
        != "1"
    {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the lock holder never locked"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(["--target-kind", "cockroachdb", "-j", "2", "-m"])
        .arg(&m)
        .arg("dbname=c");
    let o = run(c);
    let _ = holder.kill();
    let _ = holder.wait();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: --target-kind cockroachdb but the server's version()"),
        "{err}"
    );
    assert!(err.contains("batches of 1000 records"), "{err}");
    assert!(!err.contains("being loaded by another"), "{err}");
    assert_eq!(
        pg.psql(
            "c",
            "SELECT string_agg(records::text, ',' ORDER BY byte_start) FROM dumpshard.load_journal"
        )
        .trim(),
        "1000,1000,500"
    );
    // Every value exactly: NULL, the text \N, quotes, a comma and a newline, the empty
    // unquoted field as the empty string (the NULL token is \N).
    let got = pg.psql(
        "c",
        "SELECT count(*) FILTER (WHERE id % 4 = 0 AND v IS NULL) || ' ' || \
                count(*) FILTER (WHERE id % 4 = 1 AND v = E'a,\"b\"\\nc') || ' ' || \
                count(*) FILTER (WHERE id % 4 = 2 AND v = E'\\\\N') || ' ' || \
                count(*) FILTER (WHERE id % 4 = 3 AND v = '') FROM public.t",
    );
    assert_eq!(got.trim(), "625 625 625 625");
    // The statements the server ran: the keyword form of COPY, each inside BEGIN ... COMMIT.
    let log = pg.server_log();
    let copy = r#"COPY "public"."t" ("id", "v") FROM STDIN WITH CSV NULL E'\\N'"#;
    assert_eq!(log.matches(copy).count(), 3, "{log}");
    assert!(!log.contains("FORMAT csv"), "{log}");

    // --truncate: CockroachDB's TRUNCATE is not transactional, so the journal rows are
    // forgotten first, in their own statement, then the table is emptied outside any BEGIN.
    pg.psql("c", "INSERT INTO public.t VALUES (9999, 'stray')");
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(["--target-kind", "cockroachdb", "--truncate", "-m"])
        .arg(&m)
        .arg("dbname=c");
    let o = run(c);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        pg.psql("c", "SELECT count(*) || ' ' || max(id) FROM public.t")
            .trim(),
        "2500 2500"
    );
    let log = pg.server_log();
    let stmts: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("LOG:  statement: ") || l.contains("LOG:  execute "))
        .collect();
    let at = stmts
        .iter()
        .position(|l| l.contains(r#"TRUNCATE "public"."t""#))
        .expect("a TRUNCATE");
    assert!(
        stmts[at - 1].contains(r#"DELETE FROM "dumpshard"."load_journal""#),
        "{:?}",
        &stmts[at.saturating_sub(3)..at + 1]
    );
}

/// `--target-kind yugabytedb` against PostgreSQL: the kind's session statement is refused
/// (PostgreSQL has no such setting) and csvload stops with exit 2, naming the statement and
/// the server's words, before loading anything.
#[test]
fn yugabyte_setting_refused_in_words() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("y");
    pg.psql("y", "CREATE TABLE public.t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), "1,a\n").unwrap();
    let m = manifest(dir.path(), "t.csv", 1);
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(["--target-kind", "yugabytedb", "-m"])
        .arg(&m)
        .arg("dbname=y");
    let o = run(c);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "--target-kind yugabytedb (SET yb_default_copy_from_rows_per_transaction = 0)"
        ) && err.contains("42704"),
        "{err}"
    );
    assert_eq!(pg.psql("y", "SELECT count(*) FROM public.t").trim(), "0");
}

/// Two runs at once on one table with `--target-kind cockroachdb` (no advisory lock, as on
/// CockroachDB): what keeps them apart is the journal's primary key. Against PostgreSQL with
/// a table that has no key of its own (so a duplicate would stay): each run ends with exit 0
/// or stops in words, a rerun completes, and every record is in the table exactly once.
#[test]
fn cockroach_rules_two_runs_at_once_load_each_record_once() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("r");
    pg.psql("r", "CREATE TABLE public.t (id int, v text)");
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for f in 0..2 {
        let mut csv = String::new();
        for i in 0..3000 {
            csv.push_str(&format!("{},x\n", f * 3000 + i));
        }
        let name = format!("t{f}.csv");
        std::fs::write(dir.path().join(&name), csv).unwrap();
        files.push(name);
    }
    let j = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": files.iter().map(|f| serde_json::json!({
            "schema": "public", "name": "t", "file": f,
            "columns": [{"name": "id", "type": "integer", "not_null": false},
                        {"name": "v", "type": "text", "not_null": false}],
            "rows": 3000, "bytes": 0, "header": false, "null": "",
        })).collect::<Vec<_>>()
    });
    let m = dir.path().join("m.json");
    std::fs::write(&m, j.to_string()).unwrap();
    let cmd = || {
        let mut c = pg.csvload(pg::SUPERUSER);
        c.args([
            "--target-kind",
            "cockroachdb",
            "--batch-rows",
            "100",
            "-j",
            "2",
            "-m",
        ])
        .arg(&m)
        .arg("dbname=r");
        c
    };
    let a = std::thread::spawn({
        let c = cmd();
        move || run(c)
    });
    let b = run(cmd());
    let a = a.join().unwrap();
    for o in [&a, &b] {
        let err = text(&o.stderr);
        match o.status.code() {
            Some(0) => {}
            // The other run committed a batch this one had sent too, or changed the table
            // between this run's count and its journal read: stopped, nothing twice.
            Some(2) => assert!(
                err.contains("another loader committed this batch")
                    || err.contains("journal \"dumpshard\".\"load_journal\" accounts for"),
                "{err}"
            ),
            c => panic!("exit {c:?}: {err}"),
        }
    }
    let o = run(cmd());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        pg.psql(
            "r",
            "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || min(id) || ' ' || max(id) \
             FROM public.t"
        )
        .trim(),
        "6000 6000 0 5999"
    );
}

/// `--schema` under each kind's rules against PostgreSQL, with a script whose second statement
/// fails: PostgreSQL's (one transaction, as `psql -1`) leave nothing of it; CockroachDB's (each
/// statement on its own, since DDL there is not transactional) leave the first statement done
/// and, as for PostgreSQL, no journal row, so the script is not taken as run.
#[test]
fn scripts_in_one_transaction_or_statement_by_statement() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.sql");
    std::fs::write(
        &script,
        "CREATE TABLE public.a (x int);\nCREATE TABLE public.b (x no_such_type);\n",
    )
    .unwrap();
    for (kind, db, a_exists) in [("postgresql", "p", "0"), ("cockroachdb", "k", "1")] {
        pg.createdb(db);
        let mut c = pg.csvload(pg::SUPERUSER);
        c.args(["--target-kind", kind, "--schema"])
            .arg(&script)
            .arg(format!("dbname={db}"));
        let o = run(c);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{kind}: {err}");
        assert!(
            err.contains("s.sql:2:") && err.contains("no_such_type"),
            "{kind}: {err}"
        );
        assert_eq!(
            pg.psql(
                db,
                "SELECT count(*) FROM pg_class WHERE oid = to_regclass('public.a')"
            )
            .trim(),
            a_exists,
            "{kind}"
        );
        assert_eq!(
            pg.psql(
                db,
                "SELECT count(*) FROM dumpshard.load_journal WHERE table_name = ''"
            )
            .trim(),
            "0",
            "{kind}"
        );
    }
}
