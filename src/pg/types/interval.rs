//! Interval: PostgreSQL's verbose form, `H:M[:S]` parts, and ISO 8601 `P...`.

use super::datetime::{Cursor, num};
use super::{syntax, trim};

pub(super) fn interval_unit(w: &[u8]) -> Option<u16> {
    // Lookup is on the first 10 characters, as PostgreSQL's TOKMAXLEN truncation does.
    let w = &w[..w.len().min(10)];
    const YEAR: u16 = 1;
    const MONTH: u16 = 2;
    const DAY: u16 = 4;
    const HOUR: u16 = 8;
    const MINUTE: u16 = 16;
    const SECOND: u16 = 32;
    const MS: u16 = 64;
    const US: u16 = 128;
    const WEEK: u16 = 256;
    const DECADE: u16 = 512;
    const CENTURY: u16 = 1024;
    const MILLENNIUM: u16 = 2048;
    Some(match w {
        b"y" | b"yr" | b"yrs" | b"year" | b"years" => YEAR,
        b"mon" | b"mons" | b"month" | b"months" => MONTH,
        b"d" | b"day" | b"days" => DAY,
        b"h" | b"hr" | b"hrs" | b"hour" | b"hours" => HOUR,
        b"m" | b"min" | b"mins" | b"minute" | b"minutes" => MINUTE,
        b"s" | b"sec" | b"secs" | b"second" | b"seconds" => SECOND,
        b"ms" | b"msec" | b"msecs" | b"millisecon" => MS,
        b"us" | b"usec" | b"usecs" | b"microsecon" => US,
        b"w" | b"week" | b"weeks" => WEEK,
        b"dec" | b"decs" | b"decade" | b"decades" => DECADE,
        b"c" | b"cent" | b"century" | b"centuries" => CENTURY,
        b"mil" | b"mils" | b"millennia" | b"millennium" => MILLENNIUM,
        _ => return None,
    })
}

pub(super) fn check_interval(v: &[u8]) -> Result<(), String> {
    let bad = || syntax("interval");
    let s = trim(v);
    if s.is_empty() {
        return Err(bad());
    }
    if s.eq_ignore_ascii_case(b"infinity") || s.eq_ignore_ascii_case(b"-infinity") {
        // Not in PostgreSQL 15; accepted from 17 on. Flag it: the target may be older.
        return Err("interval infinity needs PostgreSQL 17".into());
    }
    if s[0] == b'P' || s[0] == b'p' {
        return check_iso_interval(&s[1..]).map_err(|_| bad());
    }
    let mut c = Cursor { s, i: 0 };
    let mut mask: u16 = 0;
    let mut pending_num = false;
    let mut ago = false;
    const TIME_MASK: u16 = 8 | 16 | 32;
    c.spaces();
    if c.eat(b'@') {
        c.spaces();
    }
    while !c.done() {
        if ago {
            return Err(bad());
        }
        match c.peek() {
            Some(b) if b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.') => {
                if pending_num {
                    return Err(bad());
                }
                if !c.eat(b'+') {
                    c.eat(b'-');
                }
                let ip = c.digits();
                if c.peek() == Some(b':') {
                    // A time part.
                    if mask & TIME_MASK != 0 || ip.is_empty() {
                        return Err(bad());
                    }
                    c.i += 1;
                    if c.digits().is_empty() {
                        return Err(bad());
                    }
                    if c.eat(b':') && c.digits().is_empty() {
                        return Err(bad());
                    }
                    if c.eat(b'.') {
                        c.digits();
                    }
                    mask |= TIME_MASK;
                } else {
                    let mut fp: &[u8] = &[];
                    if c.eat(b'.') {
                        fp = c.digits();
                    }
                    if ip.is_empty() && fp.is_empty() {
                        return Err(bad());
                    }
                    if ip.len() > 10 || num(ip) > i32::MAX as i64 {
                        return Err("interval field value out of range".into());
                    }
                    pending_num = true;
                }
            }
            Some(b) if b.is_ascii_alphabetic() => {
                let st = c.i;
                while c.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
                    c.i += 1;
                }
                let w = c.s[st..c.i].to_ascii_lowercase();
                if w == b"ago" {
                    if pending_num {
                        return Err(bad());
                    }
                    ago = true;
                    continue;
                }
                let Some(u) = interval_unit(&w) else {
                    return Err(bad());
                };
                if !pending_num || mask & u != 0 {
                    return Err(bad());
                }
                mask |= u;
                pending_num = false;
            }
            _ => return Err(bad()),
        }
        c.spaces();
    }
    if pending_num {
        // A trailing bare number counts as seconds.
        if mask & 32 != 0 {
            return Err(bad());
        }
        mask |= 32;
    }
    if mask == 0 {
        return Err(bad());
    }
    Ok(())
}

pub(super) fn check_iso_interval(s: &[u8]) -> Result<(), ()> {
    if s.is_empty() {
        return Err(());
    }
    // Alternative format: P YYYY-MM-DD [T HH:MM:SS].
    if s.len() >= 10 && s[4] == b'-' {
        let ok = s
            .iter()
            .all(|&b| b.is_ascii_digit() || matches!(b, b'-' | b':' | b'T' | b'.'));
        return if ok { Ok(()) } else { Err(()) };
    }
    let mut in_time = false;
    let mut i = 0;
    let mut seen: Vec<u8> = Vec::new();
    while i < s.len() {
        if s[i] == b'T' || s[i] == b't' {
            if in_time {
                return Err(());
            }
            in_time = true;
            i += 1;
            continue;
        }
        let st = i;
        if s[i] == b'-' || s[i] == b'+' {
            i += 1;
        }
        let ds = i;
        while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'.') {
            i += 1;
        }
        if i == ds || i >= s.len() {
            return Err(());
        }
        let _ = st;
        let u = s[i].to_ascii_uppercase();
        let key = if in_time { u.to_ascii_lowercase() } else { u };
        let valid = if in_time {
            matches!(u, b'H' | b'M' | b'S')
        } else {
            matches!(u, b'Y' | b'M' | b'W' | b'D')
        };
        if !valid || seen.contains(&key) {
            return Err(());
        }
        seen.push(key);
        i += 1;
    }
    Ok(())
}
