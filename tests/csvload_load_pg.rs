//! csvload's load path against a real PostgreSQL (tests/support/pg.rs): a target whose
//! database and role set `standard_conforming_strings = off`, a hostile table name under
//! `--truncate`, csvsplit's `--no-repeat-header` shards, shards edited after the split, refused
//! rows named through quoted newlines, two runs on one table, Ctrl-C and a rerun, and a load
//! through a TCP proxy that cuts its connections.

use crate::support::pg;

use crate::support::cmd::{self, Within};
use crate::support::proxy::{Fault, Proxy};
use pg::Pg;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn csvload_cmd(pg: &Pg, args: &[&str]) -> Command {
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// Runs csvload to its end (at most two minutes).
fn csvload(pg: &Pg, args: &[&str]) -> Output {
    let child = csvload_cmd(pg, args).spawn().expect("run csvload");
    finish(child, 120)
}

/// Waits for `child` at most `secs` seconds (killing it then, and failing the test) and
/// collects its output.
fn finish(child: Child, secs: u64) -> Output {
    cmd::wait_output_timeout(child, Duration::from_secs(secs), "csvload")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A pgdump2csv manifest of one table `schema.name` with columns (id int, v text).
fn manifest(
    dir: &Path,
    schema: &str,
    name: &str,
    file: &str,
    rows: u64,
    null_token: &str,
) -> PathBuf {
    let j = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{
            "schema": schema, "name": name, "file": file,
            "columns": [{"name": "id", "type": "integer", "not_null": true},
                        {"name": "v", "type": "text", "not_null": false}],
            "rows": rows, "bytes": 0, "header": false, "null": null_token,
        }]
    });
    static N: AtomicUsize = AtomicUsize::new(0);
    let p = dir.join(format!("m{}.json", N.fetch_add(1, Ordering::SeqCst)));
    std::fs::write(&p, j.to_string()).unwrap();
    p
}

/// Issue 19 item 1: on a database and a role with `standard_conforming_strings = off`,
/// `NULL '\N'` became `NULL 'N'` (NULLs loaded as the text `\N`, the text `N` as NULL,
/// exit 0), and `--truncate` built its DELETE with doubled quotes only, so a hostile table
/// name ran a DROP TABLE. Failed before the fix (victim dropped, values swapped).
#[test]
fn standard_conforming_strings_off_loads_exactly_and_executes_nothing() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("s");
    pg.psql(
        "s",
        "ALTER DATABASE s SET standard_conforming_strings = off; \
         CREATE ROLE loader SUPERUSER LOGIN; \
         ALTER ROLE loader SET standard_conforming_strings = off; \
         ALTER ROLE loader SET DateStyle = 'SQL, DMY'",
    );
    // The hostile name: under standard_conforming_strings = off, `\'` inside '...' is a
    // quote, so doubling quotes alone let the rest run as SQL.
    let hostile = "x\\'; DROP TABLE public.victim; --";
    pg.psql(
        "s",
        &format!(
            "CREATE TABLE public.victim (a int); \
             CREATE TABLE public.t (id int PRIMARY KEY, v text); \
             CREATE TABLE public.{} (id int PRIMARY KEY, v text); \
             INSERT INTO public.{} VALUES (99, 'stray')",
            pg::quote_ident(hostile),
            pg::quote_ident(hostile)
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    // \N unquoted is NULL; "\N" quoted is the text \N; N is the text N.
    let csv = "1,\\N\n2,\"\\N\"\n3,N\n4,a\\b\n5,\n";
    std::fs::write(dir.path().join("t.csv"), csv).unwrap();
    let m = manifest(dir.path(), "public", "t", "t.csv", 5, "\\N");
    let h = manifest(dir.path(), "public", hostile, "t.csv", 5, "\\N");
    let db = "dbname=s user=loader";
    let check = |table: &str| {
        let q = format!(
            "SET standard_conforming_strings = on; \
             SELECT string_agg(id || ':' || coalesce(v, '<NULL>'), ' ' ORDER BY id) FROM public.{}",
            pg::quote_ident(table)
        );
        pg.psql("s", &q).trim().to_string()
    };
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-q", db]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(check("t"), "1:<NULL> 2:\\N 3:N 4:a\\b 5:");
    let out = csvload(&pg, &["-m", h.to_str().unwrap(), "--truncate", "-q", db]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        pg.psql(
            "s",
            "SELECT count(*) FROM pg_class WHERE relname = 'victim'"
        )
        .trim(),
        "1",
        "the hostile table name ran SQL"
    );
    assert_eq!(check(hostile), "1:<NULL> 2:\\N 3:N 4:a\\b 5:");
    // The journal names it exactly (bind parameters, not text).
    assert_eq!(
        pg.psql(
            "s",
            "SELECT count(*) FROM dumpshard.load_journal WHERE table_name LIKE 'public.x%DROP%'"
        )
        .trim(),
        "1"
    );
}

/// csvsplit's own shards of `rows` records (`id,v` with a header line), written with `args`.
fn split(dir: &Path, rows: u64, args: &[&str]) -> PathBuf {
    let mut s = String::from("id,v\n");
    for i in 1..=rows {
        s.push_str(&format!("{i},\"v{i}\nsecond line\"\n"));
    }
    let input = dir.join("in.csv");
    std::fs::write(&input, s).unwrap();
    let m = dir.join("split.json");
    let out = Command::new(env!("CARGO_BIN_EXE_csvsplit"))
        .args(args)
        .arg("-o")
        .arg(dir.join("part-{n}.csv"))
        .arg("--write-manifest")
        .arg(&m)
        .arg(&input)
        .stdin(Stdio::null())
        .output_within()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    m
}

/// Issue 19 item 6: `--header --no-repeat-header` shards lost the first record of every
/// shard after the first (97 of 100 rows, journal "done"). Failed before the fix.
#[test]
fn no_repeat_header_shards_load_every_record() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("h");
    pg.psql("h", "CREATE TABLE t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let m = split(
        dir.path(),
        100,
        &["--header", "--no-repeat-header", "-n", "4"],
    );
    let out = csvload(
        &pg,
        &["-m", m.to_str().unwrap(), "-t", "public.t", "dbname=h"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        pg.psql("h", "SELECT count(*), min(id), max(id) FROM t")
            .trim(),
        "100|1|100"
    );
}

/// Issue 19 item 7: a shard edited after the split (same record count) loaded and verified
/// "ok". Now refused before any of its rows commits, also when it spans several
/// transactions (a check pass before the first). Failed before the fix (exit 0).
#[test]
fn shard_changed_after_split_refused_before_any_row_commits() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("c");
    pg.psql("c", "CREATE TABLE t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let m = split(dir.path(), 40, &["--header", "-n", "2"]);
    let shard = dir.path().join("part-1.csv");
    let s = std::fs::read_to_string(&shard).unwrap();
    std::fs::write(&shard, s.replace("v30\n", "v3O\n")).unwrap();
    for batch in [None, Some("3")] {
        pg.psql(
            "c",
            "TRUNCATE t; DROP TABLE IF EXISTS dumpshard.load_journal",
        );
        let mut args = vec!["-m", m.to_str().unwrap(), "-t", "public.t", "-j", "1"];
        if let Some(b) = batch {
            args.extend(["--batch-rows", b]);
        }
        args.push("dbname=c");
        let out = csvload(&pg, &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("part-1.csv") && err.contains("CRC-32"),
            "{err}"
        );
        // Shard 0 loaded; nothing of shard 1.
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&m).unwrap()).unwrap();
        let first = j["shards"][0]["records"].as_u64().unwrap();
        assert!(first < 30);
        assert_eq!(
            pg.psql("c", "SELECT count(*), max(id) FROM t").trim(),
            format!("{first}|{first}"),
            "{batch:?}"
        );
    }
}

/// Issue 19 item 13: the server's `line N` counts physical lines of the COPY data; with
/// quoted newlines before the bad row it named a good row. Now mapped through the batch.
/// Failed before the fix (named record 9 for the bad record 8).
#[test]
fn refused_row_named_by_record_through_quoted_newlines() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("r");
    pg.psql("r", "CREATE TABLE t (id int PRIMARY KEY, note text, v int)");
    let dir = tempfile::tempdir().unwrap();
    // Records 1..=10; records 2, 3 and 7 hold a quoted newline; record 8's v is bad.
    let mut csv = String::new();
    let mut bad_line = 0;
    let mut bad_byte = 0;
    let mut line = 1;
    for k in 1..=10 {
        let note = if matches!(k, 2 | 3 | 7) {
            "\"two\nlines\""
        } else {
            "one"
        };
        let v = if k == 8 {
            "x".to_string()
        } else {
            k.to_string()
        };
        if k == 8 {
            bad_line = line;
            bad_byte = csv.len();
        }
        let rec = format!("{k},{note},{v}\n");
        line += rec.matches('\n').count();
        csv.push_str(&rec);
    }
    let f = dir.path().join("t.csv");
    std::fs::write(&f, &csv).unwrap();
    let m = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{"schema": "public", "name": "t", "file": "t.csv",
            "columns": [{"name": "id", "type": "integer", "not_null": true},
                        {"name": "note", "type": "text", "not_null": false},
                        {"name": "v", "type": "integer", "not_null": false}],
            "rows": 10, "bytes": 0, "header": false, "null": ""}]
    });
    let mp = dir.path().join("m.json");
    std::fs::write(&mp, m.to_string()).unwrap();
    for batch in ["100", "3"] {
        let out = csvload(
            &pg,
            &[
                "-m",
                mp.to_str().unwrap(),
                "--batch-rows",
                batch,
                "--truncate",
                "dbname=r",
            ],
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let want = format!(
            "csvload: {}:{bad_line}: (record 8, byte {bad_byte}) table public.t: row refused: ",
            f.display()
        );
        assert!(err.contains(&want), "batch {batch}: want {want}\n{err}");
        assert!(err.contains("SQLSTATE 22P02"), "{err}");
    }
}

/// Issue 19 item 15: a second run on a table being loaded waits for it and says so (before,
/// it died on a raw duplicate key of the journal); Ctrl-C says what was committed and the
/// rerun that it resumes.
#[test]
fn second_run_waits_in_words_and_interrupt_then_resume_say_what() {
    // Issue 34 item 10: no step waits for a time to pass. The lock holder keeps its lock
    // until the test releases it (not for a 2-second sleep the csvload might start after), and
    // the load is held at a known row by a trigger (not interrupted "after some batches" that
    // a fast machine had all committed before the Ctrl-C).
    let Some(pg) = Pg::start() else { return };
    pg.createdb("w");
    pg.psql("w", "CREATE TABLE t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let rows = 60_000u64;
    let mut csv = String::new();
    for i in 1..=rows {
        csv.push_str(&format!("{i},v{i}\n"));
    }
    std::fs::write(dir.path().join("t.csv"), &csv).unwrap();
    let m = manifest(dir.path(), "public", "t", "t.csv", rows, "");
    let ms = m.to_str().unwrap();
    let advisory = |granted: bool| -> String {
        pg.psql(
            "w",
            &format!(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted = {granted}"
            ),
        )
        .trim()
        .to_string()
    };
    // A psql session that takes an advisory lock and keeps it until its stdin closes.
    let hold = |sql: String| -> Child {
        let mut c = pg.client("psql");
        c.args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "w"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null());
        let mut child = c.spawn().unwrap();
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        stdin.write_all(sql.as_bytes()).unwrap();
        stdin.flush().unwrap();
        child
    };
    let release = |mut child: Child| {
        drop(child.stdin.take());
        cmd::wait_timeout(&mut child, Duration::from_secs(30), "the lock holder");
    };

    // Another session holds the table's lock, as a running csvload does, until csvload says
    // it waits and waits on the server.
    let j = dumpshard::tools::csvload::journal::Journal::parse("dumpshard.load_journal").unwrap();
    let key = dumpshard::tools::csvload::lock_key(&j, "public.t");
    let holder = hold(format!("SELECT pg_advisory_lock({key});\n"));
    cmd::wait_until("the holder's lock", &|| advisory(true) == "1");
    let child = csvload_cmd(&pg, &["-m", ms, "-q", "dbname=w"])
        .spawn()
        .unwrap();
    cmd::wait_until("csvload waiting for the lock", &|| advisory(false) == "1");
    release(holder);
    let out = finish(child, 120);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("table public.t is being loaded by another csvload (server pid")
            && err.contains("waiting"),
        "{err}"
    );
    assert_eq!(pg.psql("w", "SELECT count(*) FROM t").trim(), "60000");

    // Ctrl-C while a batch waits: a trigger makes row 30000's insert wait for an advisory
    // lock the test holds, so the batches before it are committed and the load cannot end
    // before the interrupt. Says what, naming the table; the rerun says it resumes.
    pg.psql(
        "w",
        "TRUNCATE t; TRUNCATE dumpshard.load_journal;
         CREATE FUNCTION hold_row() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.id = 30000 THEN
             PERFORM pg_advisory_lock(3434, 3434); PERFORM pg_advisory_unlock(3434, 3434);
           END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER hold_row BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION hold_row();",
    );
    let gate = hold("SELECT pg_advisory_lock(3434, 3434);\n".into());
    cmd::wait_until("the gate's lock", &|| advisory(true) == "1");
    let args = ["-m", ms, "--batch-rows", "500", "-j", "1", "dbname=w"];
    let child = csvload_cmd(&pg, &args).spawn().unwrap();
    let journaled = || -> u64 {
        pg.psql(
            "w",
            "SELECT coalesce(sum(records), 0) FROM dumpshard.load_journal",
        )
        .trim()
        .parse()
        .unwrap()
    };
    // Row 30000 is in the 60th batch of 500: 59 batches commit, then the load waits.
    cmd::wait_until("59 batches committed and the 60th waiting", &|| {
        journaled() == 29_500 && advisory(false) != "0"
    });
    // SAFETY: a signal to our own child, not yet waited for.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let out = finish(child, 60);
    release(gate);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("csvload: interrupted loading table public.t: this run committed 29500 rows"),
        "{err}"
    );
    let done = journaled();
    assert_eq!(done, 29_500);
    let out = csvload(&pg, &args);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "csvload: resuming: journal \"dumpshard\".\"load_journal\" records {done} of the {rows} rows"
        )),
        "{err}"
    );
    assert!(err.contains("resuming at line"), "{err}");
    assert_eq!(
        pg.psql("w", "SELECT count(*), count(DISTINCT id) FROM t")
            .trim(),
        "60000|60000"
    );
}

/// Issue 20 item 3: a load through a proxy that cuts connections mid-COPY, at once after
/// connecting, and loses a COMMIT's answer completes with exit 0 and exactly the rows (no
/// duplicate: the unanswered COMMIT is found in the journal), each retry said once.
#[test]
fn cut_connections_retried_exactly_once() {
    let Some(pg) = Pg::start_tcp() else { return };
    pg.createdb("p");
    pg.psql("p", "CREATE TABLE t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let (files, per) = (2u64, 100_000u64);
    let mut ms = Vec::new();
    for f in 0..files {
        let mut csv = String::with_capacity(per as usize * 24);
        for i in f * per + 1..=(f + 1) * per {
            csv.push_str(&format!("{i},\"value {i}\"\n"));
        }
        let name = format!("t{f}.csv");
        std::fs::write(dir.path().join(&name), csv).unwrap();
        let m = serde_json::json!({
            "format": "dumpshard-manifest", "version": 1,
            "tables": [{"schema": "public", "name": "t", "file": name,
                "columns": [{"name": "id", "type": "integer", "not_null": true},
                            {"name": "v", "type": "text", "not_null": false}],
                "rows": per, "bytes": 0, "header": false, "null": ""}]
        });
        let p = dir.path().join(format!("m{f}.json"));
        std::fs::write(&p, m.to_string()).unwrap();
        ms.push(p);
    }
    // Connection 0 is the main one; 1 and 2 the two workers; 3.. their reconnections.
    let faults = vec![
        Fault::None,
        Fault::CutAfter(700_000),
        Fault::LoseCommitReply(3),
        Fault::CutAfter(300),
        Fault::CutAfter(1_200_000),
    ];
    let proxy = Proxy::start(pg.port(), faults);
    let port = proxy.port();
    let db = format!("host=127.0.0.1 port={port} dbname=p user=postgres sslmode=disable");
    let out = csvload(
        &pg,
        &[
            "-m",
            ms[0].to_str().unwrap(),
            "-m",
            ms[1].to_str().unwrap(),
            "-j",
            "2",
            "--batch-rows",
            "20000",
            "-q",
            &db,
        ],
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    eprintln!("{err}");
    let retries = err.lines().filter(|l| l.contains("; retry ")).count();
    let cut = proxy.hits();
    assert!(cut >= 3, "only {cut} cuts happened: {err}");
    assert_eq!(retries, cut, "one retry said per cut: {err}");
    assert_eq!(
        pg.psql(
            "p",
            "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t"
        )
        .trim(),
        format!("{0}|{0}|1|{0}", files * per)
    );
    assert_eq!(
        pg.psql(
            "p",
            "SELECT sum(records), count(*) FILTER (WHERE last) FROM dumpshard.load_journal"
        )
        .trim(),
        format!("{}|{files}", files * per)
    );
}

/// Issue 36 item 3: csvload sends PostgreSQL COPY text, rewritten from the CSV. The values
/// must be those PostgreSQL's own `COPY ... (FORMAT csv, NULL ...)` reads from the same file:
/// nasty fields (quotes opening mid-field, `""`, backslashes, tabs, CR, LF, `\.` and `\N` as
/// data, UTF-8, empty quoted and unquoted fields) under three NULL tokens, LF and CR LF files,
/// each loaded both ways and compared value by value, NULL apart from ''.
#[test]
fn text_wire_loads_what_copy_csv_reads() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("w");
    pg.psql("w", "ALTER DATABASE w SET log_statement = 'all'");
    let dir = tempfile::tempdir().unwrap();
    // Raw CSV fields, written as they stand (not through a CSV writer), so quotes also open
    // in the middle of a field as PostgreSQL allows.
    let pieces: &[&str] = &[
        "",
        "\"\"",
        "a",
        "\"a,b\"",
        "\"x\"\"y\"",
        "ab\"c,d\"e",
        "\\",
        "\\N",
        "\"\\N\"",
        "NULL",
        "\"NULL\"",
        "\"\\.\"",
        "a\\.b",
        "\"t\tab\"",
        "t\tab",
        "\"l\nf\"",
        "\"c\rr\"",
        "\"cr\r\nlf\"",
        "é€😀",
        "\"é,\"\"€\"\"\"",
        " sp ",
        "\"\"\"\"",
        "a\"\"b\"\"c",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut rows = Vec::new();
    for id in 1..=3000u32 {
        let f: Vec<&str> = (0..3)
            .map(|_| pieces[next() as usize % pieces.len()])
            .collect();
        rows.push(format!("{id},{},{},{}", f[0], f[1], f[2]));
    }
    for (k, (tok, eol)) in [("", "\n"), ("\\N", "\n"), ("NULL", "\r\n"), ("", "\r\n")]
        .into_iter()
        .enumerate()
    {
        let csv = rows.join(eol) + eol;
        let file = format!("t{k}.csv");
        let path = dir.path().join(&file);
        std::fs::write(&path, &csv).unwrap();
        pg.psql(
            "w",
            "DROP TABLE IF EXISTS public.t, public.r; \
             CREATE TABLE public.t (id int PRIMARY KEY, a text, b text, c text); \
             CREATE TABLE public.r (LIKE public.t)",
        );
        // The referee: the server's own CSV reading of the file.
        pg.copy_in_server(
            "w",
            "public.r",
            &path,
            &format!("FORMAT csv, NULL {}", pg::quote_literal(tok)),
        );
        let j = serde_json::json!({
            "format": "dumpshard-manifest", "version": 1,
            "tables": [{"schema": "public", "name": "t", "file": file,
                "columns": [{"name": "id", "type": "integer", "not_null": true},
                            {"name": "a", "type": "text", "not_null": false},
                            {"name": "b", "type": "text", "not_null": false},
                            {"name": "c", "type": "text", "not_null": false}],
                "rows": rows.len(), "bytes": csv.len(), "header": false, "null": tok}]
        });
        let m = dir.path().join(format!("m{k}.json"));
        std::fs::write(&m, j.to_string()).unwrap();
        for batch in ["100000", "7"] {
            // Each run loads the whole file (a table its journal holds completely resumes,
            // loading nothing).
            pg.psql(
                "w",
                "TRUNCATE public.t; DROP SCHEMA IF EXISTS dumpshard CASCADE",
            );
            let out = csvload(
                &pg,
                &[
                    "-m",
                    m.to_str().unwrap(),
                    "--batch-rows",
                    batch,
                    "--truncate",
                    "dbname=w",
                ],
            );
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            let differ = pg.psql(
                "w",
                "SELECT count(*) FROM public.t FULL JOIN public.r USING (id) \
                 WHERE t.id IS NULL OR r.id IS NULL \
                 OR (t.a, t.b, t.c) IS DISTINCT FROM (r.a, r.b, r.c)",
            );
            let nulls = pg.psql(
                "w",
                "SELECT count(*) FILTER (WHERE a IS NULL) || ' ' || count(*) FILTER (WHERE a = '') \
                 FROM public.r",
            );
            assert_eq!(
                (
                    differ.trim(),
                    pg.psql("w", "SELECT count(*) FROM public.t").trim()
                ),
                ("0", "3000"),
                "NULL {tok:?}, line ending {eol:?}, batches of {batch}; r's NULL and '' in a: {nulls}"
            );
        }
        // The COPY the server ran: text format.
        assert!(
            pg.server_log()
                .contains(r#"COPY "public"."t" ("id", "a", "b", "c") FROM STDIN"#)
        );
    }
}

/// Issue 36 (the load beside its check, examples/migrate.mk): with `--commit-gate G`, every
/// file's rows reach the server and every COMMIT waits for G. Both files held there (two
/// sessions idle in their transactions, the table still empty to others), an empty G is no
/// verdict; `1` rolls both back (exit 1, naming G; no rows and no journal rows), and the
/// rerun with `0` loads every row exactly once. A load with G holding `0` from the start
/// commits as without one.
#[test]
fn commit_gate_holds_every_commit_until_it_says() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("g");
    pg.psql("g", "CREATE TABLE t (id int PRIMARY KEY, v text)");
    let dir = tempfile::tempdir().unwrap();
    let m = split(dir.path(), 400, &["--header", "-n", "2"]);
    let gate = dir.path().join("check.status");
    let (ms, gs) = (m.to_str().unwrap(), gate.to_str().unwrap());
    let args = [
        "-m",
        ms,
        "-t",
        "public.t",
        "-j",
        "2",
        "-q",
        "--commit-gate",
        gs,
        "dbname=g",
    ];
    let count = || pg.psql("g", "SELECT count(*) FROM t").trim().to_string();
    let held = || {
        pg.psql(
            "g",
            "SELECT count(*) FROM pg_stat_activity WHERE datname = 'g' \
             AND state = 'idle in transaction'",
        )
        .trim()
            == "2"
    };

    // The check fails: an empty gate first (a writer that has not finished), then `1`.
    std::fs::write(&gate, "").unwrap();
    let child = csvload_cmd(&pg, &args).spawn().unwrap();
    cmd::wait_until("both files held at their COMMIT", &held);
    assert_eq!(count(), "0", "committed before the gate said");
    std::thread::sleep(Duration::from_millis(100));
    assert!(held(), "an empty gate file was taken as a verdict");
    std::fs::write(&gate, "1\n").unwrap();
    let out = finish(child, 120);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("not committed (rolled back)") && err.contains(gs) && err.contains("`1`"),
        "{err}"
    );
    assert_eq!(count(), "0");
    assert_eq!(
        pg.psql(
            "g",
            "SELECT count(*) FROM dumpshard.load_journal WHERE table_name = 'public.t'"
        )
        .trim(),
        "0"
    );

    // The rerun after a passed check: held until `0`, then every row once.
    std::fs::remove_file(&gate).unwrap();
    let child = csvload_cmd(&pg, &args).spawn().unwrap();
    cmd::wait_until("both files held at their COMMIT", &held);
    assert_eq!(count(), "0", "committed before the gate said");
    std::fs::write(dir.path().join("g.new"), "0\n").unwrap();
    std::fs::rename(dir.path().join("g.new"), &gate).unwrap();
    let out = finish(child, 120);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        pg.psql(
            "g",
            "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t"
        )
        .trim(),
        "400|400|1|400"
    );

    // A gate that already says 0: a plain load (in batches too).
    pg.psql("g", "TRUNCATE t; DROP TABLE dumpshard.load_journal");
    let mut batched = args.to_vec();
    batched.splice(0..0, ["--batch-rows", "7"]);
    let out = csvload(&pg, &batched);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(count(), "400");
}

/// Issue 36 (the migration's CPU): `--verify none` leaves the count to a later
/// verification, as migrate.mk's loads leave it to the one after the post-data. A table
/// whose trigger adds a row for every row copied passes the load's own accounting (each COPY
/// takes every record) but not a count: the default load says so (exit 1), `--verify none`
/// sends no count (exit 0, none in the server's log), and the later `--verify-only` finds
/// the difference. `--verify-only --verify none` would compare nothing: a usage error.
#[test]
fn verify_none_leaves_the_count_to_a_later_verification() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("vn");
    pg.psql(
        "vn",
        "CREATE TABLE public.t (id int, v text); \
         CREATE FUNCTION public.twice() RETURNS trigger LANGUAGE plpgsql AS \
         $$BEGIN IF NEW.v IS DISTINCT FROM 'dup' THEN \
         INSERT INTO public.t VALUES (NEW.id, 'dup'); END IF; RETURN NEW; END$$; \
         CREATE TRIGGER twice BEFORE INSERT ON public.t FOR EACH ROW EXECUTE FUNCTION public.twice(); \
         ALTER DATABASE vn SET log_statement = 'all'",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), "1,a\n2,b\n3,c\n").unwrap();
    let m = manifest(dir.path(), "public", "t", "t.csv", 3, "");
    let m = m.to_str().unwrap();
    let db = "dbname=vn";
    let rows = || {
        pg.psql("vn", "SELECT count(*) FROM public.t")
            .trim()
            .to_string()
    };
    // Counts of the table sent by a run (the one before the load is in every run: it checks
    // the table against the journal).
    let counts = |from: usize| {
        pg.server_log()[from..]
            .matches("SELECT count(*) FROM ONLY \"public\".\"t\"")
            .count()
    };

    let before = pg.server_log().len();
    let out = csvload(&pg, &["-m", m, "-q", db]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("public.t"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(rows(), "6");
    assert_eq!(counts(before), 2);

    pg.psql("vn", "TRUNCATE public.t; DROP SCHEMA dumpshard CASCADE");
    let before = pg.server_log().len();
    let out = csvload(&pg, &["-m", m, "--verify", "none", "-q", db]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(rows(), "6");
    assert_eq!(counts(before), 1, "no count after the load");

    let out = csvload(&pg, &["-m", m, "--verify-only", "-q", db]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = csvload(&pg, &["-m", m, "--verify-only", "--verify", "none", db]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("compares nothing"),
        "{}",
        text(&out.stderr)
    );
    // Given twice, the last --verify counts (migrate.mk passes `--verify none` before the
    // user's LOAD_FLAGS).
    let out = csvload(
        &pg,
        &[
            "-m",
            m,
            "--verify-only",
            "--verify",
            "none",
            "--verify",
            "count",
            "-q",
            db,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // Usage errors come before any connection: said even when no server answers.
    let nowhere = "host=127.0.0.1 port=1 dbname=vn connect_timeout=2";
    for (args, says) in [
        (
            vec!["--verify-only", "--verify", "none"],
            "compares nothing",
        ),
        (
            vec!["--verify", "content", "--append"],
            "cannot with --append",
        ),
    ] {
        let mut all = vec!["-m", m];
        all.extend(args);
        all.push(nowhere);
        let out = csvload(&pg, &all);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
    }
}

/// Issue 36: a table loaded whole in one transaction, empty and locked by nobody else, is
/// loaded by `COPY .. FREEZE` after a TRUNCATE in that transaction (its pages all-frozen at
/// once: no hint-bit writes or anti-wraparound vacuum later). Never where the TRUNCATE could
/// destroy or run anything or wait: a table holding rows (`--append`, the row kept), one a
/// foreign key points at, one with a TRUNCATE trigger (never fired) or another trigger,
/// one in a publication, a parent of another table (its row kept), one another session
/// holds a lock on (loaded without waiting for it), one loaded from two files; each of
/// those loads all its rows, unfrozen.
#[test]
fn an_empty_table_alone_loads_frozen_and_nothing_is_truncated_that_holds_or_runs_anything() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("fz");
    pg.psql(
        "fz",
        "CREATE EXTENSION pg_visibility; \
         CREATE TABLE t (id int, v text); \
         CREATE TABLE held (id int, v text); INSERT INTO held VALUES (-1, 'kept'); \
         CREATE TABLE referenced (id int PRIMARY KEY, v text); \
         CREATE TABLE refs (id int REFERENCES referenced); \
         CREATE TABLE fired (id int); \
         CREATE TABLE trig (id int, v text); \
         CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS \
           $$BEGIN INSERT INTO fired VALUES (1); RETURN NULL; END$$; \
         CREATE TRIGGER tt AFTER TRUNCATE ON trig FOR EACH STATEMENT EXECUTE FUNCTION note(); \
         CREATE TABLE published (id int, v text); \
         SET client_min_messages = error; CREATE PUBLICATION p FOR TABLE published; \
         CREATE TABLE locked (id int, v text); \
         CREATE TABLE two (id int, v text); \
         CREATE TABLE parent (id int, v text); CREATE TABLE child () INHERITS (parent); \
         INSERT INTO child VALUES (9, 'child'); \
         CREATE TABLE audited (id int, v text); \
         CREATE FUNCTION pass() RETURNS trigger LANGUAGE plpgsql AS \
           $$BEGIN RETURN NEW; END$$; \
         CREATE TRIGGER ta BEFORE INSERT ON audited FOR EACH ROW EXECUTE FUNCTION pass()",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("d.csv"), "1,a\n2,\n3,\"c, d\"\n").unwrap();
    let db = "dbname=fz";
    // (all-visible pages, all-frozen pages, rows)
    let state = |t: &str| {
        pg.psql(
            "fz",
            &format!(
                "SELECT all_visible || ',' || all_frozen || ',' || (SELECT count(*) FROM {t}) \
                 FROM pg_visibility_map_summary('{t}')"
            ),
        )
        .trim()
        .to_string()
    };
    // The table's file: a TRUNCATE gives it a new one (a row-by-row COPY, as with a row
    // trigger, freezes its rows without marking the pages, so the map alone cannot tell).
    let file = |t: &str| pg.psql("fz", &format!("SELECT pg_relation_filenode('{t}')"));
    // Loads table t; whether it was truncated.
    let load = |t: &str, extra: &[&str]| {
        let before = file(t);
        let m = manifest(dir.path(), "public", t, "d.csv", 3, "");
        let mut args = vec!["-m", m.to_str().unwrap(), "-q"];
        args.extend(extra);
        args.push(db);
        let out = csvload(&pg, &args);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", text(&out.stderr));
        file(t) != before
    };

    assert!(load("t", &[]));
    assert_eq!(state("t"), "1,1,3", "loaded frozen");

    assert!(!load("held", &["--append"]), "held truncated");
    assert_eq!(state("held"), "0,0,4");
    assert_eq!(
        pg.psql("fz", "SELECT v FROM held WHERE id = -1").trim(),
        "kept"
    );

    assert!(!load("referenced", &[]), "referenced truncated");
    assert_eq!(state("referenced"), "0,0,3");

    assert!(!load("trig", &[]), "trig truncated");
    assert_eq!(state("trig"), "0,0,3");
    assert_eq!(pg.psql("fz", "SELECT count(*) FROM fired").trim(), "0");

    assert!(!load("published", &[]), "published truncated");
    assert_eq!(state("published"), "0,0,3");

    // A parent of another table (its children's rows are not its own: ONLY finds it empty).
    assert!(!load("parent", &[]), "parent truncated");
    assert_eq!(state("parent"), "0,0,4");
    assert_eq!(pg.psql("fz", "SELECT v FROM child").trim(), "child");

    // Any trigger of its own (an extension's table has one): loaded as it would be without.
    assert!(!load("audited", &[]), "audited truncated");
    assert_eq!(state("audited"), "0,0,3");

    // Another session holds a lock on the table for as long as the load takes: the load
    // does not wait for it (ACCESS SHARE lets COPY in; the LOCK .. NOWAIT for the TRUNCATE
    // fails and is rolled back).
    let mut holder = pg
        .client("psql")
        .args(["-X", "-q", "-d", "fz", "-c"])
        .arg("BEGIN; LOCK TABLE locked IN ACCESS SHARE MODE; SELECT pg_sleep(600)")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let held_lock = || {
        pg.psql(
            "fz",
            "SELECT count(*) FROM pg_locks WHERE relation = 'locked'::regclass \
             AND mode = 'AccessShareLock' AND granted AND pid <> pg_backend_pid()",
        )
        .trim()
            == "1"
    };
    cmd::wait_until("the other session's lock", &held_lock);
    assert!(!load("locked", &[]), "locked truncated");
    assert!(held_lock(), "the load waited for the other session");
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(state("locked"), "0,0,3");

    // Two files of one table (csvsplit's shards): neither loads it whole.
    let m = split(dir.path(), 6, &["--header", "-n", "2"]);
    let before = file("two");
    let out = csvload(
        &pg,
        &["-m", m.to_str().unwrap(), "-t", "public.two", "-q", db],
    );
    assert_eq!(file("two"), before, "two truncated");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(state("two"), "0,0,6");
}

/// A pgdump2csv manifest of `public.NAME` (file NAME.csv) with `columns` (name, type) and
/// the primary key `pk`.
fn keyed_manifest(
    dir: &Path,
    name: &str,
    columns: &[(&str, &str)],
    pk: &[&str],
    rows: u64,
) -> PathBuf {
    let cols: Vec<_> = columns
        .iter()
        .map(|(n, t)| serde_json::json!({"name": n, "type": t, "not_null": false}))
        .collect();
    let j = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{
            "schema": "public", "name": name, "file": format!("{name}.csv"),
            "columns": cols, "primary_key": pk,
            "rows": rows, "bytes": 0, "header": false, "null": "",
        }]
    });
    let p = dir.join(format!("{name}.json"));
    std::fs::write(&p, j.to_string()).unwrap();
    p
}

/// Records of a CSV (newlines outside quotes).
fn records(csv: &str) -> u64 {
    let mut quoted = false;
    let mut n = 0;
    for b in csv.bytes() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => n += 1,
            _ => {}
        }
    }
    n
}

/// Issue 36 (the check where the load reads): `--check-records` refuses, before anything
/// commits, what csvcheck refuses and COPY reads its own way (`1,"ab"c` is `abc` to it) or
/// a duplicate primary key the table has no index for yet (`--build-indexes` builds it
/// later), on the binary COPY path and on COPY text (a column without a binary encoder),
/// named by the file's line and record. Without the option the same files load: what the
/// option adds. A value only the server reads (` 7` for an integer) sends the file again as
/// text, whose records are not duplicates of themselves; a clean file loads as before.
#[test]
fn check_records_refuses_form_and_duplicate_keys_before_any_commit() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("cr");
    pg.psql(
        "cr",
        "CREATE TABLE b (id numeric, v text); CREATE TABLE x (id int, a inet)",
    );
    let dir = tempfile::tempdir().unwrap();
    let rows = |n: u64, f: &dyn Fn(u64) -> String| (1..=n).map(f).collect::<String>();
    let count = |t: &str| {
        pg.psql("cr", &format!("SELECT count(*) FROM {t}"))
            .trim()
            .to_string()
    };
    let load = |m: &Path, t: &str, check: bool| {
        let mut args = vec!["-m", m.to_str().unwrap(), "-t", t, "-j", "1", "-q"];
        if check {
            args.push("--check-records");
        }
        args.push("dbname=cr");
        csvload(&pg, &args)
    };
    // (table, columns, CSV, what --check-records says, whether COPY alone takes the file)
    let good_b = |i: u64| format!("{i},\"v {i}, \"\"quoted\"\"\nsecond line\"\n");
    let good_x = |i: u64| format!("{i},10.0.0.{}\n", i % 250);
    let b_cols = vec![("id", "numeric"), ("v", "text")];
    let x_cols = vec![("id", "integer"), ("a", "inet")];
    type Case<'a> = (
        &'a str,
        &'a [(&'a str, &'a str)],
        String,
        &'a [&'a str],
        bool,
    );
    let cases: Vec<Case> = vec![
        (
            "b",
            &b_cols,
            format!(
                "{}7,\"ab\"c\n{}",
                rows(6, &good_b),
                rows(3, &|i| good_b(i + 100))
            ),
            &[
                "b.csv:13: (record 7, byte 192) table public.b: record refused (--check-records): \
              text after the closing quote of a field at byte 6 of the record",
            ],
            true,
        ),
        (
            "b",
            &b_cols,
            format!("{}\"5.0\",dup\n", rows(300, &good_b)),
            &[
                "b.csv:601: (record 301, byte 10584)",
                "table public.b: record refused (--check-records): duplicate key (id) = (5.0), \
                 first seen in record 5\n",
            ],
            true,
        ),
        (
            "x",
            &x_cols,
            format!("{}9,10.0.0.1,extra\n", rows(8, &good_x)),
            &[
                "x.csv:9: (record 9, byte 88) table public.x: record refused (--check-records): \
              3 fields, expected 2",
            ],
            false,
        ),
        (
            "x",
            &x_cols,
            format!("{}0004,10.1.1.1\n", rows(8, &good_x)),
            &[
                "x.csv:9: (record 9, byte 88) table public.x: record refused (--check-records): \
              duplicate key (id) = (0004), first seen in record 4",
            ],
            true,
        ),
    ];
    for (t, cols, csv, says, server_takes) in &cases {
        let m = keyed_manifest(dir.path(), t, cols, &["id"], records(csv));
        std::fs::write(dir.path().join(format!("{t}.csv")), csv).unwrap();
        let out = load(&m, t, true);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{t}: {err}");
        for w in *says {
            assert!(err.contains(w), "{t}: wanted {w:?} in:\n{err}");
        }
        assert_eq!(count(t), "0", "{t}: committed: {err}");
        // Without the option COPY takes the file whole, or refuses it in its own words.
        let out = load(&m, t, false);
        assert_eq!(
            out.status.success(),
            *server_takes,
            "{t}: {}",
            text(&out.stderr)
        );
        pg.psql(
            "cr",
            &format!("TRUNCATE {t}; DELETE FROM dumpshard.load_journal"),
        );
    }
    // ` 7`: binary COPY leaves it to the text input; the records already sent go again.
    let spaced = rows(400, &|i| {
        if i == 200 {
            "\" 200\",x\n".to_string()
        } else {
            format!("{i},x\n")
        }
    });
    for (t, csv) in [
        ("b", spaced),
        ("b", rows(5000, &good_b)),
        ("x", rows(500, &good_x)),
    ] {
        let n = csv
            .lines()
            .filter(|l| !l.starts_with("second line"))
            .count() as u64;
        let cols = if t == "b" { &b_cols } else { &x_cols };
        let m = keyed_manifest(dir.path(), t, cols, &["id"], n);
        std::fs::write(dir.path().join(format!("{t}.csv")), &csv).unwrap();
        let out = load(&m, t, true);
        assert!(out.status.success(), "{t}: {}", text(&out.stderr));
        assert_eq!(count(t), n.to_string());
        pg.psql(
            "cr",
            &format!("TRUNCATE {t}; DELETE FROM dumpshard.load_journal"),
        );
    }
}

/// Issue 62: `--check-records` on a file loaded in parts (`-j 3 --parts-from`): the parts
/// share one set of keys and commit together, so a duplicate key in the last part of the
/// first part's record is refused and no part commits, and a record of the wrong form in a
/// middle part rolls back the parts that were clean. A clean file loads whole in three parts,
/// each journaled.
#[test]
fn check_records_in_parts_commits_no_part_of_a_refused_file() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("cp");
    pg.psql("cp", "CREATE TABLE b (id integer, v text)");
    let dir = tempfile::tempdir().unwrap();
    let n = 3000u64;
    let row = |i: u64| format!("{i},\"value {i}, with \"\"quotes\"\"\"\n");
    let clean: String = (1..=n).map(row).collect();
    let dup: String = (1..n).map(row).collect::<String>() + "5,duplicate of the fifth\n";
    let bad_form: String = (1..=n)
        .map(|i| {
            if i == n / 2 {
                format!("{i},\"ab\"c\n")
            } else {
                row(i)
            }
        })
        .collect();
    let count = || pg.psql("cp", "SELECT count(*) FROM b").trim().to_string();
    let load = |m: &Path| {
        csvload(
            &pg,
            &[
                "-m",
                m.to_str().unwrap(),
                "-t",
                "b",
                "-j",
                "3",
                "--parts-from",
                "1K",
                "--check-records",
                "-q",
                "dbname=cp",
            ],
        )
    };
    for (csv, says) in [
        (
            &dup,
            "record refused (--check-records): duplicate key (id) = (5",
        ),
        (
            &bad_form,
            "record refused (--check-records): text after the closing quote",
        ),
    ] {
        let m = keyed_manifest(
            dir.path(),
            "b",
            &[("id", "integer"), ("v", "text")],
            &["id"],
            n,
        );
        std::fs::write(dir.path().join("b.csv"), csv).unwrap();
        let out = load(&m);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "wanted {says:?} in:\n{err}");
        assert_eq!(count(), "0", "a part committed: {err}");
    }
    let m = keyed_manifest(
        dir.path(),
        "b",
        &[("id", "integer"), ("v", "text")],
        &["id"],
        n,
    );
    std::fs::write(dir.path().join("b.csv"), &clean).unwrap();
    let out = load(&m);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(count(), n.to_string());
    assert_eq!(
        pg.psql(
            "cp",
            "SELECT count(*) FROM dumpshard.load_journal WHERE file LIKE '%#bytes=%'"
        )
        .trim(),
        "3"
    );
}
