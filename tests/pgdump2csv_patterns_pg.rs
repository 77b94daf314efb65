//! Issue 35 item 7: pgdump2csv's `-t`, `-T`, `-n` and `-N` select what pg_dump selects with
//! the same pattern. A database of tables and schemas with mixed case, quotes, dots, digits
//! and `$` in their names is dumped once (plain); for every pattern of a corpus (globs,
//! bracket expressions, alternatives, `+`, `{n}`, quoting, case folding, invalid expressions),
//! `pg_dump --schema-only --strict-names OPT PATTERN` names the tables it selects (its
//! `CREATE TABLE` lines) or fails, and `pgdump2csv --list OPT PATTERN` of the dump must list
//! the same tables or fail too. Before the fix `-T 'audit_[0-9]*'` and `-N 'tmp(1|2)'`
//! excluded nothing and exited 0.
//!
//! A table pattern without a schema matches in every schema in pgdump2csv (pg_dump: the tables
//! its search_path shows; a dump does not record that), so such a pattern is compared with
//! pg_dump's `*.PATTERN`, which is that rule.

use crate::support::cmd::{Cmd, Within};
use crate::support::pg::Pg;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;

const DB: &str = r#"
CREATE SCHEMA "Sales";
CREATE SCHEMA sales2;
CREATE SCHEMA tmp1;
CREATE SCHEMA tmp2;
CREATE SCHEMA tmp3;
CREATE SCHEMA "a.b";
CREATE SCHEMA "Quo""te";
CREATE SCHEMA audit;
CREATE TABLE public.audit_2024 (x int);
CREATE TABLE public.audit_2025 (x int);
CREATE TABLE public.audit_x (x int);
CREATE TABLE public."audit_[0-9]" (x int);
CREATE TABLE public."Audit_1" (x int);
CREATE TABLE public.orders (x int);
CREATE TABLE public."Orders" (x int);
CREATE TABLE public."my.table" (x int);
CREATE TABLE public.t1 (x int);
CREATE TABLE public.t12 (x int);
CREATE TABLE public."T1" (x int);
CREATE TABLE public."t$1" (x int);
CREATE TABLE public."int[]" (x int);
CREATE TABLE public.ab (x int);
CREATE TABLE public.aab (x int);
CREATE TABLE public.abb (x int);
CREATE TABLE public."tmp(1|2)" (x int);
CREATE TABLE public.tmp1 (x int);
CREATE TABLE "Sales".orders (x int);
CREATE TABLE "Sales"."Items" (x int);
CREATE TABLE sales2.items (x int);
CREATE TABLE tmp1.t (x int);
CREATE TABLE tmp2.t (x int);
CREATE TABLE tmp3.t (x int);
CREATE TABLE "a.b".c (x int);
CREATE TABLE "a.b"."d.e" (x int);
CREATE TABLE "Quo""te".x (x int);
CREATE TABLE audit.log1 (x int);
CREATE TABLE audit.log22 (x int);
"#;

/// Table patterns, for -t and -T.
const TABLE_PATTERNS: &[&str] = &[
    "public.*",
    "*.orders",
    "public.orders",
    "public.Orders",
    "public.\"Orders\"",
    "\"Sales\".*",
    "Sales.*",
    "sales*.items",
    "public.t?",
    "public.t1*",
    "public.T1",
    "public.\"T1\"",
    "public.t$1",
    "public.int[]",
    "public.\"my.table\"",
    "public.my.table",
    "a.b.c.d",
    "public.audit_[0-9]*",
    "public.audit_[0-9]+",
    "public.\"audit_[0-9]\"",
    "public.audit_(2024|x)",
    "public.a+b",
    "public.ab{2}",
    "public.a{1,2}b+",
    "public.a(a|b)b",
    "public.[^a-s]*",
    "public.[[:digit:]a]*",
    "public.tmp(1|2)",
    "public.\"tmp(1|2)\"",
    "tmp(1|2).t",
    "tmp[12].t",
    "tmp[^1].t",
    "\"a.b\".*",
    "\"a.b\".\"d.e\"",
    "\"Quo\"\"te\".x",
    "audit.log[0-9]{2}",
    "audit.log[0-9]{1}",
    "public.tmp(1",
    "public.[a",
    "public.a{2,1}",
    "public.+a",
    "audit_[0-9]*",
    "t?",
    "items",
    "\"Items\"",
    "ORDERS",
    "*",
];

/// Schema patterns, for -n and -N.
const SCHEMA_PATTERNS: &[&str] = &[
    "public",
    "tmp(1|2)",
    "tmp[0-9]",
    "tmp?",
    "tmp[^1]+",
    "\"Sales\"",
    "Sales",
    "sales*",
    "\"a.b\"",
    "\"Quo\"\"te\"",
    "audit",
    "au(d|x)it",
    "*",
    "tmp(1",
];

/// A qualified name as pg_dump prints it (`fmtId`: bare, or quoted with `""` for `"`).
fn parse_qualified(s: &str) -> (String, String) {
    let mut parts = Vec::new();
    let mut it = s.chars().peekable();
    loop {
        let mut name = String::new();
        if it.peek() == Some(&'"') {
            it.next();
            while let Some(c) = it.next() {
                if c == '"' {
                    if it.peek() == Some(&'"') {
                        it.next();
                        name.push('"');
                    } else {
                        break;
                    }
                } else {
                    name.push(c);
                }
            }
        } else {
            while let Some(&c) = it.peek() {
                if c == '.' {
                    break;
                }
                name.push(c);
                it.next();
            }
        }
        parts.push(name);
        if it.next() != Some('.') {
            break;
        }
    }
    assert_eq!(parts.len(), 2, "{s}");
    (parts[0].clone(), parts[1].clone())
}

type Selection = Result<BTreeSet<(String, String)>, String>;

fn pg_dump_selects(pg: &Pg, opt: &str, pattern: &str) -> Selection {
    let o = pg
        .client_program(&pg.bin("pg_dump"))
        .args(["--schema-only", "--strict-names", opt, pattern, "patterns"])
        .stdin(Stdio::null())
        .output_within()
        .unwrap();
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let out = String::from_utf8(o.stdout).unwrap();
    Ok(out
        .lines()
        .filter_map(|l| l.strip_prefix("CREATE TABLE "))
        .map(|l| parse_qualified(l.strip_suffix(" (").unwrap_or(l)))
        // `-t '*.*'` and `-n '*'` make pg_dump dump the system catalogs' tables too; a dump
        // of the database (what pgdump2csv reads) never holds them, so they are not compared.
        .filter(|(schema, _)| !matches!(schema.as_str(), "pg_catalog" | "information_schema"))
        .collect())
}

fn pgdump2csv_selects(dump: &Path, opt: &str, pattern: &str) -> Selection {
    let r = Cmd::new("pgdump2csv")
        .args(["--list", opt, pattern])
        .arg(dump)
        .run();
    match r.code() {
        Some(0) => Ok(r
            .stdout_str()
            .lines()
            .skip(1)
            .map(|l| {
                let mut f = l.split('\t');
                (f.next().unwrap().to_string(), f.next().unwrap().to_string())
            })
            .collect()),
        Some(2) => Err(r.stderr_str()),
        _ => panic!("pgdump2csv --list {opt} {pattern:?}: {}", r.describe()),
    }
}

#[test]
fn patterns_select_what_pg_dump_selects() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("patterns");
    pg.psql("patterns", DB);
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("dump.sql");
    let o = pg
        .client_program(&pg.bin("pg_dump"))
        .arg("-f")
        .arg(&dump)
        .arg("patterns")
        .stdin(Stdio::null())
        .output_within()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let every = pgdump2csv_selects(&dump, "-T", "nothing_is_called_this").unwrap();
    assert_eq!(every.len(), 29, "{every:?}");
    let mut failures = Vec::new();
    let mut selected_some = 0;
    let cases = ["-t", "-T"]
        .iter()
        .flat_map(|o| TABLE_PATTERNS.iter().map(move |p| (*o, *p)))
        .chain(
            ["-n", "-N"]
                .iter()
                .flat_map(|o| SCHEMA_PATTERNS.iter().map(move |p| (*o, *p))),
        );
    for (opt, pattern) in cases {
        // See the module comment: an unqualified table pattern is pg_dump's `*.PATTERN`.
        let unqualified = matches!(opt, "-t" | "-T") && !pattern.contains('.');
        let theirs_pattern = if unqualified {
            format!("*.{pattern}")
        } else {
            pattern.to_string()
        };
        let theirs = pg_dump_selects(&pg, opt, &theirs_pattern);
        let ours = pgdump2csv_selects(&dump, opt, pattern);
        match (&theirs, &ours) {
            (Ok(a), Ok(b)) if a == b => {
                if !a.is_empty() && a.len() < every.len() {
                    selected_some += 1;
                }
            }
            (Err(_), Err(_)) => {}
            _ => failures.push(format!(
                "{opt} {pattern:?}:\n  pg_dump:    {theirs:?}\n  pgdump2csv: {ours:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus is not trivial: most patterns select some tables and leave others.
    assert!(selected_some > 40, "{selected_some}");
}

/// The two commands of the issue, on the binary: excluded, exit 0.
#[test]
fn exclusions_by_regular_expression_exclude() {
    let dump = "--\n-- PostgreSQL database dump\n--\n\n\
        CREATE TABLE public.audit_2024 (x integer);\nCREATE TABLE public.audit_x (x integer);\n\
        CREATE TABLE tmp1.t (x integer);\nCREATE TABLE tmp3.t (x integer);\n\n\
        COPY public.audit_2024 (x) FROM stdin;\n1\n\\.\n\nCOPY public.audit_x (x) FROM stdin;\n1\n\\.\n\n\
        COPY tmp1.t (x) FROM stdin;\n1\n\\.\n\nCOPY tmp3.t (x) FROM stdin;\n1\n\\.\n\n\
        --\n-- PostgreSQL database dump complete\n--\n\n";
    let tables = |args: &[&str]| -> Vec<String> {
        let r = Cmd::new("pgdump2csv")
            .args(["--list"])
            .args(args)
            .stdin(dump)
            .expect(0);
        r.stdout_str()
            .lines()
            .skip(1)
            .map(|l| l.split('\t').take(2).collect::<Vec<_>>().join("."))
            .collect()
    };
    assert_eq!(
        tables(&["-T", "audit_[0-9]*"]),
        ["public.audit_x", "tmp1.t", "tmp3.t"]
    );
    assert_eq!(
        tables(&["-N", "tmp(1|2)"]),
        ["public.audit_2024", "public.audit_x", "tmp3.t"]
    );
    // What is not implemented is refused, never taken literally.
    let r = Cmd::new("pgdump2csv")
        .args(["--list", "-T", "audit_\\d+"])
        .stdin(dump)
        .expect(2);
    assert!(
        r.stderr_str().contains("--exclude-table 'audit_\\d+'"),
        "{}",
        r.stderr_str()
    );
}
