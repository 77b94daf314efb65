//! Key types and their memcomparable encodings: every key value is turned once into bytes
//! whose plain `memcmp` order is the PostgreSQL order of the typed values, so sorting,
//! merging, checking and duplicate detection all compare keys with one byte comparison.
//!
//! Every encoding is prefix-free (no encoded value is a proper prefix of another), which is
//! what makes two tricks sound: a composite key is just the concatenation of its parts, and a
//! descending part is its bytes inverted.

use std::fmt;

use crate::pg::types::{self, Catalog, PgType, parse_type};

mod datetime;
use datetime::{parse_date_value, parse_timestamp};

/// The type a key column is compared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    /// Integers of any length (smallint ... numeric(38,0)), sign and leading zeros allowed.
    Int,
    /// Decimal text with optional exponent; NaN after all numbers, as in PostgreSQL.
    Numeric,
    /// IEEE double, including Infinity and NaN (NaN last, -0 = 0).
    Float,
    /// Bytes, compared bytewise (C collation).
    Text,
    /// `character(n)`: bytewise, but trailing spaces do not count (PostgreSQL bpchar).
    Bpchar,
    /// UUID, compared as 16 bytes.
    Uuid,
    /// Boolean, false before true.
    Bool,
    /// ISO date, `infinity`/`-infinity` and ` BC` included.
    Date,
    /// ISO timestamp without time zone (an offset, as in PostgreSQL, is ignored).
    Timestamp,
    /// ISO timestamp with a UTC offset, compared as an instant (no offset: UTC).
    Timestamptz,
}

impl KeyType {
    /// Parses a type name given on the command line: any PostgreSQL type name that has a
    /// key order (`int`, `bigint`, `numeric`, `varchar`, `timestamptz`, ...), and the
    /// shorthands `double` and `bytes`.
    pub fn from_cli(s: &str) -> Option<KeyType> {
        match s.trim().to_ascii_lowercase().as_str() {
            "double" => Some(KeyType::Float),
            "bytes" => Some(KeyType::Text),
            l => KeyType::from_pg_type(&parse_type(l, &Catalog::default())),
        }
    }

    /// The key type of a column of PostgreSQL type `t`: `None` when the type is not known to
    /// sort bytewise (enums, ranges, intervals, arrays, json ...). A domain keys as its base.
    pub fn from_pg_type(t: &PgType) -> Option<KeyType> {
        Some(match t {
            PgType::Int2 | PgType::Int4 | PgType::Int8 => KeyType::Int,
            // numeric(p,0) too: PostgreSQL reads `1.5` or `1e3` into it, which the integer
            // syntax would refuse.
            PgType::Numeric(_) => KeyType::Numeric,
            PgType::Float4 | PgType::Float8 => KeyType::Float,
            PgType::Text | PgType::Varchar(_) | PgType::Bytea => KeyType::Text,
            PgType::Char(_) | PgType::Bpchar => KeyType::Bpchar,
            PgType::Uuid => KeyType::Uuid,
            PgType::Bool => KeyType::Bool,
            PgType::Date => KeyType::Date,
            PgType::Timestamp => KeyType::Timestamp,
            PgType::TimestampTz => KeyType::Timestamptz,
            PgType::Domain(d) => return KeyType::from_pg_type(&d.base),
            _ => return None,
        })
    }

    /// Maps a PostgreSQL type as written in a dump or manifest (`numeric(10,2)`,
    /// `timestamp(3) with time zone`, `public.mood`, ...) to a key type, through
    /// [`parse_type`]. The flag is false when the type is not known to sort bytewise (enums,
    /// ranges, intervals ...) and text order is only a guess.
    pub fn from_pg(t: &str) -> (KeyType, bool) {
        match KeyType::from_pg_type(&parse_type(t, &Catalog::default())) {
            Some(k) => (k, true),
            None => (KeyType::Text, false),
        }
    }

    /// The longest encoding of a value of column type `t` as this key type, when it is
    /// bounded (integers by the column's width, fixed-size types by their size). Encodings
    /// are prefix-free, so keys padded with zeros to this width compare and collide exactly
    /// as the unpadded ones do: csvcheck uses that to keep small keys in 16 bytes.
    pub fn max_width(self, t: &PgType) -> Option<usize> {
        let base = match t {
            PgType::Domain(d) => &d.base,
            t => t,
        };
        Some(match (self, base) {
            (KeyType::Int, PgType::Int2) => 3,
            (KeyType::Int, PgType::Int4) => 5,
            (KeyType::Int, PgType::Int8) => 9,
            (KeyType::Float, _) | (KeyType::Date, _) => 8,
            (KeyType::Uuid, _) | (KeyType::Timestamp, _) | (KeyType::Timestamptz, _) => 16,
            (KeyType::Bool, _) => 1,
            _ => return None,
        })
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyType::Int => "int",
            KeyType::Numeric => "numeric",
            KeyType::Float => "float",
            KeyType::Text => "text",
            KeyType::Bpchar => "character",
            KeyType::Uuid => "uuid",
            KeyType::Bool => "bool",
            KeyType::Date => "date",
            KeyType::Timestamp => "timestamp",
            KeyType::Timestamptz => "timestamptz",
        })
    }
}

/// A value that does not parse as its key type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadValue;

/// Appends the encoding of `v` (an unquoted, non-NULL value) as type `ty` to `out`.
/// On failure `out` may hold partial bytes; callers discard the key.
pub fn encode(ty: KeyType, v: &[u8], out: &mut Vec<u8>) -> Result<(), BadValue> {
    encode_inner(ty, v, out).map_err(|()| BadValue)
}

fn encode_inner(ty: KeyType, v: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    match ty {
        KeyType::Text => {
            encode_text(v, out);
            Ok(())
        }
        KeyType::Bpchar => {
            let mut end = v.len();
            while end > 0 && v[end - 1] == b' ' {
                end -= 1;
            }
            encode_text(&v[..end], out);
            Ok(())
        }
        KeyType::Int => encode_int(v, out),
        KeyType::Numeric => {
            // PostgreSQL's rule decides what is a value; the encoder only orders it.
            pg_accepts(&PgType::Numeric(None), v)?;
            encode_numeric(trim(v), out)
        }
        KeyType::Float => {
            pg_accepts(&PgType::Float8, v)?;
            encode_float(trim(v), out)
        }
        KeyType::Uuid => {
            out.extend_from_slice(&types::uuid_bytes(v).ok_or(())?);
            Ok(())
        }
        KeyType::Bool => {
            pg_accepts(&PgType::Bool, v)?;
            encode_bool(trim(v), out)
        }
        KeyType::Date => {
            pg_accepts(&PgType::Date, v)?;
            let d = parse_date_value(trim(v))?;
            out.extend_from_slice(&((d as u64) ^ (1 << 63)).to_be_bytes());
            Ok(())
        }
        KeyType::Timestamp | KeyType::Timestamptz => {
            let pg = if ty == KeyType::Timestamp {
                PgType::Timestamp
            } else {
                PgType::TimestampTz
            };
            pg_accepts(&pg, v)?;
            let t = parse_timestamp(trim(v), ty == KeyType::Timestamptz)?;
            out.extend_from_slice(&((t as u128) ^ (1 << 127)).to_be_bytes());
            Ok(())
        }
    }
}

/// The toolkit's one whitespace rule ([`types::trim`], C `isspace` like PostgreSQL's input
/// functions).
fn trim(v: &[u8]) -> &[u8] {
    types::trim(v)
}

/// Refuses what PostgreSQL (as [`PgType::check`] models it) refuses, so a value is a key
/// exactly when csvcheck passes it; values it accepts in forms the encoders here do not
/// read (such as `epoch` or a zone name) are still refused by them.
fn pg_accepts(t: &PgType, v: &[u8]) -> Result<(), ()> {
    t.check(v).map_err(|_| ())
}

/// Bytes with 0x00 escaped as 00 FF and a 00 00 terminator: order-preserving and prefix-free.
fn encode_text(v: &[u8], out: &mut Vec<u8>) {
    out.reserve(v.len() + 2);
    let mut rest = v;
    while let Some(i) = memchr::memchr(0, rest) {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(&[0, 0xFF]);
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.extend_from_slice(&[0, 0]);
}

/// Integers: a header byte gives sign and magnitude length, so small numbers stay short
/// (c_id = 3000 is 3 bytes). 0x80 is zero; 0x80+n (n = 1..8) a positive magnitude of n
/// big-endian bytes; 0x89 a positive magnitude beyond u64, as a u32 digit count and the
/// digits. Negatives mirror this below 0x80 with the bytes inverted.
fn encode_int(v: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    if encode_int_plain(v, out) {
        return Ok(());
    }
    encode_int_any(v, out)
}

/// [`encode_int`] for an integer that fits an `i64`, read by the toolkit's one integer
/// reader ([`types::int_value`], one pass over what PostgreSQL prints): the general path
/// ([`encode_int_any`]) made four passes over the digits (the trim, the digit check, the
/// leading zeros, the value), and an integer key's encoding was a tenth of pksort's
/// instructions on a table keyed by three. Writes nothing and returns false for anything
/// else (beyond `i64`, or not an integer).
#[inline]
fn encode_int_plain(v: &[u8], out: &mut Vec<u8>) -> bool {
    let Some(x) = types::int_value(v) else {
        return false;
    };
    let m = x.unsigned_abs();
    let n = 8 - (m.leading_zeros() / 8) as usize;
    let flip = if x < 0 { 0xff } else { 0 };
    out.push((0x80 + n as u8) ^ flip);
    let bytes = if x < 0 { !m } else { m }.to_be_bytes();
    out.extend_from_slice(&bytes[8 - n..]);
    true
}

/// [`encode_int`] for any spelling PostgreSQL's integer input takes.
fn encode_int_any(v: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    let (neg, digits) = types::int_digits(v).ok_or(())?;
    let first = digits.iter().position(|&d| d != b'0');
    let Some(first) = first else {
        out.push(0x80);
        return Ok(());
    };
    let digits = &digits[first..];
    let small = if digits.len() <= 19 {
        Some(
            digits
                .iter()
                .fold(0u64, |a, &d| a * 10 + u64::from(d - b'0')),
        )
    } else if digits.len() == 20 {
        digits.iter().try_fold(0u64, |a, &d| {
            a.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
    } else {
        None
    };
    let start = out.len();
    match small {
        Some(m) => {
            let n = 8 - (m.leading_zeros() / 8) as usize;
            out.push(0x80 + n as u8);
            out.extend_from_slice(&m.to_be_bytes()[8 - n..]);
        }
        None => {
            let count = u32::try_from(digits.len()).map_err(|_| ())?;
            out.push(0x89);
            out.extend_from_slice(&count.to_be_bytes());
            out.extend_from_slice(digits);
        }
    }
    if neg {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

/// Numerics: class byte (-Inf, negative, zero, positive, +Inf, NaN), then for non-zero finite
/// values the decimal exponent (biased i32) and the significant digits as 1..=10 with a 0
/// terminator; both inverted for negatives. Trailing zeros are dropped, so 1.50 = 1.5.
fn encode_numeric(v: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    let lower = v.to_ascii_lowercase();
    match lower.as_slice() {
        b"nan" => {
            out.push(5);
            return Ok(());
        }
        b"infinity" | b"+infinity" | b"inf" | b"+inf" => {
            out.push(4);
            return Ok(());
        }
        b"-infinity" | b"-inf" => {
            out.push(0);
            return Ok(());
        }
        _ => {}
    }
    let (neg, s) = match v.first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    };
    let (mant, exp) = match s.iter().position(|&c| c == b'e' || c == b'E') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (ip, fp) = match mant.iter().position(|&c| c == b'.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, &mant[..0]),
    };
    if ip.is_empty() && fp.is_empty()
        || !ip.iter().all(u8::is_ascii_digit)
        || !fp.iter().all(u8::is_ascii_digit)
    {
        return Err(());
    }
    let e: i64 = match exp {
        None => 0,
        Some(x) => {
            let (eneg, xd) = match x.first() {
                Some(b'-') => (true, &x[1..]),
                Some(b'+') => (false, &x[1..]),
                _ => (false, x),
            };
            if xd.is_empty() || xd.len() > 12 || !xd.iter().all(u8::is_ascii_digit) {
                return Err(());
            }
            let m = xd.iter().fold(0i64, |a, &d| a * 10 + i64::from(d - b'0'));
            if eneg { -m } else { m }
        }
    };
    // value = 0.D × 10^E with D the digits of ip then fp.
    let lead = ip.iter().take_while(|&&d| d == b'0').count();
    let (digits_src, mut exp10): (Vec<u8>, i64) = if lead < ip.len() {
        let mut d = ip[lead..].to_vec();
        d.extend_from_slice(fp);
        (d, (ip.len() - lead) as i64)
    } else {
        let fz = fp.iter().take_while(|&&d| d == b'0').count();
        (fp[fz..].to_vec(), -(fz as i64))
    };
    let mut digits = digits_src;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        out.push(2);
        return Ok(());
    }
    exp10 += e;
    let exp32 = i32::try_from(exp10).map_err(|_| ())?;
    out.push(if neg { 1 } else { 3 });
    let start = out.len();
    out.extend_from_slice(&((exp32 as u32) ^ (1 << 31)).to_be_bytes());
    out.extend(digits.iter().map(|d| d - b'0' + 1));
    out.push(0);
    if neg {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

/// Doubles: the usual sign-flip trick on the IEEE bits, with every NaN made the one positive
/// quiet NaN (greater than +Infinity) and -0 made 0, as PostgreSQL compares them.
fn encode_float(v: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    let s = std::str::from_utf8(v).map_err(|_| ())?;
    // strtod's `nan(chars)`, which PostgreSQL reads as NaN and Rust's parser does not.
    let f: f64 = if s
        .trim_start_matches(['+', '-'])
        .to_ascii_lowercase()
        .starts_with("nan(")
    {
        f64::NAN
    } else {
        s.parse().map_err(|_| ())?
    };
    let f = if f.is_nan() {
        f64::NAN
    } else if f == 0.0 {
        0.0
    } else {
        f
    };
    let bits = f.to_bits();
    let enc = if bits >> 63 == 1 {
        !bits
    } else {
        bits ^ (1 << 63)
    };
    out.extend_from_slice(&enc.to_be_bytes());
    Ok(())
}

fn encode_bool(v: &[u8], out: &mut Vec<u8>) -> Result<(), ()> {
    let l = v.to_ascii_lowercase();
    let is_prefix = |word: &[u8], min: usize| l.len() >= min && word.starts_with(&l);
    let b = if is_prefix(b"true", 1) || is_prefix(b"yes", 1) || l == b"on" || l == b"1" {
        1
    } else if is_prefix(b"false", 1) || is_prefix(b"no", 1) || is_prefix(b"off", 2) || l == b"0" {
        0
    } else {
        return Err(());
    };
    out.push(b);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(ty: KeyType, v: &str) -> Vec<u8> {
        let mut o = Vec::new();
        encode(ty, v.as_bytes(), &mut o).unwrap_or_else(|_| panic!("{ty} {v:?}"));
        o
    }

    fn ascending(ty: KeyType, vals: &[&str]) {
        for w in vals.windows(2) {
            assert!(enc(ty, w[0]) < enc(ty, w[1]), "{ty}: {} < {}", w[0], w[1]);
        }
    }

    #[test]
    fn orders() {
        ascending(
            KeyType::Int,
            &[
                "-100000000000000000000000",
                "-18446744073709551616",
                "-18446744073709551615",
                "-256",
                "-255",
                "-1",
                "0",
                "1",
                "9",
                "10",
                "255",
                "256",
                "18446744073709551615",
                "18446744073709551616",
                "100000000000000000000000",
            ],
        );
        ascending(
            KeyType::Numeric,
            &[
                "-Infinity",
                "-1e10",
                "-12.5",
                "-1.23",
                "-1.2",
                "-0.001",
                "0",
                "1e-5",
                "0.5",
                "1.2",
                "1.23",
                "9",
                "10",
                "123456.5",
                "1e10",
                "Infinity",
                "NaN",
            ],
        );
        ascending(
            KeyType::Float,
            &[
                "-Infinity",
                "-1e300",
                "-1.5",
                "0",
                "1e-300",
                "2.5",
                "Infinity",
                "NaN",
            ],
        );
        ascending(
            KeyType::Text,
            &["", "\0", "\0\0", "\0a", "a", "a\0", "ab", "b"],
        );
        ascending(KeyType::Bool, &["f", "t"]);
        ascending(
            KeyType::Date,
            &[
                "-infinity",
                "4713-01-01 BC",
                "0001-12-31 BC",
                "0001-01-01",
                "1999-12-31",
                "2000-02-29",
                "10000-01-01",
                "infinity",
            ],
        );
        ascending(
            KeyType::Timestamp,
            &[
                "1999-12-31 23:59:59.999999",
                "2000-01-01 00:00:00",
                "2000-01-01T00:00:00.5",
                "2000-01-01 24:00:00",
            ],
        );
        ascending(
            KeyType::Timestamptz,
            &[
                "2000-01-01 10:00:00+05:30",
                "2000-01-01 05:00:00+00",
                "2000-01-01 00:00:00-08",
                "2000-01-01 09:00:00Z",
            ],
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20000))]
        /// The encoding of an integer read as an `i64` is the general one's, and it leaves
        /// every other spelling to it: numbers of every length and sign near the edges
        /// of 18, 19 and 20 digits, with spaces, `+`, leading zeros and stray bytes (`/`
        /// and `:` are the bytes either side of the digits).
        #[test]
        fn plain_ints_encode_as_any_spelling(
            sign in proptest::sample::select(vec!["", "-", "+", " ", "- "]),
            zeros in 0usize..3,
            digits in proptest::collection::vec(proptest::sample::select(
                b"01234567890123456789/:".to_vec()), 0..22),
            tail in proptest::sample::select(vec!["", " ", "x", "9"]),
        ) {
            let mut v = sign.as_bytes().to_vec();
            v.extend(std::iter::repeat_n(b'0', zeros));
            v.extend_from_slice(&digits);
            v.extend_from_slice(tail.as_bytes());
            let (mut a, mut b) = (vec![7u8], vec![7u8]);
            let ra = encode_int(&v, &mut a);
            let rb = encode_int_any(&v, &mut b);
            proptest::prop_assert_eq!(ra, rb, "{:?}", String::from_utf8_lossy(&v));
            if ra.is_ok() {
                proptest::prop_assert_eq!(&a, &b, "{:?}", String::from_utf8_lossy(&v));
            }
            let mut c = Vec::new();
            if encode_int_plain(&v, &mut c) {
                proptest::prop_assert_eq!(&c[..], &b[1..]);
            } else {
                proptest::prop_assert!(c.is_empty());
            }
        }
    }

    /// Spellings PostgreSQL reads as the same value make the same key.
    #[test]
    fn same_value_same_key() {
        for (ty, a, b) in [
            (KeyType::Int, "007", "+7"),
            (KeyType::Int, "-0", "0"),
            (KeyType::Numeric, "123456.000000000000", "123456"),
            (KeyType::Numeric, "0.00", "-0"),
            (KeyType::Numeric, "1.5e1", "15"),
            (KeyType::Float, "-0", "0"),
            (KeyType::Float, "nan(x1)", "NaN"),
            (KeyType::Bpchar, "ab  ", "ab"),
            (
                KeyType::Timestamp,
                "2001-01-01 10:00:00+01",
                "2001-01-01 10:00:00",
            ),
            (KeyType::Timestamp, "2001-01-01", "2001-01-01 00:00"),
            (
                KeyType::Timestamptz,
                "2001-01-01 10:00:00",
                "2001-01-01 10:00:00+00",
            ),
            (
                KeyType::Timestamptz,
                "2000-01-01 05:30:00+05:30",
                "2000-01-01 00:00:00+00",
            ),
            (
                KeyType::Uuid,
                "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}",
                "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            ),
        ] {
            assert_eq!(enc(ty, a), enc(ty, b), "{ty}: {a:?} and {b:?}");
        }
    }

    #[test]
    fn rejects() {
        let bad = |ty, v: &str| {
            let mut o = Vec::new();
            assert!(
                encode(ty, v.as_bytes(), &mut o).is_err(),
                "{ty} {v:?} accepted"
            );
        };
        for v in ["", "-", "1.5", "1e3", "x", "--1", "1 2"] {
            bad(KeyType::Int, v);
        }
        for v in ["", ".", "1e", "e5", "1.2.3", "abc", "1e9999999999999"] {
            bad(KeyType::Numeric, v);
        }
        for v in ["", "1,5", "one"] {
            bad(KeyType::Float, v);
        }
        for v in [
            "",
            "a0eebc99",
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g",
            "-a0eebc999c0b4ef8bb6d6bb9bd380a11",
        ] {
            bad(KeyType::Uuid, v);
        }
        for v in ["", "maybe", "o", "2"] {
            bad(KeyType::Bool, v);
        }
        for v in [
            "",
            "2001-02-29",
            "2001-13-01",
            "01-01-01",
            "0000-01-01 BC",
            "2001-1-1x",
        ] {
            bad(KeyType::Date, v);
        }
        bad(KeyType::Timestamp, "2001-01-01 25:00:00");
        bad(KeyType::Timestamp, "2001-01-01 10:00:00+1:00:00:00");
        bad(KeyType::Timestamptz, "2001-01-01 10:00:00+1:00:00:00");
    }

    #[test]
    fn pg_types() {
        for (pg, ty, exact) in [
            ("integer", KeyType::Int, true),
            // PostgreSQL reads 1.5 into numeric(38,0): not an integer syntax.
            ("numeric(38,0)", KeyType::Numeric, true),
            ("numeric(24,12)", KeyType::Numeric, true),
            ("character varying(16)", KeyType::Text, true),
            ("character(2)", KeyType::Bpchar, true),
            // Unbounded bpchar still ignores trailing spaces: not text.
            ("bpchar", KeyType::Bpchar, true),
            ("timestamp(3) with time zone", KeyType::Timestamptz, true),
            ("public.mood", KeyType::Text, false),
            ("interval", KeyType::Text, false),
        ] {
            assert_eq!(KeyType::from_pg(pg), (ty, exact), "{pg}");
        }
        for (cli, ty) in [
            ("int", KeyType::Int),
            ("BIGINT", KeyType::Int),
            ("double", KeyType::Float),
            ("float8", KeyType::Float),
            ("varchar", KeyType::Text),
            ("bytes", KeyType::Text),
            ("character", KeyType::Bpchar),
            ("timestamptz", KeyType::Timestamptz),
        ] {
            assert_eq!(KeyType::from_cli(cli), Some(ty), "{cli}");
        }
        assert_eq!(KeyType::from_cli("interval"), None);
        assert_eq!(KeyType::from_cli("wat"), None);
    }

    /// One whitespace rule and one integer/uuid syntax with pgtypes: what csvcheck passes as
    /// the column type is a key, and what it refuses is not.
    #[test]
    fn same_rules_as_pgtypes() {
        let cases: &[(KeyType, PgType, &str)] = &[
            (KeyType::Int, PgType::Int4, "7\u{b}"),
            (KeyType::Int, PgType::Int4, "\u{c} -7\r\n"),
            (KeyType::Int, PgType::Int4, "0x7"),
            (KeyType::Int, PgType::Int4, "7\u{a0}"),
            (KeyType::Numeric, PgType::Numeric(None), "\u{b}1.5\u{b}"),
            (KeyType::Numeric, PgType::Numeric(None), "1e99999999"),
            (KeyType::Float, PgType::Float8, "1e400"),
            (KeyType::Float, PgType::Float8, "\u{b}-0\u{c}"),
            (KeyType::Float, PgType::Float8, "-nan(x1)"),
            (KeyType::Bool, PgType::Bool, "\u{b}on"),
            (KeyType::Date, PgType::Date, "\u{b}2000-01-01"),
            (
                KeyType::Uuid,
                PgType::Uuid,
                "a0eebc999c0b4ef8bb6d6bb9bd380a11",
            ),
            (
                KeyType::Uuid,
                PgType::Uuid,
                " a0eebc999c0b4ef8bb6d6bb9bd380a11",
            ),
            (
                KeyType::Uuid,
                PgType::Uuid,
                "a0e-ebc999c0b4ef8bb6d6bb9bd380a11",
            ),
            (
                KeyType::Uuid,
                PgType::Uuid,
                "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
            ),
            (
                KeyType::Uuid,
                PgType::Uuid,
                "{a0eebc999c0b4ef8bb6d6bb9bd380a11",
            ),
        ];
        for (kt, pt, v) in cases {
            let key = encode(*kt, v.as_bytes(), &mut Vec::new()).is_ok();
            let pg = pt.check(v.as_bytes()).is_ok();
            assert_eq!(key, pg, "{kt} {v:?}: key {key}, csvcheck {pg}");
        }
        assert_eq!(enc(KeyType::Int, "7\u{b}"), enc(KeyType::Int, "7"));
    }
}
