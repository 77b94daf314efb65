//! Integration tests for the `pksort` binary: a property test against an independent typed
//! reference sort (in memory and with a tiny buffer that forces many runs and multi-level
//! merges), and tests for every option and failure mode of the contract.

use crate::support::cmd::Cmd;

use proptest::prelude::*;
use std::cmp::Ordering;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Output, Stdio};

fn pksort(args: &[&str], stdin: &[u8], dir: &Path) -> Output {
    Cmd::new("pksort")
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .run()
        .output
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts success and returns stdout.
fn ok(out: &Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "pksort failed ({:?}): {}",
        out.status.code(),
        show(&out.stderr)
    );
    out.stdout.clone()
}

/// Asserts the exit code and returns stderr.
fn fails(out: &Output, code: i32) -> String {
    let err = show(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "stderr: {err}\nstdout: {}",
        show(&out.stdout)
    );
    err
}

/// Runs pksort, asserts exit `code` and that stderr contains every one of `needles`;
/// returns stderr.
fn fails_with(dir: &Path, args: &[&str], stdin: &[u8], code: i32, needles: &[&str]) -> String {
    let err = fails(&pksort(args, stdin, dir), code);
    for n in needles {
        assert!(
            err.contains(n),
            "pksort {args:?}: stderr lacks {n:?}: {err}"
        );
    }
    err
}

fn diff(got: &[u8], want: &[u8]) -> String {
    let g: Vec<&[u8]> = got.split_inclusive(|&b| b == b'\n').collect();
    let w: Vec<&[u8]> = want.split_inclusive(|&b| b == b'\n').collect();
    for i in 0..g.len().max(w.len()) {
        if g.get(i) != w.get(i) {
            return format!(
                "first difference at output line {}:\n  got:  {:?}\n  want: {:?}",
                i + 1,
                g.get(i).map(|l| show(l)),
                w.get(i).map(|l| show(l))
            );
        }
    }
    "identical".into()
}

// ---------------------------------------------------------------------------------------
// The reference: typed values generated together with their text, compared natively.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Numeric,
    Float,
    Text,
    Uuid,
    Bool,
    Date,
    Timestamp,
    Timestamptz,
}

const TYPES: [Ty; 9] = [
    Ty::Int,
    Ty::Numeric,
    Ty::Float,
    Ty::Text,
    Ty::Uuid,
    Ty::Bool,
    Ty::Date,
    Ty::Timestamp,
    Ty::Timestamptz,
];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Numeric => "numeric",
            Ty::Float => "float",
            Ty::Text => "text",
            Ty::Uuid => "uuid",
            Ty::Bool => "bool",
            Ty::Date => "date",
            Ty::Timestamp => "timestamp",
            Ty::Timestamptz => "timestamptz",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Val {
    Null,
    Int(i128),
    /// -Inf = 0, finite = 1 (mantissa, scale), +Inf = 2, NaN = 3.
    Num(u8, i64, u32),
    Float(f64),
    Bytes(Vec<u8>),
    Bool(bool),
    Instant(i128),
}

fn cmp_val(a: &Val, b: &Val) -> Ordering {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x.cmp(y),
        (Val::Num(ca, ma, sa), Val::Num(cb, mb, sb)) => {
            if *ca != 1 || *cb != 1 {
                return ca.cmp(cb);
            }
            let s = (*sa).max(*sb);
            let x = i128::from(*ma) * 10i128.pow(s - sa);
            let y = i128::from(*mb) * 10i128.pow(s - sb);
            x.cmp(&y)
        }
        (Val::Float(x), Val::Float(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => x.partial_cmp(y).unwrap(),
        },
        (Val::Bytes(x), Val::Bytes(y)) => x.cmp(y),
        (Val::Bool(x), Val::Bool(y)) => x.cmp(y),
        (Val::Instant(x), Val::Instant(y)) => x.cmp(y),
        _ => panic!("compare {a:?} with {b:?}"),
    }
}

/// Proleptic Gregorian date of a day number (days since 1970-01-01), astronomical year.
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn fmt_date(days: i64) -> String {
    let (y, m, d) = civil(days);
    if y <= 0 {
        format!("{:04}-{m:02}-{d:02} BC", 1 - y)
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// Splits seconds into (date, time text); `frac_us` adds microseconds.
fn fmt_ts(secs: i64, frac_us: u32, offset_min: Option<i32>) -> String {
    let local = secs + i64::from(offset_min.unwrap_or(0)) * 60;
    let days = local.div_euclid(86_400);
    let sod = local.rem_euclid(86_400);
    let (y, m, d) = civil(days);
    let mut s = format!(
        "{:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        if y <= 0 { 1 - y } else { y },
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    if frac_us > 0 {
        let f = format!("{frac_us:06}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    if let Some(o) = offset_min {
        let sign = if o < 0 { '-' } else { '+' };
        let a = o.abs();
        if a % 60 == 0 {
            s.push_str(&format!("{sign}{:02}", a / 60));
        } else {
            s.push_str(&format!("{sign}{:02}:{:02}", a / 60, a % 60));
        }
    }
    if y <= 0 {
        s.push_str(" BC");
    }
    s
}

/// A typed value and one of its text forms.
fn value(ty: Ty) -> BoxedStrategy<(Val, Vec<u8>)> {
    match ty {
        Ty::Int => prop_oneof![
            (-5i128..5).prop_map(|v| v),
            any::<i64>().prop_map(i128::from),
            (-(10i128.pow(30))..10i128.pow(30)).prop_map(|v| v),
        ]
        .prop_flat_map(|v| {
            (Just(v), 0usize..3, any::<bool>()).prop_map(|(v, zeros, plus)| {
                let mag = format!("{}{}", "0".repeat(zeros), v.unsigned_abs());
                let s = if v < 0 {
                    format!("-{mag}")
                } else if plus {
                    format!("+{mag}")
                } else {
                    mag
                };
                (Val::Int(v), s.into_bytes())
            })
        })
        .boxed(),
        Ty::Numeric => prop_oneof![
            8 => (-1000i64..1000, 0u32..4, 0usize..3, any::<bool>()).prop_map(|(m, s, pad, expo)| {
                let text = if expo {
                    format!("{m}e-{s}")
                } else {
                    let a = m.unsigned_abs();
                    let p = 10u64.pow(s);
                    let mut t = format!("{}{}", if m < 0 { "-" } else { "" }, a / p);
                    if s > 0 || pad > 0 {
                        t.push('.');
                        if s > 0 {
                            t.push_str(&format!("{:0w$}", a % p, w = s as usize));
                        }
                        t.push_str(&"0".repeat(pad));
                    }
                    t
                };
                (Val::Num(1, m, s), text.into_bytes())
            }),
            1 => Just((Val::Num(3, 0, 0), b"NaN".to_vec())),
            1 => Just((Val::Num(2, 0, 0), b"Infinity".to_vec())),
            1 => Just((Val::Num(0, 0, 0), b"-Infinity".to_vec())),
        ]
        .boxed(),
        Ty::Float => prop_oneof![
            (-50i32..50).prop_map(|v| f64::from(v) / 4.0),
            any::<f64>(),
            Just(-0.0),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
        ]
        .prop_map(|f| {
            let t = if f.is_nan() {
                "NaN".to_string()
            } else if f.is_infinite() {
                if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
            } else {
                format!("{f:e}")
            };
            (Val::Float(f), t.into_bytes())
        })
        .boxed(),
        Ty::Text => prop::collection::vec(
            prop::sample::select(vec![
                b'a', b'b', b'B', b',', b'"', b'\n', b'\r', b' ', 0xC3, 0xA9, b'\\', b'.', b'0',
            ]),
            0..6,
        )
        .prop_map(|v| (Val::Bytes(v.clone()), v))
        .boxed(),
        Ty::Uuid => (0u8..4, any::<[u8; 16]>(), 0u8..3)
            .prop_map(|(small, mut b, form)| {
                if small > 0 {
                    b = [small; 16];
                }
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                let t = match form {
                    0 => crate::support::uuid_hyphenated(&hex),
                    1 => hex.to_uppercase(),
                    _ => format!("{{{hex}}}"),
                };
                (Val::Bytes(b.to_vec()), t.into_bytes())
            })
            .boxed(),
        Ty::Bool => prop::sample::select(vec![
            (false, "f"),
            (false, "false"),
            (false, "0"),
            (false, "no"),
            (true, "t"),
            (true, "TRUE"),
            (true, "1"),
            (true, "yes"),
        ])
        .prop_map(|(b, t)| (Val::Bool(b), t.as_bytes().to_vec()))
        .boxed(),
        Ty::Date => prop_oneof![(-3i64..3), (-2_400_000i64..3_000_000)]
            .prop_map(|d| (Val::Instant(i128::from(d)), fmt_date(d).into_bytes()))
            .boxed(),
        Ty::Timestamp => (
            prop_oneof![(-2i64..2), (-60_000_000_000i64..60_000_000_000)],
            0u32..3,
        )
            .prop_map(|(s, f)| {
                let us = f * 250_000;
                (
                    Val::Instant(i128::from(s) * 1_000_000 + i128::from(us)),
                    fmt_ts(s, us, None).into_bytes(),
                )
            })
            .boxed(),
        Ty::Timestamptz => (
            prop_oneof![(-7200i64..7200), (-60_000_000_000i64..60_000_000_000)],
            0u32..2,
            prop::sample::select(vec![0, 60, -480, 330, -90, 840]),
        )
            .prop_map(|(s, f, off)| {
                let us = f * 500_000;
                (
                    Val::Instant(i128::from(s) * 1_000_000 + i128::from(us)),
                    fmt_ts(s, us, Some(off)).into_bytes(),
                )
            })
            .boxed(),
    }
}

/// CSV-encodes one value; `force` quotes even when not needed.
fn csv_field(v: &[u8], force: bool) -> Vec<u8> {
    let needs = v.is_empty() || v.iter().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
    if !needs && !force {
        return v.to_vec();
    }
    let mut o = vec![b'"'];
    for &b in v {
        if b == b'"' {
            o.push(b'"');
        }
        o.push(b);
    }
    o.push(b'"');
    o
}

#[derive(Debug, Clone)]
struct Case {
    /// Key parts: (type, desc); key i is column 2i+1 (1-based), payload in between.
    parts: Vec<(Ty, bool)>,
    nulls: Option<bool>,
    /// Per record: typed key values, raw CSV record.
    records: Vec<(Vec<Val>, Vec<u8>)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((prop::sample::select(TYPES.to_vec()), any::<bool>()), 1..4),
        prop::option::of(any::<bool>()),
        1usize..120,
    )
        .prop_flat_map(|(parts, nulls, n)| {
            let rec = record(parts.clone(), nulls.is_some());
            (
                Just(parts),
                Just(nulls),
                prop::collection::vec(rec, n),
                any::<bool>(),
            )
        })
        .prop_map(|(parts, nulls, mut records, last_nl)| {
            if !last_nl && let Some(last) = records.last_mut() {
                while last.1.last() == Some(&b'\n') || last.1.last() == Some(&b'\r') {
                    last.1.pop();
                }
            }
            Case {
                parts,
                nulls,
                records,
            }
        })
}

fn record(parts: Vec<(Ty, bool)>, allow_null: bool) -> BoxedStrategy<(Vec<Val>, Vec<u8>)> {
    let vals: Vec<_> = parts
        .iter()
        .map(|(t, _)| (value(*t), any::<bool>(), 0u8..10, value(Ty::Text)))
        .collect();
    (vals, any::<bool>())
        .prop_map(move |(vals, crlf)| {
            let mut keys = Vec::new();
            let mut rec = Vec::new();
            for (i, ((v, text), force, null_roll, (_, payload))) in vals.into_iter().enumerate() {
                if i > 0 {
                    rec.push(b',');
                }
                if allow_null && null_roll == 0 {
                    keys.push(Val::Null);
                } else {
                    rec.extend(csv_field(&text, force));
                    keys.push(v);
                }
                rec.push(b',');
                rec.extend(csv_field(&payload, false));
            }
            rec.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            (keys, rec)
        })
        .boxed()
}

fn reference(c: &Case) -> Vec<u8> {
    let mut idx: Vec<usize> = (0..c.records.len()).collect();
    idx.sort_by(|&a, &b| {
        for (p, (_, desc)) in c.parts.iter().enumerate() {
            let (x, y) = (&c.records[a].0[p], &c.records[b].0[p]);
            let nulls_first = c.nulls == Some(true);
            let o = match (x, y) {
                (Val::Null, Val::Null) => Ordering::Equal,
                (Val::Null, _) => {
                    if nulls_first {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    }
                }
                (_, Val::Null) => {
                    if nulls_first {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    }
                }
                _ => {
                    let o = cmp_val(x, y);
                    if *desc { o.reverse() } else { o }
                }
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
    let mut out = Vec::new();
    for i in idx {
        out.extend_from_slice(&c.records[i].1);
        if out.last() != Some(&b'\n') {
            out.push(b'\n');
        }
    }
    out
}

fn case_args(c: &Case) -> Vec<String> {
    let mut a = Vec::new();
    for (i, (t, desc)) in c.parts.iter().enumerate() {
        a.push("-k".to_string());
        a.push(format!(
            "{}:{}{}",
            2 * i + 1,
            t.name(),
            if *desc { ":desc" } else { "" }
        ));
    }
    a.push("--on-dup".into());
    a.push("keep".into());
    if let Some(first) = c.nulls {
        a.push("--nulls".into());
        a.push(if first { "first" } else { "last" }.into());
    }
    a
}

fn input_of(c: &Case) -> Vec<u8> {
    c.records.iter().flat_map(|r| r.1.clone()).collect()
}

/// `c`'s records repeated until there are at least `n`, each ending in a newline (so the
/// copies do not run into each other): input big enough to spill runs.
fn repeated(c: &Case, n: usize) -> Case {
    let mut big = c.clone();
    while big.records.len() < n {
        let more = c.records.clone();
        big.records.extend(more);
    }
    for r in &mut big.records {
        if r.1.last() != Some(&b'\n') {
            r.1.push(b'\n');
        }
    }
    big
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sorts_like_the_reference(c in case()) {
        let dir = tempfile::tempdir().unwrap();
        let args = case_args(&c);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = ok(&pksort(&args, &input_of(&c), dir.path()));
        let want = reference(&c);
        prop_assert!(got == want, "args {:?}: {}", args, diff(&got, &want));
    }

    #[test]
    fn external_sort_with_many_runs_and_merge_levels(c in case()) {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let mut args = case_args(&c);
        for a in ["-S", "1K", "--batch-size", "2", "-j", "2", "--temporary-directory", tmp.to_str().unwrap()] {
            args.push(a.into());
        }
        // Many records so a 1K budget (4 KiB chunks) makes many runs.
        let big = repeated(&c, 400);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = ok(&pksort(&args, &input_of(&big), dir.path()));
        let want = reference(&big);
        prop_assert!(got == want, "args {:?}: {}", args, diff(&got, &want));
        prop_assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "temporary files left");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The final merge of an external sort runs over key ranges in parallel with -j 2 and
    /// -j 3; what comes out (records, duplicates file, error, exit code) is the same as with
    /// one thread, under every duplicate policy.
    #[test]
    fn parallel_final_merge_is_identical_to_one_thread(c in case(), policy in 0usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let big = repeated(&c, 600);
        let input = input_of(&big);
        let mut base = case_args(&c);
        // case_args ends its key options with "--on-dup keep"; replace the policy.
        let at = base.iter().position(|a| a == "--on-dup").unwrap();
        base[at + 1] = ["error", "keep", "first", "last"][policy].into();
        if policy > 0 {
            base.extend(["--dups-out".into(), "d.csv".into()]);
        }
        base.extend(["-S".into(), "2K".into()]);
        let run = |j: &str| {
            let _ = std::fs::remove_file(dir.path().join("d.csv"));
            let mut a = base.clone();
            a.extend(["-j".into(), j.into()]);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let o = pksort(&a, &input, dir.path());
            let d = std::fs::read(dir.path().join("d.csv")).ok();
            (o.status.code(), o.stdout, show(&o.stderr), d)
        };
        let one = run("1");
        for j in ["2", "3"] {
            let got = run(j);
            prop_assert!(got.0 == one.0, "exit with -j {}: {:?} vs {:?}: {}", j, got.0, one.0, got.2);
            prop_assert!(got.1 == one.1, "-j {}: {}", j, diff(&got.1, &one.1));
            prop_assert_eq!(&got.2, &one.2);
            prop_assert!(got.3 == one.3, "duplicates file with -j {}", j);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A regular file is sorted from its mapped pages, a pipe from buffers read: the two
    /// give the same records, duplicates file, messages (positions included) and exit code,
    /// with a header or not, with chunks small enough that a long record outgrows its
    /// mapping, and with a bad tail (a quote never closed, a failed tool's mark).
    #[test]
    fn a_mapped_file_and_a_pipe_agree(
        c in case(),
        policy in 0usize..4,
        header in any::<bool>(),
        mem in prop::sample::select(vec!["2K", "64K", "1G"]),
        long in prop::option::of(70_000usize..200_000),
        tail in 0usize..4,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut input = Vec::new();
        let mut args = case_args(&c);
        if header {
            args.push("--header".into());
            input.extend_from_slice(b"a,\"b\nb\",c,d,e,f,g\n");
        }
        let mut recs = c.records.clone();
        if let Some(n) = long {
            // A record longer than the chunk: its mapping (or buffer) has to grow.
            let mut r = recs[0].1.clone();
            while r.last() == Some(&b'\n') || r.last() == Some(&b'\r') {
                r.pop();
            }
            r.extend_from_slice(b",\"");
            r.extend(std::iter::repeat_n(b'x', n));
            r.extend_from_slice(b"\n\"\n");
            let at = recs.len() / 2;
            recs.insert(at, (recs[0].0.clone(), r));
        }
        let n = recs.len();
        for (i, r) in recs.iter_mut().enumerate() {
            if i + 1 < n && r.1.last() != Some(&b'\n') {
                r.1.push(b'\n');
            }
        }
        input.extend(recs.iter().flat_map(|r| r.1.clone()));
        if tail > 0 && tail < 3 && input.last() != Some(&b'\n') {
            input.push(b'\n');
        }
        match tail {
            1 => input.extend_from_slice(b"7,\"never closed\n"),
            2 => {
                input.extend_from_slice(b"\"");
                input.extend_from_slice(dumpshard::io::stream::INCOMPLETE);
            }
            _ => {}
        }
        let at = args.iter().position(|a| a == "--on-dup").unwrap();
        args[at + 1] = ["error", "keep", "first", "last"][policy].into();
        if policy > 0 {
            args.extend(["--dups-out".into(), "d.csv".into()]);
        }
        args.extend(["-S".into(), mem.into()]);
        std::fs::write(dir.path().join("in.csv"), &input).unwrap();
        let run = |file: bool| {
            let _ = std::fs::remove_file(dir.path().join("d.csv"));
            let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = if file {
                a.push("in.csv");
                pksort(&a, b"", dir.path())
            } else {
                pksort(&a, &input, dir.path())
            };
            let d = std::fs::read(dir.path().join("d.csv")).ok();
            (o.status.code(), o.stdout, show(&o.stderr).replace("in.csv", "<stdin>"), d)
        };
        let (mapped, read) = (run(true), run(false));
        prop_assert!(mapped.0 == read.0, "exit {:?} vs {:?}: {} / {}", mapped.0, read.0, mapped.2, read.2);
        // Under `--on-dup error` a duplicate is reported as soon as a spilled run holds one,
        // so which pair is named first depends on where runs were cut (-S, chunk sizes);
        // any other message is the same, positions included.
        let dup = |e: &str| e.contains("duplicate key");
        if !(dup(&mapped.2) && dup(&read.2)) {
            prop_assert_eq!(&mapped.2, &read.2);
        }
        if mapped.0 == Some(0) {
            prop_assert!(mapped.1 == read.1, "{}", diff(&mapped.1, &read.1));
            prop_assert!(mapped.3 == read.3, "duplicates file");
        } else {
            // How much was written before the error depends on where chunks were cut; what
            // was written is marked as incomplete either way.
            for out in [&mapped.1, &read.1] {
                prop_assert!(
                    out.is_empty() || out.ends_with(dumpshard::io::stream::INCOMPLETE),
                    "a failed run's output is not marked: {}", mapped.2
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Options and failure modes.

fn write(dir: &Path, name: &str, data: &[u8]) -> String {
    std::fs::write(dir.join(name), data).unwrap();
    name.to_string()
}

#[test]
fn records_pass_through_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let input = b"10,\"x\"\"y\"\r\n9,\"a,\nb\"\n010,\n-1,\"\"\n+2,plain";
    let got = ok(&pksort(
        &["-k", "1:int", "--on-dup", "keep"],
        input,
        dir.path(),
    ));
    assert_eq!(
        show(&got),
        "-1,\"\"\n+2,plain\n9,\"a,\nb\"\n10,\"x\"\"y\"\r\n010,\n",
        "{}",
        diff(&got, b"")
    );
    // Text keys compare bytewise (C collation), not as numbers.
    let got = ok(&pksort(&["-k", "1"], b"9\n10\nB\na\n", dir.path()));
    assert_eq!(show(&got), "10\n9\nB\na\n");
}

#[test]
fn stable_for_equal_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = String::new();
    for i in 0..5000 {
        input.push_str(&format!("{},{i}\n", i % 7));
    }
    for s in [&["-S", "64K"][..], &[][..]] {
        let mut args = vec!["-k", "1:int", "--on-dup", "keep"];
        args.extend_from_slice(s);
        let got = show(&ok(&pksort(&args, input.as_bytes(), dir.path())));
        let mut want: Vec<&str> = input.lines().collect();
        want.sort_by_key(|l| l.split(',').next().unwrap().parse::<i32>().unwrap());
        assert_eq!(got, want.join("\n") + "\n");
    }
}

#[test]
fn header_stays_first_and_names_columns() {
    let dir = tempfile::tempdir().unwrap();
    let input = b"name,id\nb,2\na,10\nc,1\n";
    let got = ok(&pksort(&["--header", "-k", "id:int"], input, dir.path()));
    assert_eq!(show(&got), "name,id\nc,1\nb,2\na,10\n");
    let got = ok(&pksort(
        &["--header", "-k", "2:int:desc"],
        input,
        dir.path(),
    ));
    assert_eq!(show(&got), "name,id\na,10\nb,2\nc,1\n");
    fails_with(dir.path(), &["-k", "id"], input, 2, &["--header"]);
    fails_with(
        dir.path(),
        &["--header", "-k", "nope"],
        input,
        2,
        &["no column named 'nope'", "name, id"],
    );
    // Several inputs: the first header is written once, later ones must match.
    write(dir.path(), "a.csv", b"name,id\nx,3\n");
    write(dir.path(), "b.csv", b"name,id\ny,1\n");
    write(dir.path(), "c.csv", b"other,id\nz,2\n");
    let got = ok(&pksort(
        &["--header", "-k", "id:int", "a.csv", "b.csv"],
        b"",
        dir.path(),
    ));
    assert_eq!(show(&got), "name,id\ny,1\nx,3\n");
    fails_with(
        dir.path(),
        &["--header", "-k", "id:int", "a.csv", "c.csv"],
        b"",
        2,
        &["c.csv:1:", "header differs"],
    );
    // A header-only input.
    let got = ok(&pksort(&["--header", "-k", "id"], b"name,id", dir.path()));
    assert_eq!(show(&got), "name,id\n");
}

#[test]
fn duplicate_policies() {
    let dir = tempfile::tempdir().unwrap();
    let input = b"2,a\n1,b\n2,c\n3,d\n2,e\n";
    let err = fails(&pksort(&["-k", "1:int"], input, dir.path()), 2);
    assert!(
        err.contains(
            "<stdin>:3: (record 3, byte 8) duplicate key (1)=(2): same key as line 1 (record 1)"
        ),
        "{err}"
    );
    // (policy, extra args, stdout, duplicates file, a line stderr must hold), in this
    // order: the first run creates d.csv, the later ones replace it with --force.
    type Policy<'a> = (&'a str, &'a [&'a str], &'a str, &'a str, Option<&'a str>);
    let policies: [Policy; 3] = [
        (
            "keep",
            &[],
            "1,b\n2,a\n2,c\n2,e\n3,d\n",
            "2,a\n2,c\n2,e\n",
            None,
        ),
        (
            "first",
            &["--force"],
            "1,b\n2,a\n3,d\n",
            "2,c\n2,e\n",
            Some("dropped 2 record(s)"),
        ),
        ("last", &["--force"], "1,b\n2,e\n3,d\n", "2,a\n2,c\n", None),
    ];
    for (policy, extra, want_out, want_dups, want_err) in policies {
        let mut args = vec!["-k", "1:int", "--on-dup", policy, "--dups-out", "d.csv"];
        args.extend_from_slice(extra);
        let out = pksort(&args, input, dir.path());
        assert_eq!(show(&ok(&out)), want_out, "--on-dup {policy}");
        if let Some(w) = want_err {
            assert!(
                show(&out.stderr).contains(w),
                "--on-dup {policy}: {}",
                show(&out.stderr)
            );
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("d.csv")).unwrap(),
            want_dups,
            "--on-dup {policy}: duplicates file"
        );
    }
    // The same through the external merge, where duplicates meet across runs.
    let mut big = String::new();
    for i in 0..3000 {
        big.push_str(&format!("{},{i}\n", (i * 7919) % 2000));
    }
    let out = pksort(
        &["-k", "1:int", "-S", "8K", "--on-dup", "last"],
        big.as_bytes(),
        dir.path(),
    );
    let got = show(&ok(&out));
    assert_eq!(got.lines().count(), 2000);
    assert!(got.starts_with("0,2000\n1,"), "{}", &got[..40]);
    let err = fails(
        &pksort(&["-k", "1:int", "-S", "8K"], big.as_bytes(), dir.path()),
        2,
    );
    assert!(err.contains("duplicate key (1)="), "{err}");
}

/// A duplicate found while merging spilled runs is reported with the lines of both records,
/// counted from the top of the file (a two-line header included), whether the file was
/// mapped or piped.
#[test]
fn merge_time_duplicate_positions_count_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = b"id,\"v\nw\"\n".to_vec();
    let n = 20_000;
    for i in 1..=n {
        input.extend_from_slice(format!("{i},payload {i}\n").as_bytes());
    }
    input.extend_from_slice(b"5,again\n");
    let f = write(dir.path(), "in.csv", &input);
    // Record 6 (id 5) is on line 7; the repeat is record n + 2 on line n + 3.
    let want = format!(
        ":{}: (record {}, byte {}) duplicate key (id)=(5): same key as line 7 (record 6)",
        n + 3,
        n + 2,
        input.len() - b"5,again\n".len()
    );
    for file in [true, false] {
        let mut args = vec!["-k", "id:int", "--header", "-S", "2K"];
        if file {
            args.push(&f);
        }
        let stdin: &[u8] = if file { b"" } else { &input };
        let err = fails(&pksort(&args, stdin, dir.path()), 2);
        assert!(err.contains(&want), "file {file}: {err}\nwant: {want}");
    }
}

#[test]
fn check_mode() {
    let dir = tempfile::tempdir().unwrap();
    let sorted = b"1,a\n2,b\n2,c\n10,d\n";
    let out = pksort(
        &["-c", "-k", "1:int", "--on-dup", "keep"],
        sorted,
        dir.path(),
    );
    ok(&out);
    assert!(out.stdout.is_empty());
    // (args, input, exit code, what stderr must hold)
    type Failure<'a> = (&'a [&'a str], &'a [u8], i32, &'a [&'a str]);
    let failures: [Failure; 3] = [
        (
            &["-c", "-k", "1:int"],
            sorted,
            1,
            &["<stdin>:3: (record 3, byte 8) duplicate key"],
        ),
        (
            &["-c", "-k", "1", "--on-dup", "keep"],
            sorted,
            1,
            &["record 4", "out of order"],
        ),
        (
            &["-c", "-k", "1:int"],
            b"1\nx\n",
            2,
            &["'x' is not a valid int"],
        ),
    ];
    for (args, input, code, needles) in failures {
        fails_with(dir.path(), args, input, code, needles);
    }
    // Each input is checked on its own; the header is skipped.
    write(dir.path(), "a.csv", b"id\n1\n5\n");
    write(dir.path(), "b.csv", b"id\n2\n3\n");
    ok(&pksort(
        &["-c", "--header", "-k", "id:int", "a.csv", "b.csv"],
        b"",
        dir.path(),
    ));
}

#[test]
fn merge_mode() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.csv", b"1,a1\n3,a3\n5,a5\n");
    write(dir.path(), "b.csv", b"2,b2\n3,b3\n6,b6");
    let got = ok(&pksort(
        &[
            "--merge", "-k", "1:int", "--on-dup", "keep", "a.csv", "b.csv",
        ],
        b"",
        dir.path(),
    ));
    assert_eq!(show(&got), "1,a1\n2,b2\n3,a3\n3,b3\n5,a5\n6,b6\n");
    write(dir.path(), "c.csv", b"4,c\n1,c\n");
    let failures: [(&str, &[&str]); 2] = [
        (
            "b.csv",
            &["b.csv:2: (record 2, byte 5) duplicate key", "of a.csv"],
        ),
        ("c.csv", &["c.csv:2:", "not sorted"]),
    ];
    for (second, needles) in failures {
        fails_with(
            dir.path(),
            &["--merge", "-k", "1:int", "a.csv", second],
            b"",
            2,
            needles,
        );
    }
}

#[test]
fn gzip_in_and_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"3,c\n1,a\n2,b\n").unwrap();
    write(dir.path(), "in.csv.gz", &gz.finish().unwrap());
    let got = ok(&pksort(&["-k", "1:int", "in.csv.gz"], b"", dir.path()));
    assert_eq!(show(&got), "1,a\n2,b\n3,c\n");
    ok(&pksort(
        &["-k", "1:int", "-o", "out.csv.gz", "in.csv.gz"],
        b"",
        dir.path(),
    ));
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(dir.path().join("out.csv.gz")).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "1,a\n2,b\n3,c\n");
}

#[test]
fn bad_values_and_nulls() {
    let dir = tempfile::tempdir().unwrap();
    // Sorted as asked: (args, input, output).
    let sorted: [(&[&str], &[u8], &str); 3] = [
        // "" is an empty string, not NULL.
        (&["-k", "2"], b"a,x\nb,\"\"\n", "b,\"\"\na,x\n"),
        (
            &["-k", "2:int:desc", "--nulls", "first"],
            b"a,1\nb,\nc,2\n",
            "b,\nc,2\na,1\n",
        ),
        (
            &["-k", "2:int", "--nulls", "last"],
            b"a,1\nb,\nc,2\n",
            "a,1\nc,2\nb,\n",
        ),
    ];
    for (args, input, want) in sorted {
        let got = ok(&pksort(args, input, dir.path()));
        assert_eq!(show(&got), want, "pksort {args:?}");
    }
    // Refused with exit 2: (args, input, what stderr must hold).
    let refused: [(&[&str], &[u8], &[&str]); 9] = [
        (
            &["-k", "2:int"],
            b"a,1\nb,\"1x\"\n",
            &["<stdin>:2: (record 2, byte 4) key column 2: '1x' is not a valid int"],
        ),
        (
            &["-k", "2:date"],
            b"a,2001-02-29\n",
            &["'2001-02-29' is not a valid date"],
        ),
        (
            &["-k", "2"],
            b"a,1\nb,\n",
            &["record 2", "NULL in key column 2"],
        ),
        (&["-k", "3"], b"a,1\n", &["key column 3 is missing"]),
        (&["-k", "1"], b"a,\"open\n", &["unterminated quoted field"]),
        (&["-k", "1"], b"a\"b\"c,1\n", &["malformed CSV"]),
        (&["-k", "1:nope"], b"", &["unknown type"]),
        (&["--bogus"], b"", &[]),
        (&[], b"a\n", &["no key"]),
    ];
    for (args, input, needles) in refused {
        fails_with(dir.path(), args, input, 2, needles);
    }
}

#[test]
fn output_file_is_atomic_and_errors_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    ok(&pksort(
        &["-k", "1:int", "-o", "out.csv"],
        b"2\n1\n",
        dir.path(),
    ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.csv")).unwrap(),
        "1\n2\n"
    );
    fails(
        &pksort(&["-k", "1:int", "-o", "bad.csv"], b"2\nx\n", dir.path()),
        2,
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["out.csv".to_string()]);
}

#[test]
fn temporary_files_are_removed_on_error() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut input = String::new();
    for i in 0..20000 {
        input.push_str(&format!("{},padding padding padding\n", 20000 - i));
    }
    input.push_str("oops,late\n");
    // (temporary directory, what stderr must hold): a late bad value, then a directory
    // that does not exist.
    let cases: [(&str, &[&str]); 2] = [
        (tmp.to_str().unwrap(), &["record 20001", "'oops'"]),
        ("missing", &["missing: does not exist"]),
    ];
    for (tmpdir, needles) in cases {
        fails_with(
            dir.path(),
            &["-k", "1:int", "-S", "64K", "--temporary-directory", tmpdir],
            input.as_bytes(),
            2,
            needles,
        );
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "{tmpdir}");
    }
}

#[test]
fn manifest_gives_key_and_types() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = r#"{"format":"dumpshard-manifest","version":1,"tables":[
      {"schema":"public","name":"t","file":"t.csv","columns":[
        {"name":"note","type":"text","not_null":false},
        {"name":"w","type":"integer","not_null":true},
        {"name":"ts","type":"timestamp with time zone","not_null":true},
        {"name":"code","type":"character(3)","not_null":true}],
       "primary_key":["w","ts"],"rows":4,"bytes":0,"header":true,"null":"","compression":null},
      {"schema":"public","name":"u","file":null,"columns":[{"name":"id","type":"uuid","not_null":true}],
       "primary_key":["id"],"rows":0,"bytes":0,"header":false,"null":"","compression":null}]}"#;
    write(dir.path(), "m.json", manifest.as_bytes());
    write(
        dir.path(),
        "t.csv",
        b"note,w,ts,code\nd,10,2020-01-01 00:00:00+00,a\nc,9,2020-01-01 01:00:00+02,b  \nb,9,2020-01-01 00:00:00+00,a\na,9,2019-12-31 23:30:00-01,c\n",
    );
    // The manifest gives key and types; the data comes from the named file or, like any
    // filter, from stdin (never silently from the manifest's `file`).
    let got = ok(&pksort(
        &["--manifest", "m.json", "--table", "t", "t.csv"],
        b"",
        dir.path(),
    ));
    let piped = ok(&pksort(
        &["--manifest", "m.json", "--table", "t"],
        &std::fs::read(dir.path().join("t.csv")).unwrap(),
        dir.path(),
    ));
    assert_eq!(got, piped);
    assert_eq!(
        show(&got),
        "note,w,ts,code\nc,9,2020-01-01 01:00:00+02,b  \nb,9,2020-01-01 00:00:00+00,a\na,9,2019-12-31 23:30:00-01,c\nd,10,2020-01-01 00:00:00+00,a\n"
    );
    let got = ok(&pksort(
        &[
            "--manifest",
            "m.json",
            "--table",
            "public.t",
            "-k",
            "code,note",
            "t.csv",
        ],
        b"",
        dir.path(),
    ));
    assert!(
        show(&got).starts_with("note,w,ts,code\nb,9,"),
        "{}",
        show(&got)
    );
    let err = fails(&pksort(&["--manifest", "m.json"], b"", dir.path()), 2);
    assert!(err.contains("--table"), "{err}");
    let got = ok(&pksort(
        &["--manifest", "m.json", "--table", "u"],
        b"B0000000-0000-0000-0000-000000000000\na0000000-0000-0000-0000-000000000000\n",
        dir.path(),
    ));
    assert!(show(&got).starts_with("a0"), "{}", show(&got));
}

/// The in-memory case is in contract::a_closed_stdout_ends_quietly_with_0; this is the one
/// with spill runs (their merge writes the output).
#[test]
fn closed_stdout_ends_quietly_while_merging_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = String::new();
    for i in 0..300_000 {
        input.push_str(&format!(
            "{},some payload to make the output big\n",
            300_000 - i
        ));
    }
    write(dir.path(), "big.csv", input.as_bytes());
    // The reader takes the first 10 bytes and goes away.
    let r = Cmd::new("pksort")
        .args(["-k", "1:int", "big.csv", "-S", "1M"])
        .current_dir(dir.path())
        .stdout_head(10)
        .expect(0);
    assert_eq!(r.stdout(), b"1,some pay");
    r.check(r.output.stderr.is_empty(), "stderr must be empty");
}

#[test]
fn full_disk_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = "3,x\n1,y\n".repeat(50_000);
    // Plain stdout on /dev/full is in contract::writing_to_dev_full_is_a_one_line_error_exit_2.
    for extra in [&["-S", "256K"][..], &["-o", "/dev/full"][..]] {
        let mut args = vec!["-k", "1:int", "--on-dup", "keep"];
        args.extend_from_slice(extra);
        let r = crate::support::cmd::Cmd::new("pksort")
            .args(&args)
            .current_dir(dir.path())
            .stdin(input.as_bytes())
            .stdout_file("/dev/full")
            .expect(2);
        r.check(
            r.stderr_str().contains("No space left on device"),
            "a full disk is an I/O error",
        );
    }
    assert!(
        !std::fs::metadata("/dev/full").unwrap().is_file(),
        "/dev/full must still be a device"
    );
}

// ---------------------------------------------------------------------------------------
// Round trip with PostgreSQL: its `ORDER BY pk` output equals pksort's output on the same
// table's unordered CSV, byte for byte.

use crate::support::pg;

#[test]
fn postgres_order_by_equals_pksort() {
    let Some(pg) = pg::Pg::start() else {
        return;
    };
    pg.createdb("pks");
    pg.psql(
        "pks",
        r#"
        SET TimeZone = 'America/Caracas';
        CREATE TABLE t_int (id bigint PRIMARY KEY, note text);
        INSERT INTO t_int SELECT (random() * 2e12 - 1e12)::bigint, 'n,' || g || E'\n"q"'
          FROM generate_series(1, 3000) g ON CONFLICT DO NOTHING;
        INSERT INTO t_int VALUES (0, NULL), (-1, ''), (9223372036854775807, 'max'),
          (-9223372036854775808, 'min') ON CONFLICT DO NOTHING;
        CREATE TABLE t_comp (w int, d smallint, c int, data text, PRIMARY KEY (w, d, c));
        INSERT INTO t_comp SELECT w, d, c, md5((w * 100000 + d * 1000 + c)::text)
          FROM generate_series(1, 12) w, generate_series(1, 10) d, generate_series(1, 30) c;
        CREATE TABLE t_text (k text PRIMARY KEY, v int);
        INSERT INTO t_text SELECT DISTINCT ON (k) k, g FROM (
          SELECT g, substr(md5(g::text), 1, (g % 7) + 1)
                 || (ARRAY['é', 'E', 'e', ' ', ',', '"', E'\n', 'Z', ''])[1 + g % 9] AS k
          FROM generate_series(1, 3000) g) s;
        INSERT INTO t_text VALUES ('', -1) ON CONFLICT DO NOTHING;
        CREATE TABLE t_uuid (id uuid PRIMARY KEY, n int);
        INSERT INTO t_uuid SELECT md5(g::text)::uuid, g FROM generate_series(1, 3000) g;
        CREATE TABLE t_mixed (n numeric(20,5), ts timestamptz, d date, b boolean, f float8, note text,
          PRIMARY KEY (n, ts, d, b, f));
        INSERT INTO t_mixed SELECT round((random() * 200 - 100)::numeric, (g % 6)),
          timestamptz '2000-01-01 00:00:00+00' + (g % 50) * interval '7 hours 3.25 seconds',
          date '0100-01-01 BC' + (g % 3) * 300000, g % 2 = 0, (g % 5)::float8 / 3 - 0.5, 'r' || g
          FROM generate_series(1, 3000) g ON CONFLICT DO NOTHING;
        "#,
    );
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str]); 5] = [
        ("t_int", "id", &["-k", "1:int"]),
        ("t_comp", "w, d, c", &["-k", "1:int,2:int,3:int"]),
        ("t_text", "k COLLATE \"C\"", &["-k", "1:text"]),
        ("t_uuid", "id", &["-k", "1:uuid"]),
        (
            "t_mixed",
            "n, ts, d, b, f",
            &["-k", "1:numeric,2:timestamptz,3:date,4:bool,5:float"],
        ),
    ];
    for (table, order, args) in cases {
        let copy = |sql: &str| {
            pg.psql(
                "pks",
                &format!("SET TimeZone = 'Asia/Kolkata'; COPY ({sql}) TO STDOUT (FORMAT csv)"),
            )
        };
        let unordered = copy(&format!(
            "SELECT * FROM {table} ORDER BY md5(random()::text)"
        ));
        let want = copy(&format!("SELECT * FROM {table} ORDER BY {order}"));
        assert!(want.lines().count() > 100, "{table}: {want:.200}");
        assert_ne!(unordered, want, "{table}: the input should be unordered");
        write(dir.path(), "in.csv", unordered.as_bytes());
        for extra in [&[][..], &["-S", "32K"][..]] {
            let mut a = args.to_vec();
            a.extend_from_slice(extra);
            a.push("in.csv");
            let got = ok(&pksort(&a, b"", dir.path()));
            assert!(
                got == want.as_bytes(),
                "{table} {a:?}: {}",
                diff(&got, want.as_bytes())
            );
        }
    }
}

#[test]
fn peak_memory_stays_near_the_budget() {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("SKIPPED: no /usr/bin/time to measure peak RSS");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut input = Vec::with_capacity(40 << 20);
    let mut x: u64 = 1;
    while input.len() < 40 << 20 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        input.extend_from_slice(
            format!(
                "{},\"text, with a comma and a\nnewline\",{}\n",
                x >> 20,
                "p".repeat((x % 200) as usize)
            )
            .as_bytes(),
        );
    }
    write(dir.path(), "in.csv", &input);
    let err = Cmd::program(time)
        .args(["-f", "%M", crate::support::cmd::bin("pksort")])
        .args([
            "-k", "1:int", "-S", "8M", "-o", "out.csv", "in.csv", "--on-dup", "keep",
        ])
        .current_dir(dir.path())
        .expect(0)
        .stderr_str();
    let kb: u64 = err.trim().lines().last().unwrap().trim().parse().unwrap();
    assert!(kb < (8 + 16) * 1024, "peak RSS {kb} KB with -S 8M");
    assert_eq!(
        std::fs::metadata(dir.path().join("out.csv")).unwrap().len(),
        input.len() as u64
    );
}

#[test]
fn merge_of_more_inputs_than_the_fan_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    let mut want = Vec::new();
    for f in 0..7 {
        let mut data = String::from("id,src\n");
        for i in 0..50 {
            let line = format!("{},{f}\n", i * 3 + f % 3);
            data.push_str(&line);
            want.push((i * 3 + f % 3, f, line));
        }
        names.push(write(dir.path(), &format!("s{f}.csv"), data.as_bytes()));
    }
    want.sort_by_key(|w| (w.0, w.1));
    let mut args = vec![
        "--merge",
        "--header",
        "-k",
        "id:int",
        "--on-dup",
        "keep",
        "--batch-size",
        "2",
    ];
    args.extend(names.iter().map(String::as_str));
    let got = show(&ok(&pksort(&args, b"", dir.path())));
    let want = format!(
        "id,src\n{}",
        want.into_iter().map(|w| w.2).collect::<String>()
    );
    assert!(got == want, "{}", diff(got.as_bytes(), want.as_bytes()));
}

#[test]
fn interrupt_leaves_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut child = Cmd::new("pksort")
        .args([
            "-k",
            "1:int",
            "-S",
            "64K",
            "--temporary-directory",
            tmp.to_str().unwrap(),
            "-o",
            "out.csv",
        ])
        .current_dir(dir.path())
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut sin = child.stdin.take().unwrap();
    // Enough input for several spilled runs; stdin stays open so pksort is still running.
    for i in 0..50_000 {
        sin.write_all(format!("{},some payload for the runs\n", 50_000 - i).as_bytes())
            .unwrap();
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: kill(2) on our own child's pid.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let o =
        crate::support::cmd::wait_output_timeout(child, crate::support::cmd::TIMEOUT, "the tool");
    drop(sin);
    assert_eq!(o.status.code(), Some(130), "{}", show(&o.stderr));
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "runs left behind"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "tmp")
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

/// An input held in memory as many chunks (a 4M budget cuts 128 KiB chunks, and about 1 MB
/// of records stays under it: no spilled run) is sorted stably, from a file (chunks mapped
/// ahead by a helper thread, each unmapped when dropped) and from a pipe: the chunks' sorted
/// entries are merged in two halves, and the halves in two parts at once, so records with
/// equal keys straddle every split.
#[test]
fn many_chunks_in_memory_sort_stably() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = Vec::new();
    let mut want = Vec::new();
    for i in 0..12_000u64 {
        let x = i
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
            >> 33;
        let rec = format!(
            "{},{i},\"a, \"\"quoted\"\"\nnote\",{}\n",
            x % 300,
            "z".repeat((x % 90) as usize)
        );
        input.extend_from_slice(rec.as_bytes());
        want.push((x % 300, rec));
    }
    want.sort_by_key(|w| w.0);
    let want: String = want.into_iter().map(|w| w.1).collect();
    write(dir.path(), "in.csv", &input);
    let args = ["-k", "1:int", "-S", "4M", "--on-dup", "keep", "-j", "2"];
    let mut file = args.to_vec();
    file.push("in.csv");
    for got in [
        pksort(&file, b"", dir.path()),
        pksort(&args, &input, dir.path()),
    ] {
        let got = show(&ok(&got));
        assert!(got == want, "{}", diff(got.as_bytes(), want.as_bytes()));
    }
}
