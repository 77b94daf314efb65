//! PostgreSQL column types and their text input rules, so `csvcheck` can say before a load
//! which values `COPY` would refuse.
//!
//! Each check follows the type's input function in PostgreSQL (`int4in`, `numeric_in`,
//! `float8in`, `boolin`, `date_in`/`timestamp_in` via the datetime parser, `interval_in`,
//! `uuid_in`, `byteain`, `varchar_in`/`bpcharin`, `array_in`, `json_in`/`jsonb_in`), and was
//! probed against PostgreSQL 15. Where PostgreSQL accepts forms whose meaning depends on
//! session settings (non-ISO dates under `DateStyle`), the check is deliberately stricter and
//! says so in its message; see [`PgType::check`].

use std::collections::HashSet;
use std::sync::Arc;

/// A column type, resolved enough to check values.
#[derive(Debug, Clone, PartialEq)]
pub enum PgType {
    /// `smallint` / `int2`.
    Int2,
    /// `integer` / `int4`.
    Int4,
    /// `bigint` / `int8`.
    Int8,
    /// `numeric(p,s)`; `None` for unconstrained `numeric`.
    Numeric(Option<(i32, i32)>),
    /// `real` / `float4`.
    Float4,
    /// `double precision` / `float8`.
    Float8,
    /// `boolean`.
    Bool,
    /// `date`.
    Date,
    /// `time [without time zone]`.
    Time,
    /// `time with time zone`.
    TimeTz,
    /// `timestamp [without time zone]`.
    Timestamp,
    /// `timestamp with time zone`.
    TimestampTz,
    /// `interval`.
    Interval,
    /// `uuid`.
    Uuid,
    /// `json`.
    Json,
    /// `jsonb`.
    Jsonb,
    /// `bytea`.
    Bytea,
    /// `text` and other unconstrained strings (`varchar`, `bpchar`, `name`, `citext`).
    Text,
    /// `character varying(n)`: at most n characters (trailing spaces beyond n are cut).
    Varchar(usize),
    /// `character(n)`: at most n characters (trailing spaces beyond n are cut).
    Char(usize),
    /// An enum type and its labels.
    Enum(Arc<EnumType>),
    /// A domain over a base type.
    Domain(Arc<Domain>),
    /// An array of the element type.
    Array(Box<PgType>),
    /// A type csvcheck does not know: every value passes, and the summary says so.
    Unknown(String),
}

/// `CREATE TYPE name AS ENUM (...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumType {
    /// Type name as written.
    pub name: String,
    /// The labels, as bytes (labels are compared exactly, case and spaces included).
    pub labels: HashSet<Vec<u8>>,
}

/// `CREATE DOMAIN name AS base ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    /// Domain name as written.
    pub name: String,
    /// The base type.
    pub base: PgType,
    /// `NOT NULL` on the domain.
    pub not_null: bool,
    /// The domain has CHECK constraints, which csvcheck cannot evaluate.
    pub has_check: bool,
}

/// Enums and domains known from the schema, for [`parse_type`].
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    /// By name as the SQL lexer folds it (unquoted lower case, quoted as written), both bare
    /// and schema-qualified.
    pub enums: std::collections::HashMap<String, Arc<EnumType>>,
    /// By name as the SQL lexer folds it (unquoted lower case, quoted as written), both bare
    /// and schema-qualified.
    pub domains: std::collections::HashMap<String, Arc<Domain>>,
}

impl Catalog {
    fn lookup(&self, name: &str) -> Option<PgType> {
        let bare = name.rsplit('.').next().unwrap_or(name);
        for n in [name, bare] {
            if let Some(e) = self.enums.get(n) {
                return Some(PgType::Enum(e.clone()));
            }
            if let Some(d) = self.domains.get(n) {
                return Some(PgType::Domain(d.clone()));
            }
        }
        None
    }
}

/// Normalises a type name: lower case (outside double quotes), quotes dropped, single spaces,
/// no spaces around parentheses and commas.
fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_q = false;
    let mut space = false;
    for ch in name.trim().chars() {
        if ch == '"' {
            in_q = !in_q;
            continue;
        }
        if !in_q && ch.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() && !matches!(ch, '(' | ')' | ',' | '[' | ']') {
            let last = out.chars().last().unwrap_or(' ');
            if !matches!(last, '(' | ',') {
                out.push(' ');
            }
        }
        space = false;
        if in_q {
            out.push(ch);
        } else {
            out.extend(ch.to_lowercase());
        }
    }
    out
}

/// Splits `base(args)` into `base` and the argument list.
fn split_args(s: &str) -> (&str, Option<Vec<i64>>) {
    if let Some(open) = s.find('(')
        && let Some(close) = s.rfind(')')
        && close > open
    {
        let args: Option<Vec<i64>> = s[open + 1..close]
            .split(',')
            .map(|a| a.trim().parse().ok())
            .collect();
        let rest = format!("{}{}", &s[..open], &s[close + 1..]);
        // The modifier may sit before a suffix: `timestamp(3) with time zone`.
        let base = rest.trim();
        return (leak_base(s, base), args);
    }
    (s, None)
}

/// Maps the re-assembled base name back onto one of the fixed names below (avoids allocating
/// a `'static` string): returns `base` when it is a substring of `s`, else a known constant.
fn leak_base<'a>(s: &'a str, base: &str) -> &'a str {
    if let Some(i) = s.find(base) {
        return &s[i..i + base.len()];
    }
    match base {
        "timestamp with time zone" => "timestamp with time zone",
        "timestamp without time zone" => "timestamp without time zone",
        "time with time zone" => "time with time zone",
        "time without time zone" => "time without time zone",
        _ => "",
    }
}

/// Resolves a type as written in a `CREATE TABLE`, a manifest or `--columns`
/// (e.g. `character varying(16)`, `numeric(10,2)`, `int4[]`, `public.mood`).
pub fn parse_type(name: &str, catalog: &Catalog) -> PgType {
    let n = normalise(name);
    // Arrays: `t[]`, `t[3]`, `t array`, `_t` (the internal name).
    if let Some(open) = n.find('[') {
        return PgType::Array(Box::new(parse_type(n[..open].trim(), catalog)));
    }
    if let Some(base) = n.strip_suffix(" array") {
        return PgType::Array(Box::new(parse_type(base, catalog)));
    }
    let n = n.strip_prefix("pg_catalog.").unwrap_or(&n).to_string();
    let (base, args) = split_args(&n);
    let base = base.trim();
    let arg = |i: usize| args.as_ref().and_then(|a| a.get(i).copied());

    match base {
        "smallint" | "int2" | "smallserial" | "serial2" => PgType::Int2,
        "integer" | "int" | "int4" | "serial" | "serial4" => PgType::Int4,
        "bigint" | "int8" | "bigserial" | "serial8" => PgType::Int8,
        "numeric" | "decimal" => match (arg(0), arg(1)) {
            (Some(p), s) => PgType::Numeric(Some((p as i32, s.unwrap_or(0) as i32))),
            _ => PgType::Numeric(None),
        },
        "real" | "float4" => PgType::Float4,
        "double precision" | "float8" => PgType::Float8,
        "float" => match arg(0) {
            Some(p) if p <= 24 => PgType::Float4,
            _ => PgType::Float8,
        },
        "boolean" | "bool" => PgType::Bool,
        "date" => PgType::Date,
        "time" | "time without time zone" => PgType::Time,
        "timetz" | "time with time zone" => PgType::TimeTz,
        "timestamp" | "timestamp without time zone" => PgType::Timestamp,
        "timestamptz" | "timestamp with time zone" => PgType::TimestampTz,
        "uuid" => PgType::Uuid,
        "json" => PgType::Json,
        "jsonb" => PgType::Jsonb,
        "bytea" => PgType::Bytea,
        "text" | "name" | "citext" | "bpchar" => match (base, arg(0)) {
            ("bpchar", Some(l)) => PgType::Char(l.max(1) as usize),
            _ => PgType::Text,
        },
        "character varying" | "varchar" => match arg(0) {
            Some(l) => PgType::Varchar(l.max(1) as usize),
            None => PgType::Text,
        },
        "character" | "char" => PgType::Char(arg(0).unwrap_or(1).max(1) as usize),
        b if b == "interval" || b.starts_with("interval ") => PgType::Interval,
        _ => {
            if let Some(t) = catalog.lookup(&n) {
                return t;
            }
            if let Some(elem) = n.strip_prefix('_')
                && !elem.is_empty()
            {
                let t = parse_type(elem, catalog);
                if !matches!(t, PgType::Unknown(_)) {
                    return PgType::Array(Box::new(t));
                }
            }
            PgType::Unknown(name.trim().to_string())
        }
    }
}

/// PostgreSQL's built-in types that csvcheck does not check value by value but that exist,
/// so a column of one is a note, not a typo (names as [`parse_type`] normalises them).
const BUILTIN_UNCHECKED: &[&str] = &[
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "money",
    "point",
    "line",
    "lseg",
    "box",
    "path",
    "polygon",
    "circle",
    "bit",
    "bit varying",
    "varbit",
    "tsvector",
    "tsquery",
    "xml",
    "int4range",
    "int8range",
    "numrange",
    "tsrange",
    "tstzrange",
    "daterange",
    "int4multirange",
    "int8multirange",
    "nummultirange",
    "tsmultirange",
    "tstzmultirange",
    "datemultirange",
    "oid",
    "regclass",
    "regtype",
    "regproc",
    "regprocedure",
    "regoper",
    "regoperator",
    "regconfig",
    "regdictionary",
    "regnamespace",
    "regrole",
    "regcollation",
    "xid",
    "xid8",
    "cid",
    "tid",
    "pg_lsn",
    "pg_snapshot",
    "txid_snapshot",
    "jsonpath",
    "aclitem",
    "record",
];

/// Checks a type name the way PostgreSQL would refuse it in `CREATE TABLE`, before
/// [`parse_type`] resolves it: type modifiers must be integers in the type's range
/// (`varchar(-1)`, `varchar(abc)`, `numeric(0)`, `char(0)` are errors, not unconstrained
/// types). With `known_only`, a name that is neither a type csvcheck checks, nor a
/// PostgreSQL built-in type, nor an enum or domain of `catalog` is an error too (`int9`,
/// `txt` in `--columns`, where no schema can declare types).
pub fn check_type_name(name: &str, catalog: &Catalog, known_only: bool) -> Result<PgType, String> {
    let n = normalise(name);
    let elem = match n.find('[') {
        Some(open) => n[..open].trim().to_string(),
        None => n.strip_suffix(" array").unwrap_or(&n).to_string(),
    };
    let bare = elem.strip_prefix("pg_catalog.").unwrap_or(&elem);
    let (base, args) = split_args(bare);
    let base = base.trim();
    if bare.contains('(') {
        let Some(args) = args else {
            return Err(format!(
                "type modifier of '{name}' is not a list of integers"
            ));
        };
        let range = |what: &str, v: i64, lo: i64, hi: i64| {
            if v < lo || v > hi {
                Err(format!(
                    "type '{name}': {what} {v} must be between {lo} and {hi}"
                ))
            } else {
                Ok(())
            }
        };
        match (base, args.as_slice()) {
            ("character varying" | "varchar" | "character" | "char" | "bpchar", [l]) => {
                range("length", *l, 1, 10_485_760)?
            }
            ("numeric" | "decimal", [p]) => range("precision", *p, 1, 1000)?,
            ("numeric" | "decimal", [p, sc]) => {
                range("precision", *p, 1, 1000)?;
                range("scale", *sc, -1000, 1000)?
            }
            ("float", [p]) => range("precision", *p, 1, 53)?,
            // A precision above 6 is reduced to 6 with a warning, not refused.
            (b, [p]) if b.starts_with("time") || b.starts_with("interval") => {
                range("precision", *p, 0, i32::MAX as i64)?
            }
            ("bit" | "bit varying" | "varbit", [l]) => range("length", *l, 1, 83_886_080)?,
            (
                "character varying" | "varchar" | "character" | "char" | "bpchar" | "numeric"
                | "decimal" | "float" | "bit" | "bit varying" | "varbit",
                _,
            ) => {
                return Err(format!("type '{name}' has the wrong number of modifiers"));
            }
            _ => {}
        }
    }
    let t = parse_type(name, catalog);
    if known_only {
        let unknown = match &t {
            PgType::Array(e) => e.is_unknown(),
            t => t.is_unknown(),
        };
        if unknown && !BUILTIN_UNCHECKED.contains(&base) {
            return Err(format!("unknown type '{name}'"));
        }
    }
    Ok(t)
}

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
            PgType::Text | PgType::Unknown(_) => Ok(()),
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

// ---------------------------------------------------------------------------------------
// Integers: optional whitespace, sign, decimal digits (PostgreSQL 15 has no `0x` or `_`).

/// The one integer syntax of the toolkit (`int2in`/`int4in`/`int8in` before the range
/// check): [`is_space`] around, an optional sign, one or more ASCII digits. Returns the
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

fn check_int(v: &[u8], min: i64, max: i64, t: &str) -> Result<(), String> {
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

// ---------------------------------------------------------------------------------------
// numeric

const NUMERIC_MAX_INT_DIGITS: i64 = 131072;
const NUMERIC_MAX_DSCALE: i64 = 16383;

fn starts_ci(s: &[u8], p: &[u8]) -> bool {
    s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p)
}

fn check_numeric(v: &[u8], typmod: Option<(i32, i32)>) -> Result<(), String> {
    let s = trim_start(v);
    if let Some(r) = numeric_fast(s, typmod) {
        return r;
    }
    check_numeric_full(v, typmod)
}

/// numeric_in's rules in full: specials, exponents, whitespace, rounding to the scale.
fn check_numeric_full(v: &[u8], typmod: Option<(i32, i32)>) -> Result<(), String> {
    let s = trim_start(v);
    // Same order as numeric_in: NaN and the infinities, matched by prefix (skipped for the
    // usual value that starts with a digit).
    let plain = s.first().is_some_and(|b| b.is_ascii_digit());
    let special: Option<(usize, bool)> = [
        (&b"NaN"[..], false),
        (b"Infinity", true),
        (b"+Infinity", true),
        (b"-Infinity", true),
        (b"inf", true),
        (b"+inf", true),
        (b"-inf", true),
    ]
    .iter()
    .find(|(p, _)| !plain && starts_ci(s, p))
    .map(|(p, inf)| (p.len(), *inf));
    if let Some((len, inf)) = special {
        if !s[len..].iter().all(|&b| is_space(b)) {
            return Err(syntax("numeric"));
        }
        if inf && typmod.is_some() {
            return Err("numeric field overflow (an infinity cannot fit a numeric(p,s))".into());
        }
        return Ok(());
    }
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let mant_start = i;
    let mut int_len: i64 = 0;
    let mut frac_len: i64 = 0;
    let mut seen_dp = false;
    let mut any = false;
    while i < s.len() {
        match s[i] {
            b'0'..=b'9' => {
                any = true;
                if seen_dp {
                    frac_len += 1;
                } else {
                    int_len += 1;
                }
            }
            b'.' if !seen_dp => seen_dp = true,
            _ => break,
        }
        i += 1;
    }
    if !any {
        return Err(syntax("numeric"));
    }
    let mant_end = i;
    let mut exp: i64 = 0;
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        // strtol: whitespace, sign, digits.
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        let mut neg = false;
        if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
            neg = s[i] == b'-';
            i += 1;
        }
        let st = i;
        while i < s.len() && s[i].is_ascii_digit() {
            exp = exp.saturating_mul(10).saturating_add((s[i] - b'0') as i64);
            i += 1;
        }
        if i == st {
            return Err(syntax("numeric"));
        }
        if neg {
            exp = -exp;
        }
        if exp.abs() > i32::MAX as i64 / 2 {
            return Err("value overflows numeric format".into());
        }
    }
    if !s[i..].iter().all(|&b| is_space(b)) {
        return Err(syntax("numeric"));
    }
    // The digits D (without the point); the decimal point sits after `point` digits of D.
    let digit_at = |k: i64| -> u8 {
        // k-th digit of D, skipping the '.'; 0 outside.
        if k < 0 {
            return 0;
        }
        let mut idx = mant_start + k as usize;
        if seen_dp && k >= int_len {
            idx += 1;
        }
        if idx < mant_end {
            s[idx].wrapping_sub(b'0')
        } else {
            0
        }
    };
    let ndig = int_len + frac_len;
    let point = int_len + exp;
    let first = (0..ndig).find(|&k| digit_at(k) != 0);
    let dscale = (frac_len - exp).max(0);
    if dscale > NUMERIC_MAX_DSCALE {
        return Err("value overflows numeric format".into());
    }
    let Some(f) = first else {
        return Ok(()); // zero
    };
    // Magnitude: value is in [10^(e-1), 10^e).
    let e = point - f;
    if e > NUMERIC_MAX_INT_DIGITS {
        return Err("value overflows numeric format".into());
    }
    let Some((p, sc)) = typmod else {
        return Ok(());
    };
    let (p, sc) = (p as i64, sc as i64);
    let cut = point + sc; // digits with index < cut survive rounding
    let e_rounded = if cut > f {
        let round_up = digit_at(cut) >= 5 && cut < ndig;
        if round_up && (f..cut).all(|k| digit_at(k) == 9) {
            Some(e + 1)
        } else {
            Some(e)
        }
    } else if cut == f && digit_at(f) >= 5 {
        Some(e + 1)
    } else {
        None
    };
    match e_rounded {
        Some(er) if er > p - sc => Err(format!(
            "numeric field overflow (numeric({p},{sc}) must round to an absolute value < 10^{})",
            p - sc
        )),
        _ => Ok(()),
    }
}

/// The common shape `[-+]digits[.digits]` with no rounding to do, decided in one pass;
/// `None` sends everything else (exponents, specials, spaces, rounding) to the full check.
#[inline]
fn numeric_fast(s: &[u8], typmod: Option<(i32, i32)>) -> Option<Result<(), String>> {
    let body = match s.first() {
        Some(b'-' | b'+') => &s[1..],
        _ => s,
    };
    let dot = body.iter().position(|&b| b == b'.').unwrap_or(body.len());
    let (int, frac) = (&body[..dot], body.get(dot + 1..).unwrap_or(&[]));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let sig_int = int.iter().skip_while(|&&b| b == b'0').count() as i64;
    let Some((p, sc)) = typmod else {
        return (sig_int <= NUMERIC_MAX_INT_DIGITS && frac.len() as i64 <= NUMERIC_MAX_DSCALE)
            .then_some(Ok(()));
    };
    let (p, sc) = (p as i64, sc as i64);
    if sc < 0 || frac.len() as i64 > sc {
        return None; // rounding: the full check handles carries
    }
    // Magnitude e: the value lies in [10^(e-1), 10^e).
    let e = if sig_int > 0 {
        sig_int
    } else {
        match frac.iter().position(|&b| b != b'0') {
            Some(z) => -(z as i64),
            None => return Some(Ok(())), // zero
        }
    };
    Some(if e > p - sc {
        Err(format!(
            "numeric field overflow (numeric({p},{sc}) must round to an absolute value < 10^{})",
            p - sc
        ))
    } else {
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// real / double precision: strtod/strtof syntax; overflow and underflow to zero are errors.

fn check_float(v: &[u8], single: bool) -> Result<(), String> {
    let t = if single { "real" } else { "double precision" };
    let s = trim(v);
    let Ok(st) = std::str::from_utf8(s) else {
        return Err(syntax(t));
    };
    let body = st.trim_start_matches(['+', '-']);
    if st.len() - body.len() > 1 {
        return Err(syntax(t));
    }
    let lower = body.to_ascii_lowercase();
    if lower == "nan" || lower == "inf" || lower == "infinity" {
        return Ok(());
    }
    if let Some(rest) = lower.strip_prefix("nan(")
        && let Some(inner) = rest.strip_suffix(')')
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Ok(());
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        return check_hex_float(hex).map_err(|_| syntax(t));
    }
    // Rust's grammar is strtod's decimal grammar minus the forms handled above.
    let ok_chars = body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok_chars || body.is_empty() {
        return Err(syntax(t));
    }
    let (inf, zero) = if single {
        match st.parse::<f32>() {
            Ok(x) => (x.is_infinite(), x == 0.0),
            Err(_) => return Err(syntax(t)),
        }
    } else {
        match st.parse::<f64>() {
            Ok(x) => (x.is_infinite(), x == 0.0),
            Err(_) => return Err(syntax(t)),
        }
    };
    let mantissa = body.split(['e', 'E']).next().unwrap_or("");
    let nonzero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if inf || (zero && nonzero) {
        return Err(format!("value out of range for type {t}"));
    }
    Ok(())
}

fn check_hex_float(h: &str) -> Result<(), ()> {
    let (m, e) = match h.split_once('p') {
        Some((m, e)) => (m, Some(e)),
        None => (h, None),
    };
    let (a, b) = m.split_once('.').unwrap_or((m, ""));
    if a.is_empty() && b.is_empty() {
        return Err(());
    }
    if !a.bytes().chain(b.bytes()).all(|c| c.is_ascii_hexdigit()) {
        return Err(());
    }
    if let Some(e) = e {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !e.bytes().all(|c| c.is_ascii_digit()) {
            return Err(());
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// boolean (parse_bool_with_len)

fn check_bool(v: &[u8]) -> Result<(), String> {
    let s = trim(v);
    let ok = match s.first().map(|b| b.to_ascii_lowercase()) {
        Some(b't') => starts_ci(b"true", s),
        Some(b'f') => starts_ci(b"false", s),
        Some(b'y') => starts_ci(b"yes", s),
        Some(b'n') => starts_ci(b"no", s),
        Some(b'o') => s.len() >= 2 && (starts_ci(b"on", s) || starts_ci(b"off", s)),
        Some(b'1') | Some(b'0') => s.len() == 1,
        _ => false,
    };
    if ok { Ok(()) } else { Err(syntax("boolean")) }
}

// ---------------------------------------------------------------------------------------
// date, time, timestamp

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn digits(&mut self) -> &'a [u8] {
        let st = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        let s: &'a [u8] = self.s;
        &s[st..self.i]
    }
    fn spaces(&mut self) -> bool {
        let st = self.i;
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
        self.i > st
    }
    fn word(&mut self) -> &'a [u8] {
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
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }
}

fn num(d: &[u8]) -> i64 {
    d.iter()
        .take(18)
        .fold(0i64, |a, &b| a * 10 + (b - b'0') as i64)
}

fn days_in_month(year_astro: i64, m: i64) -> i64 {
    let leap = (year_astro % 4 == 0 && year_astro % 100 != 0) || year_astro % 400 == 0;
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        _ => 28,
    }
}

/// What a datetime string held.
#[derive(Default)]
struct Dt {
    date: Option<(i64, i64, i64)>, // astronomical year (1 BC = 0), month, day
    time: Option<i64>,             // microseconds since midnight, before rounding carries
    tz: bool,
    tz_name: bool,
    special: bool,
}

const OUT_OF_RANGE: &str = "date/time field value out of range";

fn check_datetime(v: &[u8], t: &PgType) -> Result<(), String> {
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

fn parse_dt(v: &[u8]) -> Result<Dt, String> {
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
            }
            Some(b) if b.is_ascii_alphabetic() => {
                let w = c.word().to_ascii_lowercase();
                if w == b"bc" && dt.date.is_some() && !bc {
                    bc = true;
                } else if w == b"ad" && dt.date.is_some() {
                } else if !dt.tz && (dt.time.is_some() || dt.date.is_some()) && known_zone(&w) {
                    dt.tz = true;
                    dt.tz_name = !is_abbrev(&w);
                } else if w == b"z" && !dt.tz {
                    dt.tz = true;
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
const ABBREVS: &[&str] = &[
    "z", "zulu", "utc", "ut", "gmt", "est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt",
    "akst", "akdt", "hst", "ast", "adt", "nst", "ndt", "cet", "cest", "met", "mest", "eet", "eest",
    "wet", "west", "bst", "msk", "ist", "jst", "kst", "hkt", "sgt", "aest", "aedt", "acst", "acdt",
    "awst", "nzst", "nzdt", "brt", "art",
];

fn is_abbrev(w: &[u8]) -> bool {
    ABBREVS.iter().any(|a| a.as_bytes() == w)
}

/// A zone abbreviation, or a zone name from the system time zone database (PostgreSQL on
/// Debian and most packages uses the system tzdata).
fn known_zone(w: &[u8]) -> bool {
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

fn zone_names() -> &'static HashSet<String> {
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

// ---------------------------------------------------------------------------------------
// interval: PostgreSQL's verbose form, `H:M[:S]` parts, and ISO 8601 `P...`.

fn interval_unit(w: &[u8]) -> Option<u16> {
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

fn check_interval(v: &[u8]) -> Result<(), String> {
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

fn check_iso_interval(s: &[u8]) -> Result<(), ()> {
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

// ---------------------------------------------------------------------------------------
// uuid: 32 hex digits, an optional `-` after any group of four, optional braces.

fn check_uuid(v: &[u8]) -> Result<(), String> {
    uuid_bytes(v).map(|_| ()).ok_or_else(|| syntax("uuid"))
}

/// The one uuid parser of the toolkit (`uuid_in`'s rule: no surrounding space, optional
/// braces, a `-` allowed after any group of four digits): the 16 bytes, or `None` where
/// PostgreSQL refuses the value.
pub fn uuid_bytes(v: &[u8]) -> Option<[u8; 16]> {
    fn hex(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let braces = v.first() == Some(&b'{');
    let s = if braces { &v[1..] } else { v };
    let mut out = [0u8; 16];
    let mut i = 0;
    for (byte, o) in out.iter_mut().enumerate() {
        *o = hex(*s.get(i)?)? << 4 | hex(*s.get(i + 1)?)?;
        i += 2;
        if s.get(i) == Some(&b'-') && byte % 2 == 1 && byte < 15 {
            i += 1;
        }
    }
    if braces {
        if s.get(i) != Some(&b'}') {
            return None;
        }
        i += 1;
    }
    (i == s.len()).then_some(out)
}

// ---------------------------------------------------------------------------------------
// bytea

fn check_bytea(v: &[u8]) -> Result<(), String> {
    if v.len() >= 2 && v[0] == b'\\' && v[1] == b'x' {
        let mut digits = 0usize;
        for &b in &v[2..] {
            if b.is_ascii_hexdigit() {
                digits += 1;
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') && digits.is_multiple_of(2) {
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Err("invalid hexadecimal data: odd number of digits".into());
            } else {
                return Err(format!(
                    "invalid hexadecimal digit: \"{}\"",
                    String::from_utf8_lossy(&[b])
                ));
            }
        }
        if digits % 2 == 1 {
            return Err("invalid hexadecimal data: odd number of digits".into());
        }
        return Ok(());
    }
    let mut i = 0;
    while let Some(j) = memchr::memchr(b'\\', &v[i..]) {
        let k = i + j;
        match v.get(k + 1) {
            Some(b'\\') => i = k + 2,
            Some(b'0'..=b'3')
                if v.get(k + 2).is_some_and(|b| (b'0'..=b'7').contains(b))
                    && v.get(k + 3).is_some_and(|b| (b'0'..=b'7').contains(b)) =>
            {
                i = k + 4
            }
            _ => return Err(syntax("bytea")),
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// character varying(n) / character(n): length in characters; excess must be spaces.

fn check_len(v: &[u8], n: usize, t: &str) -> Result<(), String> {
    if v.len() <= n {
        return Ok(()); // never more characters than bytes
    }
    let mut chars = 0;
    for (i, &b) in v.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if chars == n {
                return if v[i..].iter().all(|&b| b == b' ') {
                    Ok(())
                } else {
                    Err(format!("value too long for type {t}({n})"))
                };
            }
            chars += 1;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// json / jsonb

fn check_json(v: &[u8], binary: bool) -> Result<(), String> {
    let t = if binary { "jsonb" } else { "json" };
    let mut buf = v.to_vec();
    let simd_ok = simd_json::to_borrowed_value(&mut buf).is_ok();
    // simd-json is stricter than PostgreSQL's json in two corners (lone surrogate escapes,
    // numbers beyond f64), so a rejection is confirmed by a grammar-only scan.
    if !simd_ok && !json_grammar_ok(v) {
        return Err(syntax(t));
    }
    if binary {
        jsonb_extra(v)?;
    }
    Ok(())
}

fn jsonb_extra(v: &[u8]) -> Result<(), String> {
    let mut i = 0;
    let mut in_str = false;
    while i < v.len() {
        let b = v[i];
        if in_str {
            if b == b'\\' {
                if v.get(i + 1) == Some(&b'u') {
                    let hex = v.get(i + 2..i + 6).unwrap_or(b"");
                    if hex == b"0000" {
                        return Err("unsupported Unicode escape sequence \\u0000 in jsonb".into());
                    }
                    if let Ok(h) = u16::from_str_radix(std::str::from_utf8(hex).unwrap_or(""), 16)
                        && (0xD800..0xE000).contains(&h)
                    {
                        let lo = v.get(i + 8..i + 12).unwrap_or(b"");
                        let pair = (0xD800..0xDC00).contains(&h)
                            && v.get(i + 6..i + 8) == Some(b"\\u")
                            && u16::from_str_radix(std::str::from_utf8(lo).unwrap_or(""), 16)
                                .is_ok_and(|l| (0xDC00..0xE000).contains(&l));
                        if !pair {
                            return Err(syntax("jsonb"));
                        }
                        i += 12;
                        continue;
                    }
                }
                i += 2;
                continue;
            }
            if b == b'"' {
                in_str = false;
            }
        } else if b == b'"' {
            in_str = true;
        } else if b.is_ascii_digit() || b == b'-' {
            // A number: it becomes numeric, which has limits.
            let st = i;
            while i < v.len() && matches!(v[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                i += 1;
            }
            check_numeric(&v[st..i], None).map_err(|e| format!("{e} (in jsonb)"))?;
            continue;
        }
        i += 1;
    }
    Ok(())
}

/// JSON grammar (RFC 8259) without value limits, as PostgreSQL's json lexer checks it.
fn json_grammar_ok(v: &[u8]) -> bool {
    let mut p = JsonP { s: v, i: 0 };
    p.ws();
    if !p.value(0) {
        return false;
    }
    p.ws();
    p.i == v.len()
}

struct JsonP<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonP<'_> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }
    fn lit(&mut self, w: &[u8]) -> bool {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }
    fn value(&mut self, depth: usize) -> bool {
        if depth > 6400 {
            return false;
        }
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                self.ws();
                if self.lit(b"}") {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.string() {
                        return false;
                    }
                    self.ws();
                    if !self.lit(b":") {
                        return false;
                    }
                    self.ws();
                    if !self.value(depth + 1) {
                        return false;
                    }
                    self.ws();
                    if self.lit(b"}") {
                        return true;
                    }
                    if !self.lit(b",") {
                        return false;
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                self.ws();
                if self.lit(b"]") {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.value(depth + 1) {
                        return false;
                    }
                    self.ws();
                    if self.lit(b"]") {
                        return true;
                    }
                    if !self.lit(b",") {
                        return false;
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(b't') => self.lit(b"true"),
            Some(b'f') => self.lit(b"false"),
            Some(b'n') => self.lit(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }
    fn string(&mut self) -> bool {
        if !self.lit(b"\"") {
            return false;
        }
        while let Some(&b) = self.s.get(self.i) {
            self.i += 1;
            match b {
                b'"' => return true,
                b'\\' => match self.s.get(self.i) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                    Some(b'u') => {
                        let h = self.s.get(self.i + 1..self.i + 5);
                        if !h.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return false;
                        }
                        self.i += 5;
                    }
                    _ => return false,
                },
                0..=0x1f => return false,
                _ => {}
            }
        }
        false
    }
    fn number(&mut self) -> bool {
        self.lit(b"-");
        let st = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        let n = self.i - st;
        if n == 0 || (n > 1 && self.s[st] == b'0') {
            return false;
        }
        if self.lit(b".") {
            let f = self.i;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            if self.i == f {
                return false;
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let f = self.i;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            if self.i == f {
                return false;
            }
        }
        true
    }
}

// ---------------------------------------------------------------------------------------
// arrays (array_in): braces, quoting, NULL, rectangular dimensions, optional `[l:u]=`.

const MAXDIM: usize = 6;

fn check_array(v: &[u8], elem: &PgType) -> Result<(), String> {
    let bad = |why: &str| format!("malformed array literal: {why}");
    let s = trim_start(v);
    let mut c = Cursor { s, i: 0 };
    let mut declared: Vec<i64> = Vec::new();
    while c.peek() == Some(b'[') {
        c.i += 1;
        c.spaces();
        let neg = c.eat(b'-');
        let a = c.digits();
        if a.is_empty() {
            return Err(bad("bad dimension"));
        }
        let mut lo = num(a) * if neg { -1 } else { 1 };
        let mut hi = lo;
        if c.eat(b':') {
            let neg = c.eat(b'-');
            let b = c.digits();
            if b.is_empty() {
                return Err(bad("bad dimension"));
            }
            hi = num(b) * if neg { -1 } else { 1 };
        } else {
            lo = 1;
        }
        if !c.eat(b']') {
            return Err(bad("missing \"]\""));
        }
        if hi < lo {
            return Err("upper bound cannot be less than lower bound".into());
        }
        declared.push(hi - lo + 1);
    }
    if !declared.is_empty() {
        c.spaces();
        if !c.eat(b'=') {
            return Err(bad("missing \"=\" after dimensions"));
        }
        c.spaces();
    }
    if c.peek() != Some(b'{') {
        return Err(bad("must start with \"{\""));
    }
    let mut sizes: Vec<Option<i64>> = vec![None; MAXDIM + 1];
    let mut leaf_depth: Option<usize> = None;
    parse_level(&mut c, 1, &mut sizes, &mut leaf_depth, elem)?;
    c.spaces();
    if !c.done() {
        return Err(bad("junk after closing right brace"));
    }
    if !declared.is_empty() {
        let ndim = leaf_depth.unwrap_or(0);
        let actual: Vec<i64> = sizes[1..=ndim.min(MAXDIM)]
            .iter()
            .map(|x| x.unwrap_or(0))
            .collect();
        if actual != declared {
            return Err(bad(
                "specified array dimensions do not match array contents",
            ));
        }
    }
    Ok(())
}

fn parse_level(
    c: &mut Cursor,
    depth: usize,
    sizes: &mut [Option<i64>],
    leaf: &mut Option<usize>,
    elem: &PgType,
) -> Result<(), String> {
    let bad = |why: &str| format!("malformed array literal: {why}");
    if depth > MAXDIM {
        return Err("number of array dimensions exceeds the maximum allowed (6)".into());
    }
    c.i += 1; // '{'
    c.spaces();
    let mut count: i64 = 0;
    if c.eat(b'}') {
        // `{}` is only valid as the whole (empty) array.
        if depth != 1 {
            return Err(bad("empty sub-array"));
        }
        *leaf = Some(0);
        return Ok(());
    }
    loop {
        c.spaces();
        match c.peek() {
            Some(b'{') => {
                if *leaf == Some(depth) {
                    return Err(bad("unexpected \"{\""));
                }
                parse_level(c, depth + 1, sizes, leaf, elem)?;
            }
            Some(b'"') => {
                if leaf.is_some_and(|l| l != depth) {
                    return Err(bad("unexpected array element"));
                }
                *leaf = Some(depth);
                c.i += 1;
                let mut val = Vec::new();
                loop {
                    match c.peek() {
                        None => return Err(bad("unexpected end of input")),
                        Some(b'"') => {
                            c.i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            c.i += 1;
                            match c.peek() {
                                None => return Err(bad("unexpected end of input")),
                                Some(b) => val.push(b),
                            }
                            c.i += 1;
                        }
                        Some(b) => {
                            val.push(b);
                            c.i += 1;
                        }
                    }
                }
                elem.check(&val)
                    .map_err(|e| format!("array element \"{}\": {e}", excerpt(&val)))?;
            }
            Some(b',') | Some(b'}') | None => return Err(bad("unexpected \",\" or \"}\"")),
            Some(_) => {
                if leaf.is_some_and(|l| l != depth) {
                    return Err(bad("unexpected array element"));
                }
                *leaf = Some(depth);
                let mut val = Vec::new();
                let mut last_escaped = 0usize; // length of val that must not be trimmed
                let mut escaped = false;
                loop {
                    match c.peek() {
                        None => return Err(bad("unexpected end of input")),
                        Some(b',') | Some(b'}') => break,
                        Some(b'"') | Some(b'{') => return Err(bad("unexpected character")),
                        Some(b'\\') => {
                            c.i += 1;
                            match c.peek() {
                                None => return Err(bad("unexpected end of input")),
                                Some(b) => val.push(b),
                            }
                            c.i += 1;
                            escaped = true;
                            last_escaped = val.len();
                        }
                        Some(b) => {
                            val.push(b);
                            c.i += 1;
                        }
                    }
                }
                while val.len() > last_escaped && val.last().is_some_and(|&b| is_space(b)) {
                    val.pop();
                }
                let is_null = !escaped && val.eq_ignore_ascii_case(b"null");
                if !is_null {
                    elem.check(&val)
                        .map_err(|e| format!("array element \"{}\": {e}", excerpt(&val)))?;
                }
            }
        }
        count += 1;
        c.spaces();
        if c.eat(b',') {
            continue;
        }
        if c.eat(b'}') {
            break;
        }
        return Err(bad("expected \",\" or \"}\""));
    }
    match sizes[depth] {
        None => sizes[depth] = Some(count),
        Some(n) if n == count => {}
        Some(_) => {
            return Err(bad(
                "multidimensional arrays must have sub-arrays with matching dimensions",
            ));
        }
    }
    Ok(())
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
    use super::*;

    /// Type names PostgreSQL refuses in CREATE TABLE are errors, not unconstrained types;
    /// types it has but csvcheck does not check are not (issue 10).
    #[test]
    fn type_names_postgresql_refuses() {
        let cat = Catalog::default();
        for bad in [
            "varchar(-1)",
            "varchar(0)",
            "character varying(10485761)",
            "char(0)",
            "varchar(x)",
            "varchar(1,2)",
            "numeric(0)",
            "numeric(1001)",
            "numeric(5,1001)",
            "float(54)",
            "timestamp(-1)",
            "bit(0)",
            "varchar(-1)[]",
        ] {
            assert!(check_type_name(bad, &cat, false).is_err(), "{bad}");
        }
        for ok in [
            "varchar(1)",
            "numeric(1000,-1000)",
            "timestamp(9) with time zone",
            "interval day to second(3)",
            "int9",
            "public.whatever",
        ] {
            assert!(check_type_name(ok, &cat, false).is_ok(), "{ok}");
        }
        for unknown in ["int9", "txt", "int9[]", "public.whatever"] {
            assert!(check_type_name(unknown, &cat, true).is_err(), "{unknown}");
        }
        for known in [
            "point",
            "inet",
            "int4range[]",
            "bit varying(3)",
            "int8",
            "\"char\"",
        ] {
            assert!(check_type_name(known, &cat, true).is_ok(), "{known}");
        }
        assert_eq!(
            check_type_name("character varying(5)", &cat, true),
            Ok(PgType::Varchar(5))
        );
    }

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
    fn type_names() {
        let c = Catalog::default();
        assert_eq!(parse_type("character varying(16)", &c), PgType::Varchar(16));
        assert_eq!(parse_type("CHARACTER(2)", &c), PgType::Char(2));
        assert_eq!(parse_type("character", &c), PgType::Char(1));
        assert_eq!(
            parse_type("numeric(24, 12)", &c),
            PgType::Numeric(Some((24, 12)))
        );
        assert_eq!(parse_type("numeric(5)", &c), PgType::Numeric(Some((5, 0))));
        assert_eq!(
            parse_type("timestamp(3) with time zone", &c),
            PgType::TimestampTz
        );
        assert_eq!(
            parse_type("timestamp without time zone", &c),
            PgType::Timestamp
        );
        assert_eq!(
            parse_type("integer[]", &c),
            PgType::Array(Box::new(PgType::Int4))
        );
        assert_eq!(
            parse_type("_int8", &c),
            PgType::Array(Box::new(PgType::Int8))
        );
        assert_eq!(parse_type("float(10)", &c), PgType::Float4);
        assert_eq!(parse_type("interval day to second", &c), PgType::Interval);
        assert!(matches!(parse_type("point", &c), PgType::Unknown(_)));
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
