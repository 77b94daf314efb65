//! PostgreSQL's binary COPY form of a value given as text, for the types and the text forms
//! where the two are known to mean the same stored value; every other value is left to the
//! server's text input (the caller sends text).
//!
//! Why: `COPY ... (FORMAT binary)` spares the server the input functions. Measured by
//! `bench/wire.sh` (PostgreSQL 15, server-side COPY from a file, the corpus's `all` shape):
//! the quoted customer table 2.64 s as COPY text against 1.89 s as binary, events 4.45 s
//! against 3.91 s, notes 0.84 s against 0.44 s (docs/benchmarks.md, "What csvload sends").
//! Binary data is read by the column's receive function without any check that it was meant
//! for that type (eight bytes of an `int8` read as a `timestamp` load silently as a date), so
//! a [`BinType`] comes only from the target column's type OID, never from a name in a file.
//!
//! Each encoder takes only the exact form PostgreSQL prints (pg_dump's output under its
//! session settings; a uuid in any form, all the same bytes) and answers `false` for anything
//! else, even forms the server's text input accepts (`' 42'`, a numeric `1e3`, `NaN`,
//! `infinity`, ` BC`, a zone name): what the text input does with those depends on its rules
//! and the session, and the server applies them when the value is sent as text. Where both paths apply the same rule after reading the
//! value (a `numeric(p,s)`'s rounding, a `varchar(n)`'s length, the encoding's validity, a
//! jsonb document's syntax), the receive function applies it too (`numeric_recv`,
//! `varchar_recv`, `jsonb_recv` call the same code as the text input), so nothing is checked
//! twice here. `tests/binary_copy_pg.rs` holds every encoder to PostgreSQL: a value loaded
//! both ways must read back equal, and one that text refuses must not load as binary.

use super::canon::{iso_value, two_digits};
use super::catalog::PgType;
use super::uuid::uuid_bytes;
use crate::csv::records::{Field, split_fields_fast};

/// A column type with a binary encoder here, by its type OID (`pg_type.oid`, fixed for
/// built-in types in every PostgreSQL release).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinType {
    /// `boolean` (16).
    Bool,
    /// `smallint` (21).
    Int2,
    /// `integer` (23).
    Int4,
    /// `bigint` (20).
    Int8,
    /// `numeric` (1700), any typmod.
    Numeric,
    /// `date` (1082).
    Date,
    /// `timestamp without time zone` (1114), any precision.
    Timestamp,
    /// `timestamp with time zone` (1184), any precision.
    TimestampTz,
    /// `text` (25), `character varying` (1043), `character` (1042), `json` (114): the bytes
    /// as they are.
    Bytes,
    /// `jsonb` (3802): a version byte, then the document's text.
    Jsonb,
    /// `uuid` (2950): its 16 bytes, from any form `uuid_in` takes (they all mean the
    /// same bytes).
    Uuid,
    /// `double precision` (701). Not `real`: before PostgreSQL 12 float4in rounded through
    /// a double (strtod, then a cast), which can differ from one correct rounding.
    Float8,
    /// `time without time zone` (1083), any precision: microseconds since midnight.
    Time,
}

impl BinType {
    /// The encoder for a column of type `oid`, if there is one.
    pub fn from_oid(oid: u32) -> Option<BinType> {
        Some(match oid {
            16 => BinType::Bool,
            21 => BinType::Int2,
            23 => BinType::Int4,
            20 => BinType::Int8,
            1700 => BinType::Numeric,
            1082 => BinType::Date,
            1114 => BinType::Timestamp,
            1184 => BinType::TimestampTz,
            25 | 1043 | 1042 | 114 => BinType::Bytes,
            3802 => BinType::Jsonb,
            2950 => BinType::Uuid,
            701 => BinType::Float8,
            1083 => BinType::Time,
            _ => return None,
        })
    }
}

/// The binary COPY header: signature, flags (no OIDs), no header extension.
pub const HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";
/// The binary COPY trailer: a field count of -1.
pub const TRAILER: &[u8] = &[0xff, 0xff];

/// Appends a NULL field.
pub fn push_null(out: &mut Vec<u8>) {
    out.extend_from_slice(&(-1i32).to_be_bytes());
}

/// Appends the field (its length, then its bytes) for the value whose text is `v` (CSV
/// quoting already undone), or returns `false`, leaving `out` as it was, when `v` is not in
/// the one form this encoder takes for `t` (the caller then sends the value as text).
pub fn push_value(t: BinType, v: &[u8], out: &mut Vec<u8>) -> bool {
    let mark = out.len();
    out.extend_from_slice(&[0; 4]);
    let ok = match t {
        BinType::Bool => match v {
            b"t" => {
                out.push(1);
                true
            }
            b"f" => {
                out.push(0);
                true
            }
            _ => false,
        },
        BinType::Int2 => int(v, i16::MIN.into(), i16::MAX.into())
            .map(|n| out.extend_from_slice(&(n as i16).to_be_bytes()))
            .is_some(),
        BinType::Int4 => int(v, i32::MIN.into(), i32::MAX.into())
            .map(|n| out.extend_from_slice(&(n as i32).to_be_bytes()))
            .is_some(),
        BinType::Int8 => int(v, i64::MIN, i64::MAX)
            .map(|n| out.extend_from_slice(&n.to_be_bytes()))
            .is_some(),
        BinType::Numeric => numeric(v, out),
        // PostgreSQL's binary dates and timestamps count from 2000-01-01 (its
        // POSTGRES_EPOCH_JDATE); iso_value counts from 1970-01-01.
        BinType::Date => iso_value(&PgType::Date, v)
            .map(|d| out.extend_from_slice(&((d - 10_957) as i32).to_be_bytes()))
            .is_some(),
        BinType::Timestamp => iso_value(&PgType::Timestamp, v)
            .map(|us| out.extend_from_slice(&(us - 946_684_800_000_000).to_be_bytes()))
            .is_some(),
        BinType::TimestampTz => timestamptz(v)
            .map(|us| out.extend_from_slice(&(us - 946_684_800_000_000).to_be_bytes()))
            .is_some(),
        BinType::Bytes => {
            out.extend_from_slice(v);
            true
        }
        BinType::Jsonb => {
            out.push(1);
            out.extend_from_slice(v);
            true
        }
        BinType::Uuid => uuid_bytes(v).map(|b| out.extend_from_slice(&b)).is_some(),
        // Subnormals go as text too: whether float8in takes them has varied by release.
        BinType::Float8 => float(v)
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|x| x.is_normal() || (*x == 0.0 && zero(v)))
            .map(|x| out.extend_from_slice(&x.to_be_bytes()))
            .is_some(),
        BinType::Time => time(v)
            .map(|us| out.extend_from_slice(&us.to_be_bytes()))
            .is_some(),
    };
    if !ok {
        out.truncate(mark);
        return false;
    }
    let len = out.len() - mark - 4;
    let Ok(len) = i32::try_from(len) else {
        // Over 2 GB: the server's text input refuses it too, in its own words.
        out.truncate(mark);
        return false;
    };
    out[mark..mark + 4].copy_from_slice(&len.to_be_bytes());
    true
}

/// Why [`csv_to_binary`] stopped (then `out` holds a part, which the caller drops).
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// A record outside what this reader takes: the records go as COPY text, where the
    /// server reads them by its own rules.
    Text,
    /// With a `check`: record `.0` (counted from 0 in `records`) is refused for its form, or
    /// by the check, in these words.
    Refused(usize, String),
}

/// What is checked of each record by [`csv_to_binary`] with a `check` (csvload
/// `--check-records`): called with the record's index, the record and its fields once they
/// are split and counted; an `Err` refuses the record.
pub type RecordCheck<'c> = dyn FnMut(usize, &[u8], &[Field]) -> Result<(), String> + 'c;

/// Appends `records` (raw CSV records, each with its line end; the last may lack it) as
/// binary COPY tuples of one field per entry of `types`, reading NULL as the unquoted field
/// `null`. [`Stop::Text`] when a record is outside what this reader takes: a field count
/// other than `types.len()`, a value outside its encoder's form, a quoting mistake (the
/// strict split's errors), a carriage return outside quotes (a `\r\n` line end among them),
/// a record starting `\.` (COPY's end-of-data line). Fields come from the toolkit's record
/// scanner ([`split_fields_fast`], RFC 4180 strict, which is how COPY's CSV mode reads a
/// record without quoting mistakes); a quoted field is never NULL, so the values are the
/// ones the text would give.
///
/// With a `check`, the mistakes of form are refused instead ([`Stop::Refused`], in
/// csvcheck's words): a blank line (of more than one column), a quoting mistake, another
/// field count, a carriage return inside an unquoted field, a line `\.` alone; a value
/// outside the encoders' forms, a `\r\n` line end and a record starting `\.` with more
/// after it still go as text; and `check` is asked about every record that splits.
pub fn csv_to_binary<'a>(
    records: impl IntoIterator<Item = &'a [u8]>,
    null: &[u8],
    types: &[BinType],
    out: &mut Vec<u8>,
    fields: &mut Vec<Field>,
    scratch: &mut Vec<u8>,
    mut check: Option<&mut RecordCheck>,
) -> Result<(), Stop> {
    let Ok(n) = i16::try_from(types.len()) else {
        return Err(Stop::Text);
    };
    let strict = check.is_some();
    // Refused when checking, text otherwise.
    let refuse = |k: usize, why: String| {
        if strict {
            Stop::Refused(k, why)
        } else {
            Stop::Text
        }
    };
    for (k, rec) in records.into_iter().enumerate() {
        let body = rec.strip_suffix(b"\n").unwrap_or(rec);
        if body == b"\\." {
            return Err(refuse(k, crate::csv::records::END_MARKER_WORDS.into()));
        }
        if body.is_empty() && types.len() != 1 {
            return Err(refuse(k, crate::csv::records::BLANK_LINE_WORDS.into()));
        }
        if body.ends_with(b"\r") || body.starts_with(b"\\.") {
            return Err(Stop::Text);
        }
        if let Err(m) = split_fields_fast(body, body, fields) {
            return Err(refuse(k, m.words()));
        }
        if fields.len() != types.len() {
            return Err(refuse(
                k,
                format!("{} fields, expected {}", fields.len(), types.len()),
            ));
        }
        if let Some(c) = check.as_mut() {
            c(k, rec, fields).map_err(|why| Stop::Refused(k, why))?;
        }
        // An unquoted CR is refused by COPY's CSV mode; a quoted one is data.
        let cr = memchr::memchr(b'\r', body).is_some();
        out.extend_from_slice(&n.to_be_bytes());
        for (f, &t) in fields.iter().zip(types) {
            let ok = if f.quoted {
                push_value(t, f.value_in(body, scratch), out)
            } else {
                let v = f.raw(body);
                if cr && memchr::memchr(b'\r', v).is_some() {
                    return Err(refuse(k, "carriage return in an unquoted field".into()));
                }
                if v == null {
                    push_null(out);
                    true
                } else {
                    push_value(t, v, out)
                }
            };
            if !ok {
                return Err(Stop::Text);
            }
        }
    }
    Ok(())
}

/// `-?D+[.D+][e[+-]D+]`, the form float8out prints (shortest exact digits since PostgreSQL
/// 12, and with `extra_float_digits = 3` before), as a string for Rust's parser, which
/// rounds correctly as strtod does. The specials (`NaN`, `Infinity`) go as text; so do values
/// beyond the type's range or so small that they round to zero, which the text input refuses
/// ("out of range") where Rust's parser gives infinity or zero.
fn float(v: &[u8]) -> Option<&str> {
    let s = v.strip_prefix(b"-").unwrap_or(v);
    let (m, e) = match s.iter().position(|&b| b == b'e') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let (int, frac) = match m.iter().position(|&b| b == b'.') {
        Some(p) => (&m[..p], Some(&m[p + 1..])),
        None => (m, None),
    };
    let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    let ok = digits(int)
        && frac.is_none_or(digits)
        && e.is_none_or(|e| digits(e.strip_prefix(b"+").or(e.strip_prefix(b"-")).unwrap_or(e)));
    if !ok {
        return None;
    }
    std::str::from_utf8(v).ok()
}

/// True when the mantissa of a value `float` took has no nonzero digit (a true zero, not an
/// underflow).
fn zero(v: &[u8]) -> bool {
    v.iter()
        .take_while(|&&b| b != b'e')
        .all(|&b| matches!(b, b'0' | b'.' | b'-'))
}

/// `HH:MM:SS[.F{1,6}]` as time_out prints, hours 00-23, to microseconds since midnight;
/// `24:00:00` and anything else go as text.
fn time(v: &[u8]) -> Option<i64> {
    let two = |i: usize| two_digits(v, i);
    if v.len() < 8 || v[2] != b':' || v[5] != b':' {
        return None;
    }
    let (h, m, s) = (two(0)?, two(3)?, two(6)?);
    if h > 23 || m > 59 || s > 59 {
        return None;
    }
    let mut us = ((h * 60 + m) * 60 + s) * 1_000_000;
    if v.len() > 8 {
        let f = &v[9..];
        if v[8] != b'.' || f.is_empty() || f.len() > 6 || !f.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n = f.iter().fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        us += n * 10i64.pow(6 - f.len() as u32);
    }
    Some(us)
}

/// A `timestamptz` as iso_value reads it, and also with an offset of `+HH:MM:SS`: how
/// PostgreSQL prints a zone's local mean time, which every zone had before its first
/// standard offset (Asia/Kathmandu `+05:41:16` before 1920, Europe/Amsterdam `+00:19:32`).
fn timestamptz(v: &[u8]) -> Option<i64> {
    if let Some(us) = iso_value(&PgType::TimestampTz, v) {
        return Some(us);
    }
    let (head, ss) = v.split_at_checked(v.len().checked_sub(3)?)?;
    let k = head.len();
    if k < 6 || ss[0] != b':' || head[k - 3] != b':' {
        return None;
    }
    let sign = match head[k - 6] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let secs = two_digits(ss, 1).filter(|&s| s < 60)?;
    iso_value(&PgType::TimestampTz, head).map(|us| us - sign * secs * 1_000_000)
}

/// `-?[0-9]+` within `lo..=hi` (leading zeros as int4in takes them); no sign `+`, no
/// spaces.
fn int(v: &[u8], lo: i64, hi: i64) -> Option<i64> {
    let (neg, d) = match v.split_first() {
        Some((b'-', d)) => (true, d),
        _ => (false, v),
    };
    if d.is_empty() {
        return None;
    }
    // As a negative number, so that i64::MIN fits.
    let mut n: i64 = 0;
    for &b in d {
        let x = b.wrapping_sub(b'0');
        if x > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_sub(i64::from(x))?;
    }
    let n = if neg { n } else { n.checked_neg()? };
    (lo..=hi).contains(&n).then_some(n)
}

/// `-?D+[.D*]` or `-?.D+`, as numeric_out prints: base-10000 digits, weight, sign and the
/// display scale (the digits after the point as written). numeric_recv then strips, rounds
/// to the column's typmod and checks its precision exactly as numeric_in does.
fn numeric(v: &[u8], out: &mut Vec<u8>) -> bool {
    let (neg, s) = match v.split_first() {
        Some((b'-', s)) => (true, s),
        _ => (false, v),
    };
    let (int, frac) = match memchr::memchr(b'.', s) {
        Some(p) => (&s[..p], &s[p + 1..]),
        None => (s, &s[..0]),
    };
    if (int.is_empty() && frac.is_empty())
        || !int.iter().all(u8::is_ascii_digit)
        || !frac.iter().all(u8::is_ascii_digit)
    {
        return false;
    }
    // numeric_in's limits (NUMERIC_MAX_PRECISION digits before the point, NUMERIC_MAX_DSCALE
    // after it): beyond them the text input's error is the one to give.
    let int = &int[int.iter().take_while(|&&b| b == b'0').count()..];
    if int.len() > 131_072 || frac.len() > 16_383 {
        return false;
    }
    let dscale = frac.len() as u16;
    let frac = &frac[..frac.len() - frac.iter().rev().take_while(|&&b| b == b'0').count()];
    // Groups of four decimal digits aligned on the point: the integer part's first group
    // takes what is left over on its left, the fraction's last is padded on the right.
    let value = |d: &[u8]| d.iter().fold(0i16, |g, &b| g * 10 + i16::from(b - b'0'));
    let group = |d: &[u8]| value(d) * [1, 1000, 100, 10, 1][d.len()];
    let head = out.len();
    out.extend_from_slice(&[0; 8]);
    let mut weight = int.len().div_ceil(4) as i32 - 1;
    // The end of the last nonzero group written; no group is written before the first
    // nonzero one (only the fraction can have such, and each moves the weight down).
    let mut end = head + 8;
    let first = match int.len() % 4 {
        0 => 4.min(int.len()),
        r => r,
    };
    let (a, b) = int.split_at(first);
    let int_groups = std::iter::once(a)
        .filter(|g| !g.is_empty())
        .chain(b.chunks_exact(4))
        .map(value);
    for g in int_groups.chain(frac.chunks(4).map(group)) {
        if g == 0 && out.len() == head + 8 {
            weight -= 1;
            continue;
        }
        out.extend_from_slice(&g.to_be_bytes());
        if g != 0 {
            end = out.len();
        }
    }
    out.truncate(end);
    let ndigits = ((end - head - 8) / 2) as u16;
    let (weight, sign) = if ndigits == 0 {
        (0, 0u16)
    } else {
        (weight as i16, if neg { 0x4000 } else { 0 })
    };
    out[head..head + 2].copy_from_slice(&ndigits.to_be_bytes());
    out[head + 2..head + 4].copy_from_slice(&weight.to_be_bytes());
    out[head + 4..head + 6].copy_from_slice(&sign.to_be_bytes());
    out[head + 6..head + 8].copy_from_slice(&dscale.to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(t: BinType, v: &str) -> Option<Vec<u8>> {
        let mut out = vec![9];
        if push_value(t, v.as_bytes(), &mut out) {
            Some(out[1..].to_vec())
        } else {
            assert_eq!(out, [9], "{v}: out left as it was");
            None
        }
    }

    #[test]
    fn csv_records_as_tuples() {
        use crate::csv::records::ChunkReader;
        let types = [BinType::Int4, BinType::Bytes];
        let (mut fields, mut scratch) = (Vec::new(), Vec::new());
        let mut tuples = |csv: &str, null: &str| {
            // The records as csvload has them: cut by the toolkit's record scanner.
            let mut cr = ChunkReader::new(csv.as_bytes(), "t", 1 << 20);
            cr.keep_unterminated(true);
            let c = cr.next_chunk(Vec::new()).unwrap().unwrap();
            let mut out = Vec::new();
            csv_to_binary(
                c.records(),
                null.as_bytes(),
                &types,
                &mut out,
                &mut fields,
                &mut scratch,
                None,
            )
            .ok()
            .map(|()| out)
        };
        let int = |n: i32| [&4i32.to_be_bytes()[..], &n.to_be_bytes()].concat();
        let text = |v: &str| [&(v.len() as i32).to_be_bytes()[..], v.as_bytes()].concat();
        let null = (-1i32).to_be_bytes().to_vec();
        let two = 2i16.to_be_bytes().to_vec();
        let want = |rows: &[(&[u8], &[u8])]| -> Vec<u8> {
            rows.iter()
                .flat_map(|(a, b)| [&two[..], a, b].concat())
                .collect()
        };
        // Unquoted empty is NULL, quoted empty is ''; "" in quotes; quoted comma and newline.
        assert_eq!(
            tuples("1,\n2,\"\"\n3,\"a,\"\"b\"\"\nc\"\n-4,x", ""),
            Some(want(&[
                (&int(1), &null),
                (&int(2), &text("")),
                (&int(3), &text("a,\"b\"\nc")),
                (&int(-4), &text("x")),
            ]))
        );
        // With NULL given as \N, an empty field is ''.
        assert_eq!(
            tuples("1,\n2,\\N\n", "\\N"),
            Some(want(&[(&int(1), &text("")), (&int(2), &null)]))
        );
        for csv in [
            "1\n",        // too few fields
            "1,a,b\n",    // too many
            " 1,a\n",     // not int4's form
            "1,a\"b\"\n", // a quote inside an unquoted field
            "1,\"a\"b\n", // text after the closing quote
            "1,\"a\n",    // unclosed
            "1,a\r\n",    // CR LF
            "\\.\n",      // end-of-data line
            "1,a\n\n",    // an empty line: one field
        ] {
            assert_eq!(tuples(csv, ""), None, "{csv:?}");
        }
    }

    #[test]
    fn numerics_as_numeric_send_writes_them() {
        // (text, ndigits, weight, sign, dscale, digits) in numeric_send's form: no leading or
        // trailing zero groups, a zero without digits and positive (numeric_recv would
        // normalise these; the form is pinned here, the values by tests/binary_copy_pg.rs).
        type Send = (&'static str, i16, i16, u16, u16, &'static [i16]);
        let cases: &[Send] = &[
            ("0", 0, 0, 0, 0, &[]),
            ("0.00", 0, 0, 0, 2, &[]),
            ("-0.00", 0, 0, 0, 2, &[]),
            ("9820.80", 2, 0, 0, 2, &[9820, 8000]),
            ("12345.678", 3, 1, 0, 3, &[1, 2345, 6780]),
            ("-0.0001", 1, -1, 0x4000, 4, &[1]),
            ("100000000", 1, 2, 0, 0, &[1]),
            ("0.00001", 1, -2, 0, 5, &[1000]),
            (".5", 1, -1, 0, 1, &[5000]),
            ("5.", 1, 0, 0, 0, &[5]),
            ("007.10", 2, 0, 0, 2, &[7, 1000]),
        ];
        for &(v, n, w, s, ds, d) in cases {
            let mut want = Vec::new();
            want.extend_from_slice(&(8 + 2 * d.len() as i32).to_be_bytes());
            for x in [n, w] {
                want.extend_from_slice(&x.to_be_bytes());
            }
            for x in [s, ds] {
                want.extend_from_slice(&x.to_be_bytes());
            }
            for x in d {
                want.extend_from_slice(&x.to_be_bytes());
            }
            assert_eq!(enc(BinType::Numeric, v), Some(want), "{v}");
        }
        for v in [
            "", "-", ".", "1e5", "NaN", "+1", " 1", "1 ", "1.2.3", "Infinity", "1,5",
        ] {
            assert_eq!(enc(BinType::Numeric, v), None, "{v:?}");
        }
    }

    #[test]
    fn integers_dates_and_timestamps() {
        assert_eq!(
            enc(BinType::Int2, "-32768"),
            Some(vec![0, 0, 0, 2, 0x80, 0])
        );
        assert_eq!(enc(BinType::Int2, "32768"), None);
        assert_eq!(
            enc(BinType::Int4, "007"),
            Some(vec![0, 0, 0, 4, 0, 0, 0, 7])
        );
        assert_eq!(
            enc(BinType::Int8, "-9223372036854775808"),
            Some([&[0, 0, 0, 8][..], &i64::MIN.to_be_bytes()].concat())
        );
        for v in [
            "",
            "-",
            "+1",
            " 1",
            "1 ",
            "0x1",
            "9223372036854775808",
            "1_000",
        ] {
            assert_eq!(enc(BinType::Int8, v), None, "{v:?}");
        }
        assert_eq!(
            enc(BinType::Date, "2000-01-01"),
            Some(vec![0, 0, 0, 4, 0, 0, 0, 0])
        );
        assert_eq!(
            enc(BinType::Float8, "-0"),
            Some([&[0, 0, 0, 8][..], &(-0.0f64).to_be_bytes()].concat())
        );
        assert_eq!(
            enc(BinType::Float8, "1.5e-05"),
            Some([&[0, 0, 0, 8][..], &1.5e-5f64.to_be_bytes()].concat())
        );
        assert_eq!(
            enc(BinType::Time, "00:00:01.5"),
            Some([&[0, 0, 0, 8][..], &1_500_000i64.to_be_bytes()].concat())
        );
        assert_eq!(
            enc(BinType::Date, "1999-12-31"),
            Some([&[0, 0, 0, 4][..], &(-1i32).to_be_bytes()].concat())
        );
        assert_eq!(
            enc(BinType::TimestampTz, "2000-01-01 01:00:00.5+01"),
            Some([&[0, 0, 0, 8][..], &500_000i64.to_be_bytes()].concat())
        );
        assert_eq!(
            enc(BinType::Timestamp, "2000-01-01 00:00:01"),
            Some([&[0, 0, 0, 8][..], &1_000_000i64.to_be_bytes()].concat())
        );
        for (t, v) in [
            (BinType::Timestamp, "2000-01-01 00:00:01+00"),
            (BinType::TimestampTz, "2000-01-01 00:00:01"),
            (BinType::TimestampTz, "infinity"),
            (BinType::TimestampTz, "2000-01-01 00:00:00+00:00:60"),
            (BinType::TimestampTz, "2000-01-01 00:00:00+0000:00"),
            (BinType::Date, "2001-02-29"),
            (BinType::Date, "0001-01-01 BC"),
            (BinType::Bool, "true"),
            (BinType::Float8, "1e-400"),
            (BinType::Float8, "4.9e-324"),
            (BinType::Float8, "1.8e+308"),
            (BinType::Float8, "NaN"),
            (BinType::Float8, "1."),
            (BinType::Time, "24:00:00"),
            (BinType::Time, "12:30:00.1234567"),
        ] {
            assert_eq!(enc(t, v), None, "{v:?}");
        }
    }
}
