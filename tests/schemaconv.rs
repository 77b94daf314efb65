//! pgdump2csv's schema for the target (--target-kind, -O, -x, --yb-sharding, --strict,
//! --report): golden outputs per target for the fixture dump, every statement accounted for in
//! the report, the converted schema loaded with the data into a real PostgreSQL and compared
//! with the source, the README walkthrough as a non-superuser with -O -x, the HTML report in
//! headless Chromium, and a property test that primary keys survive conversion.

use crate::support::cli::{self, Input};
use crate::support::cmd::Cmd;
use crate::support::cmd::{Within, wait_output_timeout};
use crate::support::pg::{self, Pg, fingerprints};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/schemaconv")
}

/// The file's text with the random `\restrict` keys replaced by a fixed one.
fn normalized(path: &Path) -> String {
    let t = std::fs::read_to_string(path).unwrap();
    t.lines()
        .map(|l| {
            if l.starts_with("\\restrict ") {
                "\\restrict KEY"
            } else if l.starts_with("\\unrestrict ") {
                "\\unrestrict KEY"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Compares with the golden file, or writes it under DUMPSHARD_BLESS.
pub fn golden(name: &str, got: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("DUMPSHARD_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with DUMPSHARD_BLESS=1", path.display()));
    if want != got {
        let diff: Vec<String> = want
            .lines()
            .zip(got.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(5)
            .map(|(i, (a, b))| format!("line {}:\n  want {a}\n  got  {b}", i + 1))
            .collect();
        panic!(
            "{} differs from the output (rerun with DUMPSHARD_BLESS=1 if intended):\n{}",
            path.display(),
            diff.join("\n")
        );
    }
}

fn report_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Converts the nasty dump with `extra` options and a JSON report.
fn convert(extra: &[&str]) -> (cli::Converted, serde_json::Value) {
    let dump = cli::dump_path("nasty.sql");
    let tmp = tempfile::tempdir().unwrap();
    let rep = tmp.path().join("report.json");
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["--report", rep.to_str().unwrap()]);
    let conv = cli::convert(&dump, Input::Path, &args);
    let r = report_json(&rep);
    (conv, r)
}

const TARGETS: &[(&str, &[&str])] = &[
    ("postgresql-O-x", &["-O", "-x"]),
    ("cockroachdb", &["--target-kind", "cockroachdb"]),
    ("yugabytedb-hash", &["--target-kind", "yugabytedb"]),
    (
        "yugabytedb-range",
        &["--target-kind", "yugabytedb", "--yb-sharding", "range"],
    ),
];

/// The statements of the dump that are not data, by line, read by the library's own
/// statement reader (not the converter).
fn ddl_lines(dump: &Path) -> Vec<u64> {
    use dumpshard::pg::dump::ddl::{Stmt, StreamStatements};
    let f = std::fs::File::open(dump).unwrap();
    let mut s = StreamStatements::new(f, "dump");
    let mut lines = Vec::new();
    while let Some((_, st)) = s.next_stmt().unwrap() {
        if !matches!(st, Stmt::Copy { .. } | Stmt::Insert) {
            lines.push(s.last_pos().line);
        }
    }
    lines
}

/// Golden schema, post-data and report per target; every statement of the dump is in the
/// report once, and kept + rewritten + dropped + unknown = statements.
#[test]
fn golden_outputs_and_every_statement_accounted_for() {
    let want_lines = ddl_lines(&cli::dump_path("nasty.sql"));
    for (name, extra) in TARGETS {
        let (conv, r) = convert(extra);
        golden(&format!("{name}.schema.sql"), &normalized(&conv.schema));
        golden(&format!("{name}.post.sql"), &normalized(&conv.post));
        // The report, one line per statement: line, file, action, rules, kind, object.
        let summary: String = r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let rules: Vec<&str> = e["changes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["rule"].as_str().unwrap())
                    .collect();
                format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\n",
                    e["line"],
                    e["file"].as_str().unwrap(),
                    e["action"].as_str().unwrap(),
                    rules.join(","),
                    e["kind"].as_str().unwrap(),
                    e["object"].as_str().unwrap()
                )
            })
            .collect();
        golden(&format!("{name}.report.tsv"), &summary);
        let entries = r["entries"].as_array().unwrap();
        let lines: Vec<u64> = entries
            .iter()
            .map(|e| e["line"].as_u64().unwrap())
            .collect();
        assert_eq!(
            lines, want_lines,
            "{name}: the report's statements are the dump's"
        );
        let c = &r["counts"];
        let sum: u64 = ["kept", "rewritten", "dropped", "unknown"]
            .iter()
            .map(|k| c[k].as_u64().unwrap())
            .sum();
        assert_eq!(sum, r["statements"].as_u64().unwrap(), "{name}");
        assert_eq!(sum as usize, want_lines.len(), "{name}");
        for e in entries {
            let a = e["action"].as_str().unwrap();
            // Every decision but "unknown" names its rule and a versioned page.
            if a != "unknown" {
                let ch = e["changes"].as_array().unwrap();
                assert!(!ch.is_empty(), "{name}: {e}");
                for c in ch {
                    assert!(c["doc"].as_str().unwrap().starts_with("https://"), "{e}");
                }
            }
        }
    }
}

/// For CockroachDB and YugabyteDB every primary key is inline and none is left in post-data.
#[test]
fn primary_keys_inline_and_out_of_post_data() {
    for (name, extra) in &TARGETS[1..] {
        let (conv, r) = convert(extra);
        let post = std::fs::read_to_string(&conv.post).unwrap();
        assert!(!post.contains("PRIMARY KEY"), "{name}: {post}");
        let schema = std::fs::read_to_string(&conv.schema).unwrap();
        // As many keys inline as the dump added by ALTER TABLE (none of its tables declares
        // one in CREATE TABLE).
        // (A key of a table the release cannot take goes with the table, issue 59.)
        let added = r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                e["kind"] == "ALTER TABLE ADD PRIMARY KEY"
                    && e["changes"][0]["rule"]
                        .as_str()
                        .is_some_and(|r| r.ends_with("-pk-moved"))
            })
            .count();
        assert!(added > 20);
        assert_eq!(schema.matches(" PRIMARY KEY (").count(), added, "{name}");
        let dropped_pk = r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "ALTER TABLE ADD PRIMARY KEY")
            .all(|e| e["action"] == "dropped");
        assert!(dropped_pk, "{name}");
    }
}

/// Without options the output is the dump's DDL byte for byte, and every statement is kept.
#[test]
fn postgresql_default_is_unchanged() {
    let (conv, r) = convert(&[]);
    let (conv2, _) = convert(&["--target-kind", "postgresql"]);
    assert_eq!(normalized(&conv.schema), normalized(&conv2.schema));
    let dump = std::fs::read_to_string(cli::dump_path("nasty.sql")).unwrap();
    let schema = normalized(&conv.schema);
    // Every statement of the schema file is in the dump as written.
    for line in schema
        .lines()
        .filter(|l| l.starts_with("ALTER") || l.starts_with("CREATE"))
    {
        assert!(dump.contains(line), "{line}");
    }
    assert_eq!(r["counts"]["kept"], r["statements"]);
}

const PRIV_DUMP: &str = "\
SET statement_timeout = 0;
SET SESSION AUTHORIZATION 'alice';
CREATE TABLE public.t (id integer NOT NULL, v text);
ALTER TABLE public.t OWNER TO alice;
RESET SESSION AUTHORIZATION;
COPY public.t (id, v) FROM stdin;
1\ta
\\.
ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);
REVOKE ALL ON TABLE public.t FROM PUBLIC;
GRANT SELECT ON TABLE public.t TO bob;
ALTER DEFAULT PRIVILEGES FOR ROLE alice IN SCHEMA public GRANT SELECT ON TABLES TO bob;
";

/// -O and -x leave out exactly what pg_restore -O and -x leave out, in both files; without
/// them every statement stays.
#[test]
fn no_owner_no_privileges() {
    let d = tempfile::tempdir().unwrap();
    let dump = d.path().join("d.sql");
    std::fs::write(&dump, PRIV_DUMP).unwrap();
    let run = |extra: &[&str]| -> (String, String) {
        let s = d.path().join("s.sql");
        let p = d.path().join("p.sql");
        let _ = std::fs::remove_file(&s);
        let _ = std::fs::remove_file(&p);
        Cmd::new("pgdump2csv")
            .args(["--no-dump-check", "-q", "--write-schema"])
            .arg(&s)
            .arg("--write-post-data")
            .arg(&p)
            .args(extra)
            .arg(&dump)
            .ok();
        (
            std::fs::read_to_string(&s).unwrap(),
            std::fs::read_to_string(&p).unwrap(),
        )
    };
    let (s, p) = run(&[]);
    let all = s + &p;
    for w in [
        "OWNER TO",
        "SESSION AUTHORIZATION 'alice'",
        "GRANT",
        "REVOKE",
        "DEFAULT PRIVILEGES",
    ] {
        assert!(all.contains(w), "{w}");
    }
    let (s, p) = run(&["-O"]);
    let all = s + &p;
    assert!(
        !all.contains("OWNER TO") && !all.contains("SET SESSION AUTHORIZATION"),
        "{all}"
    );
    assert!(all.contains("GRANT SELECT") && all.contains("REVOKE"));
    let (s, p) = run(&["--no-owner", "--no-privileges"]);
    let all = s + &p;
    for w in [
        "OWNER TO",
        "SET SESSION AUTHORIZATION",
        "GRANT",
        "REVOKE",
        "DEFAULT PRIVILEGES",
    ] {
        assert!(!all.contains(w), "{w} left in:\n{all}");
    }
    assert!(all.contains("CREATE TABLE public.t") && all.contains("PRIMARY KEY (id)"));
    assert!(all.contains("-- pgdump2csv: statement dropped (rule no-privileges)"));
}

/// --strict: a target whose rules drop statements exits 2, after writing the report, and
/// writes no schema; with nothing dropped or unknown it succeeds.
#[test]
fn strict_refuses_drops_and_unknowns() {
    let d = tempfile::tempdir().unwrap();
    let (s, rep) = (d.path().join("s.sql"), d.path().join("r.json"));
    let run = Cmd::new("pgdump2csv")
        .args([
            "-q",
            "--strict",
            "--target-kind",
            "cockroachdb",
            "--write-schema",
        ])
        .arg(&s)
        .arg("--report")
        .arg(&rep)
        .arg(cli::dump_path("nasty.sql"))
        .expect(2);
    assert!(
        run.stderr_str().contains("--strict"),
        "{}",
        run.stderr_str()
    );
    assert!(!s.exists(), "schema written despite --strict failure");
    let r = report_json(&rep);
    assert!(r["counts"]["dropped"].as_u64().unwrap() > 0);
    // PostgreSQL keeps everything; what -O and -x leave out was asked for.
    Cmd::new("pgdump2csv")
        .args(["-q", "--strict", "-O", "-x", "--write-schema"])
        .arg(&s)
        .arg(cli::dump_path("nasty.sql"))
        .ok();
    assert!(s.exists());
}

pub fn csvload(pg: &Pg, user: &str, args: &[&str]) -> std::process::Output {
    let mut c = pg.csvload(user);
    c.args(args);
    c.output_within().expect("run csvload")
}

/// Runs a psql script with ON_ERROR_STOP; returns stderr on failure.
pub fn psql_script(pg: &Pg, db: &str, user: &str, file: &Path) -> Result<String, String> {
    let out = pg
        .client("psql")
        .env("PGUSER", user)
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-f"])
        .arg(file)
        .stdin(Stdio::null())
        .output_within()
        .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stderr).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The converted CockroachDB and YugabyteDB schemas (YugabyteDB's `keep` sharding, since
/// PostgreSQL has no HASH/ASC in a primary key) load into PostgreSQL with the data, and every
/// table holds exactly the source's rows.
#[test]
fn converted_schema_loads_into_postgresql_with_the_same_data() {
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path("nasty.sql");
    pg.createdb("src");
    pg.psql_file("src", &dump);
    let want = fingerprints(&pg, "src");
    // A custom archive of the same database converts to the same CockroachDB schema.
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("src.dump");
    let dumped = pg
        .client("pg_dump")
        .args(["-Fc", "-d", "src", "-f"])
        .arg(&archive)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(dumped.status.success());
    let from_archive = cli::convert(&archive, Input::Path, &["--target-kind", "cockroachdb"]);
    let plain = cli::convert(&dump, Input::Path, &["--target-kind", "cockroachdb"]);
    for (a, b) in [
        (&from_archive.schema, &plain.schema),
        (&from_archive.post, &plain.post),
    ] {
        let strip = |p: &Path| -> String {
            normalized(p)
                .lines()
                .filter(|l| !l.starts_with("-- Dumped"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(a), strip(b), "archive vs plain: {}", a.display());
    }
    for (i, extra) in [
        &["--target-kind", "cockroachdb"][..],
        // 2026.1: GENERATED ... STORED and INHERITS as written (PostgreSQL 11 releases lose
        // the generated values: tests/schemaconv_versions.rs).
        &[
            "--target-version",
            "yugabytedb:2026.1",
            "--yb-sharding",
            "keep",
        ][..],
    ]
    .iter()
    .enumerate()
    {
        let (conv, _) = convert(extra);
        let db = format!("t{i}");
        pg.createdb(&db);
        psql_script(&pg, &db, pg::SUPERUSER, &conv.schema)
            .unwrap_or_else(|e| panic!("{extra:?} schema: {e}"));
        let m = conv.manifest_path.to_str().unwrap();
        let out = csvload(
            &pg,
            pg::SUPERUSER,
            &["-m", m, "-j", "2", &format!("dbname={db}")],
        );
        assert!(
            out.status.success(),
            "{extra:?} csvload: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        psql_script(&pg, &db, pg::SUPERUSER, &conv.post)
            .unwrap_or_else(|e| panic!("{extra:?} post-data: {e}"));
        let got = fingerprints(&pg, &db);
        // CockroachDB: each partitioned table holds its partitions' rows (rule
        // crdb-partition-rows), and the partitions are not created.
        let crdb = extra.contains(&"cockroachdb");
        let want = if crdb {
            pg::fingerprints_flattened(&pg, "src")
        } else {
            want.clone()
        };
        for (t, fp) in &want {
            assert_eq!(got.get(t), Some(fp), "{extra:?}: table {t}");
        }
        // A partitioned table becomes a plain one, which the source's fingerprints skip: it
        // holds nothing (its rows are in the partitions, as in the source).
        let extra_tables: BTreeMap<_, _> =
            got.iter().filter(|(t, _)| !want.contains_key(*t)).collect();
        for (t, fp) in extra_tables {
            assert!(fp.starts_with("0 "), "{extra:?}: {t} {fp}");
        }
        // The primary keys are the source's.
        let pks = "SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text NOT LIKE 'dumpshard.%' ORDER BY 1";
        let a = if crdb {
            pg.psql(
                "src",
                &pks.replace(
                    "WHERE contype = 'p'",
                    "WHERE contype = 'p' AND NOT (SELECT relispartition FROM pg_class WHERE oid = conrelid)",
                ),
            )
        } else {
            pg.psql("src", pks)
        };
        let b = pg.psql(&db, pks);
        // In the source a partition's key is also the partitioned table's; in the converted
        // schema each is its own table's: same set of (table, key) pairs.
        assert_eq!(a, b, "{extra:?}: primary keys differ");
    }
}

/// The README walkthrough (pgdump2csv, then csvload --schema / data / --post-data) as a
/// non-superuser that owns the target database: with -O -x, zero errors. Without -O it fails
/// on `ALTER ... OWNER TO` (the failure issue 20 reports).
#[test]
fn walkthrough_as_non_superuser_owner() {
    let Some(pg) = Pg::start() else { return };
    pg.psql("postgres", "CREATE ROLE alice LOGIN");
    pg.psql("postgres", "CREATE DATABASE shop OWNER alice");
    pg.psql("postgres", "CREATE DATABASE shop0 OWNER alice");
    let dump = cli::dump_path("sample.sql.gz");
    let without = cli::convert(&dump, Input::Path, &[]);
    let out = csvload(
        &pg,
        "alice",
        &[
            "--schema",
            without.schema.to_str().unwrap(),
            "-m",
            without.manifest_path.to_str().unwrap(),
            "dbname=shop0",
        ],
    );
    assert!(
        !out.status.success(),
        "the walkthrough without -O should fail as a non-superuser"
    );
    let conv = cli::convert(&dump, Input::Path, &["-O", "-x"]);
    let (s, p, m) = (
        conv.schema.to_str().unwrap(),
        conv.post.to_str().unwrap(),
        conv.manifest_path.to_str().unwrap(),
    );
    let out = csvload(
        &pg,
        "alice",
        &[
            "--schema",
            s,
            "--post-data",
            p,
            "-m",
            m,
            "-j",
            "2",
            "dbname=shop",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "csvload as alice: {err}");
    assert!(!err.contains("ERROR"), "{err}");
    let out = csvload(&pg, "alice", &["--verify-only", "-m", m, "dbname=shop"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let owner = pg.psql(
        "shop",
        "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'shop'",
    );
    assert_eq!(owner.trim(), "alice");
}

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|b| {
            std::env::var_os("PATH").and_then(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join(b))
                    .find(|f| f.is_file())
            })
        })
}

/// Runs headless Chromium with `args` on `page`, killed after 60 s.
fn run_chromium(bin: &Path, page: &Path, args: &[String]) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    let mut c = Command::new(bin);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(args)
    .arg(page)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let child = c.spawn().expect("start chromium");
    // Its output is drained while it runs: with --enable-logging a full stderr pipe left
    // unread blocked Chromium, which then never finished.
    wait_output_timeout(child, Duration::from_secs(60), "chromium")
}

/// The text of the element with `id` in a dumped DOM.
fn by_id(dom: &str, id: &str) -> String {
    let k = format!("id=\"{id}\">");
    let at = dom
        .find(&k)
        .unwrap_or_else(|| panic!("no #{id} in the page"))
        + k.len();
    dom[at..at + dom[at..].find('<').unwrap()].to_string()
}

/// The HTML report renders in headless Chromium (a screenshot, no console errors) and its
/// numbers are the JSON report's.
#[test]
fn html_report_in_headless_chromium() {
    let Some(bin) = chromium() else {
        eprintln!("SKIPPED: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let (html, json) = (d.path().join("r.html"), d.path().join("r.json"));
    let dump = cli::dump_path("nasty.sql");
    for (rep, csv) in [(&html, "csv-html"), (&json, "csv-json")] {
        Cmd::new("pgdump2csv")
            .args(["-q", "--target-kind", "cockroachdb", "--report"])
            .arg(rep)
            .arg("-o")
            .arg(d.path().join(csv))
            .arg(&dump)
            .ok();
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains("<script") && !page.contains("src=\"http"));
    let r = report_json(&json);
    let png = d.path().join("shot.png");
    let out = run_chromium(
        &bin,
        &html,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,1600".into(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        png.metadata().map(|m| m.len() > 10_000).unwrap_or(false),
        "no screenshot: {err}"
    );
    assert!(
        !err.contains("Uncaught") && !err.contains(":CONSOLE("),
        "console errors: {err}"
    );
    if let Some(keep) = std::env::var_os("DUMPSHARD_KEEP_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
    let out = run_chromium(&bin, &html, &["--dump-dom".into()]);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert_eq!(by_id(&dom, "count-statements"), r["statements"].to_string());
    for k in ["kept", "rewritten", "dropped", "unknown"] {
        assert_eq!(
            by_id(&dom, &format!("count-{k}")),
            r["counts"][k].to_string(),
            "{k}"
        );
    }
    assert_eq!(
        by_id(&dom, "data-rows"),
        r["data"]["total_rows"].to_string()
    );
    assert_eq!(
        by_id(&dom, "data-bytes"),
        r["data"]["total_bytes"].to_string()
    );
    assert_eq!(
        by_id(&dom, "data-tables"),
        r["data"]["tables"].as_array().unwrap().len().to_string()
    );
    assert_eq!(
        by_id(&dom, "nopk-count"),
        r["data"]["tables_without_primary_key"]
            .as_array()
            .unwrap()
            .len()
            .to_string()
    );
    assert!(dom.contains("<svg id=\"chart\""));
}

/// How a random table declares its primary key.
#[derive(Debug, Clone, Copy)]
enum PkStyle {
    Column,
    TableConstraint,
    AlterTable,
}

fn table_case() -> impl Strategy<Value = (usize, Vec<usize>, PkStyle)> {
    (2usize..7).prop_flat_map(|n| {
        (
            Just(n),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
            1usize..=n,
            prop_oneof![
                Just(PkStyle::Column),
                Just(PkStyle::TableConstraint),
                Just(PkStyle::AlterTable)
            ],
        )
            .prop_map(|(n, order, k, style)| {
                let k = if matches!(style, PkStyle::Column) {
                    1
                } else {
                    k
                };
                (n, order[..k].to_vec(), style)
            })
    })
}

fn col(i: usize) -> String {
    if i % 3 == 2 {
        format!("\"Col {i}\"")
    } else {
        format!("c{i}")
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random CREATE TABLEs with the key inline, as a table constraint or added by ALTER
    /// TABLE: converted for CockroachDB and YugabyteDB, the key columns and their order survive.
    #[test]
    fn primary_keys_survive_conversion((n, key, style) in table_case()) {
        let cols: Vec<String> = (0..n)
            .map(|i| {
                let inline = matches!(style, PkStyle::Column) && key[0] == i;
                format!("    {} integer{}", col(i), if inline { " PRIMARY KEY" } else { " NOT NULL" })
            })
            .collect();
        let keylist = key.iter().map(|&i| col(i)).collect::<Vec<_>>().join(", ");
        let mut body = cols.join(",\n");
        if matches!(style, PkStyle::TableConstraint) {
            body.push_str(&format!(",\n    CONSTRAINT t_pkey PRIMARY KEY ({keylist})"));
        }
        let mut sql = format!("CREATE TABLE public.t (\n{body}\n);\n");
        sql.push_str(&format!("COPY public.t ({}) FROM stdin;\n\\.\n", (0..n).map(col).collect::<Vec<_>>().join(", ")));
        if matches!(style, PkStyle::AlterTable) {
            sql.push_str(&format!("ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY ({keylist});\n"));
        }
        let d = tempfile::tempdir().unwrap();
        let dump = d.path().join("d.sql");
        std::fs::write(&dump, &sql).unwrap();
        let want: Vec<String> = key.iter().map(|&i| if i % 3 == 2 { format!("Col {i}") } else { format!("c{i}") }).collect();
        for extra in [&["--target-kind", "cockroachdb"][..], &["--target-kind", "yugabytedb", "--yb-sharding", "keep"][..], &["--target-kind", "yugabytedb"][..]] {
            let (s, p) = (d.path().join("s.sql"), d.path().join("p.sql"));
            let _ = std::fs::remove_file(&s);
            let _ = std::fs::remove_file(&p);
            Cmd::new("pgdump2csv").args(["-q", "--no-dump-check", "--write-schema"]).arg(&s).arg("--write-post-data").arg(&p).args(extra).arg(&dump).ok();
            let schema = std::fs::read_to_string(&s).unwrap();
            let post = std::fs::read_to_string(&p).unwrap();
            prop_assert!(!post.contains("PRIMARY KEY"), "{extra:?}: {post}");
            if extra.len() == 2 && extra[1] == "yugabytedb" {
                // hash: the first key column HASH, the rest ASC, in the key's order.
                let mut ann = vec![format!("{} HASH", col(key[0]))];
                ann.extend(key[1..].iter().map(|&i| format!("{} ASC", col(i))));
                if !matches!(style, PkStyle::Column) {
                    prop_assert!(schema.contains(&format!("PRIMARY KEY ({})", ann.join(", "))), "{schema}");
                }
                continue;
            }
            // Read back with the library's own DDL reader: the same key, in order.
            use dumpshard::pg::dump::ddl::{StreamStatements, Stmt};
            let mut st = StreamStatements::new(std::fs::File::open(&s).unwrap(), "s");
            let mut got = None;
            while let Some((_, x)) = st.next_stmt().unwrap() {
                if let Stmt::CreateTable { pk, .. } = x {
                    got = Some(pk);
                }
            }
            prop_assert_eq!(got, Some(want.clone()), "{:?}: {}", extra, schema);
        }
    }
}

/// A primary key is left out of post-data only when it went into its CREATE TABLE: a typed
/// table whose type is not in the dump, which the converter cannot rewrite, keeps its ALTER.
#[test]
fn key_of_a_table_not_rewritten_stays_in_post_data() {
    let d = tempfile::tempdir().unwrap();
    let dump = d.path().join("d.sql");
    std::fs::write(
        &dump,
        // A typed table whose type the dump does not create (its attributes are unknown):
        // not rewritten. (One whose type is in the dump is flattened with its key inline:
        // tests/schemaconv_versions.rs.)
        "CREATE TABLE public.t OF public.comp;\n\
         COPY public.t (a, b) FROM stdin;\n1\tx\n\\.\n\
         ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (a);\n",
    )
    .unwrap();
    for kind in ["cockroachdb", "yugabytedb"] {
        let p = d.path().join(format!("{kind}.sql"));
        Cmd::new("pgdump2csv")
            .args([
                "-q",
                "--no-dump-check",
                "--target-kind",
                kind,
                "--write-post-data",
            ])
            .arg(&p)
            .arg("--write-schema")
            .arg(d.path().join(format!("{kind}-schema.sql")))
            .arg(&dump)
            .ok();
        let post = std::fs::read_to_string(&p).unwrap();
        if kind == "cockroachdb" {
            // CockroachDB's grammar has no `OF type`: the table is left out (a blocker),
            // and its key goes with it rather than stay behind to fail.
            assert!(
                !post.contains("PRIMARY KEY (a)") && post.contains("goes-with-left-out"),
                "{kind}: {post}"
            );
        } else {
            assert!(post.contains("PRIMARY KEY (a)"), "{kind}: {post}");
        }
    }
}
