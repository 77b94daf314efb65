//! The canonical forms of `date`, `time`, `timetz`, `timestamp` and `timestamptz`: a fast
//! reader of what PostgreSQL prints under DateStyle ISO (which `binary.rs` also takes for
//! binary COPY), then the general reader. Apart because it is the one form with a fast path
//! and tests of its own.

use crate::pg::types::calendar::days_from_civil;
use crate::pg::types::datetime::parse_dt;
use crate::pg::types::{PgType, trim};

pub(super) fn datetime(t: &PgType, v: &[u8], out: &mut Vec<u8>) -> bool {
    if let Some(n) = iso_value(t, v) {
        out.extend_from_slice(&n.to_le_bytes());
        return true;
    }
    datetime_general(t, v, out)
}

/// The two ASCII digits at `v[i..i + 2]` as a number; `None` past the end or for a non-digit.
pub(in crate::pg::types) fn two_digits(v: &[u8], i: usize) -> Option<i64> {
    let (a, b) = (
        v.get(i)?.wrapping_sub(b'0'),
        v.get(i + 1)?.wrapping_sub(b'0'),
    );
    (a < 10 && b < 10).then(|| i64::from(a * 10 + b))
}

/// The value of a `date`, `timestamp` or `timestamptz` written exactly as PostgreSQL prints
/// it under DateStyle ISO (`2020-01-31`, `2020-01-31 12:00:00.5`, `... 12:00:00+05:45`),
/// with fields in their everyday ranges; `None` for anything else, which the general reader
/// takes. The general reader walks special words, separators and field rules for every
/// value; this reads fixed positions, and verification reads every timestamp of every row
/// twice (issue 35, item 8). Equal to the general reader's value wherever it answers
/// (`iso_fast_path_agrees_with_the_general_reader`).
pub(in crate::pg::types) fn iso_value(t: &PgType, v: &[u8]) -> Option<i64> {
    let two = |i: usize| two_digits(v, i);
    if v.len() < 10 || v[4] != b'-' || v[7] != b'-' {
        return None;
    }
    let y = two(0)? * 100 + two(2)?;
    let (m, d) = (two(5)?, two(8)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in = [
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
    ];
    if y < 1 || !(1..=12).contains(&m) || d < 1 || d > days_in[(m - 1) as usize] {
        return None;
    }
    let day = days_from_civil(y, m, d);
    if matches!(t, PgType::Date) {
        return (v.len() == 10).then_some(day);
    }
    if !matches!(t, PgType::Timestamp | PgType::TimestampTz)
        || v.len() < 19
        || v[10] != b' '
        || v[13] != b':'
        || v[16] != b':'
    {
        return None;
    }
    let (hh, mi, ss) = (two(11)?, two(14)?, two(17)?);
    if hh > 23 || mi > 59 || ss > 59 {
        return None;
    }
    let mut us = ((hh * 60 + mi) * 60 + ss) * 1_000_000;
    let mut i = 19;
    if v.get(i) == Some(&b'.') {
        let n = v[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if !(1..=6).contains(&n) {
            return None;
        }
        let mut f = 0i64;
        for &b in &v[i + 1..i + 1 + n] {
            f = f * 10 + i64::from(b - b'0');
        }
        us += f * 10i64.pow(6 - n as u32);
        i += 1 + n;
    }
    let micros = day * 86_400_000_000 + us;
    if matches!(t, PgType::Timestamp) {
        return (i == v.len()).then_some(micros);
    }
    // `+05`, `-03:30`: hours and optional minutes of the zone offset.
    let sign = match v.get(i) {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return None,
    };
    let oh = two(i + 1)?;
    let om = match v.len() - (i + 3) {
        0 => 0,
        3 if v[i + 3] == b':' => two(i + 4)?,
        _ => return None,
    };
    if oh > 15 || om > 59 {
        return None;
    }
    Some(micros - sign * (oh * 3600 + om * 60) * 1_000_000)
}

fn datetime_general(t: &PgType, v: &[u8], out: &mut Vec<u8>) -> bool {
    let Ok(dt) = parse_dt(v) else { return false };
    if dt.special {
        // infinity, -infinity (the others are read relative to now: never equal).
        let w = trim(v).to_ascii_lowercase();
        if w == b"infinity" || w == b"-infinity" {
            out.push(b's');
            out.extend_from_slice(&w);
            return true;
        }
        return false;
    }
    let day = dt.date.map(|(y, m, d)| days_from_civil(y, m, d));
    let micros = |day: i64, us: i64| day * 86_400_000_000 + us;
    let n = match t {
        PgType::Date => match (day, dt.time, dt.tz) {
            (Some(d), None, false) => d,
            _ => return false,
        },
        PgType::Time => match (dt.time, dt.tz) {
            (Some(us), false) => us,
            _ => return false,
        },
        PgType::TimeTz => match (dt.time, dt.offset) {
            (Some(us), Some(off)) => {
                out.extend_from_slice(&off.to_le_bytes());
                us
            }
            _ => return false,
        },
        PgType::Timestamp => match (day, dt.tz) {
            (Some(d), false) => micros(d, dt.time.unwrap_or(0)),
            _ => return false,
        },
        PgType::TimestampTz => match (day, dt.offset) {
            (Some(d), Some(off)) => micros(d, dt.time.unwrap_or(0)) - off * 1_000_000,
            // Without a zone the value is read in the session's zone, which a CSV does not
            // record: compared as text.
            _ => return false,
        },
        _ => return false,
    };
    out.extend_from_slice(&n.to_le_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn iso_fast_path_agrees_with_the_general_reader(
            y in 1i64..10000, m in 0i64..14, d in 0i64..33,
            hh in 0i64..25, mi in 0i64..61, ss in 0i64..61,
            frac in "(\\.[0-9]{1,7})?",
            off in "([+-][01][0-9](:[0-5][0-9](:[0-5][0-9])?)?)?",
            date_only in proptest::bool::ANY,
        ) {
            let v = if date_only {
                format!("{y:04}-{m:02}-{d:02}")
            } else {
                format!("{y:04}-{m:02}-{d:02} {hh:02}:{mi:02}:{ss:02}{frac}{off}")
            };
            for t in [PgType::Date, PgType::Timestamp, PgType::TimestampTz] {
                let mut general = Vec::new();
                let ok = datetime_general(&t, v.as_bytes(), &mut general);
                if let Some(n) = iso_value(&t, v.as_bytes()) {
                    proptest::prop_assert!(ok, "{} {:?}: fast {} general none", t.name(), v, n);
                    proptest::prop_assert_eq!(n.to_le_bytes().to_vec(), general, "{} {:?}", t.name(), v);
                }
            }
        }
    }

    #[test]
    fn iso_fast_path_takes_what_postgresql_prints() {
        for (t, v) in [
            (PgType::Date, "2020-02-29"),
            (PgType::Timestamp, "1999-12-31 23:59:59.999999"),
            (PgType::TimestampTz, "2020-01-01 16:45:00+05:45"),
            (PgType::TimestampTz, "2020-01-01 07:30:00.5-03:30"),
            (PgType::TimestampTz, "0001-01-01 00:00:00+00"),
        ] {
            assert!(iso_value(&t, v.as_bytes()).is_some(), "{v}");
        }
        for (t, v) in [
            (PgType::Date, "2021-02-29"),
            (PgType::Date, "2020-01-01 BC"),
            (PgType::Timestamp, "2020-01-01 24:00:00"),
            (PgType::TimestampTz, "1900-01-01 00:00:00+00:09:21"),
            (PgType::TimestampTz, "2020-01-01 00:00:00"),
        ] {
            assert!(iso_value(&t, v.as_bytes()).is_none(), "{v}");
        }
    }
}
