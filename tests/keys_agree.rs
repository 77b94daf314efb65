//! pksort and csvcheck share one key and type layer: the real binaries must agree on which
//! values are keys of each type (csvcheck's verdict for the column type = pksort's parse)
//! and on key order (pksort's output passes `csvcheck --sorted` and `pksort -c`, and both
//! checkers give the same verdict on unsorted input). Property tests with nasty values
//! (whitespace of every C `isspace` kind, signs, leading zeros, NaN/Infinity, -0, huge
//! numerics, uuid case/braces/hyphens, timestamps with zones), plus the two wrong answers of
//! issue 11 as plain tests.

use crate::support::cmd::Cmd;
use proptest::prelude::*;
use std::collections::HashSet;
use std::path::Path;
use std::process::Output;

const PKSORT: &str = env!("CARGO_BIN_EXE_pksort");
const CSVCHECK: &str = env!("CARGO_BIN_EXE_csvcheck");

/// Runs `bin args` with `stdin`, writing it on a thread (so a full pipe cannot stall us).
fn run(bin: &str, args: &[&str], stdin: &[u8]) -> Output {
    Cmd::program(bin).args(args).stdin(stdin).run().output
}

fn describe(bin: &str, args: &[&str], out: &Output) -> String {
    format!(
        "{} {args:?}: exit {:?}\nstderr: {}",
        Path::new(bin).file_name().unwrap().to_string_lossy(),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}

/// One CSV record `n,"v"` (v always quoted, so spaces, commas and newlines survive).
fn record(n: usize, v: &str) -> String {
    format!("{n},\"{}\"\n", v.replace('"', "\"\""))
}

/// The row numbers of the records in `csv` (each starts with `n,`).
fn row_numbers(csv: &[u8]) -> HashSet<usize> {
    let mut out = HashSet::new();
    let mut in_quotes = false;
    let mut at_start = true;
    let mut n = String::new();
    for &b in csv {
        if at_start {
            if b == b',' {
                out.insert(n.parse().expect("row number"));
                n.clear();
                at_start = false;
            } else {
                n.push(b as char);
            }
            continue;
        }
        match b {
            b'"' => in_quotes = !in_quotes,
            b'\n' if !in_quotes => at_start = true,
            _ => {}
        }
    }
    out
}

/// A key type as pksort's `-k` names it and the PostgreSQL column type csvcheck checks.
#[derive(Debug, Clone, Copy)]
struct Ty {
    cli: &'static str,
    pg: &'static str,
}

/// Runs the whole agreement check for one type on `values`, key ascending or descending.
fn agree(ty: Ty, values: &[String], desc: bool) {
    let csv: String = values
        .iter()
        .enumerate()
        .map(|(i, v)| record(i + 1, v))
        .collect();
    let columns = format!("n:int8,v:{}", ty.pg);
    // csvcheck's verdict per value: --filter passes exactly the good records.
    let args = ["--columns", columns.as_str(), "--filter", "-q"];
    let out = run(CSVCHECK, &args, csv.as_bytes());
    assert!(code(&out) <= 1, "{}", describe(CSVCHECK, &args, &out));
    let good = row_numbers(&out.stdout);
    // pksort takes every good value as a key ...
    let good_csv: String = values
        .iter()
        .enumerate()
        .filter(|(i, _)| good.contains(&(i + 1)))
        .map(|(i, v)| record(i + 1, v))
        .collect();
    let dir = if desc { ":desc" } else { "" };
    let key = format!("2:{}{dir},1:int", ty.cli);
    let args = ["-k", key.as_str()];
    let sorted = run(PKSORT, &args, good_csv.as_bytes());
    assert_eq!(
        code(&sorted),
        0,
        "csvcheck passed these {} values: {}",
        ty.pg,
        describe(PKSORT, &args, &sorted)
    );
    // ... and refuses every bad one.
    for (i, v) in values.iter().enumerate() {
        if !good.contains(&(i + 1)) {
            let out = run(PKSORT, &args, record(i + 1, v).as_bytes());
            assert_eq!(
                code(&out),
                2,
                "csvcheck refused {v:?} as {}, pksort -k {}: {}",
                ty.pg,
                ty.cli,
                describe(PKSORT, &args, &out)
            );
        }
    }
    // pksort's order passes both checkers.
    let cvn = format!("v{dir},n");
    let cargs = [
        "--columns",
        columns.as_str(),
        "--key",
        cvn.as_str(),
        "--sorted",
        "-q",
    ];
    let out = run(CSVCHECK, &cargs, &sorted.stdout);
    assert_eq!(
        code(&out),
        0,
        "pksort output {:?}\n{}",
        String::from_utf8_lossy(&sorted.stdout),
        describe(CSVCHECK, &cargs, &out)
    );
    let pargs = ["-c", "-k", key.as_str()];
    let out = run(PKSORT, &pargs, &sorted.stdout);
    assert_eq!(code(&out), 0, "{}", describe(PKSORT, &pargs, &out));
    // Duplicates of the value alone (equal keys, e.g. `1.5` and `1.50`): pksort -c and
    // csvcheck, with the order check and with its duplicate set, find the same.
    let vkey = format!("2:{}{dir}", ty.cli);
    let vargs = ["-c", "-k", vkey.as_str()];
    let p = run(PKSORT, &vargs, &sorted.stdout);
    let ckey = format!("v{dir}");
    for extra in [None, Some("--sorted")] {
        let mut args = vec!["--columns", columns.as_str(), "--key", ckey.as_str(), "-q"];
        args.extend(extra);
        let c = run(CSVCHECK, &args, &sorted.stdout);
        assert_eq!(
            code(&c),
            code(&p),
            "input {:?}\n{}\n{}",
            String::from_utf8_lossy(&sorted.stdout),
            describe(CSVCHECK, &args, &c),
            describe(PKSORT, &vargs, &p)
        );
    }
    // On the input as given, the checkers agree (sorted or not).
    let c = run(CSVCHECK, &cargs, good_csv.as_bytes());
    let p = run(PKSORT, &pargs, good_csv.as_bytes());
    assert_eq!(
        code(&c),
        code(&p),
        "input {good_csv:?}\n{}\n{}",
        describe(CSVCHECK, &cargs, &c),
        describe(PKSORT, &pargs, &p)
    );
}

/// C `isspace` bytes, the one whitespace rule (vertical tab and form feed included).
fn ws() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![" ", "\t", "\n", "\r", "\x0b", "\x0c"]),
        0..2,
    )
    .prop_map(|v| v.concat())
}

fn padded(s: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (ws(), s, ws()).prop_map(|(a, s, b)| format!("{a}{s}{b}"))
}

fn sign() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "+", "-"])
}

fn zeros() -> impl Strategy<Value = String> {
    (0usize..3).prop_map(|n| "0".repeat(n))
}

/// Values for one type: mostly well-formed with nasty spelling, some malformed.
fn int_values() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => padded((sign(), zeros(), any::<i64>()).prop_map(|(s, z, n)| {
            let m = n.unsigned_abs().to_string();
            format!("{s}{z}{m}")
        })),
        1 => prop::sample::select(vec![
            "", "-", "+", "--1", "1.0", "1e3", "0x10", "1 2", "\u{a0}7", "٣",
            "9223372036854775807", "-9223372036854775808", "-0", "+0", "007",
        ])
        .prop_map(String::from),
    ]
}

fn numeric_values() -> impl Strategy<Value = String> {
    let num = (
        sign(),
        zeros(),
        "[0-9]{0,25}",
        prop::option::of("[0-9]{0,25}"),
        prop::option::of((sign(), 0u32..400)),
    )
        .prop_map(|(s, z, i, f, e)| {
            let mut v = format!("{s}{z}{i}");
            if let Some(f) = f {
                v.push('.');
                v.push_str(&f);
            }
            if let Some((es, e)) = e {
                v.push_str(&format!("e{es}{e}"));
            }
            v
        });
    prop_oneof![
        6 => padded(num),
        1 => padded(prop::sample::select(vec![
            "NaN", "nan", "Infinity", "-Infinity", "+Infinity", "inf", "-inf", "infinity",
            "-NaN", "Inf x", "1e", "e5", ".", "1.2.3", "1e200000", "1e-200000", "-0", "0.000",
            "123456789012345678901234567890123456789012345678901234567890",
        ])
        .prop_map(String::from)),
    ]
}

fn float_values() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => padded(any::<f64>().prop_map(|f| f.to_string())),
        2 => padded((sign(), zeros(), 0u32..100_000, 0u32..1000, -330i32..330).prop_map(
            |(s, z, i, f, e)| format!("{s}{z}{i}.{f}e{e}")
        )),
        1 => padded(prop::sample::select(vec![
            "NaN", "-NaN", "+nan", "nan(x1)", "-NAN(abc_9)", "nan(", "Infinity", "-Infinity", "inf", "-inf", "-0", "0",
            "1e400", "-1e400", "1e-400", "4.9e-324", "1,5", "one", "", "1e", ".", "1.",
            ".5", "--1",
        ])
        .prop_map(String::from)),
    ]
}

fn text_values() -> impl Strategy<Value = String> {
    // No NUL: PostgreSQL text cannot hold it (csvcheck refuses it, pksort would not).
    "[^\u{0}]{0,12}"
}

/// Values for `character(20)`: text of at most 12 characters, some with trailing spaces,
/// which bpchar ignores (`a` and `a  ` are one key), so never too long for the column.
fn bpchar_values() -> impl Strategy<Value = String> {
    (text_values(), 0usize..3).prop_map(|(s, n)| format!("{s}{}", " ".repeat(n)))
}

fn uuid_values() -> impl Strategy<Value = String> {
    let good = (any::<[u8; 16]>(), 0u8..4, any::<bool>(), any::<bool>()).prop_map(
        |(b, style, upper, braces)| {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            let hex = if upper { hex.to_uppercase() } else { hex };
            let body = match style {
                0 => hex.clone(),
                1 => crate::support::uuid_hyphenated(&hex),
                2 => (0..8)
                    .map(|k| &hex[k * 4..k * 4 + 4])
                    .collect::<Vec<_>>()
                    .join("-"),
                _ => format!("{}-{}", &hex[..3], &hex[3..]),
            };
            if braces { format!("{{{body}}}") } else { body }
        },
    );
    prop_oneof![
        6 => good.clone(),
        1 => (good, ws(), ws()).prop_map(|(u, a, b)| format!("{a}{u}{b}")),
        1 => prop::sample::select(vec![
            "", "a0eebc99", "{a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0eebc999c0b4ef8bb6d6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11-", "-a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc99--9c0b4ef8bb6d6bb9bd380a11", "g0eebc999c0b4ef8bb6d6bb9bd380a11",
        ])
        .prop_map(String::from),
    ]
}

fn bool_values() -> impl Strategy<Value = String> {
    padded(
        prop::sample::select(vec![
            "t", "true", "TRUE", "tr", "y", "yes", "on", "1", "f", "false", "FaLs", "n", "no",
            "of", "off", "0", "o", "", "2", "maybe", "truex", "onn",
        ])
        .prop_map(String::from),
    )
}

fn date_part() -> impl Strategy<Value = String> {
    (1u32..10_000, 1u32..13, 1u32..32, prop::bool::weighted(0.1))
        .prop_map(|(y, m, d, bc)| format!("{y:04}-{m:02}-{d:02}{}", if bc { " BC" } else { "" }))
}

fn date_values() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => padded(date_part()),
        1 => padded(prop::sample::select(vec![
            "infinity", "-infinity", "+infinity", "Infinity", "2001-02-29", "2000-02-29",
            "2001-13-01", "0000-01-01 BC", "10000-01-01", "2001-1-1x", "",
        ])
        .prop_map(String::from)),
    ]
}

fn time_part() -> impl Strategy<Value = String> {
    (
        0u32..25,
        0u32..60,
        prop::option::of((0u32..60, prop::option::of("[0-9]{1,6}"))),
    )
        .prop_map(|(h, m, s)| {
            let (h, m) = if h == 24 { (24, 0) } else { (h, m) };
            match s {
                None => format!("{h:02}:{m:02}"),
                Some((s, f)) => {
                    let s = if h == 24 { 0 } else { s };
                    let f = match f {
                        Some(f) if h != 24 => format!(".{f}"),
                        _ => String::new(),
                    };
                    format!("{h:02}:{m:02}:{s:02}{f}")
                }
            }
        })
}

fn timestamp_values() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => padded((date_part(), prop::sample::select(vec![" ", "T"]), time_part()).prop_map(
            |(d, sep, t)| match d.strip_suffix(" BC") {
                Some(d) => format!("{d}{sep}{t} BC"),
                None => format!("{d}{sep}{t}"),
            }
        )),
        1 => padded(prop::sample::select(vec![
            "infinity", "-infinity", "2001-01-01 25:00:00", "2001-01-01 10:00:00+01",
            "2001-01-01", "2001-01-01 ", "x",
        ])
        .prop_map(String::from)),
    ]
}

fn zone() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Z".to_string()),
        Just("+00".to_string()),
        (prop::sample::select(vec!["+", "-"]), 0u32..15).prop_map(|(s, h)| format!("{s}{h:02}")),
        (prop::sample::select(vec!["+", "-"]), 0u32..15, 0u32..60)
            .prop_map(|(s, h, m)| format!("{s}{h:02}:{m:02}")),
        (prop::sample::select(vec!["+", "-"]), 0u32..15, 0u32..60)
            .prop_map(|(s, h, m)| format!("{s}{h:02}{m:02}")),
    ]
}

fn timestamptz_values() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => padded((date_part(), time_part(), zone()).prop_map(|(d, t, z)| {
            match d.strip_suffix(" BC") {
                Some(d) => format!("{d} {t}{z} BC"),
                None => format!("{d} {t}{z}"),
            }
        })),
        1 => padded(prop::sample::select(vec![
            "infinity", "-infinity", "2001-01-01 10:00:00", "2001-01-01 10:00:00+1:00:00:00",
            "2001-01-01 10:00:00+99", "x",
        ])
        .prop_map(String::from)),
    ]
}

const ROWS: std::ops::Range<usize> = 1..50;

macro_rules! agreement {
    ($name:ident, $cli:literal, $pg:literal, $values:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(32))]
            #[test]
            fn $name(values in prop::collection::vec($values, ROWS), desc in any::<bool>()) {
                agree(Ty { cli: $cli, pg: $pg }, &values, desc);
            }
        }
    };
}

agreement!(int_keys_agree, "int", "int8", int_values());
agreement!(numeric_keys_agree, "numeric", "numeric", numeric_values());
agreement!(float_keys_agree, "float", "float8", float_values());
agreement!(text_keys_agree, "text", "text", text_values());
agreement!(
    bpchar_keys_agree,
    "character",
    "character(20)",
    bpchar_values()
);
agreement!(uuid_keys_agree, "uuid", "uuid", uuid_values());
agreement!(bool_keys_agree, "bool", "boolean", bool_values());
agreement!(date_keys_agree, "date", "date", date_values());
agreement!(
    timestamp_keys_agree,
    "timestamp",
    "timestamp",
    timestamp_values()
);
agreement!(
    timestamptz_keys_agree,
    "timestamptz",
    "timestamptz",
    timestamptz_values()
);

/// Issue 11: `pksort -k 1:numeric` output was out of order for `csvcheck --sorted`.
#[test]
fn pksort_numeric_order_passes_csvcheck_sorted() {
    let sorted = run(PKSORT, &["-k", "1:numeric"], b"10\n9\n1.5\n-2\n1e3\n");
    assert_eq!(code(&sorted), 0, "{}", describe(PKSORT, &[], &sorted));
    assert_eq!(sorted.stdout, b"-2\n1.5\n9\n10\n1e3\n");
    for args in [
        &["--columns", "a:numeric", "--key", "a", "--sorted"][..],
        &["--key", "1:numeric", "--sorted"][..],
    ] {
        let out = run(CSVCHECK, args, &sorted.stdout);
        assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, args, &out));
    }
    // Equal numerics are one key, as in a PostgreSQL primary key.
    for sorted in [false, true] {
        let mut args = vec!["--columns", "a:numeric", "--key", "a"];
        if sorted {
            args.push("--sorted");
        }
        let out = run(CSVCHECK, &args, b"1.5\n1.50\n");
        assert_eq!(code(&out), 1, "{}", describe(CSVCHECK, &args, &out));
        assert!(String::from_utf8_lossy(&out.stderr).contains("duplicate key"));
    }
}

/// Issue 11: `7\v` passed csvcheck as int4 but made `pksort -k 1:int` exit 2.
#[test]
fn vertical_tab_int_is_a_key() {
    let data = b"8\n7\x0b\n\x0c6\n";
    let out = run(CSVCHECK, &["--columns", "a:int4"], data);
    assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, &[], &out));
    let out = run(PKSORT, &["-k", "1:int"], data);
    assert_eq!(code(&out), 0, "{}", describe(PKSORT, &[], &out));
    assert_eq!(out.stdout, b"\x0c6\n7\x0b\n8\n");
    let out = run(CSVCHECK, &["--key", "1:int", "--sorted"], &out.stdout);
    assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, &[], &out));
}

/// A `bpchar` column without a length compares as `character(n)` does, trailing spaces
/// ignored: `a` and `a ` are one primary key value for PostgreSQL, csvcheck (the column's
/// type gives the key type) and pksort. csvcheck took unbounded bpchar for text and passed
/// them as distinct.
#[test]
fn unbounded_bpchar_keys_ignore_trailing_spaces() {
    let data = b"1,a\n2,a \n";
    let args = ["--columns", "n:int8,v:bpchar", "--key", "v", "-q"];
    let out = run(CSVCHECK, &args, data);
    assert_eq!(code(&out), 1, "{}", describe(CSVCHECK, &args, &out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("duplicate key"),
        "{}",
        describe(CSVCHECK, &args, &out)
    );
    let args = ["-c", "-k", "2:character"];
    let out = run(PKSORT, &args, data);
    assert_eq!(code(&out), 1, "{}", describe(PKSORT, &args, &out));
}

/// csvcheck's `--key` takes pksort's `COLUMN[:TYPE][:desc]`; the old comma list still works.
#[test]
fn csvcheck_key_syntax_is_pksorts() {
    let data = b"a,b\n2,x\n10,y\n10,x\n";
    // Old form: names, comma-separated.
    let out = run(CSVCHECK, &["--header", "--key", "a,b"], data);
    assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, &[], &out));
    // Typed: 2 < 10 as int, not as text.
    let out = run(
        CSVCHECK,
        &["--header", "--key", "a:int,b", "--sorted"],
        data,
    );
    assert_eq!(code(&out), 1, "{}", describe(CSVCHECK, &[], &out));
    let out = run(
        CSVCHECK,
        &["--header", "--key", "a:int", "--key", "b:desc", "--sorted"],
        data,
    );
    assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, &[], &out));
    // Numbers, and what pksort sorts descending passes descending.
    let sorted = run(PKSORT, &["--header", "-k", "1:int:desc,2"], data);
    assert_eq!(code(&sorted), 0);
    let out = run(
        CSVCHECK,
        &["--header", "--key", "1:int:desc,2", "--sorted"],
        &sorted.stdout,
    );
    assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, &[], &out));
    // A value that is not of the key's type is a bad record, not a silently skipped key.
    let out = run(CSVCHECK, &["--key", "1:int"], b"1\nx\n");
    assert_eq!(code(&out), 1, "{}", describe(CSVCHECK, &[], &out));
    // A bad spec is a usage error.
    let out = run(CSVCHECK, &["--key", "1:wat"], b"1\n");
    assert_eq!(code(&out), 2, "{}", describe(CSVCHECK, &[], &out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad key '1:wat'"));
}

/// Integer keys in sorted mode compare as encodings, not as the duplicate set's exact
/// two's-complement bytes (where -1 would sort after 1).
#[test]
fn sorted_negative_integers() {
    for columns in ["a:int2", "a:int4", "a:int8"] {
        let args = ["--columns", columns, "--key", "a", "--sorted"];
        let out = run(CSVCHECK, &args, b"-5\n-1\n0\n1\n");
        assert_eq!(code(&out), 0, "{}", describe(CSVCHECK, &args, &out));
    }
}

/// Equal keys in different spellings are duplicates, with keys stored exactly (fixed-width
/// types within 16 bytes, four int4 columns included) and hashed.
#[test]
fn duplicates_are_equal_values() {
    let uuid = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
    // (columns, key, a record, the same key spelled differently, a different key)
    let cases: &[[&str; 5]] = &[
        [
            "a:int4,b:int4,c:int4,d:int4",
            "a,b,c,d",
            "1,2,3,-4\n",
            "+1,02,3, -4\n",
            "1,2,3,4\n",
        ],
        ["a:int2,b:int8", "a,b", "-1,7\n", "-001,+7\n", "1,7\n"],
        [
            "u:uuid",
            "u",
            "U\n",
            "{A0EEBC999C0B4EF8BB6D6BB9BD380A11}\n",
            "b0eebc999c0b4ef8bb6d6bb9bd380a11\n",
        ],
        [
            "d:date,i:int8",
            "d,i",
            "2000-01-01,-1\n",
            "\" 2000-01-01\",-1\n",
            "2000-01-01,1\n",
        ],
        [
            "t:timestamptz,u:uuid",
            "t,u",
            "2000-01-01 10:00:00+02,U\n",
            "2000-01-01 08:00:00Z,U\n",
            "2000-01-01 10:00:00Z,U\n",
        ],
        ["f:float8,b:bool", "f,b", "-0,t\n", "0e5,yes\n", "0,f\n"],
        ["n:numeric,s:text", "n,s", "1.5,x\n", "1.50,x\n", "1.5,y\n"],
    ];
    for [columns, key, a, b, other] in cases {
        let (a, b) = (a.replace('U', uuid), b.replace('U', uuid));
        let other = other.replace('U', uuid);
        for sorted in [false, true] {
            let mut args = vec!["--columns", columns, "--key", key];
            if sorted {
                args.push("--sorted");
            }
            let out = run(CSVCHECK, &args, format!("{a}{b}").as_bytes());
            assert_eq!(
                code(&out),
                1,
                "{a:?} {b:?}: {}",
                describe(CSVCHECK, &args, &out)
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("duplicate"), "{err}");
            if !sorted {
                let out = run(CSVCHECK, &args, format!("{a}{other}").as_bytes());
                assert_eq!(
                    code(&out),
                    0,
                    "{a:?} {other:?}: {}",
                    describe(CSVCHECK, &args, &out)
                );
            }
        }
    }
}
