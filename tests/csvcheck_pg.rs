//! PostgreSQL as the referee for csvcheck: a fixture table with injected errors in every
//! column type is loaded one record per `COPY`; the records PostgreSQL refuses must be
//! exactly the records csvcheck puts in --bad-rows, and csvcheck's good records must then
//! load in one `COPY` with no error.

use crate::support::pg;

use crate::support::cmd::Within;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_csvcheck");

const SCHEMA: &str = r#"
CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'it''s fine');
CREATE DOMAIN public.posint AS integer NOT NULL;
CREATE TABLE public.r (
    i2 smallint,
    i4 integer,
    i8 bigint NOT NULL,
    n numeric(6,2),
    n44 numeric(4,4),
    nu numeric,
    r real,
    f double precision,
    b boolean,
    d date,
    t time without time zone,
    tz time with time zone,
    ts timestamp without time zone,
    tstz timestamp with time zone,
    iv interval,
    u uuid,
    j json,
    jb jsonb,
    by bytea,
    vc character varying(5),
    ch character(3),
    m public.mood,
    dm public.posint,
    ai integer[],
    at text[],
    tx text NOT NULL
);
"#;

const COLS: &[&str] = &[
    "i2", "i4", "i8", "n", "n44", "nu", "r", "f", "b", "d", "t", "tz", "ts", "tstz", "iv", "u",
    "j", "jb", "by", "vc", "ch", "m", "dm", "ai", "at", "tx",
];

const BASE: &[&str] = &[
    "1",
    "2",
    "3",
    "4.5",
    "0.5",
    "5",
    "1.5",
    "2.5",
    "t",
    "2024-01-05",
    "10:00",
    "10:00+02",
    "2024-01-05 10:00",
    "2024-01-05 10:00+00",
    "1 day",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "{\"a\":1}",
    "[1,2]",
    "\\x00ff",
    "abc",
    "ab",
    "ok",
    "7",
    "{1,2}",
    "{a,b}",
    "hello",
];

/// Values to inject, accepted and refused; PostgreSQL decides which is which.
fn injections() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "i2",
            vec![
                "-32768", "32767", "32768", "-32769", " 7 ", "+7", "7.0", "0x10", "", "N/A",
            ],
        ),
        (
            "i4",
            vec![
                "2147483647",
                "2147483648",
                "-2147483648",
                "00000000000000000001",
                "1_000",
                "12a",
                "1e3",
            ],
        ),
        (
            "i8",
            vec![
                "9223372036854775807",
                "9223372036854775808",
                "-9223372036854775808",
                "--1",
                "- 1",
            ],
        ),
        (
            "n",
            vec![
                "9999.99",
                "9999.994",
                "9999.995",
                "-9999.995",
                "10000",
                "1e3",
                "1e4",
                "NaN",
                "-NaN",
                "inf",
                "Infinity",
                ".5",
                "5.",
                ".",
                "1e",
                "1 e5",
                "1e 2",
                "0.000000001",
                "  12.5  ",
            ],
        ),
        (
            "n44",
            vec!["0.99994", "0.99995", "-0.00001", "1", "0", "NaN"],
        ),
        (
            "nu",
            vec![
                "1e131071",
                "1e131072",
                "1e-16383",
                "1e-16384",
                "-Infinity",
                "+inf",
                "infinity",
                "infinit",
                "1.2.3",
                "abc",
            ],
        ),
        (
            "r",
            vec![
                "1e39",
                "1e-46",
                "1e-45",
                "3.4028235e38",
                "3.4028236e38",
                "NaN",
                "-inf",
                "0x1p3",
                "1,5",
            ],
        ),
        (
            "f",
            vec![
                "1e-400",
                "1e400",
                "4.9e-324",
                "2e-324",
                "0x10",
                " 1.5 ",
                "-nan",
                "nan(1)",
                "1.e5",
                "+.5",
                "1e",
                "Infinity",
                "infinity x",
            ],
        ),
        (
            "b",
            vec![
                "o", "of", "ON", "tr", " yes ", "1", "10", "y", "nO", "off ", "offx", "TRUE",
                "truex", "",
            ],
        ),
        (
            "d",
            vec![
                "2024-1-5",
                "0000-01-01",
                "0001-01-01 BC",
                "4714-11-24 BC",
                "4714-11-23 BC",
                "5874897-12-31",
                "5874898-01-01",
                "20240105",
                "2024-02-30",
                "2024-02-29",
                "2023-02-29",
                "2000-02-29",
                "1900-02-29",
                "2024-01-05 10:00",
                "2024-01-05T10:00:00Z",
                "epoch",
                "Infinity",
                "-infinity",
                "+infinity",
                "2024-01-05 25:00",
                " 2024-01-05 ",
                "10000-01-01",
                "124-01-05",
                "2024-01-05 xyz",
                "2024-13-01",
                "N/A",
                "today",
            ],
        ),
        (
            "t",
            vec![
                "24:00:00",
                "24:00:00.1",
                "23:59:60",
                "23:59:60.5",
                "23:59:59.9999999",
                "allballs",
                "10:00+02",
                "2024-01-05 10:00",
                "10",
                "10:00 PST",
                "25:00",
                "10:60",
                "1:2:3",
            ],
        ),
        (
            "tz",
            vec![
                "10:00+16",
                "10:00+15:59",
                "10:00",
                "10:00 Europe/Paris",
                "10:00:00-0800",
                "10:00 UTC",
            ],
        ),
        (
            "ts",
            vec![
                "2024-01-05 24:00:00",
                "2024-01-05 24:00:01",
                "2024-01-05 23:59:60",
                "2024-01-05 23:59:60.5",
                "2024-01-05 23:60:00",
                "2024-01-05T10:00:00+02:00",
                "2024-01-05 10:00:00 +02",
                "2024-01-05 10:00:00 Europe/Paris",
                "2024-01-05 10:00:00 PST",
                "2024-01-05 10:00:00 Foo/Bar",
                "2024-01-05 10:00:00+16",
                "294276-12-31 23:59:59.999999",
                "294277-01-01",
                "2024-01-05 10:30.5",
                "2024-01-05 10",
                "2024-01-05 10:00:00.1234567",
                "2024-01-05T10",
                "2024-01-05 10:00:00 utc",
                "2024-01-05 10:00:00z",
                "2024-01-05 10:00:00 BC",
                "2024-01-05  10:00",
                "now",
            ],
        ),
        (
            "tstz",
            vec![
                "2024-01-05 10:00:00-08",
                "2024-01-05 10:00:00 America/New_York",
                "2024-01-05 10:00:00+1530",
                "2024-01-05 10:00:00+15:60",
                "2024-01-05 10:00:00 XYZ",
                "infinity",
            ],
        ),
        (
            "iv",
            vec![
                "1 day",
                "@ 1 minute ago",
                "1 year 2 mons 3 days 04:05:06",
                "P1Y2M3DT4H5M6S",
                "P0001-02-03T04:05:06",
                "10",
                "1:30",
                "1day",
                "1 day 2 days",
                "1 week 2 days",
                "1 hour 01:00:00",
                "1.5 days",
                "microseconds",
                "3 microsecondsxyz",
                "1 2",
                "-1 days +02:03:00",
                "2147483648 days",
                "P",
                "PT",
                "1 fortnight",
                "",
                "1 mon 1 month",
                "2 hours 30 minutes",
                "-5 s",
            ],
        ),
        (
            "u",
            vec![
                "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
                "a0eebc999c0b4ef8bb6d6bb9bd380a11",
                "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
                "A0EEBC99-9c0b4ef8-bb6d6bb9bd380a11",
                " a0eebc999c0b4ef8bb6d6bb9bd380a11",
                "a0eebc999c0b4ef8bb6d6bb9bd380a11-",
                "a0e-ebc999c0b4ef8bb6d6bb9bd380a11",
                "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
                "a0eebc999c0b4ef8bb6d6bb9bd380a1",
                "g0eebc999c0b4ef8bb6d6bb9bd380a11",
            ],
        ),
        (
            "j",
            vec![
                "1",
                " {\"a\":1} ",
                "{\"a\":1,}",
                "\"\\ud800\"",
                "\"\\u0000\"",
                "1e400",
                "NaN",
                "[1,2",
                "{\"a\":\"\\x\"}",
                "",
                "01",
                "null",
                "[]",
                "{\"a\":[1,{\"b\":null}]}",
                // The grammar decides alone since issue 36 (no simd-json first): strings
                // with raw control characters, in and past a sixteen-byte block, escapes
                // across blocks, numbers and whitespace at the grammar's edges.
                "\"a\tb\"",
                "\"a\tbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"",
                "\"a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"",
                "\"aaaaaaaaaaaaaaaaa\u{1f}bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"",
                "\"aaaaaaaaaaaaaaa\\\"bbbbbbbbbbbbbbb\\\\\"",
                "\"\u{7f} é ✓ 🙂\"",
                "\"\\/\"",
                "\"\\u00e9\"",
                "\"\\uZZZZ\"",
                "\"\\u12\"",
                "-0",
                "1.",
                ".5",
                "-",
                "1e",
                "1E+",
                "0.0e-0",
                "-12.5E+3",
                "[01]",
                "-01",
                "[1,]",
                "{\"a\"}",
                "{\"a\":}",
                " [ ] ",
                "\r\n[\t]\n",
                "\u{c}1",
                "{} x",
                "true false",
            ],
        ),
        (
            "jb",
            vec![
                "\"\\u0000\"",
                "1e400",
                "\"\\ud800\"",
                "1e1000000",
                "{\"a\": [1, 2.5, \"x\\ud83d\\ude00\"]}",
                "{\"a\":1,\"a\":2}",
                "tru",
                "\"\\udc00\"",
                "[\"\\ud83d\\ude00\", \"\\uDBFF\\uDFFF\"]",
                "\"\\ud800\\u0041\"",
                "[1E5, 2e-3, -0.5e+2]",
                "\"5e\\\\u0000\"",
            ],
        ),
        (
            "by",
            vec![
                "\\x0a0B",
                "\\x0a 0b",
                "\\x0a0",
                "\\xzz",
                "\\X0a",
                "abc\\\\def",
                "a\\101",
                "a\\400",
                "a\\1",
                "a\\q",
                " \\x00",
                "\\x",
                "plain",
                "a\\",
            ],
        ),
        (
            "vc",
            vec![
                "abcde",
                "abcdef",
                "äöüßé",
                "äöüßéx",
                "abc   ",
                "abcde ",
                "ab cd e",
                "",
                "日本語日本",
            ],
        ),
        ("ch", vec!["abc", "abcd", "abc  ", "äöü", "äöüx", ""]),
        (
            "m",
            vec!["sad", "ok", "it's fine", "OK", "happy", " ok", ""],
        ),
        ("dm", vec!["-5", "2147483648", "x", ""]),
        (
            "ai",
            vec![
                "{1,2,3}",
                "{ 1 , 2 }",
                "{}",
                "{{1,2},{3,4}}",
                "{{1,2},{3}}",
                "{1,NULL,null}",
                "{\"1\",\"2\"}",
                "{1,a}",
                "[1:2]={1,2}",
                "[1:3]={1,2}",
                "{1,2} ",
                " {1}",
                "{1,,2}",
                "{{}}",
                "{1,{2}}",
                "{\"1\" }",
                "{ \"1\" 2}",
                "{1}x",
                "1,2",
                "{2147483648}",
                "",
            ],
        ),
        (
            "at",
            vec![
                "{a b,c}",
                "{\"a\\\"b\",c\\,d}",
                "{a\"b}",
                "{NULLx}",
                "{\"NULL\"}",
                "{a,}",
                "{\"}",
                "{a\\}",
            ],
        ),
        ("tx", vec!["", "x,y", "line\nbreak", "quote\"d"]),
    ]
}

/// Quotes a value by the CSV contract; `None` is NULL.
fn field(v: Option<&str>) -> String {
    match v {
        None => String::new(),
        Some(v) => {
            if v.is_empty() || v.contains([',', '"', '\n', '\r']) || v == "\\." {
                format!("\"{}\"", v.replace('"', "\"\""))
            } else {
                v.to_string()
            }
        }
    }
}

fn record(vals: &[Option<&str>]) -> Vec<u8> {
    let mut s = vals.iter().map(|v| field(*v)).collect::<Vec<_>>().join(",");
    s.push('\n');
    s.into_bytes()
}

fn fixture() -> Vec<Vec<u8>> {
    let base: Vec<Option<&str>> = BASE.iter().map(|v| Some(*v)).collect();
    let mut recs = vec![record(&base)];
    for (col, vals) in injections() {
        let c = COLS.iter().position(|x| *x == col).unwrap();
        for v in vals {
            let mut row = base.clone();
            row[c] = Some(v);
            recs.push(record(&row));
        }
        // NULL in each column: allowed unless NOT NULL (i8, tx, the NOT NULL domain).
        let mut row = base.clone();
        row[c] = None;
        recs.push(record(&row));
    }
    // Structure: too few and too many fields, a blank line, invalid UTF-8, a CR in an
    // unquoted field, a quoted NULL-looking value.
    let mut short = record(&base);
    let cut = short.iter().rposition(|&b| b == b',').unwrap();
    short.truncate(cut);
    short.push(b'\n');
    recs.push(short);
    let mut long = record(&base);
    long.pop();
    long.extend_from_slice(b",extra\n");
    recs.push(long);
    recs.push(b"\n".to_vec());
    let mut bad_utf8 = record(&base);
    let at = bad_utf8.len() - 2;
    bad_utf8.insert(at, 0xff);
    recs.push(bad_utf8);
    let mut cr = record(&base);
    let at = cr.len() - 2;
    cr.insert(at, b'\r');
    recs.push(cr);
    // Ends inside quotes: the last record.
    let mut open = record(&base);
    open.truncate(open.len() - 1);
    open.extend_from_slice(b",\"open\n");
    recs.push(open);
    recs
}

fn write_script(path: &Path, recs: &[Vec<u8>]) {
    let mut s = Vec::new();
    writeln!(s, "CREATE SEQUENCE recno;").unwrap();
    writeln!(
        s,
        "ALTER TABLE public.r ADD COLUMN rec integer DEFAULT nextval('recno');"
    )
    .unwrap();
    for (k, rec) in recs.iter().enumerate() {
        writeln!(s, "SELECT setval('recno', {}, false);", k + 1).unwrap();
        writeln!(
            s,
            "COPY public.r ({}) FROM STDIN WITH (FORMAT csv);",
            COLS.join(", ")
        )
        .unwrap();
        s.extend_from_slice(rec);
        if rec.last() != Some(&b'\n') {
            s.push(b'\n');
        }
        s.extend_from_slice(b"\\.\n");
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn postgresql_refuses_exactly_the_bad_rows() {
    let Some(pg) = pg::Pg::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.createdb("referee");
    std::fs::write(d.join("schema.sql"), SCHEMA).unwrap();
    pg.psql_file("referee", &d.join("schema.sql"));

    let recs = fixture();
    let data: Vec<u8> = recs.concat();
    std::fs::write(d.join("in.csv"), &data).unwrap();

    // csvcheck's verdict.
    let o = Command::new(BIN)
        .args([
            "--ddl",
            "schema.sql",
            "--table",
            "r",
            "in.csv",
            "--bad-rows",
            "bad.csv",
            "--bad-rows-reasons",
            "why.csv",
            "--json",
            "--report",
            "report.json",
            "--filter",
        ])
        .current_dir(d)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::write(d.join("good.csv"), &o.stdout).unwrap();
    let why = std::fs::read_to_string(d.join("why.csv")).unwrap();
    let mut reasons: std::collections::BTreeMap<usize, String> = Default::default();
    for line in why.lines().skip(1) {
        let mut it = line.splitn(3, ',');
        let _file = it.next();
        let rec: usize = it.next().unwrap().parse().unwrap();
        reasons.entry(rec).or_insert_with(|| line.to_string());
    }
    let ours: BTreeSet<usize> = reasons.keys().copied().collect();

    // PostgreSQL's verdict, one COPY per record in one session.
    write_script(&d.join("load.sql"), &recs);
    let out = pg
        .client("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=0", "-d", "referee", "-f"])
        .arg(d.join("load.sql"))
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    let pg_err = String::from_utf8_lossy(&out.stderr).into_owned();
    let loaded: BTreeSet<usize> = pg
        .psql("referee", "SELECT rec FROM public.r ORDER BY rec")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let theirs: BTreeSet<usize> = (1..=recs.len()).filter(|k| !loaded.contains(k)).collect();

    let mut diff = String::new();
    for k in ours.symmetric_difference(&theirs) {
        let rec = String::from_utf8_lossy(&recs[k - 1]);
        if ours.contains(k) {
            diff += &format!(
                "record {k}: csvcheck refuses, PostgreSQL loads: {rec:?}\n    {}\n",
                reasons[k]
            );
        } else {
            diff += &format!("record {k}: PostgreSQL refuses, csvcheck passes: {rec:?}\n");
        }
    }
    assert!(
        diff.is_empty(),
        "csvcheck and PostgreSQL disagree on {} of {} records:\n{diff}\npsql said:\n{}",
        ours.symmetric_difference(&theirs).count(),
        recs.len(),
        pg_err.lines().take(400).collect::<Vec<_>>().join("\n")
    );
    assert!(
        theirs.len() > 100,
        "the fixture should hold many bad records"
    );
    eprintln!(
        "referee: {} records, PostgreSQL refused {}, csvcheck flagged the same {}",
        recs.len(),
        theirs.len(),
        ours.len()
    );

    // The good records load in one COPY with no error, and all of them arrive.
    pg.psql("referee", "TRUNCATE public.r");
    pg.copy_in_server(
        "referee",
        &format!("public.r ({})", COLS.join(", ")),
        &d.join("good.csv"),
        "FORMAT csv",
    );
    let n: usize = pg
        .psql("referee", "SELECT count(*) FROM public.r")
        .trim()
        .parse()
        .unwrap();
    assert_eq!(n, recs.len() - theirs.len());
    // Bad rows are the original bytes, in order.
    let bad = std::fs::read(d.join("bad.csv")).unwrap();
    let expect: Vec<u8> = theirs.iter().flat_map(|k| recs[k - 1].clone()).collect();
    assert!(bad == expect, "bad rows are not the original records");
}

/// Where csvcheck is deliberately stricter than PostgreSQL (docs/csvcheck.md, "Fidelity"): each of
/// these loads into PostgreSQL, and csvcheck flags each. If PostgreSQL ever refuses one, or
/// csvcheck starts passing one, docs/csvcheck.md is out of date.
#[test]
fn documented_strictness_is_exactly_that() {
    let Some(pg) = pg::Pg::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.createdb("strict");
    pg.psql("strict", "CREATE TABLE s (a integer, d date, t text)");
    let cases: &[(&str, &[u8])] = &[
        ("non-ISO date, MDY", b"1,1/8/1999,x\n"),
        ("non-ISO date, month name", b"1,Jan 8 1999,x\n"),
        (
            "balanced quotes inside an unquoted field",
            b"1,2024-01-05,a\"b\"c\n",
        ),
        ("text after the closing quote", b"1,2024-01-05,\"a\"b\n"),
    ];
    for (what, rec) in cases {
        let f = d.join("one.csv");
        std::fs::write(&f, rec).unwrap();
        let loaded = pg.try_copy_in("strict", "COPY s FROM STDIN WITH (FORMAT csv)", &f);
        assert!(
            loaded.is_ok(),
            "{what}: PostgreSQL now refuses it: {loaded:?}"
        );
        let o = Command::new(BIN)
            .args(["--columns", "a:int4,d:date,t:text", "-q"])
            .arg(&f)
            .stdin(std::process::Stdio::null())
            .output_within()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "{what}: csvcheck passes it: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// The enum gap of issue 23: a real database with an enum and a domain, dumped by pg_dump,
/// converted by pgdump2csv (manifest and schema file); a CSV with the label `payed` (not one
/// of the enum's) passed `csvcheck -m`, which did not know the enum, and then failed at load.
/// With the schema file as --ddl beside the manifest csvcheck flags exactly the record
/// PostgreSQL refuses, and its good records load.
#[test]
fn a_bad_enum_label_is_flagged_as_postgresql_refuses_it() {
    let Some(pg) = pg::Pg::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.createdb("enums");
    pg.psql(
        "enums",
        "CREATE TYPE public.paystate AS ENUM ('paid', 'open');
         CREATE DOMAIN public.qty AS integer NOT NULL CHECK (VALUE > 0);
         CREATE TABLE public.orders (id integer PRIMARY KEY, st public.paystate, n public.qty);
         INSERT INTO public.orders VALUES (1, 'paid', 3), (2, 'open', 4);",
    );
    let dump = pg
        .client("pg_dump")
        .args(["-d", "enums", "-f"])
        .arg(d.join("d.sql"))
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(dump.status.success(), "{dump:?}");
    let conv = Command::new(env!("CARGO_BIN_EXE_pgdump2csv"))
        .args([
            "d.sql",
            "-o",
            "out",
            "--write-manifest",
            "m.json",
            "--write-schema",
            "s.sql",
        ])
        .current_dir(d)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(conv.status.success(), "{conv:?}");
    let csv = "5,paid,1\n6,payed,2\n7,open,3\n";
    std::fs::write(d.join("new.csv"), csv).unwrap();
    let check = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(d)
            .stdin(std::process::Stdio::null())
            .output_within()
            .unwrap()
    };
    let o = check(&["-m", "m.json", "--ddl", "s.sql", "--filter", "new.csv"]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("new.csv:2: (record 2, byte 9) type: column st: invalid input value for enum public.paystate: \"payed\""),
        "{err}"
    );
    assert!(
        err.contains("CHECK constraints of domain public.qty are not verified"),
        "{err}"
    );
    assert!(
        err.contains("type: 1 values their column's type does not accept (by column: st 1)"),
        "{err}"
    );
    std::fs::write(d.join("good.csv"), &o.stdout).unwrap();
    // Without the schema file: the manifest carries the enum's labels (issue 34 item 7), so
    // the same record is found from -m alone.
    let o = check(&["-m", "m.json", "new.csv"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("invalid input value for enum public.paystate: \"payed\""),
        "{o:?}"
    );
    // PostgreSQL agrees: the whole file is refused at record 2, the good records load.
    let copy = "COPY public.orders FROM STDIN WITH (FORMAT csv)";
    let refused = pg
        .try_copy_in("enums", copy, &d.join("new.csv"))
        .unwrap_err();
    assert!(
        refused.contains("invalid input value for enum paystate: \"payed\""),
        "{refused}"
    );
    pg.copy_in("enums", copy, &d.join("good.csv"));
    assert_eq!(
        pg.psql("enums", "SELECT count(*) FROM public.orders")
            .trim(),
        "4"
    );
}
