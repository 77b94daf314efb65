//! Canonical forms of values, for `csvload --verify content`: two texts of one type that the
//! type's input function reads as the same value give the same bytes, so a value in a CSV
//! file and the same value printed back by a server (under other session settings, or by
//! another server) hash alike; texts the server keeps apart (a numeric's scale, jsonb's
//! `1.0` and `1`) stay apart.
//!
//! Each type's form is listed in docs/csvload.md ("Content verification"). A value the
//! type's form cannot read (or a type without a form) is compared as its exact text.
//!
//! The parts: `scalar.rs` (numbers, booleans, bytea), `datetime.rs` (dates, times and
//! timestamps), `structured.rs` (arrays, ranges, multiranges, composites) and `json.rs`
//! (jsonb); the forms and the dispatch to them are here.

use super::PgType;

mod datetime;
mod json;
mod scalar;
mod structured;

use datetime::datetime;
pub(super) use datetime::{iso_value, two_digits};
use json::Json;
use scalar::{boolean, bytea, numeric, parse_float};
use structured::{array, composite, multirange, range};

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
