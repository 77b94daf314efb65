//! Issue 59: the CockroachDB referee. No CockroachDB server is obtainable here; each
//! release's statement grammar stands in for it (src/schemaconv/grammar/: derived from the
//! railroad diagrams cockroachdb/docs publishes per release, checked on the docs' own
//! examples by tests/crdb_grammar.rs). What the grammar parses but CockroachDB refuses on
//! meaning (a missing function, a type's semantics) is not refereed here: the rules' own
//! checks (src/schemaconv/rules.rs `CRDB_CHECKS`) carry what its pages say.
//!
//! The corpus (the sample dump, the nasty dump, and the regress database of
//! fixtures/regress.sql dumped by pg_dump 15, 17 and 18) is converted for every CockroachDB
//! release pgdump2csv accepts. Every statement written to --write-schema and
//! --write-post-data must be in the release's grammar, and must have its report entry at its
//! line; every statement of the dump the grammar refuses as pg_dump wrote it must be reported
//! as changed (rewritten or left out), never as kept with no change. Then each conversion
//! runs on PostgreSQL 15 with its CSVs: a rewrite that breaks a statement, or a column whose
//! type no longer takes the dump's values, fails there.

use crate::referee_yb::{Dump, dump_from, missing, start, wheel_bin};
use crate::support::cli;
use dumpshard::pg::dump::sql::Statements;
use dumpshard::schemaconv::grammar;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

/// The CockroachDB releases `--target-version` takes (each has a grammar).
fn releases() -> Vec<(u32, u32)> {
    grammar::crdb_releases().collect()
}

fn line_of(text: &[u8], off: usize) -> u64 {
    1 + text[..off].iter().filter(|&&b| b == b'\n').count() as u64
}

/// Converts `dump` for `target` (`cockroachdb:24.3`, or `postgresql`) into `dir`.
fn convert(dump: &Path, target: &str, dir: &Path) -> (Vec<u8>, Vec<u8>, Value, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let mut c = Command::new(cli::pgdump2csv_bin());
    c.arg(dump);
    if target == "postgresql" {
        c.args(["--target-kind", "postgresql"]);
    } else {
        c.args(["--target-version", target]);
    }
    let o = c
        .arg("--write-schema")
        .arg(dir.join("schema.sql"))
        .arg("--write-post-data")
        .arg(dir.join("post.sql"))
        .arg("--write-manifest")
        .arg(dir.join("manifest.json"))
        .arg("--report")
        .arg(dir.join("report.json"))
        .arg("-o")
        .arg(dir.join("csv"))
        .stdin(Stdio::null())
        .output()
        .expect("pgdump2csv");
    assert!(
        o.status.success(),
        "{target}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        std::fs::read(dir.join("schema.sql")).unwrap(),
        std::fs::read(dir.join("post.sql")).unwrap(),
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap(),
        dir.join("manifest.json"),
    )
}

/// The statements of a converted file with their lines.
fn statements(text: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    for (off, s) in Statements::new(text) {
        out.push((line_of(text, off), s.to_vec()));
    }
    out
}

#[test]
fn every_statement_kept_for_a_cockroachdb_release_is_in_its_grammar() {
    let Some(bin17) = wheel_bin(17).or_else(|| missing("no PostgreSQL 17 (for its pg_dump)"))
    else {
        return;
    };
    let Some(bin18) = wheel_bin(18).or_else(|| missing("no PostgreSQL 18 (for its pg_dump)"))
    else {
        return;
    };
    let Some(pg) = start(None) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let mut dumps = vec![
        Dump {
            name: "sample (pg_dump 15)".into(),
            path: cli::dump_path("sample.sql.gz"),
        },
        Dump {
            name: "nasty (pg_dump 15)".into(),
            path: cli::dump_path("nasty.sql"),
        },
    ];
    dumps.extend(dump_from(
        &pg,
        15,
        work.path(),
        &["regress"],
        &[(17, &bin17), (18, &bin18)],
    ));
    let mut problems = Vec::new();
    let mut left_out: BTreeMap<String, usize> = BTreeMap::new();
    for (n, d) in dumps.iter().enumerate() {
        // The dump's own statements, in order, for the statements the grammar refuses as
        // pg_dump wrote them.
        let (orig_schema, orig_post, _, orig_manifest) =
            convert(&d.path, "postgresql", &work.path().join(format!("orig{n}")));
        let rows_of = |m: &Path| -> BTreeMap<String, u64> {
            let m: Value = serde_json::from_slice(&std::fs::read(m).unwrap()).unwrap();
            m["tables"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        format!(
                            "{}.{}",
                            t["schema"].as_str().unwrap(),
                            t["name"].as_str().unwrap()
                        ),
                        t["rows"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        let orig_rows = rows_of(&orig_manifest);
        for (major, minor) in releases() {
            let rel = format!("{major}.{minor}");
            let tag = format!("{} for CockroachDB {rel}", d.name);
            let g = grammar::crdb(major, minor).unwrap();
            let dir = work.path().join(format!("c{n}-{rel}"));
            let (schema, post, report, manifest) =
                convert(&d.path, &format!("cockroachdb:{rel}"), &dir);
            let entries = report["entries"].as_array().unwrap();
            // 0. No row lost: every row of the dump is in a CSV; a partitioned table is one
            //    table holding every partition's rows (rule crdb-partition-rows), and no
            //    partition has a CSV of its own.
            let rows = rows_of(&manifest);
            if rows.values().sum::<u64>() != orig_rows.values().sum::<u64>() {
                problems.push(format!("{tag}: {rows:?} rows, the dump has {orig_rows:?}"));
            }
            if d.name.starts_with("regress") {
                let partitions: u64 = orig_rows
                    .iter()
                    .filter(|(t, _)| t.starts_with("app.events"))
                    .map(|(_, r)| r)
                    .sum();
                if rows.get("app.events") != Some(&partitions)
                    || rows.keys().any(|t| t.starts_with("app.events_"))
                    || rows.get("app.hashed")
                        != Some(&(orig_rows["app.hashed_0"] + orig_rows["app.hashed_1"]))
                {
                    problems.push(format!(
                        "{tag}: the partitioned tables are not flattened: {rows:?} (the dump: {orig_rows:?})"
                    ));
                }
            }
            // 1. Everything written is in the grammar, and every report entry's line is
            //    where its statement starts.
            for (file, text) in [("schema", &schema), ("post-data", &post)] {
                let stmts = statements(text);
                for (line, stmt) in &stmts {
                    if let Err(r) = g.check_sql(stmt) {
                        problems.push(format!("{tag}: {file} line {line}: {r}"));
                    }
                }
                for e in entries.iter().filter(|e| e["file"] == file) {
                    if let Some(l) = e["written_line"].as_u64()
                        && !stmts.iter().any(|(line, _)| *line == l)
                    {
                        problems.push(format!(
                            "{tag}: the report puts {} {} at {file} line {l}, where no statement starts",
                            e["kind"].as_str().unwrap_or(""),
                            e["object"].as_str().unwrap_or("")
                        ));
                    }
                }
            }
            // 2. What the grammar refuses as pg_dump wrote it is reported as changed.
            for (file, text) in [("schema", &orig_schema), ("post-data", &orig_post)] {
                let mine: Vec<&Value> = entries.iter().filter(|e| e["file"] == file).collect();
                // Post-data starts with the dump's session settings again (not entries).
                let mut stmts = statements(text);
                if file == "post-data" {
                    let repeated = stmts.len().saturating_sub(mine.len());
                    stmts.drain(..repeated);
                }
                if stmts.len() != mine.len() {
                    problems.push(format!(
                        "{tag}: {file}: {} statements in the dump, {} report entries",
                        stmts.len(),
                        mine.len()
                    ));
                    continue;
                }
                for ((_, stmt), e) in stmts.iter().zip(mine) {
                    if g.check_sql(stmt).is_err() && e["action"] == "kept" && e["impact"] == "none"
                    {
                        problems.push(format!(
                            "{tag}: dump line {} ({} {}) is refused by the grammar as written, but the report keeps it with no change",
                            e["line"], e["kind"].as_str().unwrap_or(""), e["object"].as_str().unwrap_or("")
                        ));
                    }
                }
            }
            for e in entries {
                if e["action"] == "dropped" && e["impact"] == "blocker" {
                    let rule = e["changes"][0]["rule"].as_str().unwrap_or("").to_string();
                    *left_out.entry(rule).or_default() += 1;
                }
            }
            // 3. The conversion runs on PostgreSQL with its data (CockroachDB's forms the
            //    converter writes are PostgreSQL's too): a broken rewrite fails here.
            let db = format!("crdb_{n}_{major}_{minor}");
            pg.createdb(&db);
            for (what, file) in [("schema", dir.join("schema.sql"))] {
                if let Err(e) = crate::schemaconv::psql_script(&pg, &db, "postgres", &file) {
                    problems.push(format!("{tag}: the converted {what} on PostgreSQL 15: {e}"));
                }
            }
            // The tables whose CREATE TABLE is left out have no table to load into.
            let mut m: Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
            m["tables"].as_array_mut().unwrap().retain(|t| {
                let (s, n) = (t["schema"].as_str().unwrap(), t["name"].as_str().unwrap());
                !entries.iter().any(|e| {
                    e["kind"]
                        .as_str()
                        .is_some_and(|k| k.starts_with("CREATE") && k.contains("TABLE"))
                        && e["action"] == "dropped"
                        && crate::referee_yb::name_is(e["object"].as_str().unwrap_or(""), s, n)
                })
            });
            let kept = dir.join("manifest-created.json");
            std::fs::write(&kept, serde_json::to_vec(&m).unwrap()).unwrap();
            let out = crate::schemaconv::csvload(
                &pg,
                "postgres",
                &["-m", kept.to_str().unwrap(), &format!("dbname={db}")],
            );
            if !out.status.success() {
                problems.push(format!(
                    "{tag}: the CSVs into the converted schema on PostgreSQL 15: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            if let Err(e) =
                crate::schemaconv::psql_script(&pg, &db, "postgres", &dir.join("post.sql"))
            {
                problems.push(format!(
                    "{tag}: the converted post-data on PostgreSQL 15: {e}"
                ));
            }
        }
    }
    eprintln!(
        "referee_crdb: {} dumps x {} releases; statements left out as blockers, by rule: {left_out:?}",
        dumps.len(),
        releases().len()
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
