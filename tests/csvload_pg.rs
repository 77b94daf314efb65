//! csvload against a real PostgreSQL server (tests/support/pg.rs; skipped loudly when none
//! can be started, a failure with DUMPSHARD_REQUIRE_PG=1): the fixture database migrated
//! exactly, a refused row named by file and line with nothing of its batch committed, reruns
//! after SIGKILL and after a server crash that load exactly what is missing, and
//! verification that notices a deleted row.

use crate::support::cli;
use crate::support::pg;

use crate::support::cmd::{self, TIMEOUT, Within};
use cli::Input;
use pg::{Pg, fingerprints};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn csvload_cmd(pg: &Pg, args: &[&str]) -> Command {
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(args);
    c
}

fn csvload(pg: &Pg, args: &[&str]) -> Output {
    csvload_cmd(pg, args).output_within().expect("run csvload")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts that the run `out` exited `code` and that `said` (its stdout or stderr) contains
/// `needle`; a failure shows both streams.
fn expect_saying(out: &Output, code: i32, said: &[u8], needle: &str) {
    let both = || {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    };
    assert_eq!(out.status.code(), Some(code), "{}", both());
    assert!(text(said).contains(needle), "wanted {needle:?}\n{}", both());
}

/// csvload's arguments that load conversion `conv` (schema, data, post-data) into database
/// `b` with two jobs, `load_args` before the database.
fn load_args_of<'a>(conv: &'a cli::Converted, load_args: &[&'a str]) -> Vec<&'a str> {
    let (m, s, p) = (
        conv.manifest_path.to_str().unwrap(),
        conv.schema.to_str().unwrap(),
        conv.post.to_str().unwrap(),
    );
    let mut args = vec!["--schema", s, "--post-data", p, "-m", m, "-j", "2"];
    args.extend(load_args);
    args.push("dbname=b");
    args
}

fn migrate_fixture(extra: &[&str], load_args: &[&str]) {
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path("nasty.sql");
    let conv = cli::convert(&dump, Input::Path, extra);
    // The data has what psql's \copy cannot load: a line that is exactly `\.` inside a
    // quoted value, and one-column NULL rows (blank lines).
    let mut all = Vec::new();
    for f in cli::list_files(&conv.csv_dir) {
        all.extend(cli::read_maybe_gz(&conv.csv_dir.join(f)));
    }
    assert!(
        all.windows(4).any(|w| w == b"\n\\.\n" || w == b"\n\\.\r"),
        "fixture lost its \\. line"
    );
    pg.createdb("a");
    pg.psql_file("a", &dump);
    pg.createdb("b");
    let m = conv.manifest_path.to_str().unwrap();
    let args = load_args_of(&conv, load_args);
    let out = csvload(&pg, &args);
    assert!(
        out.status.success(),
        "csvload failed: {}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );
    assert!(text(&out.stdout).contains(" ok"), "{}", text(&out.stdout));
    assert!(!text(&out.stdout).contains("DIFFERENT"));
    // The per-table summary ends with the line every tool prints (issue 12).
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&conv.manifest_path).unwrap()).unwrap();
    let rows: u64 = manifest["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["rows"].as_u64().unwrap())
        .sum();
    let rows = indicatif::HumanCount(rows).to_string();
    let err = text(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("csvload: read "))
        .unwrap_or_else(|| panic!("no summary line: {err}"));
    assert!(
        line.contains(&format!(", {rows} records; wrote "))
            && line.contains(&format!(" tables, {rows} records, "))
            && line.contains("; 0 refused; ")
            && line.ends_with(" MB/s"),
        "{line}"
    );
    let (fa, fb) = (fingerprints(&pg, "a"), fingerprints(&pg, "b"));
    assert_eq!(fa, fb, "the migrated database differs from a psql restore");
    // The same command again: every phase and file is in the journal; nothing changes.
    let out = csvload(&pg, &args);
    expect_saying(&out, 0, &out.stderr, "already run");
    // Nothing loaded, so no speed claimed (it said `0 rows` at `44.3 MB/s`).
    let err = text(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("csvload: read "))
        .unwrap();
    assert!(
        line.contains("read 0 B, 0 records") && !line.contains("MB/s"),
        "{line}"
    );
    assert_eq!(fingerprints(&pg, "b"), fb, "a rerun changed the data");
    // -q: nothing on stderr (and -v is accepted).
    let mut q = args.clone();
    q.insert(0, "-q");
    let out = csvload(&pg, &q);
    assert!(out.status.success(), "-q: {}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "-q");
    q[0] = "-v";
    assert!(csvload(&pg, &q).status.success());

    // The same dump converted again into another directory: the schema (a fresh \restrict
    // key, another path) is recognised as already run, and the tables, whose rows the journal
    // records as loaded from the first conversion's files, are refused rather than loaded a
    // second time.
    let again = cli::convert(&dump, Input::Path, extra);
    assert_ne!(
        std::fs::read(&again.schema).unwrap(),
        std::fs::read(&conv.schema).unwrap(),
        "expected a fresh \\restrict key"
    );
    let out = csvload(&pg, &load_args_of(&again, load_args));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("schema.sql: already run"), "{err}");
    assert!(
        err.contains("this run does not load") && err.contains(m.trim_end_matches("manifest.json")),
        "{err}"
    );
    assert_eq!(
        fingerprints(&pg, "b"),
        fb,
        "a second conversion's load changed the data"
    );
}

#[test]
fn fixture_migrates_exactly() {
    migrate_fixture(&[], &[]);
}

#[test]
fn fixture_migrates_exactly_header_null_gzip_batches() {
    migrate_fixture(
        &["--header", "--null", "\\N", "--gzip"],
        &["--batch-rows", "2"],
    );
}

fn write_manifest(dir: &Path, table: &str, file: &str, rows: u64) -> PathBuf {
    let m = format!(
        r#"{{"format":"dumpshard-manifest","version":1,"tables":[{{"schema":"public","name":"{table}",
        "file":"{file}","columns":[{{"name":"id","type":"integer","not_null":true}},
        {{"name":"note","type":"text","not_null":false}},{{"name":"v","type":"integer","not_null":false}}],
        "primary_key":["id"],"rows":{rows},"bytes":0,"header":false,"null":""}}]}}"#
    );
    let p = dir.join(format!("{table}.json"));
    std::fs::write(&p, m).unwrap();
    p
}

/// Records 1..=10, each spanning two lines; record 7's `v` is `bad` when given.
fn bad_csv(bad: &str) -> String {
    (1..=10)
        .map(|k| {
            let v = if k == 7 {
                bad.to_string()
            } else {
                k.to_string()
            };
            format!("{k},\"first\nsecond {k}\",{v}\n")
        })
        .collect()
}

/// Database `db` with an empty table `t` (id, note, v), and in a new directory `t.csv`
/// holding `bad_csv(bad)` and its manifest: (directory, CSV, manifest).
fn table_t_setup(pg: &Pg, db: &str, bad: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    pg.createdb(db);
    pg.psql(db, "CREATE TABLE t (id int PRIMARY KEY, note text, v int)");
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, bad_csv(bad)).unwrap();
    let m = write_manifest(dir.path(), "t", "t.csv", 10);
    (dir, csv, m)
}

#[test]
fn refused_row_named_then_fixed_and_verified() {
    let Some(pg) = Pg::start() else { return };
    let (_dir, csv, m) = table_t_setup(&pg, "d", "x");
    let m = m.to_str().unwrap();
    let args = ["-m", m, "--batch-rows", "3", "dbname=d"];

    // Rows the journal does not account for: refused, and --truncate empties the table.
    pg.psql("d", "INSERT INTO t VALUES (99, 'stray', 0)");
    let out = csvload(&pg, &args);
    expect_saying(&out, 2, &out.stderr, "--truncate");

    let mut targs = vec!["--truncate"];
    targs.extend(args);
    let out = csvload(&pg, &targs);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    eprintln!("{err}");
    // Record 7 starts on line 13; the server's message comes along.
    assert!(
        err.contains(&format!("{}:13: (record 7, byte ", csv.display())),
        "{err}"
    );
    assert!(
        err.contains("invalid input syntax for type integer"),
        "{err}"
    );
    // Batches 1-3 and 4-6 committed; nothing of the batch 7-9.
    assert_eq!(
        pg.psql("d", "SELECT count(*), max(id) FROM t").trim(),
        "6|6"
    );
    assert_eq!(
        pg.psql(
            "d",
            "SELECT count(*), sum(records) FROM dumpshard.load_journal WHERE table_name = 'public.t'"
        )
        .trim(),
        "2|6"
    );

    // Fix the row and rerun the same command: only what is missing is loaded.
    std::fs::write(&csv, bad_csv("7")).unwrap();
    let out = csvload(&pg, &targs);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        pg.psql("d", "SELECT count(*), count(DISTINCT id), sum(v) FROM t")
            .trim(),
        "10|10|55"
    );
    assert_eq!(
        pg.psql("d", "SELECT note FROM t WHERE id = 7").trim(),
        "first\nsecond 7"
    );

    // A file changed inside the loaded part is refused, not loaded twice.
    let out = csvload(&pg, &["-m", m, "--batch-rows", "4", "dbname=d"]);
    assert!(
        out.status.success(),
        "batch size changes nothing once loaded"
    );
    std::fs::write(&csv, bad_csv("7").replace("second 2", "SECOND 2")).unwrap();
    let out = csvload(&pg, &args);
    expect_saying(&out, 2, &out.stderr, "changed");
    std::fs::write(&csv, bad_csv("7")).unwrap();

    // Verification notices a row deleted after the load.
    let out = csvload(&pg, &["--verify-only", "-m", m, "dbname=d"]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    pg.psql("d", "DELETE FROM t WHERE id = 5");
    let out = csvload(&pg, &["--verify-only", "-m", m, "dbname=d"]);
    assert_eq!(out.status.code(), Some(1));
    let so = text(&out.stdout);
    assert!(
        so.lines().any(|l| l.starts_with("public.t")
            && l.contains(" 10 ")
            && l.contains(" 9 ")
            && l.ends_with("DIFFERENT")),
        "{so}"
    );
}

#[test]
fn meta_commands_refused_before_anything_runs() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("e");
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("pwned");
    let schema = dir.path().join("schema.sql");
    // (schema.sql, what stderr says besides the line, why table x must not exist): a meta
    // command is refused before anything runs; a failing statement is named by line, and
    // the phase leaves nothing behind.
    let cases = [
        (
            format!(
                "\\restrict k\nCREATE TABLE x (a int);\n\\! touch {}\n\\unrestrict k\n",
                marker.display()
            ),
            "refused",
            "nothing ran",
        ),
        (
            "CREATE TABLE x (a int);\n\nCREATE TABLE y (a nosuchtype);\n".to_string(),
            "nosuchtype",
            "rolled back",
        ),
    ];
    for (sql, says, why) in cases {
        std::fs::write(&schema, sql).unwrap();
        let out = csvload(&pg, &["--schema", schema.to_str().unwrap(), "dbname=e"]);
        assert_eq!(out.status.code(), Some(2), "{why}");
        let err = text(&out.stderr);
        assert!(err.contains("schema.sql:3:") && err.contains(says), "{err}");
        assert!(!marker.exists());
        assert!(pg.try_psql("e", "SELECT * FROM x").is_err(), "{why}");
    }
}

// --- interruptions ------------------------------------------------------------------------

const BIG_ROWS: u64 = 300_000;
const BIG_FILES: u64 = 4;

/// A table `big` and a csvsplit manifest of BIG_FILES shards (one gzip-compressed).
fn big_setup(pg: &Pg, db: &str, dir: &Path) -> PathBuf {
    pg.createdb(db);
    pg.psql(db, "CREATE TABLE big (id bigint PRIMARY KEY, payload text)");
    let per = BIG_ROWS / BIG_FILES;
    let mut shards = Vec::new();
    for f in 0..BIG_FILES {
        let mut s = String::new();
        for id in f * per + 1..=(f + 1) * per {
            s.push_str(&format!("{id},\"p{id}\n,\"\"{}\"\"\"\n", id * 7919 % 10007));
        }
        let name = if f == 0 {
            let name = format!("s{f}.csv.gz");
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut enc, s.as_bytes()).unwrap();
            std::fs::write(dir.join(&name), enc.finish().unwrap()).unwrap();
            name
        } else {
            let name = format!("s{f}.csv");
            std::fs::write(dir.join(&name), s).unwrap();
            name
        };
        shards.push(format!(
            r#"{{"shard":{f},"file":"{name}","records":{per},"first_key":["{}"],"last_key":["{}"]}}"#,
            f * per + 1,
            (f + 1) * per
        ));
    }
    let m = dir.join("shards.json");
    std::fs::write(
        &m,
        format!(
            r#"{{"format":"dumpshard-csvsplit","version":1,"header":false,"null":"",
                "key":{{"columns":[{{"column":"id","field":1,"type":"int","desc":false}}],"nulls":null}},
                "sorted_within_shards":true,"non_overlapping":true,"shards":[{}]}}"#,
            shards.join(",")
        ),
    )
    .unwrap();
    m
}

/// The table equals its source exactly, with no duplicate, and the journal is one run of
/// batches per file accounting for every row.
fn big_check(pg: &Pg, db: &str) {
    assert_eq!(
        pg.psql(
            db,
            "SELECT count(*), count(DISTINCT id), min(id), max(id), \
             count(*) FILTER (WHERE payload <> format(E'p%s\\n,\"%s\"', id, id * 7919 % 10007)) \
             FROM big"
        )
        .trim(),
        format!("{BIG_ROWS}|{BIG_ROWS}|1|{BIG_ROWS}|0")
    );
    assert_eq!(
        pg.psql(
            db,
            "SELECT sum(records), count(DISTINCT file), \
                    count(*) FILTER (WHERE prev IS NOT NULL AND prev <> byte_start), \
                    count(*) FILTER (WHERE last) \
             FROM (SELECT *, lag(byte_end) OVER (PARTITION BY file ORDER BY byte_start) AS prev \
                   FROM dumpshard.load_journal WHERE table_name = 'public.big') j"
        )
        .trim(),
        format!("{BIG_ROWS}|{BIG_FILES}|0|{BIG_FILES}")
    );
}

/// Rows of `big` the journal in `db` records as loaded (0 while the server cannot answer).
fn journaled(pg: &Pg, db: &str) -> u64 {
    pg.try_psql(
        db,
        "SELECT coalesce(sum(records), 0) FROM dumpshard.load_journal \
         WHERE table_name = 'public.big'",
    )
    .ok()
    .and_then(|s| s.trim().parse().ok())
    .unwrap_or(0)
}

/// csvload's arguments that load table `big` from manifest `m` with `jobs` and `batch_rows`.
fn big_args<'a>(m: &'a Path, jobs: &'a str, batch_rows: &'a str) -> Vec<&'a str> {
    let m = m.to_str().unwrap();
    vec![
        "-m",
        m,
        "-t",
        "public.big",
        "-j",
        jobs,
        "--batch-rows",
        batch_rows,
    ]
}

/// How long csvload may take to end once the server it loads into went away.
const GONE_TIMEOUT: Duration = Duration::from_secs(120);

#[test]
fn sigkill_at_six_moments_then_rerun_loads_exactly_once() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = big_setup(&pg, "k", dir.path());
    let args = [big_args(&m, "3", "1000"), vec!["-q", "dbname=k"]].concat();
    // Kill moments tied to progress, not to the clock: each run is killed once the journal
    // has passed the next eighth of the rows, plus a pseudo-random 0-40 ms (fixed seed) so
    // the kill falls anywhere in a batch: inside a COPY, between COPY and COMMIT, between
    // files.
    let journaled = || journaled(&pg, "k");
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut kills = 0;
    for k in 1..=6 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = csvload_cmd(&pg, &args).spawn().unwrap();
        while child.try_wait().unwrap().is_none() && journaled() < k * BIG_ROWS / 8 {
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(seed % 40));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        let _ = cmd::wait_timeout(&mut child, TIMEOUT, "csvload");
    }
    let out = csvload(&pg, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    big_check(&pg, "k");
    assert!(
        kills >= 3,
        "only {kills} of 6 kills landed before the load ended"
    );
    let so = text(&out.stdout);
    assert!(so.is_empty(), "-q prints nothing when all is well: {so}");

    // Verification also compares the key range: a changed key with the same row count.
    let verify = [
        "--verify-only",
        "-m",
        args[1],
        "-t",
        "public.big",
        "dbname=k",
    ];
    let out = csvload(&pg, &verify);
    expect_saying(&out, 0, &out.stdout, "public.big max(id)");
    pg.psql(
        "k",
        &format!("UPDATE big SET id = id * 10 WHERE id = {BIG_ROWS}"),
    );
    let out = csvload(&pg, &verify);
    assert_eq!(out.status.code(), Some(1));
    let so = text(&out.stdout);
    assert!(
        so.lines().any(|l| l.starts_with("public.big max(id)")
            && l.contains(&format!(" {BIG_ROWS} "))
            && l.ends_with("DIFFERENT")),
        "{so}"
    );
    assert!(
        so.lines()
            .any(|l| l.starts_with("public.big ") && l.ends_with(" ok")),
        "row count still ok: {so}"
    );
}

#[test]
fn server_crash_mid_load_then_rerun_completes() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = big_setup(&pg, "c", dir.path());
    let args = [
        big_args(&m, "2", "3000"),
        vec!["--retries", "0", "dbname=c"],
    ]
    .concat();
    let mut child = csvload_cmd(&pg, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Crash the server once a quarter of the rows is journaled (progress, not the clock).
    let journaled = || journaled(&pg, "c");
    while child.try_wait().unwrap().is_none() && journaled() < BIG_ROWS / 4 {
        std::thread::sleep(Duration::from_millis(10));
    }
    pg.restart_immediate();
    let st = cmd::wait_timeout(
        &mut child,
        GONE_TIMEOUT,
        "csvload after the server went away",
    );
    // Commits may be lost in the crash (synchronous_commit is off): rows and journal together.
    let after = journaled();
    assert!(
        after < BIG_ROWS,
        "the load ended before the crash; nothing was tested"
    );
    assert_eq!(
        st.code(),
        Some(2),
        "a lost connection is exit 2 with --retries 0"
    );
    // With retries (the default), a crash mid-load is survived in the same run: the
    // workers reconnect once the server is back, and the journal keeps it exactly once.
    // Commits must survive the crash for that (the test server runs with
    // synchronous_commit off, which may lose acknowledged commits, as an asynchronous
    // failover would; verification would then say so, and a rerun repairs it).
    pg.psql("c", "ALTER DATABASE c SET synchronous_commit = on");
    let args: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| *a != "--retries" && *a != "0")
        .collect();
    let child = csvload_cmd(&pg, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while journaled() < after + BIG_ROWS / 4 {
        std::thread::sleep(Duration::from_millis(10));
    }
    pg.restart_immediate();
    let o = cmd::wait_output_timeout(child, GONE_TIMEOUT, "csvload after the server went away");
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("; retry 1 of 5"), "{err}");
    big_check(&pg, "c");
}

#[test]
fn url_database_and_unloadable_options() {
    let Some(pg) = Pg::start() else { return };
    let (_dir, _csv, m) = table_t_setup(&pg, "u", "7");
    let sock: String = pg
        .socket_dir()
        .to_str()
        .unwrap()
        .replace('%', "%25")
        .replace('/', "%2F");
    let url = format!("postgresql://{}@{sock}:{}/u", pg::SUPERUSER, pg.port());
    let mut c = csvload_cmd(&pg, &["-m", m.to_str().unwrap(), &url]);
    c.env_remove("PGHOST")
        .env_remove("PGPORT")
        .env_remove("PGUSER");
    let out = c.output_within().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(pg.psql("u", "SELECT count(*) FROM t").trim(), "10");
    // libpq uses no TLS on a Unix socket, whatever sslmode says (TLS: tests/csvload_conn.rs).
    let out = csvload(
        &pg,
        &["-m", m.to_str().unwrap(), "dbname=u sslmode=require"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn refused_row_stops_other_tables_unless_keep_going() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("g");
    pg.psql(
        "g",
        "CREATE TABLE t1 (id int PRIMARY KEY, note text, v int); \
         CREATE TABLE t2 (id int PRIMARY KEY, note text, v int)",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t1.csv"), bad_csv("x")).unwrap();
    std::fs::write(dir.path().join("t2.csv"), bad_csv("7")).unwrap();
    let (m1, m2) = (
        write_manifest(dir.path(), "t1", "t1.csv", 10),
        write_manifest(dir.path(), "t2", "t2.csv", 10),
    );
    let base = [
        "-m",
        m1.to_str().unwrap(),
        "-m",
        m2.to_str().unwrap(),
        "-j",
        "1",
        "dbname=g",
    ];
    // One job: t1 fails first, and t2 is not started.
    let mut kg = vec!["--keep-going"];
    kg.extend(base);
    // (args, rows in t1|t2 after the run, why); each run exits 1.
    let runs: [(&[&str], &str, &str); 2] = [
        (
            &base,
            "0|0",
            "one file, one transaction: nothing of t1; t2 not started",
        ),
        (&kg, "0|10", "--keep-going loads t2"),
    ];
    for (args, rows, why) in runs {
        let out = csvload(&pg, args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_eq!(
            pg.psql(
                "g",
                "SELECT (SELECT count(*) FROM t1), (SELECT count(*) FROM t2)"
            )
            .trim(),
            rows,
            "{why}"
        );
    }
}
