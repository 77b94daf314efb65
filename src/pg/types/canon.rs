//! Canonical forms of values, for `csvload --verify content`: two texts of one type that the
//! type's input function reads as the same value give the same bytes, so a value in a CSV
//! file and the same value printed back by a server (under other session settings, or by
//! another server) hash alike.
//!
//! Each type's form is listed in docs/csvload.md ("Content verification"). A value the
//! type's form cannot read (or a type without a form) is compared as its exact text.

use super::datetime::parse_dt;
use super::{PgType, is_space, trim};

/// How values of `t` are compared: a short phrase for docs and reports; `None` when they are
/// compared as exact text because csvload has no canonical form for the type.
pub fn canon_kind(t: &PgType) -> Option<&'static str> {
    Some(match t {
        PgType::Int2 | PgType::Int4 | PgType::Int8 => "integer value",
        PgType::Numeric(_) => "decimal value (trailing zeros of the scale ignored)",
        PgType::Float4 => "float4 bits",
        PgType::Float8 => "float8 bits",
        PgType::Bool => "true/false",
        PgType::Date => "calendar day",
        PgType::Time => "microseconds",
        PgType::TimeTz => "microseconds and zone offset",
        PgType::Timestamp => "microseconds",
        PgType::TimestampTz => "UTC instant in microseconds",
        PgType::Uuid => "128-bit value",
        PgType::Jsonb => "jsonb value (keys sorted, duplicates dropped, numbers by value)",
        PgType::Bytea => "bytes (hex or escape form)",
        PgType::Char(_) | PgType::Bpchar => "text without trailing spaces",
        PgType::Text | PgType::Varchar(_) | PgType::Enum(_) | PgType::Json => "exact text",
        PgType::Interval => "exact text (IntervalStyle postgres)",
        PgType::Domain(d) => return canon_kind(&d.base),
        PgType::Array(e) => {
            canon_kind(e)?;
            "element by element"
        }
        PgType::Unknown(_) => return None,
    })
}

/// Appends the canonical form of the non-NULL value `v` of type `t` to `out`. Values the type's
/// form cannot read are appended as their exact text behind a different tag, so they still
/// compare equal to the same text and unequal to any canonical value.
pub fn canonical(t: &PgType, v: &[u8], out: &mut Vec<u8>) {
    let mark = out.len();
    out.push(b'c');
    if !canon_into(t, v, out) {
        out.truncate(mark);
        out.push(b'x');
        out.extend_from_slice(v);
    }
}

fn canon_into(t: &PgType, v: &[u8], out: &mut Vec<u8>) -> bool {
    match t {
        PgType::Int2 | PgType::Int4 | PgType::Int8 => match super::int_value(v) {
            Some(n) => {
                out.extend_from_slice(&n.to_le_bytes());
                true
            }
            None => false,
        },
        PgType::Numeric(_) => numeric(v, out),
        PgType::Float4 => match parse_float::<f32>(v) {
            Some(f) => {
                let b = if f.is_nan() { f32::NAN } else { f };
                out.extend_from_slice(&b.to_bits().to_le_bytes());
                true
            }
            None => false,
        },
        PgType::Float8 => match parse_float::<f64>(v) {
            Some(f) => {
                let b = if f.is_nan() { f64::NAN } else { f };
                out.extend_from_slice(&b.to_bits().to_le_bytes());
                true
            }
            None => false,
        },
        PgType::Bool => match boolean(v) {
            Some(b) => {
                out.push(b as u8);
                true
            }
            None => false,
        },
        PgType::Date | PgType::Time | PgType::TimeTz | PgType::Timestamp | PgType::TimestampTz => {
            datetime(t, v, out)
        }
        PgType::Uuid => match super::uuid_bytes(v) {
            Some(u) => {
                out.extend_from_slice(&u);
                true
            }
            None => false,
        },
        PgType::Jsonb => {
            let mut p = Json { s: v, i: 0 };
            p.ws();
            if !p.value(out, 0) {
                return false;
            }
            p.ws();
            p.i == v.len()
        }
        PgType::Bytea => bytea(v, out),
        PgType::Char(_) | PgType::Bpchar => {
            let n = v.iter().rposition(|&b| b != b' ').map_or(0, |i| i + 1);
            out.extend_from_slice(&v[..n]);
            true
        }
        PgType::Text
        | PgType::Varchar(_)
        | PgType::Enum(_)
        | PgType::Json
        | PgType::Interval
        | PgType::Unknown(_) => {
            out.extend_from_slice(v);
            true
        }
        PgType::Domain(d) => canon_into(&d.base, v, out),
        PgType::Array(e) => array(e, v, out),
    }
}

fn parse_float<F: std::str::FromStr>(v: &[u8]) -> Option<F> {
    let s = std::str::from_utf8(trim(v)).ok()?;
    // Rust reads `inf`, `infinity` and `nan` in any case, as float8in does.
    s.parse().ok()
}

fn boolean(v: &[u8]) -> Option<bool> {
    let s = trim(v);
    let pre =
        |w: &[u8]| !s.is_empty() && s.len() <= w.len() && w[..s.len()].eq_ignore_ascii_case(s);
    if pre(b"true") || pre(b"yes") || s.eq_ignore_ascii_case(b"on") || s == b"1" {
        Some(true)
    } else if pre(b"false") || pre(b"no") || (s.len() >= 2 && pre(b"off")) || s == b"0" {
        Some(false)
    } else {
        None
    }
}

/// `numeric`: sign, significant digits, decimal exponent; `NaN` and the infinities by name.
/// Written straight into `out` (no allocation per value: this runs for every numeric field).
fn numeric(v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    let (neg, rest) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest.first().is_some_and(|b| b.is_ascii_alphabetic()) {
        let name = if rest.eq_ignore_ascii_case(b"nan") && s.len() == 3 {
            &b"NaN"[..]
        } else if rest.eq_ignore_ascii_case(b"infinity") || rest.eq_ignore_ascii_case(b"inf") {
            if neg { b"-Inf" } else { b"+Inf" }
        } else {
            return false;
        };
        out.extend_from_slice(name);
        return true;
    }
    let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int, mut tail) = rest.split_at(int_len);
    let mut frac: &[u8] = &[];
    if tail.first() == Some(&b'.') {
        let n = tail[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        frac = &tail[1..1 + n];
        tail = &tail[1 + n..];
    }
    if int.is_empty() && frac.is_empty() {
        return false;
    }
    let mut exp: i64 = -(frac.len() as i64);
    if let Some((&e, t)) = tail.split_first()
        && matches!(e, b'e' | b'E')
    {
        let (eneg, t) = match t.first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        if t.is_empty() || t.len() > 7 || !t.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let e = t.iter().fold(0i64, |a, &d| a * 10 + (d - b'0') as i64);
        exp += if eneg { -e } else { e };
        tail = &[];
    }
    if !tail.is_empty() {
        return false;
    }
    // The digits are int then frac; drop leading and trailing zeros.
    let all = || int.iter().chain(frac.iter());
    let Some(lead) = all().position(|&d| d != b'0') else {
        out.push(b'0');
        return true;
    };
    let total = int.len() + frac.len();
    let trail = total
        - 1
        - all()
            .rev()
            .position(|&d| d != b'0')
            .expect("a non-zero digit");
    exp += (total - 1 - trail) as i64;
    out.push(if neg { b'-' } else { b'+' });
    out.extend(all().skip(lead).take(trail + 1 - lead));
    out.push(b'e');
    let _ = std::io::Write::write_fmt(out, format_args!("{exp}"));
    true
}

/// Days from 1970-01-01 to an astronomical-year date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn datetime(t: &PgType, v: &[u8], out: &mut Vec<u8>) -> bool {
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

fn bytea(v: &[u8], out: &mut Vec<u8>) -> bool {
    if let Some(h) = v.strip_prefix(b"\\x") {
        let mut hi: Option<u8> = None;
        for &b in h {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                b' ' | b'\t' | b'\n' | b'\r' if hi.is_none() => continue,
                _ => return false,
            };
            match hi.take() {
                None => hi = Some(d),
                Some(x) => out.push(x << 4 | d),
            }
        }
        return hi.is_none();
    }
    let mut i = 0;
    while i < v.len() {
        if v[i] != b'\\' {
            out.push(v[i]);
            i += 1;
            continue;
        }
        match v.get(i + 1..i + 4) {
            _ if v.get(i + 1) == Some(&b'\\') => {
                out.push(b'\\');
                i += 2;
            }
            Some([a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7']) => {
                out.push((a - b'0') << 6 | (b - b'0') << 3 | (c - b'0'));
                i += 4;
            }
            _ => return false,
        }
    }
    true
}

/// An array literal, element by element: the optional `[l:u]=` dimensions as written, then
/// `{`, each element (NULL, or its canonical form with its length), `}` per level.
fn array(elem: &PgType, v: &[u8], out: &mut Vec<u8>) -> bool {
    let mut s = trim(v);
    if s.first() == Some(&b'[') {
        let Some(eq) = s.iter().position(|&b| b == b'=') else {
            return false;
        };
        out.extend(s[..eq].iter().filter(|&&b| !is_space(b)));
        s = trim(&s[eq + 1..]);
    }
    let mut i = 0;
    if !array_level(elem, s, &mut i, out, 0) {
        return false;
    }
    i == s.len()
}

fn array_level(elem: &PgType, s: &[u8], i: &mut usize, out: &mut Vec<u8>, depth: usize) -> bool {
    if depth > 6 || s.get(*i) != Some(&b'{') {
        return false;
    }
    *i += 1;
    out.push(b'{');
    let skip = |i: &mut usize| {
        while s.get(*i).is_some_and(|&b| is_space(b)) {
            *i += 1;
        }
    };
    skip(i);
    if s.get(*i) == Some(&b'}') {
        *i += 1;
        out.push(b'}');
        return true;
    }
    let mut val = Vec::new();
    loop {
        skip(i);
        match s.get(*i) {
            Some(b'{') => {
                if !array_level(elem, s, i, out, depth + 1) {
                    return false;
                }
            }
            Some(b'"') => {
                *i += 1;
                val.clear();
                loop {
                    match s.get(*i) {
                        None => return false,
                        Some(b'"') => {
                            *i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let Some(&b) = s.get(*i + 1) else {
                                return false;
                            };
                            val.push(b);
                            *i += 2;
                        }
                        Some(&b) => {
                            val.push(b);
                            *i += 1;
                        }
                    }
                }
                element(elem, &val, out);
            }
            Some(b',' | b'}') | None => return false,
            Some(_) => {
                val.clear();
                let mut keep = 0;
                let mut escaped = false;
                loop {
                    match s.get(*i) {
                        None | Some(b'"' | b'{') => return false,
                        Some(b',' | b'}') => break,
                        Some(b'\\') => {
                            let Some(&b) = s.get(*i + 1) else {
                                return false;
                            };
                            val.push(b);
                            *i += 2;
                            escaped = true;
                            keep = val.len();
                        }
                        Some(&b) => {
                            val.push(b);
                            *i += 1;
                        }
                    }
                }
                while val.len() > keep && val.last().is_some_and(|&b| is_space(b)) {
                    val.pop();
                }
                if !escaped && val.eq_ignore_ascii_case(b"null") {
                    out.push(b'N');
                } else {
                    element(elem, &val, out);
                }
            }
        }
        skip(i);
        match s.get(*i) {
            Some(b',') => *i += 1,
            Some(b'}') => {
                *i += 1;
                out.push(b'}');
                return true;
            }
            _ => return false,
        }
    }
}

fn element(elem: &PgType, v: &[u8], out: &mut Vec<u8>) {
    let mut e = Vec::with_capacity(v.len() + 1);
    canonical(elem, v, &mut e);
    out.push(b'V');
    out.extend_from_slice(&(e.len() as u32).to_le_bytes());
    out.extend_from_slice(&e);
}

/// jsonb's canonical form: objects' keys sorted (by length, then bytes, as jsonb stores
/// them) with the last of duplicate keys kept, strings unescaped, numbers as `numeric`.
struct Json<'a> {
    s: &'a [u8],
    i: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn value(&mut self, out: &mut Vec<u8>, depth: usize) -> bool {
        if depth > 1000 {
            return false;
        }
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let mut k = Vec::new();
                        if !self.string(&mut k) {
                            return false;
                        }
                        self.ws();
                        if self.s.get(self.i) != Some(&b':') {
                            return false;
                        }
                        self.i += 1;
                        self.ws();
                        let mut v = Vec::new();
                        if !self.value(&mut v, depth + 1) {
                            return false;
                        }
                        members.push((k, v));
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return false,
                        }
                    }
                }
                // Stable sort keeps input order among equal keys; the last one wins.
                members.sort_by(|a, b| (a.0.len(), &a.0).cmp(&(b.0.len(), &b.0)));
                out.push(b'{');
                for j in 0..members.len() {
                    if members.get(j + 1).is_some_and(|n| n.0 == members[j].0) {
                        continue;
                    }
                    let (k, v) = &members[j];
                    out.extend_from_slice(&(k.len() as u32).to_le_bytes());
                    out.extend_from_slice(k);
                    out.extend_from_slice(v);
                }
                out.push(b'}');
                true
            }
            Some(b'[') => {
                self.i += 1;
                out.push(b'[');
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        if !self.value(out, depth + 1) {
                            return false;
                        }
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return false,
                        }
                    }
                }
                out.push(b']');
                true
            }
            Some(b'"') => {
                let mut k = Vec::new();
                if !self.string(&mut k) {
                    return false;
                }
                out.push(b's');
                out.extend_from_slice(&(k.len() as u32).to_le_bytes());
                out.extend_from_slice(&k);
                true
            }
            Some(b't') => self.word(b"true", b't', out),
            Some(b'f') => self.word(b"false", b'f', out),
            Some(b'n') => self.word(b"null", b'n', out),
            Some(b'-' | b'0'..=b'9') => {
                let st = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    self.i += 1;
                }
                out.push(b'#');
                if !numeric(&self.s[st..self.i], out) {
                    return false;
                }
                out.push(b';');
                true
            }
            _ => false,
        }
    }

    fn word(&mut self, w: &[u8], tag: u8, out: &mut Vec<u8>) -> bool {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            out.push(tag);
            true
        } else {
            false
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        let h = u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?;
        self.i += 4;
        Some(h)
    }

    /// A string's content, unescaped to UTF-8.
    fn string(&mut self, out: &mut Vec<u8>) -> bool {
        if self.s.get(self.i) != Some(&b'"') {
            return false;
        }
        self.i += 1;
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return false;
            };
            self.i += 1;
            match b {
                b'"' => return true,
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return false;
                    };
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let Some(h) = self.hex4() else { return false };
                            let cp = if (0xD800..0xDC00).contains(&h)
                                && self.s.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                self.i += 2;
                                let Some(l) = self.hex4() else { return false };
                                0x10000 + ((h - 0xD800) << 10) + (l.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                h
                            };
                            match char::from_u32(cp) {
                                Some(c) => c,
                                None => return false,
                            }
                        }
                        _ => return false,
                    };
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                }
                _ => out.push(b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(t: &PgType, v: &str) -> Vec<u8> {
        let mut o = Vec::new();
        canonical(t, v.as_bytes(), &mut o);
        o
    }

    fn same(t: &PgType, a: &str, b: &str) {
        assert_eq!(c(t, a), c(t, b), "{a:?} vs {b:?} as {}", t.name());
    }

    fn differ(t: &PgType, a: &str, b: &str) {
        assert_ne!(c(t, a), c(t, b), "{a:?} vs {b:?} as {}", t.name());
    }

    #[test]
    fn equal_values_in_other_spellings() {
        same(&PgType::Int4, " +007", "7");
        differ(&PgType::Int4, "7", "8");
        same(&PgType::Numeric(None), "1.50", "1.5");
        same(&PgType::Numeric(None), "1e2", "100");
        same(&PgType::Numeric(None), "-0.0", "0");
        same(&PgType::Numeric(None), "  007.100e+1 ", "71");
        same(&PgType::Numeric(None), "-Infinity", "-inf");
        differ(&PgType::Numeric(None), "Infinity", "-Infinity");
        same(&PgType::Numeric(None), ".5", "0.5");
        differ(&PgType::Numeric(None), "1.", "1e");
        same(&PgType::Bool, "T", "yes");
        same(&PgType::Bool, "OFF", "n");
        differ(&PgType::Numeric(None), "1.5", "-1.5");
        differ(&PgType::Numeric(None), "15", "1.5");
        same(&PgType::Float8, "0.1", "1e-1");
        differ(&PgType::Float8, "0.1", "0.10000000000000002");
        same(&PgType::Float8, "NaN", "nan");
        same(&PgType::Float4, "1.1", "1.10000002");
        same(&PgType::Bool, "t", "true");
        differ(&PgType::Bool, "t", "f");
        same(
            &PgType::TimestampTz,
            "2020-01-01 12:00:00+02",
            "2020-01-01 10:00:00+00",
        );
        same(
            &PgType::TimestampTz,
            "2020-01-01 12:00:00-05:30",
            "2020-01-01 17:30:00Z",
        );
        differ(
            &PgType::Timestamp,
            "2020-01-01 12:00:00",
            "2020-01-01 13:00:00",
        );
        same(
            &PgType::Timestamp,
            "2020-01-01 12:00:00.500",
            "2020-01-01T12:00:00.5",
        );
        same(&PgType::Date, "2020-1-5", "2020-01-05");
        differ(&PgType::Date, "0044-03-15 BC", "0044-03-15");
        same(&PgType::Bytea, "\\x0aFF", "\\012\\377");
        differ(&PgType::Bytea, "\\x0aFF", "\\x0aFE");
        same(
            &PgType::Jsonb,
            r#"{"b":1, "a":[1.0,"x"]}"#,
            r#"{"a": [1, "\u0078"], "b": 1}"#,
        );
        same(&PgType::Jsonb, r#"{"a":1,"a":2}"#, r#"{"a":2}"#);
        differ(&PgType::Jsonb, r#"{"a":1}"#, r#"{"a":"1"}"#);
        same(&PgType::Char(4), "ab  ", "ab");
        differ(&PgType::Text, "ab ", "ab");
        let arr = PgType::Array(Box::new(PgType::Int4));
        same(&arr, "{1, 2,NULL}", "{1,2,NULL}");
        differ(&arr, "{1,2,NULL}", "{1,2,3}");
        differ(&arr, "{{1,2}}", "{1,2}");
        let tarr = PgType::Array(Box::new(PgType::Text));
        differ(&tarr, r#"{"NULL"}"#, "{NULL}");
        same(&tarr, r#"{"a b",c}"#, r#"{"a b","c"}"#);
        // Unreadable values are their text, never equal to a canonical value.
        same(&PgType::Int4, "x", "x");
        differ(&PgType::Int4, "x", "y");
    }
}
