//! PostgreSQL column types and their text input rules, so `csvcheck` can say before a load
//! which values `COPY` would refuse.
//!
//! Each check follows the type's input function in PostgreSQL (`int4in`, `numeric_in`,
//! `float8in`, `boolin`, `date_in`/`timestamp_in` via the datetime parser, `interval_in`,
//! `uuid_in`, `byteain`, `varchar_in`/`bpcharin`, `array_in`, `json_in`/`jsonb_in`), and was
//! probed against PostgreSQL 15. Where PostgreSQL accepts forms whose meaning depends on
//! session settings (non-ISO dates under `DateStyle`), the check is deliberately stricter and
//! says so in its message; see [`PgType::check`].

mod array;
pub mod binary;
mod bool;
mod bytea;
pub mod calendar;
pub mod canon;
mod chars;
mod datetime;
mod float;
mod int;
mod interval;
mod json;
mod numeric;
mod uuid;

use array::check_array;
use bool::check_bool;
use bytea::check_bytea;
use chars::check_len;
use datetime::check_datetime;
use float::check_float;
use int::check_int;
pub use int::{int_digits, int_value};
use interval::check_interval;
use json::check_json;
use numeric::check_numeric;
use uuid::check_uuid;
pub use uuid::uuid_bytes;

mod catalog;
pub use catalog::{Catalog, Domain, EnumType, PgType, RANGE_TYPES, check_type_name, parse_type};

impl PgType {
    /// The type as PostgreSQL names it in messages.
    pub fn name(&self) -> String {
        match self {
            PgType::Int2 => "smallint".into(),
            PgType::Int4 => "integer".into(),
            PgType::Int8 => "bigint".into(),
            PgType::Numeric(None) => "numeric".into(),
            PgType::Numeric(Some((p, s))) => format!("numeric({p},{s})"),
            PgType::Float4 => "real".into(),
            PgType::Float8 => "double precision".into(),
            PgType::Bool => "boolean".into(),
            PgType::Date => "date".into(),
            PgType::Time => "time without time zone".into(),
            PgType::TimeTz => "time with time zone".into(),
            PgType::Timestamp => "timestamp without time zone".into(),
            PgType::TimestampTz => "timestamp with time zone".into(),
            PgType::Interval => "interval".into(),
            PgType::Uuid => "uuid".into(),
            PgType::Json => "json".into(),
            PgType::Jsonb => "jsonb".into(),
            PgType::Bytea => "bytea".into(),
            PgType::Text => "text".into(),
            PgType::Bpchar => "bpchar".into(),
            PgType::Varchar(n) => format!("character varying({n})"),
            PgType::Char(n) => format!("character({n})"),
            PgType::Enum(e) => e.name.clone(),
            PgType::Domain(d) => d.name.clone(),
            PgType::Array(e) => format!("{}[]", e.name()),
            PgType::Unknown(n) => n.clone(),
        }
    }

    /// True when values of this type are not checked at all.
    pub fn is_unknown(&self) -> bool {
        match self {
            PgType::Unknown(_) => true,
            PgType::Domain(d) => d.base.is_unknown(),
            _ => false,
        }
    }

    /// Checks one non-NULL value (already unquoted, valid UTF-8 for text types) the way the
    /// type's input function would. `Err` carries a short reason in PostgreSQL's words.
    pub fn check(&self, v: &[u8]) -> Result<(), String> {
        match self {
            PgType::Int2 => check_int(v, i16::MIN as i64, i16::MAX as i64, "smallint"),
            PgType::Int4 => check_int(v, i32::MIN as i64, i32::MAX as i64, "integer"),
            PgType::Int8 => check_int(v, i64::MIN, i64::MAX, "bigint"),
            PgType::Numeric(tm) => check_numeric(v, *tm),
            PgType::Float4 => check_float(v, true),
            PgType::Float8 => check_float(v, false),
            PgType::Bool => check_bool(v),
            PgType::Date | PgType::Time | PgType::TimeTz | PgType::Timestamp => {
                check_datetime(v, self)
            }
            PgType::TimestampTz => check_datetime(v, self),
            PgType::Interval => check_interval(v),
            PgType::Uuid => check_uuid(v),
            PgType::Json => check_json(v, false),
            PgType::Jsonb => check_json(v, true),
            PgType::Bytea => check_bytea(v),
            PgType::Text | PgType::Bpchar | PgType::Unknown(_) => Ok(()),
            PgType::Varchar(n) => check_len(v, *n, "character varying"),
            PgType::Char(n) => check_len(v, *n, "character"),
            PgType::Enum(e) => {
                if e.labels.contains(v) {
                    Ok(())
                } else {
                    Err(format!("invalid input value for enum {}", e.name))
                }
            }
            PgType::Domain(d) => d.base.check(v),
            PgType::Array(e) => check_array(v, e),
        }
    }
}

/// C `isspace` in the C locale, which PostgreSQL's input functions use to trim: the one
/// whitespace rule of the toolkit (keys trim with it too, so a value csvcheck accepts is a
/// value pksort can key on; `u8::is_ascii_whitespace` misses vertical tab).
#[inline]
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

#[inline]
fn trim_start(v: &[u8]) -> &[u8] {
    let i = v.iter().position(|&b| !is_space(b)).unwrap_or(v.len());
    &v[i..]
}

/// `v` without leading and trailing [`is_space`] bytes.
#[inline]
pub fn trim(v: &[u8]) -> &[u8] {
    let v = trim_start(v);
    let j = v.iter().rposition(|&b| !is_space(b)).map_or(0, |j| j + 1);
    &v[..j]
}

fn syntax(t: &str) -> String {
    format!("invalid input syntax for type {t}")
}

/// A short printable excerpt of a value for messages (at most 40 characters).
pub fn excerpt(v: &[u8]) -> String {
    let s = String::from_utf8_lossy(v);
    let mut out: String = s
        .chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::numeric::{check_numeric_full, numeric_fast};
    use super::*;

    fn ok(t: &PgType, v: &str) {
        assert!(
            t.check(v.as_bytes()).is_ok(),
            "{} should accept {v:?}: {:?}",
            t.name(),
            t.check(v.as_bytes())
        );
    }
    fn bad(t: &PgType, v: &str) {
        assert!(
            t.check(v.as_bytes()).is_err(),
            "{} should reject {v:?}",
            t.name()
        );
    }

    #[test]
    fn integers() {
        let t = PgType::Int4;
        for v in [
            " 12 ",
            "+5",
            "-2147483648",
            "2147483647",
            "00000000000000000001",
        ] {
            ok(&t, v);
        }
        for v in [
            "0x10",
            "1_000",
            "",
            "12a",
            "2147483648",
            "-",
            " ",
            "99999999999999999999999",
        ] {
            bad(&t, v);
        }
        ok(&PgType::Int2, "-32768");
        bad(&PgType::Int2, "32768");
        ok(&PgType::Int8, "9223372036854775807");
        bad(&PgType::Int8, "9223372036854775808");
        ok(&PgType::Int8, "-9223372036854775808");
    }

    #[test]
    fn numerics() {
        let n = PgType::Numeric(None);
        for v in [
            "NaN",
            "inf",
            "-Infinity",
            " 1e5 ",
            "1e1001",
            ".5",
            "5.",
            "1e+5",
            "1e 5",
        ] {
            ok(&n, v);
        }
        for v in [
            "-NaN",
            ".",
            "1e",
            "1 e5",
            "1e-16384",
            "abc",
            "",
            "1..2",
            "1e2147483648",
        ] {
            bad(&n, v);
        }
        let n44 = PgType::Numeric(Some((4, 4)));
        ok(&n44, "0.99994");
        ok(&n44, "NaN");
        ok(&n44, "-0.00001");
        bad(&n44, "0.99995");
        bad(&n44, "inf");
        let n32 = PgType::Numeric(Some((3, 2)));
        ok(&n32, "9.994");
        bad(&n32, "9.995");
        bad(&n32, "-9.995");
        ok(&n32, "0.001");
        ok(&n32, "1e-9");
        ok(&n32, "0.0099e2");
        let n23 = PgType::Numeric(Some((2, 3)));
        ok(&n23, "0.0949");
        bad(&n23, "0.0995");
        bad(&n23, "0.1");
        let n3m1 = PgType::Numeric(Some((3, -1)));
        ok(&n3m1, "9994");
        bad(&n3m1, "9995");
        bad(&n3m1, "12345");
        let n102 = PgType::Numeric(Some((10, 2)));
        ok(&n102, "12345678.995");
        bad(&n102, "99999999.995");
        ok(&n102, "1.5e7");
        bad(&n102, "1.5e8");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn numeric_fast_path_agrees_with_full(v in "[-+]?[0-9]{0,8}(\\.[0-9]{0,8})?", p in 1i32..12, sc in -3i32..12) {
            let tm = Some((p, sc));
            if let Some(fast) = numeric_fast(v.as_bytes(), tm) {
                proptest::prop_assert_eq!(fast.is_ok(), check_numeric_full(v.as_bytes(), tm).is_ok(), "{} numeric({},{})", v, p, sc);
            }
            if let Some(fast) = numeric_fast(v.as_bytes(), None) {
                proptest::prop_assert_eq!(fast.is_ok(), check_numeric_full(v.as_bytes(), None).is_ok(), "{}", v);
            }
        }
    }

    #[test]
    fn floats() {
        let d = PgType::Float8;
        for v in [
            "4.9e-324",
            "0x10",
            " 1.5 ",
            "inf",
            "-INFINITY",
            "nan",
            "-nan",
            "nan(1)",
            "1.e5",
            "+.5",
            "0",
            "0e-999",
        ] {
            ok(&d, v);
        }
        for v in ["1e-400", "1e400", "2e-324", "1e", "1,5", "", "--1", "abc"] {
            bad(&d, v);
        }
        let r = PgType::Float4;
        bad(&r, "1e39");
        bad(&r, "1e-46");
        ok(&r, "1e-45");
        bad(&r, "3.4028236e38");
        ok(&r, "3.4028235e38");
    }

    #[test]
    fn booleans() {
        let b = PgType::Bool;
        for v in [
            "of", "ON", "tr", " yes ", "1", "y", "nO", "off ", "t", "FALSE", "off", "on",
        ] {
            ok(&b, v);
        }
        for v in ["o", "10", "offx", "", "truex", "onn", "2"] {
            bad(&b, v);
        }
    }

    #[test]
    fn uuids() {
        let u = PgType::Uuid;
        for v in [
            "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            "A0EEBC99-9c0b4ef8-bb6d6bb9bd380a11",
        ] {
            ok(&u, v);
        }
        for v in [
            " a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc999c0b4ef8bb6d6bb9bd380a11-",
            "a0e-ebc999c0b4ef8bb6d6bb9bd380a11",
            "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
            "a0eebc999c0b4ef8bb6d6bb9bd380a1",
            "g0eebc999c0b4ef8bb6d6bb9bd380a11",
        ] {
            bad(&u, v);
        }
    }

    #[test]
    fn dates_and_times() {
        let d = PgType::Date;
        for v in [
            "2024-1-5",
            "0001-01-01 BC",
            "4714-11-24 BC",
            "5874897-12-31",
            "20240105",
            "2024-01-05 10:00",
            "2024-01-05T10:00:00Z",
            "epoch",
            "Infinity",
            " 2024-01-05 ",
            "2024-01-05 BC",
            "10000-01-01",
            "124-01-05",
            "2024-02-29",
            "2000-02-29",
            "0005-02-29 BC",
        ] {
            ok(&d, v);
        }
        for v in [
            "0000-01-01",
            "4714-11-23 BC",
            "5874898-01-01",
            "2024-02-30",
            "+infinity",
            "99-01-08",
            "2024-01-05 25:00",
            "24-01-05",
            "2024-01-05 xyz",
            "1900-02-29",
            "2024-13-01",
            "",
            "N/A",
        ] {
            bad(&d, v);
        }
        let ts = PgType::Timestamp;
        for v in [
            "2024-01-05 24:00:00",
            "2024-01-05 23:59:60",
            "2024-01-05T10:00:00+02:00",
            "2024-01-05 10:00:00 +02",
            "2024-01-05 10:00:00 Europe/Paris",
            "2024-01-05 10:00:00 PST",
            "2024-01-05 10:00:00+15:59",
            "294276-12-31 23:59:59.999999",
            "2024-01-05 10:30.5",
            "2024-01-05 10:00:00.1234567",
            "2024-01-05 1:2:3",
            "2024-01-05 10:00:00 utc",
            "2024-01-05 10:00:00z",
            "2024-01-05 10:00:00 BC",
            "2024-01-05  10:00",
            "2024-01-05 10:00:00-0800",
        ] {
            ok(&ts, v);
        }
        for v in [
            "2024-01-05 24:00:01",
            "2024-01-05 23:59:60.5",
            "2024-01-05 23:60:00",
            "2024-01-05 10:00:00 Foo/Bar",
            "2024-01-05 10:00:00+16",
            "294277-01-01",
            "2024-01-05 10",
            "2024-01-05T10",
        ] {
            bad(&ts, v);
        }
        let t = PgType::Time;
        for v in [
            "24:00:00",
            "23:59:60",
            "23:59:59.9999999",
            "allballs",
            "10:00+02",
            "2024-01-05 10:00",
            "10:00 PST",
            "now",
        ] {
            ok(&t, v);
        }
        for v in ["24:00:00.1", "23:59:60.5", "10", "", "25:00"] {
            bad(&t, v);
        }
        bad(&PgType::TimeTz, "10:00+16");
        ok(&PgType::TimeTz, "10:00");
        bad(&PgType::TimeTz, "10:00 Europe/Paris");
    }

    #[test]
    fn intervals() {
        let i = PgType::Interval;
        for v in [
            "1 day",
            "@ 1 minute ago",
            "1 year 2 mons 3 days 04:05:06",
            "P1Y2M3DT4H5M6S",
            "P0001-02-03T04:05:06",
            "10",
            "1:30",
            "1day",
            "1 week 2 days",
            "1.5 days",
            "3 microsecondsxyz",
            "-1 days +02:03:00",
            "PT",
        ] {
            ok(&i, v);
        }
        for v in [
            "1 day 2 days",
            "1 hour 01:00:00",
            "microseconds",
            "1 2",
            "2147483648 days",
            "P",
            "1 fortnight",
            "",
            "1 mon 1 month",
        ] {
            bad(&i, v);
        }
    }

    #[test]
    fn byteas() {
        let b = PgType::Bytea;
        for v in [
            "\\x0a0B",
            "\\x0a 0b",
            "abc\\\\def",
            "a\\101",
            "\\x",
            "plain",
        ] {
            ok(&b, v);
        }
        for v in [
            "\\x0a0", "\\xzz", "\\X0a", "a\\400", "a\\1", "a\\q", " \\x00", "a\\",
        ] {
            bad(&b, v);
        }
    }

    #[test]
    fn lengths() {
        let v = PgType::Varchar(3);
        ok(&v, "abc");
        ok(&v, "äöü");
        ok(&v, "abc   ");
        bad(&v, "abcd");
        bad(&v, "äöüx");
        bad(&v, "ab c d");
        ok(&PgType::Char(2), "OE");
        bad(&PgType::Char(2), "OEX");
    }

    #[test]
    fn arrays() {
        let a = PgType::Array(Box::new(PgType::Int4));
        for v in [
            "{1,2,3}",
            "{ 1 , 2 }",
            "{}",
            "{{1,2},{3,4}}",
            "{1,NULL,null}",
            "{\"1\",\"2\"}",
            "[1:2]={1,2}",
            "{1,2} ",
            " {1}",
            "{\"1\" }",
        ] {
            ok(&a, v);
        }
        for v in [
            "{{1,2},{3}}",
            "{1,a}",
            "[1:3]={1,2}",
            "{1,,2}",
            "{{}}",
            "{1,{2}}",
            "{ \"1\" 2}",
            "{1}x",
            "1,2",
            "{1,2",
        ] {
            bad(&a, v);
        }
        let t = PgType::Array(Box::new(PgType::Text));
        for v in ["{a b,c}", "{\"a\\\"b\",c\\,d}", "{NULLx}", "{\"NULL\"}"] {
            ok(&t, v);
        }
        for v in ["{a\"b}", "{a,}"] {
            bad(&t, v);
        }
    }

    #[test]
    fn json() {
        let j = PgType::Json;
        for v in [
            "1",
            " {\"a\":1} ",
            "\"\\ud800\"",
            "\"\\u0000\"",
            "1e400",
            "[]",
            "null",
        ] {
            ok(&j, v);
        }
        for v in ["{\"a\":1,}", "NaN", "[1,2", "{\"a\":\"\\x\"}", "", "01"] {
            bad(&j, v);
        }
        let jb = PgType::Jsonb;
        ok(&jb, "{\"a\": [1, 2.5, \"x\\ud83d\\ude00\"]}");
        bad(&jb, "\"\\u0000\"");
        ok(&jb, "1e400");
        bad(&jb, "\"\\ud800\"");
        bad(&jb, "1e1000000");
    }
}
