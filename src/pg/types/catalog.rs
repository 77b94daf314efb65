//! The type table: the column types csvcheck knows ([`PgType`]), the enums and domains a schema
//! declares ([`Catalog`]), and how a type name as pg_dump or a user writes it resolves to one
//! of them (or is refused, as PostgreSQL refuses it).

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

/// PostgreSQL's built-in range and multirange types (names as [`parse_type`] normalises
/// them): csvcheck does not check their values, and CockroachDB has none (schemaconv).
pub const RANGE_TYPES: &[&str] = &[
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
];

/// PostgreSQL's other built-in types that csvcheck does not check value by value but that
/// exist, so a column of one (or of a [`RANGE_TYPES`] one) is a note, not a typo (names as
/// [`parse_type`] normalises them).
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
        if unknown && !BUILTIN_UNCHECKED.contains(&base) && !RANGE_TYPES.contains(&base) {
            return Err(format!("unknown type '{name}'"));
        }
    }
    Ok(t)
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
}
