//! Canonical forms of values, for `csvload --verify content`: two texts of one type that the
//! type's input function reads as the same value give the same bytes, so a value in a CSV
//! file and the same value printed back by a server (under other session settings, or by
//! another server) hash alike; texts the server keeps apart (a numeric's scale, jsonb's
//! `1.0` and `1`) stay apart.
//!
//! Each type's form is listed in docs/csvload.md ("Content verification"). A value the
//! type's form cannot read (or a type without a form) is compared as its exact text.

use super::datetime::parse_dt;
use super::{PgType, is_space, trim};

/// How a column's values are put in canonical form: a type csvcheck knows, or one of the
/// structured types only verification reads (ranges, multiranges, composites: their text
/// holds values of other types, e.g. a `tstzrange`'s bounds carry the dump session's zone
/// offset), and arrays of any of them.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    /// A type of the type table (domains read as their base type).
    Base(PgType),
    /// A range over the subtype: `empty`, or the bounds (each absent or a subtype value)
    /// and their inclusivity.
    Range(Box<Form>),
    /// A multirange: its ranges, in the order written (the server prints them sorted and
    /// merged, as a dump holds them).
    Multirange(Box<Form>),
    /// A composite type's fields, in order.
    Composite(Vec<Form>),
    /// An array of the element form.
    Array(Box<Form>),
}

impl Form {
    /// The form of a type of the type table; `tstzrange`, `int4multirange`, ... (the
    /// built-in ranges, which the type table keeps as unknown names) as ranges.
    pub fn of(t: PgType) -> Form {
        match t {
            PgType::Array(e) => Form::Array(Box::new(Form::of(*e))),
            PgType::Domain(d) => Form::of(d.base.clone()),
            PgType::Unknown(name) => {
                builtin_range(&name).unwrap_or(Form::Base(PgType::Unknown(name)))
            }
            t => Form::Base(t),
        }
    }

    /// The form of a type name as a manifest or `format_type` writes it (built-in types only:
    /// enums, domains and composites are resolved by the caller, which knows the schema).
    pub fn from_name(name: &str) -> Form {
        Form::of(super::parse_type(name, &super::Catalog::default()))
    }

    /// True when equal values of this form are printed alike by any PostgreSQL session
    /// under verification's settings (csvload's `verify::SESSION`, which
    /// pg_dump also sets, but for the time zone): everything but what holds a `timestamptz`
    /// or `timetz`, whose text carries the printing session's zone offset. A performance
    /// hint, never a rule of equality: equal texts are equal values for every form, and
    /// texts that differ are compared again in canonical form.
    pub fn prints_alike(&self) -> bool {
        match self {
            Form::Base(PgType::TimestampTz | PgType::TimeTz) => false,
            Form::Base(_) => true,
            Form::Range(s) | Form::Multirange(s) | Form::Array(s) => s.prints_alike(),
            Form::Composite(f) => f.iter().all(Form::prints_alike),
        }
    }

    /// True when the form knows nothing of the type (its values compare as exact text).
    pub fn is_unknown(&self) -> bool {
        matches!(self, Form::Base(PgType::Unknown(_)))
    }

    /// How values of this form are compared: a short phrase for docs and reports; `None`
    /// when they (or some part of them) are compared as exact text because csvload has no
    /// canonical form for the type.
    pub fn kind(&self) -> Option<&'static str> {
        match self {
            Form::Base(t) => canon_kind(t),
            Form::Range(s) | Form::Multirange(s) => s.kind().map(|_| "bound by bound"),
            Form::Composite(f) => {
                for x in f {
                    x.kind()?;
                }
                Some("field by field")
            }
            Form::Array(e) => e.kind().map(|_| "element by element"),
        }
    }

    /// The type's name for messages.
    pub fn name(&self) -> String {
        match self {
            Form::Base(t) => t.name(),
            Form::Range(s) => format!("range of {}", s.name()),
            Form::Multirange(s) => format!("multirange of {}", s.name()),
            Form::Composite(f) => {
                let n: Vec<String> = f.iter().map(Form::name).collect();
                format!("composite ({})", n.join(", "))
            }
            Form::Array(e) => format!("{}[]", e.name()),
        }
    }
}

/// The built-in range and multirange types by name (any case, `pg_catalog.` or not).
fn builtin_range(name: &str) -> Option<Form> {
    let n = name.trim().trim_matches('"').to_ascii_lowercase();
    let n = n.strip_prefix("pg_catalog.").unwrap_or(&n);
    let (sub, multi) = match n.strip_suffix("multirange") {
        Some(s) => (s, true),
        None => (n.strip_suffix("range")?, false),
    };
    let sub = match sub {
        "int4" => PgType::Int4,
        "int8" => PgType::Int8,
        "num" => PgType::Numeric(None),
        "ts" => PgType::Timestamp,
        "tstz" => PgType::TimestampTz,
        "date" => PgType::Date,
        _ => return None,
    };
    let sub = Box::new(Form::Base(sub));
    Some(if multi {
        Form::Multirange(sub)
    } else {
        Form::Range(sub)
    })
}

/// How values of `t` are compared: a short phrase for docs and reports; `None` when they are
/// compared as exact text because csvload has no canonical form for the type.
pub fn canon_kind(t: &PgType) -> Option<&'static str> {
    Some(match t {
        PgType::Int2 | PgType::Int4 | PgType::Int8 => "integer value",
        PgType::Numeric(_) => "decimal value and scale",
        PgType::Float4 => "float4 bits",
        PgType::Float8 => "float8 bits",
        PgType::Bool => "true/false",
        PgType::Date => "calendar day",
        PgType::Time => "microseconds",
        PgType::TimeTz => "microseconds and zone offset",
        PgType::Timestamp => "microseconds",
        PgType::TimestampTz => "UTC instant in microseconds",
        PgType::Uuid => "128-bit value",
        PgType::Jsonb => "jsonb value (keys sorted, duplicates dropped, numbers as numeric)",
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

/// Appends the canonical form of the non-NULL value `v` of form `f` to `out`. Values the
/// form cannot read are appended as their exact text behind a different tag, so they still
/// compare equal to the same text and unequal to any canonical value.
pub fn canonical_form(f: &Form, v: &[u8], out: &mut Vec<u8>) {
    let mark = out.len();
    out.push(b'c');
    let ok = match f {
        Form::Base(t) => canon_into(t, v, out),
        Form::Range(s) => range(s, v, out),
        Form::Multirange(s) => multirange(s, v, out),
        Form::Composite(fields) => composite(fields, v, out),
        // An array of a type without a form is its exact text: its elements' delimiter or
        // quoting may not be the one assumed here (`box` arrays use `;`).
        Form::Array(e) if e.is_unknown() => false,
        Form::Array(e) => array(e, v, out),
    };
    if !ok {
        out.truncate(mark);
        out.push(b'x');
        out.extend_from_slice(v);
    }
}

/// [`canonical_form`] of a type of the type table.
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
        PgType::Numeric(m) => numeric(v, m.map(|(_, s)| s.max(0) as u32), out),
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
            let mut p = Json {
                s: v,
                i: 0,
                members: Vec::new(),
            };
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
        PgType::Array(e) => {
            let e = Form::of((**e).clone());
            if e.is_unknown() {
                return false;
            }
            array(&e, v, out)
        }
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

/// `numeric`: sign, significant digits, decimal exponent and the display scale, as
/// `numeric_in` keeps them: the scale is part of the value's text (`1.0` and `1.00` print
/// differently, and `scale()` tells them apart), so it is part of the canonical form. The
/// scale is the digits after the point less the exponent (`1.50e1` is `15.0`), or the
/// column's typmod scale (`typmod`), to which the input is rounded. `NaN` and the infinities
/// by name. Written straight into `out` (no allocation per value: this runs for every
/// numeric field).
fn numeric(v: &[u8], typmod: Option<u32>, out: &mut Vec<u8>) -> bool {
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
    let mut e10: i64 = 0;
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
        e10 = if eneg { -e } else { e };
        tail = &[];
    }
    if !tail.is_empty() {
        return false;
    }
    let scale = match typmod {
        Some(s) => s as i64,
        None => (frac.len() as i64 - e10).max(0),
    };
    let mut exp = e10 - frac.len() as i64;
    // The digits are int then frac; drop leading and trailing zeros. Indexes run over the
    // two slices as one (`n` = int's length), without a chained iterator per value.
    let n = int.len();
    let nz = |d: &u8| *d != b'0';
    let Some(lead) = int
        .iter()
        .position(nz)
        .or_else(|| frac.iter().position(nz).map(|p| n + p))
    else {
        // Zero has no sign (`-0.000` prints `0.000`).
        out.push(b'0');
        out.extend_from_slice(&(scale as i32).to_le_bytes());
        return true;
    };
    let trail = frac
        .iter()
        .rposition(nz)
        .map(|p| n + p)
        .or_else(|| int.iter().rposition(nz))
        .expect("a non-zero digit");
    exp += (n + frac.len() - 1 - trail) as i64;
    out.push(if neg { b'-' } else { b'+' });
    out.extend_from_slice(&(scale as i32).to_le_bytes());
    out.extend_from_slice(&(exp as i32).to_le_bytes());
    if lead < n {
        out.extend_from_slice(&int[lead..n.min(trail + 1)]);
    }
    if trail >= n {
        out.extend_from_slice(&frac[lead.max(n) - n..=trail - n]);
    }
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
    if let Some(n) = iso_value(t, v) {
        out.extend_from_slice(&n.to_le_bytes());
        return true;
    }
    datetime_general(t, v, out)
}

/// The two ASCII digits at `v[i..i + 2]` as a number; `None` past the end or for a non-digit.
pub(super) fn two_digits(v: &[u8], i: usize) -> Option<i64> {
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
pub(super) fn iso_value(t: &PgType, v: &[u8]) -> Option<i64> {
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
fn array(elem: &Form, v: &[u8], out: &mut Vec<u8>) -> bool {
    let mut s = trim(v);
    if s.first() == Some(&b'[') {
        let Some(eq) = s.iter().position(|&b| b == b'=') else {
            return false;
        };
        out.extend(s[..eq].iter().filter(|&&b| !is_space(b)));
        s = trim(&s[eq + 1..]);
    }
    let mut i = 0;
    let mut val = Vec::new();
    if !array_level(elem, s, &mut i, out, &mut val, 0) {
        return false;
    }
    i == s.len()
}

fn array_level(
    elem: &Form,
    s: &[u8],
    i: &mut usize,
    out: &mut Vec<u8>,
    val: &mut Vec<u8>,
    depth: usize,
) -> bool {
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
    loop {
        skip(i);
        match s.get(*i) {
            Some(b'{') => {
                if !array_level(elem, s, i, out, val, depth + 1) {
                    return false;
                }
            }
            Some(b'"') => {
                *i += 1;
                let start = *i;
                // Most quoted elements hold no backslash: hand the slice on as it is.
                let Some(n) = memchr::memchr2(b'"', b'\\', &s[start..]) else {
                    return false;
                };
                if s[start + n] == b'"' {
                    *i = start + n + 1;
                    element(elem, &s[start..start + n], out);
                } else {
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
                    element(elem, val, out);
                }
            }
            Some(b',' | b'}') | None => return false,
            Some(_) => {
                let start = *i;
                let mut escaped = false;
                loop {
                    match s.get(*i) {
                        None | Some(b'"' | b'{') => return false,
                        Some(b',' | b'}') => break,
                        Some(b'\\') => {
                            escaped = true;
                            *i += 2;
                        }
                        Some(_) => *i += 1,
                    }
                }
                if *i > s.len() {
                    return false;
                }
                if !escaped {
                    // Trailing spaces are not part of an unquoted element.
                    let raw = &s[start..*i];
                    let n = raw.iter().rposition(|&b| !is_space(b)).map_or(0, |j| j + 1);
                    let raw = &raw[..n];
                    if raw.eq_ignore_ascii_case(b"null") {
                        out.push(b'N');
                    } else {
                        element(elem, raw, out);
                    }
                } else {
                    val.clear();
                    let mut keep = 0;
                    let mut j = start;
                    while j < *i {
                        if s[j] == b'\\' {
                            val.push(s[j + 1]);
                            j += 2;
                            keep = val.len();
                        } else {
                            val.push(s[j]);
                            j += 1;
                        }
                    }
                    while val.len() > keep && val.last().is_some_and(|&b| is_space(b)) {
                        val.pop();
                    }
                    element(elem, val, out);
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

/// One element, field or bound: `V`, its canonical form's length, the form (written in
/// place, its length filled in after: no buffer per value).
fn element(elem: &Form, v: &[u8], out: &mut Vec<u8>) {
    out.push(b'V');
    framed(out, |out| canonical_form(elem, v, out));
}

/// Appends what `write` writes to `out`, preceded by its length (4 bytes, little-endian), so
/// that consecutive values cannot run into each other: one value's bytes never read as the
/// start of the next.
#[inline]
pub fn framed(out: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    write(out);
    let n = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&n.to_le_bytes());
}

/// A field of a composite or a bound of a range as `record_in` and `range_in` read it:
/// unquoted bytes up to a delimiter in `ends`, `"..."` parts (`""` inside is one quote) and
/// backslash escapes anywhere; whitespace is kept (the field's input function decides).
/// Returns the unescaped text in `val` and whether anything was there at all (an empty
/// field is NULL in a composite, an absent bound in a range); `None` when the text ends
/// unterminated.
fn delimited<'a>(
    s: &'a [u8],
    i: &mut usize,
    ends: &[u8],
    val: &'a mut Vec<u8>,
) -> Option<(bool, &'a [u8])> {
    let start = *i;
    // Most fields and bounds (numbers, dates, words) have neither quotes nor backslashes:
    // hand on the slice as it is, without copying it byte by byte (issue 35, item 8).
    let mut j = start;
    loop {
        let &b = s.get(j)?;
        if b == b'"' || b == b'\\' {
            break;
        }
        if ends.contains(&b) {
            *i = j;
            return Some((j > start, &s[start..j]));
        }
        j += 1;
    }
    val.clear();
    let mut quoted = false;
    loop {
        let &b = s.get(*i)?;
        if !quoted && ends.contains(&b) {
            return Some((*i > start, val));
        }
        *i += 1;
        match b {
            b'\\' => {
                val.push(*s.get(*i)?);
                *i += 1;
            }
            b'"' if quoted && s.get(*i) == Some(&b'"') => {
                val.push(b'"');
                *i += 1;
            }
            b'"' => quoted = !quoted,
            _ => val.push(b),
        }
    }
}

/// A range literal (`range_in`): `empty`, or `[`/`(`, the lower bound, `,`, the upper
/// bound, `]`/`)`, each bound in its subtype's form (a `tstzrange` bound written under any
/// session time zone is its UTC instant). An absent bound is infinite and never inclusive.
fn range(sub: &Form, v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    if s.eq_ignore_ascii_case(b"empty") {
        out.push(b'E');
        return true;
    }
    let mut i = 0;
    let mut val = Vec::new();
    range_at(sub, s, &mut i, out, &mut val) && i == s.len()
}

fn range_at(sub: &Form, s: &[u8], i: &mut usize, out: &mut Vec<u8>, val: &mut Vec<u8>) -> bool {
    if s.get(*i..*i + 5)
        .is_some_and(|w| w.eq_ignore_ascii_case(b"empty"))
    {
        *i += 5;
        out.push(b'E');
        return true;
    }
    let lower_inc = match s.get(*i) {
        Some(b'[') => true,
        Some(b'(') => false,
        _ => return false,
    };
    *i += 1;
    let Some((has_lower, lower)) = delimited(s, i, b",", val) else {
        return false;
    };
    let flag =
        |out: &mut Vec<u8>, has: bool, inc: bool| out.push(b'0' + has as u8 * (1 + inc as u8));
    flag(out, has_lower, lower_inc);
    if has_lower {
        element(sub, lower, out);
    }
    *i += 1; // the comma
    let Some((has_upper, upper)) = delimited(s, i, b")]", val) else {
        return false;
    };
    let upper_inc = s[*i] == b']';
    *i += 1;
    flag(out, has_upper, upper_inc);
    if has_upper {
        element(sub, upper, out);
    }
    true
}

/// A multirange literal (`multirange_in`): `{`, ranges separated by commas, `}`.
fn multirange(sub: &Form, v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    let Some(inner) = s.strip_prefix(b"{").and_then(|x| x.strip_suffix(b"}")) else {
        return false;
    };
    out.push(b'{');
    let mut i = 0;
    let mut val = Vec::new();
    let skip = |i: &mut usize| {
        while inner.get(*i).is_some_and(|&b| is_space(b)) {
            *i += 1;
        }
    };
    skip(&mut i);
    if i == inner.len() {
        out.push(b'}');
        return true;
    }
    loop {
        skip(&mut i);
        if !range_at(sub, inner, &mut i, out, &mut val) {
            return false;
        }
        skip(&mut i);
        match inner.get(i) {
            None => break,
            Some(b',') => i += 1,
            _ => return false,
        }
    }
    out.push(b'}');
    true
}

/// A composite literal (`record_in`): `(`, fields separated by commas, `)`; an empty field
/// is NULL (`""` is the empty string); each field in its type's form (a `timestamptz` field
/// is its UTC instant).
fn composite(fields: &[Form], v: &[u8], out: &mut Vec<u8>) -> bool {
    let s = trim(v);
    if s.first() != Some(&b'(') {
        return false;
    }
    let mut i = 1;
    let mut val = Vec::new();
    out.push(b'(');
    for (k, f) in fields.iter().enumerate() {
        let Some((any, v)) = delimited(s, &mut i, b",)", &mut val) else {
            return false;
        };
        if any {
            element(f, v, out);
        } else {
            out.push(b'N');
        }
        let want = if k + 1 == fields.len() { b')' } else { b',' };
        if s.get(i) != Some(&want) {
            return false;
        }
        i += 1;
    }
    if fields.is_empty() {
        if s.get(i) != Some(&b')') {
            return false;
        }
        i += 1;
    }
    out.push(b')');
    i == s.len()
}

/// jsonb's canonical form: objects' keys sorted (by length, then bytes, as jsonb stores
/// them) with the last of duplicate keys kept, strings unescaped, numbers as `numeric`.
struct Json<'a> {
    s: &'a [u8],
    i: usize,
    /// The members of the objects being read, innermost last: where each one's canonical
    /// bytes start and end in `out` (one list for all levels: no buffer per member).
    members: Vec<(usize, usize)>,
}

/// The key of a member written at `m` in `out`: its length (4 bytes) and bytes.
fn member_key(out: &[u8], m: (usize, usize)) -> &[u8] {
    let n = u32::from_le_bytes(out[m.0..m.0 + 4].try_into().expect("4 bytes")) as usize;
    &out[m.0 + 4..m.0 + 4 + n]
}

/// jsonb's key order: shorter first, then by bytes.
fn key_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    (a.len(), a).cmp(&(b.len(), b))
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
                out.push(b'{');
                let mark = out.len();
                let base = self.members.len();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        // Each member straight into `out`: key length, key, value.
                        let at = out.len();
                        out.extend_from_slice(&[0; 4]);
                        if !self.string(out) {
                            return false;
                        }
                        let n = (out.len() - at - 4) as u32;
                        out[at..at + 4].copy_from_slice(&n.to_le_bytes());
                        self.ws();
                        if self.s.get(self.i) != Some(&b':') {
                            return false;
                        }
                        self.i += 1;
                        self.ws();
                        if !self.value(out, depth + 1) {
                            return false;
                        }
                        self.members.push((at, out.len()));
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
                // jsonb's own output (and a dump of a jsonb column) has its keys sorted and
                // unique: nothing to do. Otherwise sort (stably: the last of equal keys is
                // the one kept) and write again.
                let ms = &self.members[base..];
                let sorted = ms
                    .windows(2)
                    .all(|w| key_order(member_key(out, w[0]), member_key(out, w[1])).is_lt());
                if !sorted {
                    let mut idx: Vec<usize> = (0..ms.len()).collect();
                    idx.sort_by(|&a, &b| key_order(member_key(out, ms[a]), member_key(out, ms[b])));
                    let all = out[mark..].to_vec();
                    out.truncate(mark);
                    for (j, &k) in idx.iter().enumerate() {
                        let m = ms[k];
                        if idx.get(j + 1).is_some_and(|&n| {
                            member_key(&all, (ms[n].0 - mark, 0))
                                == member_key(&all, (m.0 - mark, 0))
                        }) {
                            continue;
                        }
                        out.extend_from_slice(&all[m.0 - mark..m.1 - mark]);
                    }
                }
                self.members.truncate(base);
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
                out.push(b's');
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                if !self.string(out) {
                    return false;
                }
                let n = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&n.to_le_bytes());
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
                if !numeric(&self.s[st..self.i], None, out) {
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
            // The plain run up to the next quote or backslash in one copy.
            let Some(n) = memchr::memchr2(b'"', b'\\', &self.s[self.i..]) else {
                return false;
            };
            out.extend_from_slice(&self.s[self.i..self.i + n]);
            self.i += n;
            let b = self.s[self.i];
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
        same(&PgType::Numeric(None), "1.50", "15.0e-1");
        same(&PgType::Numeric(None), "1e2", "100");
        same(&PgType::Numeric(None), "-0.0", "0.0");
        same(&PgType::Numeric(None), "  007.100e+1 ", "71.00");
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
            r#"{"a": [10e-1, "\u0078"], "b": 1}"#,
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

    #[test]
    fn numeric_scale_is_part_of_the_value() {
        // Issue 35 item 3: PostgreSQL keeps the scale (`1.0` and `1.00` print differently).
        let n = PgType::Numeric(None);
        differ(&n, "1.0", "1.00");
        differ(&n, "1", "1.0");
        differ(&n, "0", "0.00");
        same(&n, "1.50e1", "15.0");
        same(&n, "-0.00", "0.00");
        // A typmod's scale is what the column keeps: `1.5` is stored as `1.50`.
        let n2 = PgType::Numeric(Some((12, 2)));
        same(&n2, "1.5", "1.50");
        differ(&n2, "1.234", "1.23");
        // jsonb keeps a number's scale too; ranges agree with plain numerics.
        differ(&PgType::Jsonb, "1.0", "1");
        let nr = Form::from_name("numrange");
        let cf = |v: &str| {
            let mut o = Vec::new();
            canonical_form(&nr, v.as_bytes(), &mut o);
            o
        };
        assert_ne!(cf("[1.0,2)"), cf("[1.00,2)"));
        assert_eq!(cf("[1.0,2)"), cf(" [\"1.0\",2) "));
    }

    /// The numeric form as it was written before its fast rewrite (a chained iterator over
    /// the digits): the reference the rewrite must equal.
    fn numeric_reference(v: &[u8], typmod: Option<u32>) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let s = trim(v);
        let (neg, rest) = match s.first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        if rest.first().is_some_and(|b| b.is_ascii_alphabetic()) {
            let mut o = Vec::new();
            return numeric(v, typmod, &mut o).then_some(o);
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
            return None;
        }
        let mut e10: i64 = 0;
        if let Some((&e, t)) = tail.split_first()
            && matches!(e, b'e' | b'E')
        {
            let (eneg, t) = match t.first() {
                Some(b'-') => (true, &t[1..]),
                Some(b'+') => (false, &t[1..]),
                _ => (false, t),
            };
            if t.is_empty() || t.len() > 7 || !t.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let e = t.iter().fold(0i64, |a, &d| a * 10 + (d - b'0') as i64);
            e10 = if eneg { -e } else { e };
            tail = &[];
        }
        if !tail.is_empty() {
            return None;
        }
        let scale = match typmod {
            Some(s) => s as i64,
            None => (frac.len() as i64 - e10).max(0),
        };
        let mut exp = e10 - frac.len() as i64;
        let all = || int.iter().chain(frac.iter());
        let Some(lead) = all().position(|&d| d != b'0') else {
            out.push(b'0');
            out.extend_from_slice(&(scale as i32).to_le_bytes());
            return Some(out);
        };
        let total = int.len() + frac.len();
        let trail = total - 1 - all().rev().position(|&d| d != b'0').unwrap();
        exp += (total - 1 - trail) as i64;
        out.push(if neg { b'-' } else { b'+' });
        out.extend_from_slice(&(scale as i32).to_le_bytes());
        out.extend_from_slice(&(exp as i32).to_le_bytes());
        out.extend(all().skip(lead).take(trail + 1 - lead));
        Some(out)
    }

    proptest::proptest! {
        #[test]
        fn numeric_rewrite_agrees_with_the_reference(
            v in "[ ]?[+-]?0{0,3}[0-9]{0,5}0{0,3}(\\.0{0,3}[0-9]{0,5}0{0,3})?([eE][+-]?[0-9]{1,3})?[ ]?",
            typmod in proptest::option::of(0u32..8),
        ) {
            let mut o = Vec::new();
            let ok = numeric(v.as_bytes(), typmod, &mut o);
            proptest::prop_assert_eq!(ok.then_some(o), numeric_reference(v.as_bytes(), typmod), "{:?}", v);
        }

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

    fn cf(f: &Form, v: &str) -> Vec<u8> {
        let mut o = Vec::new();
        canonical_form(f, v.as_bytes(), &mut o);
        o
    }

    #[test]
    fn ranges_composites_and_their_arrays_by_instant() {
        // Issue 35 item 1: one instant written under Europe/Paris, Asia/Kathmandu,
        // America/St_Johns and UTC.
        let r = Form::from_name("tstzrange");
        let a = cf(&r, r#"["2020-01-01 12:00:00+01","2020-01-02 00:00:00+01")"#);
        assert_eq!(
            a,
            cf(
                &r,
                r#"["2020-01-01 16:45:00+05:45","2020-01-02 04:45:00+05:45")"#
            )
        );
        assert_eq!(
            a,
            cf(
                &r,
                r#"["2020-01-01 07:30:00-03:30","2020-01-01 19:30:00-03:30")"#
            )
        );
        assert_eq!(
            a,
            cf(&r, r#"["2020-01-01 11:00:00+00","2020-01-01 23:00:00+00")"#)
        );
        assert_ne!(
            a,
            cf(&r, r#"["2020-01-01 11:00:00+00","2020-01-01 23:00:00+00"]"#)
        );
        assert_ne!(
            a,
            cf(&r, r#"["2020-01-01 11:00:01+00","2020-01-01 23:00:00+00")"#)
        );
        assert_eq!(cf(&r, "(,)"), cf(&r, "[,]"));
        assert_eq!(cf(&r, "empty"), cf(&r, " EMPTY"));
        assert_ne!(cf(&r, "empty"), cf(&r, "(,)"));
        let m = Form::from_name("tstzmultirange");
        assert_eq!(
            cf(
                &m,
                r#"{["2020-01-01 12:00:00+01",infinity), ("1900-01-01 00:00:00+00:09:21","1901-01-01 00:00:00+00:09:21"]}"#
            ),
            cf(
                &m,
                r#"{["2020-01-01 11:00:00+00",infinity),("1899-12-31 23:50:39+00","1900-12-31 23:50:39+00"]}"#
            )
        );
        assert_eq!(cf(&m, "{}"), cf(&m, " { } "));
        let comp = Form::Composite(vec![
            Form::from_name("integer"),
            Form::from_name("timestamptz"),
            Form::from_name("text"),
        ]);
        let c1 = cf(&comp, r#"(1,"2020-01-01 12:00:00+01","a ""b"" \\c")"#);
        assert_eq!(
            c1,
            cf(&comp, r#"( 1,"2020-01-01 11:00:00+00",a\ \"b\"\ "\\c")"#)
        );
        assert_ne!(cf(&comp, "(1,,)"), cf(&comp, r#"(1,,"")"#));
        assert_ne!(
            c1,
            cf(&comp, r#"(1,"2020-01-01 12:00:00+00","a ""b"" \\c")"#)
        );
        let arr = Form::Array(Box::new(comp.clone()));
        assert_eq!(
            cf(&arr, r#"{"(1,\"2020-01-01 12:00:00+01\",x)",NULL}"#),
            cf(&arr, r#"{"(1,\"2020-01-01 06:00:00-05\",x)",NULL}"#)
        );
        let ra = Form::from_name("tstzrange[]");
        assert_eq!(
            cf(&ra, r#"{"[\"2020-01-01 12:00:00+01\",)"}"#),
            cf(&ra, r#"{"[\"2020-01-01 11:00:00+00\",)"}"#)
        );
        // Unreadable text stays text.
        assert_eq!(cf(&r, "[a"), b"x[a");
    }
}
