//! Property tests: values drawn from each type's valid domain always pass csvcheck's type
//! rules, and mutated ones fail; and at the binary level, --filter and --bad-rows split any
//! input into its good and bad records byte for byte.

use crate::support::cmd::Cmd;
use dumpshard::pg::types::PgType;
use proptest::prelude::*;
use std::io::Write;

fn pass(t: &PgType, v: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        t.check(v.as_bytes()).is_ok(),
        "{} refused valid {:?}: {:?}",
        t.name(),
        v,
        t.check(v.as_bytes())
    );
    Ok(())
}

fn fail(t: &PgType, v: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        t.check(v.as_bytes()).is_err(),
        "{} accepted invalid {:?}",
        t.name(),
        v
    );
    Ok(())
}

fn days(y: i64, m: u32) -> u32 {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ][m as usize - 1]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn integers(v in any::<i64>(), pad in 0usize..3, zeros in 0usize..4, plus in any::<bool>()) {
        let sign = if v >= 0 && plus { "+" } else if v < 0 { "-" } else { "" };
        let s = format!("{}{sign}{}{}{}", " ".repeat(pad), "0".repeat(zeros), v.unsigned_abs(), " ".repeat(pad));
        pass(&PgType::Int8, &s)?;
        let fits32 = i32::try_from(v).is_ok();
        if fits32 { pass(&PgType::Int4, &s)?; } else { fail(&PgType::Int4, &s)?; }
        if i16::try_from(v).is_ok() { pass(&PgType::Int2, &s)?; } else { fail(&PgType::Int2, &s)?; }
        fail(&PgType::Int8, &format!("{s}x"))?;
        fail(&PgType::Int8, &format!("{v}9999999999999999999"))?;
    }

    #[test]
    fn numerics(p in 1i32..30, sfrac in 0.0f64..1.0, int_digits in proptest::collection::vec(0u8..10, 0..30),
                frac_digits in proptest::collection::vec(0u8..10, 0..30), neg in any::<bool>()) {
        let s = ((p as f64) * sfrac) as i32; // 0..=p-1
        let ip: String = int_digits.iter().take((p - s) as usize).map(|d| (b'0' + d) as char).collect();
        let fp: String = frac_digits.iter().take(s as usize).map(|d| (b'0' + d) as char).collect();
        let ip = if ip.is_empty() { "0".to_string() } else { ip };
        let v = format!("{}{ip}{}{fp}", if neg { "-" } else { "" }, if fp.is_empty() { "" } else { "." });
        let t = PgType::Numeric(Some((p, s)));
        pass(&t, &v)?;
        pass(&PgType::Numeric(None), &v)?;
        // One integer digit too many, with a non-zero lead: overflow.
        let over = format!("1{}", "0".repeat((p - s) as usize));
        fail(&t, &over)?;
        fail(&PgType::Numeric(None), &format!("{v}.5.5"))?;
    }

    #[test]
    fn floats(v in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        pass(&PgType::Float8, &format!("{v}"))?;
        pass(&PgType::Float8, &format!("{v:e}"))?;
        fail(&PgType::Float8, &format!("{v}x"))?;
        let f = v as f32;
        if f.is_finite() && (f != 0.0 || v == 0.0) {
            pass(&PgType::Float4, &format!("{f:e}"))?;
        }
    }

    #[test]
    fn booleans(i in 0usize..14, upper in proptest::collection::vec(any::<bool>(), 8)) {
        let words = ["t", "tr", "tru", "true", "f", "fa", "false", "y", "yes", "n", "no", "on", "off", "1"];
        let w: String = words[i].chars().zip(upper.iter().cycle()).map(|(c, u)| if *u { c.to_ascii_uppercase() } else { c }).collect();
        pass(&PgType::Bool, &w)?;
        pass(&PgType::Bool, &format!(" {w} "))?;
        fail(&PgType::Bool, &format!("{w}x"))?;
    }

    #[test]
    fn dates_and_timestamps(y in 1i64..10000, m in 1u32..13, dsel in 0.0f64..1.0, bc in any::<bool>(),
                            h in 0u32..24, mi in 0u32..60, s in 0u32..60, us in proptest::option::of(0u32..1_000_000),
                            tsep in any::<bool>(), tz in proptest::option::of((-15i32..16, 0u32..60))) {
        // 4713 BC is the first whole year PostgreSQL's dates reach.
        let y = if bc { y.min(4713) } else { y };
        let ya = if bc { 1 - y } else { y };
        let d = 1 + ((days(ya, m) as f64) * dsel) as u32;
        let era = if bc { " BC" } else { "" };
        let date = format!("{y:04}-{m:02}-{d:02}");
        pass(&PgType::Date, &format!("{date}{era}"))?;
        let bad_day = format!("{y:04}-{m:02}-{:02}{era}", days(ya, m) + 1);
        fail(&PgType::Date, &bad_day)?;
        let frac = us.map_or(String::new(), |u| format!(".{u:06}"));
        let zone = tz.map_or(String::new(), |(zh, zm)| format!("{}{:02}:{zm:02}", if zh < 0 { '-' } else { '+' }, zh.abs()));
        let time = format!("{h:02}:{mi:02}:{s:02}{frac}");
        let ts = format!("{date}{}{time}{zone}{era}", if tsep { "T" } else { " " });
        pass(&PgType::Timestamp, &ts)?;
        pass(&PgType::TimestampTz, &ts)?;
        pass(&PgType::Time, &format!("{time}{zone}"))?;
        fail(&PgType::Timestamp, &format!("{date} {h:02}:{}:{s:02}", 60 + mi % 40))?;
        fail(&PgType::Time, &format!("{}:{mi:02}", 25 + h))?;
    }

    #[test]
    fn uuids(b in any::<[u8; 16]>(), form in 0usize..4, drop in 0usize..32) {
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        let std = format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
        let v = match form { 0 => std, 1 => hex.clone(), 2 => format!("{{{std}}}"), _ => std.to_uppercase() };
        pass(&PgType::Uuid, &v)?;
        let mut short = hex.clone();
        short.remove(drop);
        fail(&PgType::Uuid, &short)?;
    }

    #[test]
    fn byteas(b in proptest::collection::vec(any::<u8>(), 1..40)) {
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        pass(&PgType::Bytea, &format!("\\x{hex}"))?;
        fail(&PgType::Bytea, &format!("\\x{}", &hex[1..]))?;
        let esc: String = b.iter().map(|x| format!("\\{x:03o}")).collect();
        pass(&PgType::Bytea, &esc)?;
    }

    #[test]
    fn lengths(s in "\\PC{0,12}", n in 1usize..12) {
        let t = PgType::Varchar(n);
        let chars: String = s.chars().take(n).collect();
        pass(&t, &chars)?;
        pass(&t, &format!("{chars}   "))?;
        let over: String = format!("{}x", "é".repeat(n));
        fail(&t, &over)?;
        fail(&PgType::Char(n), &over)?;
    }

    #[test]
    fn int_arrays(v in proptest::collection::vec(proptest::option::of(any::<i32>()), 0..10), nested in any::<bool>()) {
        let items: Vec<String> = v.iter().map(|x| x.map_or("NULL".to_string(), |i| i.to_string())).collect();
        let t = PgType::Array(Box::new(PgType::Int4));
        let flat = format!("{{{}}}", items.join(","));
        pass(&t, &flat)?;
        if nested && !v.is_empty() {
            pass(&t, &format!("{{{flat},{flat}}}"))?;
            // A sub-array one element longer than its sibling.
            fail(&t, &format!("{{{flat},{{{}}}}}", vec!["1"; v.len() + 1].join(",")))?;
        }
        fail(&t, &format!("{flat}x"))?;
        if !v.is_empty() {
            fail(&t, &format!("{{{}}}", items.iter().map(|s| format!("{s}a")).collect::<Vec<_>>().join(",")))?;
        }
    }

    #[test]
    fn intervals(parts in proptest::collection::btree_map(0usize..7, -1000i64..1000, 1..5), ago in any::<bool>()) {
        let units = ["years", "mons", "weeks", "days", "hours", "minutes", "seconds"];
        let s: Vec<String> = parts.iter().map(|(u, n)| format!("{n} {}", units[*u])).collect();
        let v = format!("{}{}", s.join(" "), if ago { " ago" } else { "" });
        pass(&PgType::Interval, &v)?;
        let first = parts.keys().next().unwrap();
        fail(&PgType::Interval, &format!("{} 1 {}", s.join(" "), units[*first]))?;
    }

    #[test]
    fn json(v in json_value()) {
        let s = serde_json::to_string(&v).unwrap();
        pass(&PgType::Json, &s)?;
        pass(&PgType::Jsonb, &s)?;
        fail(&PgType::Json, &format!("{s},"))?;
        fail(&PgType::Jsonb, &format!("[{s}"))?;
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1e300f64..1e300).prop_map(serde_json::Value::from),
        "[^\\x00]{0,10}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            proptest::collection::btree_map("[a-z]{0,4}", inner, 0..4)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Records: an int, a text and a date; `bad` marks records whose int is made invalid.
/// (int, text, (year, month, day), made bad)
type Row = (i32, String, (i64, u32, u32), bool);

fn table() -> impl Strategy<Value = Vec<Row>> {
    proptest::collection::vec(
        (
            any::<i32>(),
            "[^\\x00]{0,12}",
            (1i64..3000, 1u32..13, 1u32..29),
            proptest::bool::weighted(0.2),
        ),
        0..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn filter_and_bad_rows_partition_the_input(rows in table(), crlf in any::<bool>()) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut input = Vec::new();
        let mut good = Vec::new();
        let mut bad = Vec::new();
        for (i, s, (y, m, d), is_bad) in &rows {
            let mut rec = Vec::new();
            let mut f = Vec::new();
            dumpshard::csv::csvout::FieldWriter::default().field(&mut f, Some(s.as_bytes()));
            let int = if *is_bad { format!("{i}x") } else { i.to_string() };
            write!(rec, "{int},").unwrap();
            rec.extend_from_slice(&f);
            write!(rec, ",{y:04}-{m:02}-{d:02}{eol}").unwrap();
            input.extend_from_slice(&rec);
            if *is_bad { bad.extend_from_slice(&rec) } else { good.extend_from_slice(&rec) }
        }
        let dir = tempfile::tempdir().unwrap();
        let o = Cmd::new("csvcheck")
            .args(["--columns", "i:int4!,s:text,d:date", "--filter", "--bad-rows", "bad.csv", "-q"])
            .current_dir(dir.path())
            .stdin(input)
            .run()
            .output;
        let want_code = if bad.is_empty() { 0 } else { 1 };
        prop_assert_eq!(o.status.code(), Some(want_code), "{}", String::from_utf8_lossy(&o.stderr));
        prop_assert!(o.stdout == good, "good records differ");
        let got_bad = std::fs::read(dir.path().join("bad.csv")).unwrap();
        prop_assert!(got_bad == bad, "bad records differ");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any bytes at all, with a schema of every kind of type: an exit code, never a panic.
    #[test]
    fn never_panics(data in proptest::collection::vec(
        prop_oneof![Just(b','), Just(b'"'), Just(b'\n'), Just(b'\r'), Just(b'\\'), Just(b'{'),
                    Just(b'}'), Just(b'-'), Just(b':'), Just(0u8), Just(0xff), any::<u8>(),
                    (b'0'..=b'9')], 0..300),
                    sorted in any::<bool>(), header in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec![
            "--columns", "a:int4!,b:numeric(5,2),c:timestamptz,d:interval,e:int4[],f:jsonb,g:bytea,h:uuid",
            "--key", "a", "--filter", "--bad-rows", "bad.csv", "--bad-rows-reasons", "why.csv",
        ];
        if sorted { args.push("--sorted"); }
        if header { args.push("--header"); }
        let o = Cmd::new("csvcheck")
            .args(&args)
            .current_dir(dir.path())
            .stdin(data.clone())
            .run()
            .output;
        let err = String::from_utf8_lossy(&o.stderr);
        prop_assert!(matches!(o.status.code(), Some(0 | 1)), "exit {:?}: {}", o.status.code(), err);
        prop_assert!(!err.contains("panicked"), "{}", err);
        // Nothing is lost: good and bad records together are the input (plus at most the
        // header written to both).
        let bad = std::fs::read(dir.path().join("bad.csv")).unwrap();
        prop_assert!(o.stdout.len() + bad.len() >= data.len(), "records lost");
    }
}
