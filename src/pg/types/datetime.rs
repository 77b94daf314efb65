//! `date`, `time`, `timestamp` and their zoned forms, read through a cursor over the value's
//! fields.

use super::calendar::days_in_month;
use super::{PgType, is_space, syntax, trim};
use std::collections::HashSet;

pub(super) struct Cursor<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    pub(super) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn digits(&mut self) -> &'a [u8] {
        let st = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        let s: &'a [u8] = self.s;
        &s[st..self.i]
    }
    pub(super) fn spaces(&mut self) -> bool {
        let st = self.i;
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
        self.i > st
    }
    pub(super) fn word(&mut self) -> &'a [u8] {
        let st = self.i;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'-' | b'+'))
        {
            // A `+`/`-` only continues a word like `Etc/GMT+5`, not an offset after it.
            if matches!(self.peek(), Some(b'+' | b'-')) && self.i == st {
                break;
            }
            self.i += 1;
        }
        let s: &'a [u8] = self.s;
        &s[st..self.i]
    }
    pub(super) fn done(&self) -> bool {
        self.i >= self.s.len()
    }
}

pub(super) fn num(d: &[u8]) -> i64 {
    d.iter()
        .take(18)
        .fold(0i64, |a, &b| a * 10 + (b - b'0') as i64)
}

/// What a datetime string held.
#[derive(Default)]
pub(super) struct Dt {
    pub(super) date: Option<(i64, i64, i64)>, // astronomical year (1 BC = 0), month, day
    pub(super) time: Option<i64>, // microseconds since midnight, before rounding carries
    pub(super) tz: bool,
    pub(super) tz_name: bool,
    pub(super) special: bool,
    /// The zone as seconds east of UTC, when it was a numeric displacement or a name for UTC
    /// (content verification turns such values into instants).
    pub(super) offset: Option<i64>,
}

pub(super) const OUT_OF_RANGE: &str = "date/time field value out of range";

pub(super) fn check_datetime(v: &[u8], t: &PgType) -> Result<(), String> {
    let tn = || t.name();
    let dt = parse_dt(v).map_err(|m| format!("{m} for type {}", tn()))?;
    if dt.special {
        return Ok(());
    }
    match t {
        PgType::Date | PgType::Timestamp | PgType::TimestampTz => {
            let Some((y, m, d)) = dt.date else {
                return Err(syntax(&tn()));
            };
            // Julian-day range: 4714-11-24 BC (astronomical -4713) onwards.
            let lo = (y, m, d) >= (-4713, 11, 24);
            let hi = if matches!(t, PgType::Date) {
                y <= 5874897
            } else {
                y <= 294276
            };
            if !lo || !hi {
                return Err(format!(
                    "{} out of range",
                    if matches!(t, PgType::Date) {
                        "date"
                    } else {
                        "timestamp"
                    }
                ));
            }
            Ok(())
        }
        PgType::Time | PgType::TimeTz => {
            let Some(us) = dt.time else {
                return Err(syntax(&tn()));
            };
            if us > 86_400_000_000 {
                return Err(format!("{OUT_OF_RANGE} for type {}", tn()));
            }
            if matches!(t, PgType::TimeTz) && dt.tz_name && dt.date.is_none() {
                // A zone name needs a date to know its offset (DST).
                return Err(syntax(&tn()));
            }
            let _ = dt.tz;
            Ok(())
        }
        _ => Ok(()),
    }
}

pub(super) fn parse_dt(v: &[u8]) -> Result<Dt, String> {
    let s = trim(v);
    let mut dt = Dt::default();
    for w in [
        &b"infinity"[..],
        b"-infinity",
        b"epoch",
        b"now",
        b"today",
        b"tomorrow",
        b"yesterday",
        b"allballs",
    ] {
        if s.eq_ignore_ascii_case(w) {
            dt.special = true;
            return Ok(dt);
        }
    }
    let mut c = Cursor { s, i: 0 };
    let mut bc = false;
    let bad = || "invalid input syntax".to_string();
    // Date: Y-M-D with a year of 3+ digits, or YYYYMMDD.
    let save = c.i;
    let y = c.digits();
    if c.eat(b'-') {
        let m = c.digits();
        if !c.eat(b'-') {
            return Err(bad());
        }
        let d = c.digits();
        if y.len() < 3 || m.is_empty() || m.len() > 2 || d.is_empty() || d.len() > 2 {
            return Err(if y.len() < 3 && !y.is_empty() {
                "not an ISO date (YYYY-MM-DD; other forms depend on DateStyle)".to_string()
            } else {
                bad()
            });
        }
        if y.len() > 9 {
            return Err(OUT_OF_RANGE.into());
        }
        dt.date = Some((num(y), num(m), num(d)));
    } else if y.len() == 8 && !matches!(c.peek(), Some(b':')) {
        dt.date = Some((num(&y[..4]), num(&y[4..6]), num(&y[6..])));
    } else {
        c.i = save;
    }
    // Separator between date and time.
    if dt.date.is_some() {
        let sp = c.spaces();
        if !(sp || c.done() || matches!(c.peek(), Some(b'T' | b't'))) {
            return Err(bad());
        }
        if matches!(c.peek(), Some(b'T' | b't'))
            && c.s.get(c.i + 1).is_some_and(|b| b.is_ascii_digit())
        {
            c.i += 1;
        }
    }
    // Time: H:M[:S[.f]] or M:S.f (PostgreSQL reads `10:30.5` as minutes and seconds).
    if c.peek().is_some_and(|b| b.is_ascii_digit()) {
        let h = c.digits();
        if !c.eat(b':') {
            return Err(bad());
        }
        let m = c.digits();
        if h.is_empty() || m.is_empty() || h.len() > 9 || m.len() > 9 {
            return Err(bad());
        }
        let (mut hh, mut mm, mut ss, mut us) = (num(h), num(m), 0i64, 0i64);
        let mut frac_after_min = false;
        if c.eat(b':') {
            let sd = c.digits();
            if sd.is_empty() || sd.len() > 9 {
                return Err(bad());
            }
            ss = num(sd);
        } else if c.peek() == Some(b'.') {
            frac_after_min = true;
        }
        if c.eat(b'.') {
            let f = c.digits();
            // Round to microseconds.
            let mut x = 0i64;
            for k in 0..6 {
                x = x * 10 + f.get(k).map_or(0, |&b| (b - b'0') as i64);
            }
            if f.get(6).is_some_and(|&b| b >= b'5') {
                x += 1;
            }
            us = x;
        }
        if frac_after_min {
            (hh, mm, ss) = (0, hh, mm);
        }
        if mm > 59 || ss > 60 || hh > 24 || (hh == 24 && (mm > 0 || ss > 0 || us > 0)) {
            return Err(OUT_OF_RANGE.into());
        }
        if ss == 60 && us > 0 {
            return Err(OUT_OF_RANGE.into());
        }
        dt.time = Some(((hh * 60 + mm) * 60 + ss) * 1_000_000 + us);
    }
    // Zone and era, in any order, separated by optional spaces.
    loop {
        c.spaces();
        if c.done() {
            break;
        }
        match c.peek() {
            Some(b'+' | b'-') if dt.time.is_some() && !dt.tz => {
                let west = c.peek() == Some(b'-');
                c.i += 1;
                let h = c.digits();
                if h.is_empty() {
                    return Err(bad());
                }
                let (hh, mut mm, mut ss) = if h.len() <= 2 {
                    (num(h), 0, 0)
                } else if h.len() == 4 {
                    (num(&h[..2]), num(&h[2..]), 0)
                } else if h.len() == 6 {
                    (num(&h[..2]), num(&h[2..4]), num(&h[4..]))
                } else {
                    return Err(bad());
                };
                if h.len() <= 2 && c.eat(b':') {
                    let m = c.digits();
                    if m.is_empty() {
                        return Err(bad());
                    }
                    mm = num(m);
                    if c.eat(b':') {
                        let s2 = c.digits();
                        if s2.is_empty() {
                            return Err(bad());
                        }
                        ss = num(s2);
                    }
                }
                if hh > 15 || mm > 59 || ss > 59 {
                    return Err("time zone displacement out of range".into());
                }
                dt.tz = true;
                let east = (hh * 60 + mm) * 60 + ss;
                dt.offset = Some(if west { -east } else { east });
            }
            Some(b) if b.is_ascii_alphabetic() => {
                let w = c.word().to_ascii_lowercase();
                if w == b"bc" && dt.date.is_some() && !bc {
                    bc = true;
                } else if w == b"ad" && dt.date.is_some() {
                } else if !dt.tz && (dt.time.is_some() || dt.date.is_some()) && known_zone(&w) {
                    dt.tz = true;
                    dt.tz_name = !is_abbrev(&w);
                    if matches!(&w[..], b"utc" | b"ut" | b"gmt" | b"zulu" | b"z") {
                        dt.offset = Some(0);
                    }
                } else if w == b"z" && !dt.tz {
                    dt.tz = true;
                    dt.offset = Some(0);
                } else {
                    return Err(if w.contains(&b'/') {
                        format!(
                            "time zone \"{}\" not recognized",
                            String::from_utf8_lossy(&w)
                        )
                    } else {
                        bad()
                    });
                }
            }
            _ => return Err(bad()),
        }
    }
    if dt.date.is_none() && dt.time.is_none() {
        return Err(bad());
    }
    if let Some((y, m, d)) = dt.date {
        if y == 0 || !(1..=12).contains(&m) {
            return Err(OUT_OF_RANGE.into());
        }
        let ya = if bc { 1 - y } else { y };
        if d < 1 || d > days_in_month(ya, m) {
            return Err(OUT_OF_RANGE.into());
        }
        dt.date = Some((ya, m, d));
    }
    Ok(dt)
}

/// Zone abbreviations in PostgreSQL's `Default` set that data commonly carries.
pub(super) const ABBREVS: &[&str] = &[
    "z", "zulu", "utc", "ut", "gmt", "est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt",
    "akst", "akdt", "hst", "ast", "adt", "nst", "ndt", "cet", "cest", "met", "mest", "eet", "eest",
    "wet", "west", "bst", "msk", "ist", "jst", "kst", "hkt", "sgt", "aest", "aedt", "acst", "acdt",
    "awst", "nzst", "nzdt", "brt", "art",
];

pub(super) fn is_abbrev(w: &[u8]) -> bool {
    ABBREVS.iter().any(|a| a.as_bytes() == w)
}

/// A zone abbreviation, or a zone name from the system time zone database (PostgreSQL on
/// Debian and most packages uses the system tzdata).
pub(super) fn known_zone(w: &[u8]) -> bool {
    if is_abbrev(w) {
        return true;
    }
    let Ok(name) = std::str::from_utf8(w) else {
        return false;
    };
    if name.contains("..") || name.starts_with('/') {
        return false;
    }
    zone_names().contains(name)
}

pub(super) fn zone_names() -> &'static HashSet<String> {
    static Z: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    Z.get_or_init(|| {
        let mut set = HashSet::new();
        let root = std::path::Path::new("/usr/share/zoneinfo");
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(rel) = p.strip_prefix(root) {
                    set.insert(rel.to_string_lossy().to_ascii_lowercase());
                }
            }
        }
        set
    })
}
