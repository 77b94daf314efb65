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

mod array;
mod bool;
mod bytea;
pub mod canon;
mod chars;
mod datetime;
mod float;
mod int;
mod interval;
mod json;
mod numeric;
mod uuid;

use array::check_array;
use bool::check_bool;
use bytea::check_bytea;
use chars::check_len;
use datetime::check_datetime;
use float::check_float;
use int::check_int;
pub use int::{int_digits, int_value};
use interval::check_interval;
use json::check_json;
use numeric::check_numeric;
use uuid::check_uuid;
pub use uuid::uuid_bytes;

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
    /// `text` and other unconstrained strings (`varchar`, `name`, `citext`).
    Text,
    /// `bpchar` without a length: any length, but compared as `character(n)` is, trailing
    /// spaces ignored (so `a` and `a ` are one key).
    Bpchar,
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
            ("bpchar", None) => PgType::Bpchar,
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
            PgType::Bpchar => "bpchar".into(),
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
            PgType::Text | PgType::Bpchar | PgType::Unknown(_) => Ok(()),
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
    use super::numeric::{check_numeric_full, numeric_fast};
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
        assert_eq!(parse_type("bpchar", &c), PgType::Bpchar);
        assert_eq!(parse_type("bpchar(3)", &c), PgType::Char(3));
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
