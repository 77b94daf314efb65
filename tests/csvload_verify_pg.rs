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

// ---- issue 35: verification never wrong in either direction -------------------------------

/// Type families for the dumped tables (issue 35): the SQL type and values as SQL
/// expressions (at least two with different texts each, for the change test).
const FAMILIES: &[(&str, &[&str])] = &[
    ("integer", &["0", "-2147483648", "42"]),
    (
        "numeric",
        &[
            "1.0",
            "1.00",
            "-0.000",
            "'NaN'",
            "1e-20",
            "123456789012345678901234567890.123",
        ],
    ),
    ("numeric(10,3)", &["1.5", "2", "-0.0005"]),
    (
        "double precision",
        &["0.1", "'-Infinity'", "1e-308", "16777217"],
    ),
    ("real", &["1.1", "'NaN'", "3.4e38"]),
    ("boolean", &["true", "false"]),
    (
        "text",
        &["''", "'a\"b,c'", "E'line\\nbreak'", "'NULL'", "' sp '"],
    ),
    ("character(3)", &["'a'", "'ab '"]),
    ("bytea", &["'\\x00ff'", "''"]),
    ("date", &["'2000-02-29'", "'infinity'", "'0044-03-15 BC'"]),
    ("time", &["'12:34:56.789'", "'24:00'"]),
    (
        "time with time zone",
        &["'12:34:56+05:45'", "'00:00-03:30'"],
    ),
    (
        "timestamp",
        &[
            "'2000-01-01 00:00:00.5'",
            "'-infinity'",
            "'1890-06-01 12:00'",
        ],
    ),
    (
        "timestamp with time zone",
        &[
            "'2021-03-28 02:30:00+01'",
            "'1890-06-01 12:00:00+00'",
            "'infinity'",
            "'2020-10-25 01:30:00 UTC'",
        ],
    ),
    (
        "interval",
        &[
            "'1 year 2 mons -3 days 04:05:06.7'",
            "'-00:00:01'",
            "'P1Y2M'",
        ],
    ),
    (
        "uuid",
        &[
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
            "'00000000-0000-0000-0000-000000000000'",
        ],
    ),
    ("json", &["'{\"b\":1, \"a\":[1.0]}'", "'{\"a\":1,\"a\":2}'"]),
    (
        "jsonb",
        &["'{\"b\":1, \"a\":[1.0]}'", "'[]'", "'{\"a\":\"\\u00fc\"}'"],
    ),
    (
        "integer[]",
        &["'{1,NULL,3}'", "'{{1,2},{3,4}}'", "'[0:1]={5,6}'"],
    ),
    (
        "text[]",
        &["'{\"\",NULL,\"NULL\",\"a,b\",\"q\\\"\"}'", "'{a}'"],
    ),
    (
        "timestamp with time zone[]",
        &["ARRAY['2020-01-01 12:00+01'::timestamptz, NULL]", "'{}'"],
    ),
    (
        "tstzrange",
        &[
            "'[2020-01-01 12:00+01,2020-06-01 00:00+02)'",
            "'empty'",
            "'(,2020-01-01)'",
            "'[1890-01-01 00:00+00,infinity]'",
        ],
    ),
    ("tsrange", &["'[2020-01-01 12:00,2020-06-01)'", "'(,)'"]),
    (
        "daterange",
        &["'[2020-01-01,2020-02-01)'", "'[2020-01-01,2020-01-05]'"],
    ),
    ("int4range", &["'[1,5]'", "'(1,5)'"]),
    ("numrange", &["'[1.0,2.00)'", "'[1.00,2.00)'"]),
    (
        "tstzmultirange",
        &[
            "'{[2020-01-01 12:00+01,2020-01-02 00:00+01), [2021-07-01 00:00+00,)}'",
            "'{}'",
        ],
    ),
    (
        "tstzrange[]",
        &[
            "ARRAY['[2020-01-01 12:00+01,2020-01-02 00:00+01)'::tstzrange, 'empty']",
            "'{}'",
        ],
    ),
    (
        "ev",
        &[
            "ROW(1, '2020-07-01 12:00+02', 'x, \"y\"')::ev",
            "ROW(NULL, NULL, '')::ev",
            "ROW(2, '1890-01-01 00:00+00', NULL)::ev",
        ],
    ),
    (
        "ev[]",
        &[
            "ARRAY[ROW(1, '2020-01-01 00:00+00', 'a')::ev, NULL]",
            "'{}'",
        ],
    ),
    ("mood", &["'sad'", "'happy'"]),
    ("posnum", &["1.5", "2.25"]),
    ("inet", &["'10.0.0.1/8'", "'::1'"]),
];

/// Types the FAMILIES need in the dumped database.
const FAMILY_TYPES: &str = "CREATE TYPE public.ev AS (n integer, at timestamp with time zone, s text); \
     CREATE TYPE public.mood AS ENUM ('sad', 'happy'); \
     CREATE DOMAIN public.posnum AS numeric(8,2) CHECK (VALUE > 0);";

const ZONES: &[&str] = &[
    "Europe/Paris",
    "Asia/Kathmandu",
    "America/St_Johns",
    "UTC",
    "Pacific/Chatham",
];
const DATESTYLES: &[&str] = &["ISO, DMY", "SQL, DMY", "German", "Postgres, MDY"];
const INTERVALSTYLES: &[&str] = &["sql_standard", "iso_8601", "postgres_verbose", "postgres"];

/// Session settings of the dump and of the target database.
#[derive(Debug, Clone, Copy)]
struct Styles {
    zone: usize,
    date: usize,
    interval: usize,
}

impl Styles {
    fn env(&self) -> [(&'static str, String); 3] {
        [
            ("PGTZ", ZONES[self.zone % ZONES.len()].to_string()),
            (
                "PGDATESTYLE",
                DATESTYLES[self.date % DATESTYLES.len()].to_string(),
            ),
            (
                "PGOPTIONS",
                format!(
                    "-c IntervalStyle={}",
                    INTERVALSTYLES[self.interval % INTERVALSTYLES.len()]
                ),
            ),
        ]
    }

    fn alter_database(&self, db: &str) -> String {
        format!(
            "ALTER DATABASE {db} SET TimeZone = '{}'; ALTER DATABASE {db} SET DateStyle = '{}'; \
             ALTER DATABASE {db} SET IntervalStyle = '{}'",
            ZONES[self.zone % ZONES.len()],
            DATESTYLES[self.date % DATESTYLES.len()],
            INTERVALSTYLES[self.interval % INTERVALSTYLES.len()]
        )
    }
}

/// One dumped table: `public.t (id, c0, c1, ...)` of the families `fams`, `rows` of value
/// indexes (None: NULL), in database `src`, dumped with pg_dump under `dump` settings,
/// converted, and loaded with `--verify content` into `dst` (a database set to `target`).
/// Returns csvload's exit, stdout, stderr and the manifest's path (kept in `dir`).
#[allow(clippy::too_many_arguments)]
fn dump_and_load(
    pg: &Pg,
    dir: &Path,
    src: &str,
    dst: &str,
    fams: &[usize],
    rows: &[Vec<Option<usize>>],
    dump: Styles,
    target: Styles,
) -> (i32, String, String, PathBuf) {
    use crate::support::cmd::Within;
    pg.createdb(src);
    pg.psql(src, FAMILY_TYPES);
    let cols: Vec<String> = fams
        .iter()
        .enumerate()
        .map(|(i, &f)| format!("c{i} {}", FAMILIES[f].0))
        .collect();
    let mut sql = format!(
        "CREATE TABLE public.t (id integer PRIMARY KEY{}{});",
        if cols.is_empty() { "" } else { ", " },
        cols.join(", ")
    );
    for (k, r) in rows.iter().enumerate() {
        let vals: Vec<String> = r
            .iter()
            .zip(fams)
            .map(|(v, &f)| match v {
                None => "NULL".to_string(),
                Some(x) => {
                    let vs = FAMILIES[f].1;
                    format!("CAST({} AS {})", vs[x % vs.len()], FAMILIES[f].0)
                }
            })
            .collect();
        sql.push_str(&format!(
            " INSERT INTO public.t VALUES ({}{}{});",
            k + 1,
            if vals.is_empty() { "" } else { ", " },
            vals.join(", ")
        ));
    }
    // Values entered under the dump's own zone and styles, as a user there would.
    let o = pg
        .client("psql")
        .envs(dump.env())
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", src, "-c", &sql])
        .stdin(std::process::Stdio::null())
        .output_within()
        .expect("psql");
    assert!(
        o.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let file = dir.join(format!("{src}.sql"));
    let o = pg
        .client("pg_dump")
        .envs(dump.env())
        .arg("-f")
        .arg(&file)
        .arg(src)
        .stdin(std::process::Stdio::null())
        .output_within()
        .expect("pg_dump");
    assert!(
        o.status.success(),
        "pg_dump: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let conv = crate::support::cli::convert(&file, crate::support::cli::Input::Path, &[]);
    let keep = dir.join(format!("{src}-conv"));
    std::fs::rename(conv.dir.path(), &keep).unwrap();
    let m = keep.join("manifest.json");
    pg.createdb(dst);
    pg.psql("postgres", &target.alter_database(dst));
    let (s, p) = (keep.join("schema.sql"), keep.join("post.sql"));
    let dbarg = format!("dbname={dst}");
    let (code, out, err) = csvload(
        pg,
        &[
            "--schema",
            s.to_str().unwrap(),
            "--post-data",
            p.to_str().unwrap(),
            "-m",
            m.to_str().unwrap(),
            "--verify",
            "content",
            &dbarg,
        ],
    );
    (code, out, err, m)
}

/// Issue 35 item 1: ranges, multiranges, composites holding a timestamptz and arrays of
/// them, dumped under Europe/Paris, Asia/Kathmandu and America/St_Johns (and other
/// DateStyles and IntervalStyles, for the dump and the target database), verify equal.
#[test]
fn zones_and_styles_of_dump_and_target_verify_equal() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let fams: Vec<usize> = FAMILIES
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.0.contains("range") || f.0.starts_with("ev") || f.0.starts_with("timestamp with")
        })
        .map(|(i, _)| i)
        .collect();
    let rows: Vec<Vec<Option<usize>>> = (0..4)
        .map(|k| fams.iter().map(|_| Some(k)).collect())
        .collect();
    for (i, zone) in ["Europe/Paris", "Asia/Kathmandu", "America/St_Johns"]
        .iter()
        .enumerate()
    {
        let z = ZONES.iter().position(|x| x == zone).unwrap();
        let dump = Styles {
            zone: z,
            date: i + 1,
            interval: i,
        };
        let target = Styles {
            zone: z + 1,
            date: i + 2,
            interval: i + 1,
        };
        let (code, out, err, _) = dump_and_load(
            &pg,
            dir.path(),
            &format!("zsrc{i}"),
            &format!("zdst{i}"),
            &fams,
            &rows,
            dump,
            target,
        );
        assert_eq!(code, 0, "{zone}: {out}\n{err}");
        assert!(
            out.contains("public.t ") && out.contains("  ok"),
            "{zone}: {out}"
        );
    }
}

/// Issue 36: a `timestamptz` column whose first records are in UTC is compared as text in
/// the first pass. A record after them with the same instant at another offset still
/// verifies (its bucket goes to the canonical pass); an instant one microsecond off, in UTC
/// like its neighbours, is found.
#[test]
fn utc_timestamps_compared_as_text_still_verify_other_offsets() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[("id", "integer"), ("at", "timestamp with time zone")];
    let mut rows: Vec<Vec<Option<String>>> = (1..=1500)
        .map(|i| {
            vec![
                Some(i.to_string()),
                Some(format!(
                    "2026-01-01 00:{:02}:{:02}.25+00",
                    i / 60 % 60,
                    i % 60
                )),
            ]
        })
        .collect();
    rows.push(vec![Some("1501".into()), None]);
    rows.push(vec![
        Some("1502".into()),
        Some("2026-01-01 05:45:00+05:45".into()),
    ]);
    write_csv(&dir.path().join("z.csv"), &rows, &["id", "at"], "");
    let m = manifest(dir.path(), "z", cols, rows.len() as u64, "");
    let m = m.to_str().unwrap();
    pg.psql(
        "d",
        "CREATE TABLE public.z (id integer PRIMARY KEY, at timestamptz)",
    );
    let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("public.z ") && out.contains("  ok"), "{out}");
    pg.psql(
        "d",
        "UPDATE public.z SET at = at + interval '1 microsecond' WHERE id = 1200",
    );
    let (code, out, err) = csvload(
        &pg,
        &["--verify-only", "--verify", "content", "-m", m, "dbname=d"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("key (id)=(1200)"), "{out}");
    assert!(!out.contains("key (id)=(1502)"), "{out}");
}

/// Issue 35 item 2: values are compared in the manifest's type. A double loaded into
/// `real` (16777217 stored as 16777216) and json loaded into jsonb (a duplicate key
/// dropped) differ; the warning names the columns and both types.
#[test]
fn target_type_that_cannot_hold_the_values_is_a_difference() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[("id", "integer"), ("f", "double precision"), ("j", "json")];
    let rows: Vec<Vec<Option<String>>> = vec![
        vec![
            Some("1".into()),
            Some("0.5".into()),
            Some("{\"a\": 1}".into()),
        ],
        vec![
            Some("2".into()),
            Some("16777217".into()),
            Some("{\"a\": 1}".into()),
        ],
        vec![
            Some("3".into()),
            Some("0.5".into()),
            Some("{\"a\": 1, \"a\": 2}".into()),
        ],
    ];
    write_csv(&dir.path().join("w.csv"), &rows, &["id", "f", "j"], "");
    let m = manifest(dir.path(), "w", cols, 3, "");
    let m = m.to_str().unwrap();
    pg.psql(
        "d",
        "CREATE TABLE public.w (id integer PRIMARY KEY, f real, j jsonb)",
    );
    let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("DIFFERENT"), "{out}");
    assert!(
        out.contains("key (id)=(2)") && out.contains("key (id)=(3)"),
        "{out}"
    );
    assert!(!out.contains("key (id)=(1)"), "{out}");
    assert!(
        err.contains("f (double precision in the manifest, real on the target)")
            && err.contains("j (json in the manifest, jsonb on the target)"),
        "{err}"
    );
    // The same table with the manifest's types verifies.
    pg.psql(
        "d",
        "DROP TABLE public.w; CREATE TABLE public.w (id integer PRIMARY KEY, f double precision, j json)",
    );
    let (code, out, err) = csvload(
        &pg,
        &["--truncate", "--verify", "content", "-m", m, "dbname=d"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!err.contains("warning"), "{err}");
}

/// Issue 35 item 3: a numeric's scale is part of its value (`1.0` and `1.00` print
/// differently); a typmod's scale is the column's (`1.5` in numeric(12,2) is `1.50`);
/// numeric ranges and jsonb numbers follow the same rule.
#[test]
fn numeric_scale_is_compared() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[
        ("id", "integer"),
        ("n", "numeric"),
        ("s", "numeric(12,2)"),
        ("r", "numrange"),
        ("j", "jsonb"),
    ];
    let rows: Vec<Vec<Option<String>>> = (1..=3)
        .map(|k| {
            vec![
                Some(k.to_string()),
                Some("1.0".into()),
                Some("1.5".into()),
                Some("[1.0,2.0)".into()),
                Some("{\"a\": 1.0}".into()),
            ]
        })
        .collect();
    let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    write_csv(&dir.path().join("n.csv"), &rows, &names, "");
    let m = manifest(dir.path(), "n", cols, 3, "");
    let m = m.to_str().unwrap();
    pg.psql("d", &create_sql("n", cols));
    let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let verify = ["--verify-only", "--verify", "content", "-m", m, "dbname=d"];
    for (k, set, col) in [
        (1, "n = 1.00", "n"),
        (2, "r = '[1.00,2.0)'", "r"),
        (3, "j = '{\"a\": 1.00}'", "j"),
    ] {
        pg.psql("d", &format!("UPDATE n SET {set} WHERE id = {k}"));
        let (code, out, err) = csvload(&pg, &verify);
        assert_eq!(code, 1, "{set}: {out}\n{err}");
        assert!(
            out.contains(&format!("  column {col}: csv ")),
            "{set}: {out}"
        );
        pg.psql(
            "d",
            "UPDATE n SET n = 1.0, r = '[1.0,2.0)', j = '{\"a\": 1.0}'",
        );
    }
}

/// Issue 61 item 8: a difference is named without ambiguity. The text `'NULL'` and SQL NULL
/// printed alike (`NULL`); a composite key was labelled in the CSV's column order, not the
/// key's (`PRIMARY KEY (b, a)` said `(a, b)=(1, 10)`); and a table whose count differed was
/// printed in the count table and again in the content table.
#[test]
fn differences_are_named_unambiguously() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[("a", "integer"), ("b", "integer"), ("v", "text")];
    let rows: Vec<Vec<Option<String>>> = [(1, 10, "NULL"), (2, 20, "x"), (3, 30, "y")]
        .iter()
        .map(|(a, b, v)| {
            vec![
                Some(a.to_string()),
                Some(b.to_string()),
                Some(v.to_string()),
            ]
        })
        .collect();
    write_csv(&dir.path().join("k.csv"), &rows, &["a", "b", "v"], "");
    let m = manifest(dir.path(), "k", cols, 3, "");
    let m = m.to_str().unwrap();
    pg.psql(
        "d",
        "CREATE TABLE public.k (a integer, b integer, v text, PRIMARY KEY (b, a))",
    );
    let (code, out, err) = csvload(&pg, &["-q", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(pg.psql("d", "SELECT v FROM k WHERE a = 1").trim(), "NULL");
    pg.psql(
        "d",
        "UPDATE k SET v = NULL WHERE a = 1; DELETE FROM k WHERE a = 3",
    );
    let (code, out, err) = csvload(
        &pg,
        &["--verify-only", "--verify", "content", "-m", m, "dbname=d"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("  key (b, a)=(10, 1)\n"), "{out}");
    assert!(out.contains("  key (b, a)=(30, 3)\n"), "{out}");
    assert!(
        out.contains("  column v: csv    'NULL'\n  column v: target NULL\n"),
        "{out}"
    );
    let rows_of_k = out.lines().filter(|l| l.starts_with("public.k ")).count();
    assert_eq!(rows_of_k, 1, "the table printed once: {out}");
}

/// Issue 35 item 4: a change after the cut of a long record's printed line is named with
/// its column and both values.
#[test]
fn long_record_difference_names_the_column() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[("id", "integer"), ("long", "text"), ("v", "integer")];
    let rows: Vec<Vec<Option<String>>> = (1..=5)
        .map(|k| {
            vec![
                Some(k.to_string()),
                Some("x".repeat(500)),
                Some(k.to_string()),
            ]
        })
        .collect();
    write_csv(&dir.path().join("l.csv"), &rows, &["id", "long", "v"], "");
    let m = manifest(dir.path(), "l", cols, 5, "");
    let m = m.to_str().unwrap();
    pg.psql("d", &create_sql("l", cols));
    let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    pg.psql(
        "d",
        "UPDATE l SET v = 44 WHERE id = 4; UPDATE l SET long = long || 'y' WHERE id = 2",
    );
    let (code, out, err) = csvload(
        &pg,
        &["--verify-only", "--verify", "content", "-m", m, "dbname=d"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("  column v: csv    '4'\n  column v: target '44'\n"),
        "{out}"
    );
    assert!(!out.contains("column id:"), "{out}");
    // A long value is shown around where it differs.
    let l = out
        .lines()
        .find(|l| l.starts_with("  column long: target "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        l.ends_with("xxy'") && l.contains('…') && l.len() < 300,
        "{l}"
    );
}

/// Issue 35 item 5: INSERTs without column names of inheritance children whose column order
/// the dump does not fix: a child created alone and attached to its parent later keeps its
/// own order (test_type_diff2_c1/_c2 of PostgreSQL's regression database) and is named.
#[test]
fn attached_children_of_an_inserts_dump_are_named() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("r");
    pg.psql(
        "r",
        "CREATE TABLE test_type_diff2 (int_two int2, int_four int4, int_eight int8); \
         CREATE TABLE test_type_diff2_c1 (int_four int4, int_eight int8, int_two int2); \
         CREATE TABLE test_type_diff2_c2 (int_eight int8, int_two int2, int_four int4); \
         ALTER TABLE test_type_diff2_c1 INHERIT test_type_diff2; \
         ALTER TABLE test_type_diff2_c2 INHERIT test_type_diff2; \
         INSERT INTO test_type_diff2_c1 VALUES (1, 2, 3); \
         INSERT INTO test_type_diff2_c2 VALUES (1, 2, 3); \
         CREATE TABLE plain_parent (a int, b int); \
         CREATE TABLE plain_child () INHERITS (plain_parent); \
         INSERT INTO plain_child VALUES (1, 2);",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.sql");
    pg.pg_dump_to(&["--inserts", "r"], &file);
    let conv = crate::support::cli::convert(&file, crate::support::cli::Input::Path, &[]);
    for t in ["public.test_type_diff2_c1 ", "public.test_type_diff2_c2 "] {
        assert!(
            conv.stderr
                .contains(&format!("warning: {t}inherits columns")),
            "{t}: {}",
            conv.stderr
        );
    }
    // A child that declares nothing has its parent's order: no warning.
    assert!(!conv.stderr.contains("plain_child"), "{}", conv.stderr);
}

/// Issue 35 item 9: csvload sets standard_conforming_strings for its scripts; a raw
/// script's `'C:\\dir'` on a database set to off reads back as written.
#[test]
fn scripts_read_with_standard_conforming_strings_on() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    pg.psql(
        "postgres",
        "ALTER DATABASE d SET standard_conforming_strings = off",
    );
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("schema.sql");
    std::fs::write(
        &s,
        "CREATE TABLE public.t (id integer);\nCOMMENT ON TABLE public.t IS 'C:\\\\dir';\n",
    )
    .unwrap();
    let (code, out, err) = csvload(&pg, &["--schema", s.to_str().unwrap(), "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        pg.psql(
            "d",
            "SELECT obj_description('public.t'::regclass, 'pg_class')"
        )
        .trim(),
        "C:\\\\dir"
    );
}

/// Issue 35 item 9: a difference in the last of the 65,536 key buckets is found and shown.
#[test]
fn difference_in_the_last_key_bucket_is_found() {
    use dumpshard::pg::types::canon::Form;
    use dumpshard::tools::csvload::verify::{BUCKETS, Hasher, Mode, Shape};
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let shape = Shape {
        names: vec!["id".into(), "v".into()],
        types: vec![Form::from_name("integer"), Form::from_name("integer")],
        key: vec![0],
        key_shown: vec![0],
        plain: vec![true, true],
        retyped: vec![],
    };
    let mut h = Hasher::new();
    // The bucket is the key's in every mode.
    let bucket = |h: &mut Hasher, i: u32| {
        let rec = format!("{i},0\n");
        let b = h
            .record(&shape, rec.as_bytes(), b"", Mode::Canonical, None)
            .unwrap()
            .unwrap()
            .bucket;
        for m in [Mode::Text, Mode::Whole] {
            let x = h.record(&shape, rec.as_bytes(), b"", m, None).unwrap();
            assert_eq!(x.unwrap().bucket, b);
        }
        b
    };
    let last = (1..10_000_000u32)
        .find(|&i| bucket(&mut h, i) == BUCKETS - 1)
        .expect("a key in the last bucket");
    let first = (1..10_000_000u32)
        .find(|&i| bucket(&mut h, i) == 0)
        .expect("a key in the first bucket");
    let dir = tempfile::tempdir().unwrap();
    let cols: &[(&str, &str)] = &[("id", "integer"), ("v", "integer")];
    let rows: Vec<Vec<Option<String>>> = [first, last]
        .iter()
        .map(|k| vec![Some(k.to_string()), Some("0".into())])
        .collect();
    write_csv(&dir.path().join("b.csv"), &rows, &["id", "v"], "");
    let m = manifest(dir.path(), "b", cols, 2, "");
    let m = m.to_str().unwrap();
    pg.psql("d", &create_sql("b", cols));
    let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
    assert_eq!(code, 0, "{out}\n{err}");
    for k in [last, first] {
        pg.psql("d", &format!("UPDATE b SET v = 1 WHERE id = {k}"));
        let (code, out, err) = csvload(
            &pg,
            &["--verify-only", "--verify", "content", "-m", m, "dbname=d"],
        );
        assert_eq!(code, 1, "bucket of {k}: {out}\n{err}");
        assert!(
            out.contains("content differs in 1 of 65536 key (id) buckets")
                && out.contains(&format!("  key (id)=({k})"))
                && out.contains("  column v: target '1'"),
            "{k}: {out}"
        );
        pg.psql("d", "UPDATE b SET v = 0");
    }
}

/// Issue 35: random tables of every type family, dumped under random time zones,
/// DateStyles and IntervalStyles, loaded into a database with other settings: they verify
/// equal; then one value changed in the target is found and its column named.
#[test]
fn random_families_under_random_zones_verify_and_a_change_is_named() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let case = std::cell::Cell::new(0u32);
    let cfg = ProptestConfig {
        cases: 5,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let styles = (0..8usize, 0..8usize, 0..8usize).prop_map(|(zone, date, interval)| Styles {
        zone,
        date,
        interval,
    });
    let strategy = prop::collection::vec(0..FAMILIES.len(), 1..8).prop_flat_map(move |fams| {
        let n = fams.len();
        let rows = prop::collection::vec(
            prop::collection::vec(prop::option::weighted(0.85, 0..8usize), n),
            1..12,
        );
        (
            Just(fams),
            rows,
            styles.clone(),
            styles.clone(),
            (any::<usize>(), any::<usize>()),
        )
    });
    proptest!(cfg, |((fams, rows, dump, target, (pr, pc)) in strategy)| {
        case.set(case.get() + 1);
        let c = case.get();
        let (code, out, err, m) = dump_and_load(
            &pg, dir.path(), &format!("psrc{c}"), &format!("pdst{c}"), &fams, &rows, dump, target,
        );
        prop_assert_eq!(code, 0, "{:?} {:?} {:?}: {}\n{}", fams, dump, target, out, err);
        let row = pr % rows.len() + 1;
        let col = pc % fams.len();
        let (ty, vals) = FAMILIES[fams[col]];
        let (v1, v2) = (format!("CAST({} AS {ty})", vals[0]), format!("CAST({} AS {ty})", vals[1]));
        pg.psql(&format!("pdst{c}"), &format!(
            "UPDATE public.t SET c{col} = CASE WHEN c{col}::text IS NOT DISTINCT FROM ({v1})::text \
             THEN {v2} ELSE {v1} END WHERE id = {row}"
        ));
        let dbarg = format!("dbname=pdst{c}");
        let (code, out, err) = csvload(
            &pg,
            &["--verify-only", "--verify", "content", "-m", m.to_str().unwrap(), &dbarg],
        );
        prop_assert_eq!(code, 1, "{}: {}\n{}", ty, out, err);
        let key = format!("key (id)=({row})");
        let column = format!("  column c{col}: csv ");
        prop_assert!(out.contains(&key) && out.contains(&column), "{}: {}", ty, out);
    });
}

/// `make -f examples/migrate.mk VARS...` from the repository root with the server's libpq
/// environment and no make or PG* variables from the caller; `None` without GNU make.
fn migrate_make(pg: &Pg, vars: &[String]) -> Option<std::process::Output> {
    use crate::support::cmd::{Cmd, Within};
    let gnu = std::process::Command::new("make")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output_within()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GNU Make")
        });
    if !gnu {
        eprintln!("SKIPPED: no GNU make on PATH");
        return None;
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_csvload")).parent().unwrap();
    let mut c = Cmd::program("make");
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("PG") || k.starts_with("MAKE") || k == "MFLAGS" {
            c = c.env_remove(k);
        }
    }
    Some(
        c.env("PGHOST", pg.socket_dir())
            .env("PGPORT", pg.port().to_string())
            .env("PGUSER", pg::SUPERUSER)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["-f", "examples/migrate.mk", "-j2"])
            .arg(format!("BIN={}", bin.display()))
            .args(vars)
            .run()
            .output,
    )
}

/// Issue 35 item 9: under make, a verification that fails fails the run (both the `verify`
/// target and the stamp of a full run), so a damaged target is never reported migrated.
#[test]
fn migrate_mk_fails_when_verification_fails() {
    let Some(pg) = Pg::start() else { return };
    let dump = crate::support::cli::dump_path("nasty.sql");
    pg.createdb("target");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let vars = |goal: Option<&str>| {
        let mut v = vec![
            format!("DUMP={}", dump.display()),
            format!("OUT={}", out.display()),
            "TARGET=dbname=target".to_string(),
            "VERIFY=content".to_string(),
        ];
        v.extend(goal.map(String::from));
        v
    };
    let Some(first) = migrate_make(&pg, &vars(None)) else {
        return;
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(
        first.status.success(),
        "{}\n{}",
        text(&first.stdout),
        text(&first.stderr)
    );
    let verified = out.join(".stamps/verified");
    assert!(verified.exists());
    pg.psql(
        "target",
        "UPDATE public.customer SET name = name || 'x' WHERE id = (SELECT min(id) FROM public.customer)",
    );
    let again = migrate_make(&pg, &vars(Some("verify"))).unwrap();
    assert!(
        !again.status.success(),
        "make verify passed a damaged target:\n{}\n{}",
        text(&again.stdout),
        text(&again.stderr)
    );
    assert!(
        text(&again.stdout).contains("DIFFERENT"),
        "{}",
        text(&again.stdout)
    );
    // Issue 61: the stop ends with what to do.
    assert!(
        text(&again.stderr).contains("migrate.mk: the target's tables differ from")
            && text(&again.stderr).contains("forget-target"),
        "{}",
        text(&again.stderr)
    );
    std::fs::remove_file(&verified).unwrap();
    let full = migrate_make(&pg, &vars(None)).unwrap();
    assert!(
        !full.status.success(),
        "make passed a damaged target:\n{}\n{}",
        text(&full.stdout),
        text(&full.stderr)
    );
    assert!(
        !verified.exists(),
        "the verified stamp made after a failed verification"
    );
}

/// Issue 35 item 8: the first step compares values' texts, and only key buckets whose
/// texts differ are compared again in canonical form. CSV values spelled otherwise than
/// the target prints them (`+007`, `1e1`, `yes`, upper-case uuids, unsorted jsonb keys, a
/// zone other than UTC) in every record still verify `ok`, with a key and without one, with
/// and without a zoned column (which takes the record's bytes whole in the first step); a
/// value changed on the target is still found and its column named.
#[test]
fn texts_that_differ_for_equal_values_verify_equal() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("d");
    let dir = tempfile::tempdir().unwrap();
    let plain: &[(&str, &str)] = &[
        ("id", "integer"),
        ("i", "integer"),
        ("f", "double precision"),
        ("b", "boolean"),
        ("u", "uuid"),
        ("j", "jsonb"),
    ];
    let mut zoned = plain.to_vec();
    zoned.push(("t", "timestamptz"));
    let row = |k: u32, with_t: bool, odd: bool| -> Vec<Option<String>> {
        let mut r = vec![
            Some(k.to_string()),
            Some(if odd {
                format!("+{:03}", k % 7)
            } else {
                (k % 7).to_string()
            }),
            Some(if odd {
                format!("{k}e1")
            } else {
                (k * 10).to_string()
            }),
            Some(if odd { "yes" } else { "t" }.into()),
            Some(if odd {
                format!("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD38{k:04X}")
            } else {
                format!("a0eebc99-9c0b-4ef8-bb6d-6bb9bd38{k:04x}")
            }),
            Some(if odd {
                format!("{{\"b\": {k},   \"a\": [1, \"x\"]}}")
            } else {
                format!("{{\"a\": [1, \"x\"], \"b\": {k}}}")
            }),
        ];
        if with_t {
            r.push(Some(if odd {
                format!("2020-01-01 12:{:02}:00+01", k % 60)
            } else {
                format!("2020-01-01 11:{:02}:00+00", k % 60)
            }));
        }
        r
    };
    for (base, cols, keyed) in [
        ("pw", plain, true),
        ("zw", &zoned[..], true),
        ("pn", plain, false),
        ("zn", &zoned[..], false),
    ] {
        let with_t = cols.len() == zoned.len();
        // Every record spelled otherwise in the first table; half of them in the second.
        for odd_every in [1u32, 2] {
            let name = &format!("{base}{odd_every}");
            let rows: Vec<Vec<Option<String>>> = (1..=300)
                .map(|k| row(k, with_t, k % odd_every == 0))
                .collect();
            let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
            write_csv(&dir.path().join(format!("{name}.csv")), &rows, &names, "");
            let m = manifest(dir.path(), name, cols, 300, "");
            let m = m.to_str().unwrap();
            let create = if keyed {
                create_sql(name, cols)
            } else {
                create_sql(name, cols).replace(" PRIMARY KEY", "")
            };
            pg.psql("d", &create);
            let (code, out, err) = csvload(&pg, &["--verify", "content", "-m", m, "dbname=d"]);
            assert_eq!(code, 0, "{name} {odd_every}: {out}\n{err}");
            assert!(out.contains(" ok"), "{name}: {out}");
            pg.psql(
                "d",
                &format!("UPDATE public.{name} SET i = i + 1 WHERE id = 150"),
            );
            let verify = ["--verify-only", "--verify", "content", "-m", m, "dbname=d"];
            let (code, out, err) = csvload(&pg, &verify);
            assert_eq!(code, 1, "{name}: {out}\n{err}");
            assert!(out.contains("DIFFERENT"), "{name}: {out}");
            assert!(out.contains("1 of 300 records differ"), "{name}: {out}");
            if keyed {
                assert!(out.contains("  column i: csv "), "{name}: {out}");
            }
        }
    }
}
