//! Integers: optional whitespace, sign, decimal digits (PostgreSQL 15 has no `0x` or `_`).

use super::{syntax, trim};

/// The one integer syntax of the toolkit (`int2in`/`int4in`/`int8in` before the range
/// check): [`is_space`](super::is_space) around, an optional sign, one or more ASCII digits. Returns the
/// sign (true = negative) and the digits; the integer key type encodes them at any length.
pub fn int_digits(v: &[u8]) -> Option<(bool, &[u8])> {
    let s = trim(v);
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit)).then_some((neg, digits))
}

/// The value of an integer in [`int_digits`] syntax, when it fits an `i64`.
pub fn int_value(v: &[u8]) -> Option<i64> {
    // Fast path for what PostgreSQL prints (an optional '-' and at most 18 digits, which
    // cannot overflow an i64): no trimming, no 128-bit accumulator, no check per digit.
    // Verification reads every integer of every row twice (issue 35, item 8).
    let (neg, d) = match v.first() {
        Some(b'-') => (true, &v[1..]),
        _ => (false, v),
    };
    if !d.is_empty() && d.len() <= 18 {
        let mut acc: u64 = 0;
        let mut ok = true;
        for &c in d {
            let x = c.wrapping_sub(b'0');
            ok &= x < 10;
            acc = acc.wrapping_mul(10).wrapping_add(u64::from(x));
        }
        if ok {
            let a = acc as i64;
            return Some(if neg { -a } else { a });
        }
    }
    let (neg, digits) = int_digits(v)?;
    let mut acc: i128 = 0;
    for &d in digits {
        acc = acc * 10 + i128::from(d - b'0');
        if acc > 1 << 64 {
            return None;
        }
    }
    i64::try_from(if neg { -acc } else { acc }).ok()
}

pub(super) fn check_int(v: &[u8], min: i64, max: i64, t: &str) -> Result<(), String> {
    let (neg, digits) = int_digits(v).ok_or_else(|| syntax(t))?;
    let mut acc: i128 = 0;
    for &d in digits {
        acc = acc * 10 + (d - b'0') as i128;
        if acc > 1 << 64 {
            return Err(format!("value out of range for type {t}"));
        }
    }
    let val = if neg { -acc } else { acc };
    if val < min as i128 || val > max as i128 {
        return Err(format!("value out of range for type {t}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::types::PgType;

    /// The range edges of int2, int4 and int8 and one past each, as PostgreSQL's `int2in`,
    /// `int4in` and `int8in` accept and refuse them: checked before only by tests that need
    /// a server (issue 19, Tests (c)).
    #[test]
    fn range_edges() {
        let cases: [(PgType, &str, bool); 16] = [
            (PgType::Int2, "32767", true),
            (PgType::Int2, "-32768", true),
            (PgType::Int2, "32768", false),
            (PgType::Int2, "-32769", false),
            (PgType::Int4, "2147483647", true),
            (PgType::Int4, "-2147483648", true),
            (PgType::Int4, "2147483648", false),
            (PgType::Int4, "-2147483649", false),
            (PgType::Int8, "9223372036854775807", true),
            (PgType::Int8, "-9223372036854775808", true),
            (PgType::Int8, "9223372036854775808", false),
            (PgType::Int8, "-9223372036854775809", false),
            // Leading zeros and whitespace do not change the value.
            (PgType::Int2, " +0032767 ", true),
            (PgType::Int2, "-000032769", false),
            // Far past any range: no overflow inside the check.
            (
                PgType::Int8,
                "99999999999999999999999999999999999999999",
                false,
            ),
            (PgType::Int4, "-", false),
        ];
        for (t, v, ok) in cases {
            let r = t.check(v.as_bytes());
            assert_eq!(r.is_ok(), ok, "{} {v:?}: {r:?}", t.name());
            if let Err(e) = r
                && v != "-"
            {
                assert!(e.contains("out of range"), "{} {v:?}: {e}", t.name());
            }
        }
        assert_eq!(int_value(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(int_value(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(int_value(b"9223372036854775808"), None);
        assert_eq!(int_value(b"-9223372036854775809"), None);
        assert_eq!(int_value(b"-32769"), Some(-32769));
    }

    /// The fast path (up to 18 digits, no white space) gives what the general path gives,
    /// at its edges and on bytes just outside the digits.
    #[test]
    fn fast_path_agrees_with_the_general_rule() {
        let reference = |v: &[u8]| -> Option<i64> {
            let (neg, digits) = int_digits(v)?;
            let s = std::str::from_utf8(digits).ok()?;
            let n: i128 = s.parse().ok()?;
            i64::try_from(if neg { -n } else { n }).ok()
        };
        let mut cases: Vec<Vec<u8>> = [
            "0",
            "-0",
            "+0",
            "7",
            "-7",
            " 7",
            "7 ",
            "",
            "-",
            "+",
            "--1",
            "1-",
            "00000000000000000001",
            "999999999999999999",
            "-999999999999999999",
            "1000000000000000000",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "12a",
            "/",
            ":",
            "1/",
            "1:",
            "\u{0}1",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        for b in [b'/', b':', b'0', b'9', 0, 0xff, b' '] {
            for len in 1..=19 {
                let mut v = vec![b'9'; len];
                v[len / 2] = b;
                cases.push(v.clone());
                v.insert(0, b'-');
                cases.push(v);
            }
        }
        for v in &cases {
            assert_eq!(
                int_value(v),
                reference(v),
                "{:?}",
                String::from_utf8_lossy(v)
            );
        }
    }
}
