//! `csvload --verify content` against a real PostgreSQL (tests/support/pg.rs): a clean load
//! of values the target prints differently verifies; each kind of damage done to the target
//! afterwards is found, exits 1, names the table and shows the differing key; a load with the
//! wrong NULL token, which counts cannot see, is caught; and a property test of random
//! tables of nasty values: loaded, they verify; one value changed, it is found.

use crate::support::pg::{self, Pg};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

use crate::support::cmd::wait_timeout;
use std::time::Duration;

/// Runs csvload against `pg` with a timeout; returns (exit code, stdout, stderr).
fn csvload(pg: &Pg, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (o, e) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = pg
        .csvload(pg::SUPERUSER)
        .args(args)
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .spawn()
        .expect("run csvload");
    let status = wait_timeout(
        &mut child,
        Duration::from_secs(180),
        &format!("csvload {args:?}"),
    );
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    (status.code().unwrap_or(-1), read(&o), read(&e))
}

/// A pgdump2csv manifest of one table `public.NAME` (`cols`: name and type) in `file`.
fn manifest(dir: &Path, name: &str, cols: &[(&str, &str)], rows: u64, null: &str) -> PathBuf {
    let c: Vec<String> = cols
        .iter()
        .map(|(n, t)| format!(r#"{{"name":"{n}","type":"{t}","not_null":false}}"#))
        .collect();
    let m = format!(
        r#"{{"format":"dumpshard-manifest","version":1,"tables":[{{"schema":"public","name":"{name}",
        "file":"{name}.csv","columns":[{}],"primary_key":["id"],"rows":{rows},"bytes":0,
        "header":true,"null":{}}}]}}"#,
        c.join(","),
        serde_json::to_string(null).unwrap()
    );
    let p = dir.join(format!("{name}.json"));
    std::fs::write(&p, m).unwrap();
    p
}

/// One CSV field: `None` is NULL (an unquoted `null` token), values are quoted when needed
/// (always when empty or equal to the token).
fn field(v: &Option<String>, null: &str) -> String {
    match v {
        None => null.to_string(),
        Some(s)
            if s.is_empty()
                || s == null
                || s.contains([',', '"', '\n', '\r'])
                || s.starts_with(' ') =>
        {
            format!("\"{}\"", s.replace('"', "\"\""))
        }
        Some(s) => s.clone(),
    }
}

const COLS: &[(&str, &str)] = &[
    ("id", "integer"),
    ("i", "bigint"),
    ("n", "numeric(12,2)"),
    ("f", "double precision"),
    ("r", "real"),
    ("ts", "timestamp without time zone"),
    ("tz", "timestamp with time zone"),
    ("b", "bytea"),
    ("a", "integer[]"),
    ("j", "jsonb"),
    ("t", "text"),
    ("flag", "boolean"),
];

/// Row `k` of the damage test's table, written as a dump need not write it: numeric without
/// its scale, timestamptz in another zone, jsonb keys out of order, booleans spelled out.
fn row(k: u32) -> Vec<Option<String>> {
    let s = |x: String| Some(x);
    vec![
        s(k.to_string()),
        s(format!("{}", k as i64 * 1_000_000_007)),
        s(format!("{}.5", k)),
        s(if k.is_multiple_of(3) {
            "0.1".into()
        } else {
            format!("{k}e-3")
        }),
        s("1.1".into()),
        s(format!("2020-01-{:02} 12:{:02}:00", k % 28 + 1, k % 60)),
        s(format!("2020-03-{:02} 23:30:00.25+02", k % 28 + 1)),
        s(format!("\\x0a{:02x}ff", k % 256)),
        s(format!("{{{k}, 2,NULL}}")),
        s(format!(r#"{{"b": {k}, "a": [1.0, "x"], "a": "last"}}"#)),
        match k % 5 {
            0 => None,
            1 => s(String::new()),
            2 => s(format!(" spaced {k} ")),
            3 => s(format!("quote \" comma , newline\n{k}")),
            _ => s(format!("plain {k}")),
        },
        s(if k.is_multiple_of(2) { "yes" } else { "false" }.into()),
    ]
}

fn write_csv(path: &Path, rows: &[Vec<Option<String>>], names: &[&str], null: &str) {
    let mut out = names.join(",") + "\n";
    for r in rows {
        let f: Vec<String> = r.iter().map(|v| field(v, null)).collect();
        out.push_str(&f.join(","));
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

fn create_sql(name: &str, cols: &[(&str, &str)]) -> String {
    let c: Vec<String> = cols
        .iter()
        .map(|(n, t)| {
            if *n == "id" {
                format!("{n} {t} PRIMARY KEY")
            } else {
                format!("{n} {t}")
            }
        })
        .collect();
    format!("CREATE TABLE public.{name} ({})", c.join(", "))
}

#[test]
fn content_damage_found_and_localized() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<_> = (1..=200).map(row).collect();
    let names: Vec<&str> = COLS.iter().map(|c| c.0).collect();
    write_csv(&dir.path().join("t.csv"), &rows, &names, "");
    let m = manifest(dir.path(), "t", COLS, rows.len() as u64, "");
    let m = m.to_str().unwrap();
    pg.psql("d", &create_sql("t", COLS));
    // A clean load verifies, though the target prints much of it differently.
    let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("public.t ") && l.ends_with("  ok") && l.contains(" 200 ")),
        "{out}"
    );
    assert_eq!(
        pg.psql(
            "d",
            "SET TimeZone = 'UTC'; SELECT n, tz, j FROM t WHERE id = 2"
        )
        .trim(),
        r#"2.50|2020-03-03 21:30:00.25+00|{"a": "last", "b": 2}"#
    );
    pg.psql("d", "CREATE TABLE orig AS SELECT * FROM t");
    let verify = ["--verify-only", "--verify", "content", "-m", m, "dbname=d"];
    // (what, damage, keys the report must show)
    let damages: &[(&str, &str, &[&str])] = &[
        (
            "one value changed",
            "UPDATE t SET i = i + 1 WHERE id = 5",
            &["(id)=(5)"],
        ),
        (
            "a row deleted, another inserted",
            "DELETE FROM t WHERE id = 7; \
             INSERT INTO t SELECT 1000, i, n, f, r, ts, tz, b, a, j, t, flag FROM orig WHERE id = 8",
            &["(id)=(7)", "(id)=(1000)"],
        ),
        (
            "NULL to ''",
            "UPDATE t SET t = '' WHERE id = 10",
            &["(id)=(10)"],
        ),
        (
            "'' to NULL",
            "UPDATE t SET t = NULL WHERE id = 11",
            &["(id)=(11)"],
        ),
        (
            "whitespace",
            "UPDATE t SET t = rtrim(t) WHERE id = 12",
            &["(id)=(12)"],
        ),
        (
            "a float's last digit",
            "UPDATE t SET f = 0.10000000000000002 WHERE id = 15",
            &["(id)=(15)"],
        ),
        (
            "a timestamp shifted by the session time zone",
            "SET TimeZone = 'Asia/Tokyo'; UPDATE t SET ts = ts::timestamptz AT TIME ZONE 'UTC' WHERE id = 16",
            &["(id)=(16)"],
        ),
        (
            "a bytea byte",
            "UPDATE t SET b = set_byte(b, 2, 254) WHERE id = 17",
            &["(id)=(17)"],
        ),
        (
            "an array element",
            "UPDATE t SET a[2] = 3 WHERE id = 18",
            &["(id)=(18)"],
        ),
        (
            "a boolean",
            "UPDATE t SET flag = NOT flag WHERE id = 19",
            &["(id)=(19)"],
        ),
    ];
    for (what, sql, keys) in damages {
        pg.psql("d", sql);
        let (code, out, err) = csvload(&pg, &verify);
        assert_eq!(code, 1, "{what}: not found:\n{out}\n{err}");
        assert!(
            out.contains("public.t ") && out.contains("DIFFERENT"),
            "{what}: {out}"
        );
        assert!(
            err.contains("public.t"),
            "{what}: the error names the table: {err}"
        );
        for k in *keys {
            assert!(
                out.contains(&format!("key {k}")),
                "{what}: key {k} not shown:\n{out}"
            );
        }
        // Only the damaged keys are shown.
        assert_eq!(out.matches("  key ").count(), keys.len(), "{what}: {out}");
        // Counts alone do not see it.
        let (code, _, _) = csvload(&pg, &["--verify-only", "-m", m, "dbname=d"]);
        assert_eq!(code, 0, "{what}: the count changed");
        pg.psql("d", "TRUNCATE t; INSERT INTO t SELECT * FROM orig");
        let (code, out, err) = csvload(&pg, &verify);
        assert_eq!(code, 0, "{what}: restored but not verified: {out}\n{err}");
    }
    // jsonb key order and spacing, a numeric's scale, a timestamptz's zone: equal values.
    pg.psql(
        "d",
        "SET TimeZone = 'America/New_York'; \
         UPDATE t SET j = '{\"b\":20,\"a\":\"last\"}', n = 20.500, tz = tz::text::timestamptz WHERE id = 20",
    );
    let (code, out, err) = csvload(&pg, &verify);
    assert_eq!(code, 0, "equal values reported: {out}\n{err}");
    // --verify-diff 0: the buckets only.
    pg.psql("d", "UPDATE t SET t = 'x' WHERE id = 21");
    let mut v0 = verify.to_vec();
    v0.extend(["--verify-diff", "0"]);
    let (code, out, _) = csvload(&pg, &v0);
    assert_eq!(code, 1);
    assert!(
        out.contains("content differs in 1 of 65536 key (id) buckets"),
        "{out}"
    );
    assert!(!out.contains("  key "), "{out}");
}

#[test]
fn wrong_null_token_caught_by_content_not_counts() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[("id", "integer"), ("t", "text"), ("v", "integer")];
    let rows: Vec<Vec<Option<String>>> = (1..=50u32)
        .map(|k| {
            vec![
                Some(k.to_string()),
                if k.is_multiple_of(2) {
                    None
                } else {
                    Some(format!("v{k}"))
                },
                Some(k.to_string()),
            ]
        })
        .collect();
    let csv = dir.path().join("w.csv");
    write_csv(&csv, &rows, &["id", "t", "v"], "\\N");
    let m = manifest(dir.path(), "w", cols, 50, "\\N");
    pg.psql("d", &create_sql("w", cols));
    // Loaded some other way with COPY's default NULL (''): every NULL arrives as `\N`.
    pg.copy_in(
        "d",
        "COPY public.w FROM STDIN WITH (FORMAT csv, HEADER true)",
        &csv,
    );
    let m = m.to_str().unwrap();
    let (code, out, err) = csvload(&pg, &["--verify-only", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "counts agree: {out}\n{err}");
    let (code, out, err) = csvload(
        &pg,
        &["--verify-only", "--verify", "content", "-m", m, "dbname=d"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("public.w") && out.contains("DIFFERENT"),
        "{out}"
    );
    assert!(out.contains("public.w: 25 of 50 records differ: 25 of the CSV files' records not in the target, 25 target rows"), "{out}");
    assert!(err.contains("public.w"), "{err}");
}

/// Per column type: nasty values (as CSV text), and two distinct literals to mutate with.
const NASTY: &[(&str, &[&str], &str, &str)] = &[
    (
        "bigint",
        &["0", "-9223372036854775808", "9223372036854775807", " 42"],
        "1",
        "2",
    ),
    (
        "numeric",
        &[
            "0",
            "-0.000",
            "1e20",
            "NaN",
            "123456789012345678901234567890.5",
            "1.50",
        ],
        "1",
        "2",
    ),
    (
        "double precision",
        &[
            "0",
            "-0",
            "NaN",
            "Infinity",
            "-Infinity",
            "1e-308",
            "0.1",
            "1.7976931348623157e308",
        ],
        "1",
        "2",
    ),
    (
        "real",
        &["1.1", "3.4028235e38", "-1.5e-10", "NaN"],
        "1",
        "2",
    ),
    (
        "text",
        &[
            "",
            "\\N",
            "NULL",
            "a\"b",
            "line\nbreak",
            " lead",
            "trail ",
            "ü€𝄞",
            "a,b",
            "\\\\",
        ],
        "'x'",
        "'y'",
    ),
    (
        "bytea",
        &["\\x", "\\x00ff", "\\\\", "abc\\000"],
        "'\\x01'",
        "'\\x02'",
    ),
    (
        "timestamp with time zone",
        &[
            "2000-01-01 00:00:00+00",
            "1999-12-31 19:00:00-05",
            "infinity",
            "0001-01-01 00:00:00+00 BC",
            "2020-06-30 23:59:59.999999+14",
        ],
        "'2001-01-01 00:00:00+00'",
        "'2002-01-01 00:00:00+00'",
    ),
    (
        "timestamp without time zone",
        &["2000-01-01 00:00:00", "-infinity", "2000-02-29 12:00:00.5"],
        "'2001-01-01'",
        "'2002-01-01'",
    ),
    (
        "date",
        &["2000-01-01", "infinity", "0044-03-15 BC"],
        "'2001-01-01'",
        "'2002-01-01'",
    ),
    ("boolean", &["t", "f", "yes", "off"], "true", "false"),
    (
        "jsonb",
        &[
            "{}",
            "[]",
            "{\"a\":1,\"b\":[1,2]}",
            "{\"b\":1, \"a\":\"\\u00fc\"}",
            "\"\"",
            "null",
            "1.0",
        ],
        "'1'",
        "'2'",
    ),
    (
        "integer[]",
        &["{}", "{1,NULL,3}", "{{1,2},{3,4}}"],
        "'{1}'",
        "'{2}'",
    ),
    (
        "text[]",
        &["{}", "{\"\",NULL,\"NULL\",\"a,b\",\"q\\\"\"}", "{a}"],
        "'{x}'",
        "'{y}'",
    ),
    (
        "uuid",
        &[
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}",
        ],
        "'00000000-0000-0000-0000-000000000001'",
        "'00000000-0000-0000-0000-000000000002'",
    ),
    (
        "interval",
        &["1 day", "-00:00:01", "1 year 2 mons"],
        "'1 hour'",
        "'2 hours'",
    ),
    ("character(3)", &["a", "ab ", ""], "'x'", "'y'"),
];

/// Column types (indexes into NASTY), rows of value indexes (None: NULL), and where to mutate.
type Table = (Vec<usize>, Vec<Vec<Option<usize>>>, (usize, usize));

fn table_strategy() -> impl Strategy<Value = Table> {
    prop::collection::vec(0..NASTY.len(), 1..5).prop_flat_map(|types| {
        let n = types.len();
        let rows = prop::collection::vec(
            prop::collection::vec(prop::option::weighted(0.8, 0..16usize), n),
            1..30,
        );
        (Just(types), rows, (any::<usize>(), any::<usize>()))
    })
}

#[test]
fn random_nasty_tables_verify_and_one_mutation_is_found() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let case = std::cell::Cell::new(0u32);
    let cfg = ProptestConfig {
        cases: 6,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(cfg, |((types, rows, (pr, pc)) in table_strategy())| {
        case.set(case.get() + 1);
        let name = format!("p{}", case.get());
        let mut cols: Vec<(String, &str)> = vec![("id".into(), "integer")];
        for (i, &t) in types.iter().enumerate() {
            cols.push((format!("c{i}"), NASTY[t].0));
        }
        let colrefs: Vec<(&str, &str)> = cols.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let data: Vec<Vec<Option<String>>> = rows
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let mut v = vec![Some((k + 1).to_string())];
                for (j, x) in r.iter().enumerate() {
                    let vals = NASTY[types[j]].1;
                    v.push(x.map(|x| vals[x % vals.len()].to_string()));
                }
                v
            })
            .collect();
        let null = if case.get().is_multiple_of(2) { "" } else { "\\N" };
        let names: Vec<&str> = colrefs.iter().map(|c| c.0).collect();
        write_csv(&dir.path().join(format!("{name}.csv")), &data, &names, null);
        let m = manifest(dir.path(), &name, &colrefs, data.len() as u64, null);
        pg.psql("d", &create_sql(&name, &colrefs));
        let m = m.to_str().unwrap();
        let (code, out, err) = csvload(&pg, &["-j", "2", "--verify", "content", "-m", m, "dbname=d"]);
        prop_assert_eq!(code, 0, "{}\n{}", out, err);
        // One value changed in the target: always found.
        let row = pr % data.len() + 1;
        let col = pc % types.len();
        let (ty, _, v1, v2) = NASTY[types[col]];
        let (v1, v2) = (format!("CAST({v1} AS {ty})"), format!("CAST({v2} AS {ty})"));
        pg.psql("d", &format!(
            "UPDATE {name} SET c{col} = CASE WHEN c{col} IS NULL THEN {v1} \
             WHEN c{col} = {v1} THEN {v2} ELSE {v1} END WHERE id = {row}"
        ));
        let (code, out, err) = csvload(&pg, &["--verify-only", "--verify", "content", "-m", m, "dbname=d"]);
        prop_assert_eq!(code, 1, "{}\n{}", out, err);
        let key = format!("key (id)=({row})");
        prop_assert!(out.contains(&key), "{}", out);
    });
}

/// The torture fixture dump, converted (with and without a header, `\N` NULLs, gzip) and
/// loaded: every table's content verifies, though the target prints its values its own way.
#[test]
fn fixture_dump_verifies_content() {
    use crate::support::cli::{self, Input};
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path("nasty.sql");
    for (i, extra) in [&[][..], &["--header", "--null", "\\N", "--gzip"][..]]
        .iter()
        .enumerate()
    {
        let conv = cli::convert(&dump, Input::Path, extra);
        let db = format!("b{i}");
        pg.createdb(&db);
        let (m, s, p) = (
            conv.manifest_path.to_str().unwrap(),
            conv.schema.to_str().unwrap(),
            conv.post.to_str().unwrap(),
        );
        let dbarg = format!("dbname={db}");
        let args = [
            "--schema",
            s,
            "--post-data",
            p,
            "-m",
            m,
            "-j",
            "2",
            "--verify",
            "content",
            &dbarg,
        ];
        let (code, out, err) = csvload(&pg, &args);
        assert_eq!(code, 0, "{extra:?}:\n{out}\n{err}");
        assert!(
            out.contains("  content\n") && out.contains("  ok\n"),
            "{out}"
        );
        assert!(!out.contains("DIFFERENT"), "{out}");
    }
}
