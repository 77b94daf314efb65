//! Values in the data that a target release refuses although its schema takes the column:
//! numeric `Infinity` and `-Infinity` (PostgreSQL 14's) on a YugabyteDB release built on
//! PostgreSQL 11, whose numeric input refuses them (`invalid input syntax for type numeric`),
//! so the table's load would stop at the first one.
//!
//! pgdump2csv reads back the CSV it wrote for each table with a numeric column, only when the
//! target is such a release (a second read of those tables; nothing for any other target),
//! and the report's data section names each table, column and value with its first record.

use super::version::TargetVersion;
use super::{TargetKind, rules::Holds};
use crate::io::error::{IoContext, Result};
use std::io::Read;
use std::path::Path;

/// The releases whose base refuses numeric infinities: YugabyteDB on PostgreSQL 11.
const NO_NUMERIC_INFINITY: Holds = super::rules::YB_PG11;

/// The rule's id, words and page (the report's data section and --strict).
pub const RULE: &str = "yb-numeric-infinity";
/// Why.
pub const REASON: &str = "numeric Infinity and -Infinity are PostgreSQL 14's; PostgreSQL 11, which YSQL is built on up to 2024.2, refuses them (invalid input syntax for type numeric), so the table's load stops at the first: change or remove those values, or load into a release on PostgreSQL 15";
/// Where it comes from.
pub const DOC: &str = "https://www.postgresql.org/docs/release/14.0/";

/// Values of one column the release refuses.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Refused {
    /// Schema, unquoted.
    pub schema: String,
    /// Table, unquoted.
    pub table: String,
    /// Column, unquoted.
    pub column: String,
    /// The value as the CSV holds it (`Infinity`).
    pub value: String,
    /// How many records hold it in that column.
    pub count: u64,
    /// The first record that does (1-based, the header not counted).
    pub first_record: u64,
    /// The rule.
    pub rule: &'static str,
}

/// Whether `version` refuses numeric infinities.
pub fn checks_numeric_infinity(version: Option<TargetVersion>) -> bool {
    version.is_some_and(|v| v.kind == TargetKind::Yugabytedb && NO_NUMERIC_INFINITY.covers(v.key()))
}

/// Whether a column type (as the dump wrote it) is numeric.
pub fn is_numeric(type_name: &str) -> bool {
    let t = type_name.strip_prefix("pg_catalog.").unwrap_or(type_name);
    let base = t.split('(').next().unwrap_or(t).trim();
    matches!(base, "numeric" | "decimal")
}

/// The numeric infinities in the CSV at `path` (gzip or plain, `header` when its first
/// record is a header), in the columns `numeric` (indexes into `columns`).
pub fn numeric_infinities(
    path: &Path,
    header: bool,
    schema: &str,
    table: &str,
    columns: &[String],
    numeric: &[usize],
) -> Result<Vec<Refused>> {
    let inp = crate::io::input::open_with(Some(path), false)?;
    let mut r = inp.reader;
    let mut found: Vec<Refused> = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    // A quote-aware walk over the fields (RFC 4180 as pgdump2csv writes it); only the
    // fields of numeric columns are kept, and only while they could still be an infinity.
    let (mut field, mut record, mut in_q, mut after_q) = (0usize, 1u64, false, false);
    let mut cur: Vec<u8> = Vec::new();
    let mut keep = numeric.contains(&0);
    let mut first = true;
    let mut finish_field = |field: usize, record: u64, cur: &mut Vec<u8>, keep: bool| {
        if keep && !(header && record == 1) {
            let v = cur.as_slice();
            if matches!(
                v,
                b"Infinity" | b"-Infinity" | b"+Infinity" | b"inf" | b"-inf"
            ) {
                let value = String::from_utf8_lossy(v).into_owned();
                let rec = if header { record - 1 } else { record };
                match found
                    .iter_mut()
                    .find(|f| f.column == columns[field] && f.value == value)
                {
                    Some(f) => f.count += 1,
                    None => found.push(Refused {
                        schema: schema.to_string(),
                        table: table.to_string(),
                        column: columns[field].clone(),
                        value,
                        count: 1,
                        first_record: rec,
                        rule: RULE,
                    }),
                }
            }
        }
        cur.clear();
    };
    loop {
        let n = r.read(&mut buf).at(path)?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if in_q {
                if b == b'"' {
                    in_q = false;
                    after_q = true;
                } else if keep && cur.len() < 16 {
                    cur.push(b);
                }
                continue;
            }
            match b {
                b'"' => {
                    if after_q && keep && cur.len() < 16 {
                        cur.push(b'"');
                    }
                    in_q = true;
                    after_q = false;
                }
                b',' => {
                    finish_field(field, record, &mut cur, keep);
                    field += 1;
                    keep = numeric.contains(&field);
                    after_q = false;
                }
                b'\n' => {
                    finish_field(field, record, &mut cur, keep);
                    field = 0;
                    record += 1;
                    keep = numeric.contains(&0);
                    after_q = false;
                }
                b'\r' => {}
                _ => {
                    after_q = false;
                    if keep && cur.len() < 16 {
                        cur.push(b);
                    }
                }
            }
            first = false;
        }
    }
    if !first && (field > 0 || !cur.is_empty()) {
        finish_field(field, record, &mut cur, keep);
    }
    Ok(found)
}
