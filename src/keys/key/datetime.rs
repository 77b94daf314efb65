//! Dates and timestamps as key values: the ISO forms pg_dump writes (with `BC`, time zone
//! offsets and the infinities) read into integers that sort in time order.

use crate::pg::types::calendar::{days_from_civil, days_in_month};

fn digits_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0')))
}

/// Strips a trailing ` BC` era marker.
fn strip_bc(v: &[u8]) -> (&[u8], bool) {
    let t = v.trim_ascii_end();
    if t.len() >= 3 && t[t.len() - 2..].eq_ignore_ascii_case(b"bc") && t[t.len() - 3] == b' ' {
        (t[..t.len() - 3].trim_ascii_end(), true)
    } else {
        (t, false)
    }
}

/// `YYYY-MM-DD` (year of 4+ digits) to days since the epoch; `bc` makes year y mean 1 - y.
fn parse_ymd(s: &[u8], bc: bool) -> Option<i64> {
    let mut parts = s.split(|&c| c == b'-');
    let y = parts.next()?;
    let m = digits_u32(parts.next()?)?;
    let d = digits_u32(parts.next()?)?;
    if parts.next().is_some() || y.len() < 4 || m == 0 || m > 12 || d == 0 {
        return None;
    }
    let y = i64::from(digits_u32(y)?);
    if y == 0 && bc {
        return None;
    }
    let y = if bc { 1 - y } else { y };
    let (m, d) = (i64::from(m), i64::from(d));
    if d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

pub(super) fn parse_date_value(v: &[u8]) -> Result<i64, ()> {
    if v.eq_ignore_ascii_case(b"infinity") || v.eq_ignore_ascii_case(b"+infinity") {
        return Ok(i64::MAX);
    }
    if v.eq_ignore_ascii_case(b"-infinity") {
        return Ok(i64::MIN);
    }
    let (s, bc) = strip_bc(v);
    parse_ymd(s, bc).ok_or(())
}

/// Timestamps as nanoseconds since the epoch (UTC for `tz`), infinities at the i128 ends.
pub(super) fn parse_timestamp(v: &[u8], tz: bool) -> Result<i128, ()> {
    if v.eq_ignore_ascii_case(b"infinity") || v.eq_ignore_ascii_case(b"+infinity") {
        return Ok(i128::MAX);
    }
    if v.eq_ignore_ascii_case(b"-infinity") {
        return Ok(i128::MIN);
    }
    let (s, bc) = strip_bc(v);
    let Some(sep) = s.iter().position(|&c| c == b' ' || c == b'T') else {
        // A date alone is its midnight, as in PostgreSQL.
        let days = parse_ymd(s, bc).ok_or(())?;
        return Ok(i128::from(days * 86_400) * 1_000_000_000);
    };
    let days = parse_ymd(&s[..sep], bc).ok_or(())?;
    let rest = s[sep + 1..].trim_ascii_start();
    // The time ends where the offset starts (+, -, Z) or at the end.
    let tend = rest
        .iter()
        .position(|&c| c == b'+' || c == b'-' || c == b'Z' || c == b'z' || c == b' ')
        .unwrap_or(rest.len());
    let (time, off) = (&rest[..tend], rest[tend..].trim_ascii());
    let mut tp = time.splitn(3, |&c| c == b':');
    let h = digits_u32(tp.next().ok_or(())?).ok_or(())?;
    let mi = digits_u32(tp.next().ok_or(())?).ok_or(())?;
    let (sec, nanos) = match tp.next() {
        None => (0, 0),
        Some(sf) => {
            let (si, fr) = match sf.iter().position(|&c| c == b'.') {
                Some(i) => (&sf[..i], &sf[i + 1..]),
                None => (sf, &sf[..0]),
            };
            if si.len() != 2 || fr.len() > 9 || !fr.iter().all(u8::is_ascii_digit) {
                return Err(());
            }
            let mut n = 0u32;
            for i in 0..9 {
                n = n * 10 + fr.get(i).map_or(0, |&d| u32::from(d - b'0'));
            }
            (digits_u32(si).ok_or(())?, n)
        }
    };
    if h > 24 || mi > 59 || sec > 60 || (h == 24 && (mi > 0 || sec > 0 || nanos > 0)) {
        return Err(());
    }
    // As PostgreSQL: a timestamp without time zone ignores a given offset, and a
    // timestamptz without one is in the session's zone, which a key cannot know; it is
    // taken as UTC (pg_dump always writes the offset).
    let offset_secs: i64 = if off.is_empty() {
        0
    } else {
        let o = parse_offset(off).ok_or(())?;
        if tz { o } else { 0 }
    };
    let secs =
        days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(sec) - offset_secs;
    Ok(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

/// `Z`, `+HH`, `+HHMM`, `+HH:MM`, `+HH:MM:SS` to seconds east of UTC.
fn parse_offset(o: &[u8]) -> Option<i64> {
    if o.eq_ignore_ascii_case(b"z") || o.eq_ignore_ascii_case(b"utc") {
        return Some(0);
    }
    let sign = match o.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let b = &o[1..];
    let (h, m, s) = if b.contains(&b':') {
        let mut p = b.split(|&c| c == b':');
        let h = digits_u32(p.next()?)?;
        let m = p.next().map_or(Some(0), digits_u32)?;
        let s = p.next().map_or(Some(0), digits_u32)?;
        if p.next().is_some() {
            return None;
        }
        (h, m, s)
    } else if b.len() == 4 {
        (digits_u32(&b[..2])?, digits_u32(&b[2..])?, 0)
    } else if b.len() <= 2 {
        (digits_u32(b)?, 0, 0)
    } else {
        return None;
    };
    if h > 15 * 24 || m > 59 || s > 59 {
        return None;
    }
    Some(sign * (i64::from(h) * 3600 + i64::from(m) * 60 + i64::from(s)))
}
