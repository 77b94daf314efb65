//! The columns a CSV is checked against: `--columns` specs, and a header record matched to the
//! columns (its order, and notes where it differs).

use super::config::Column;
use crate::csv::records::Field;
use crate::io::error::{Error, Result};
use crate::pg::types::{Catalog, check_type_name};

/// Splits at commas outside parentheses.
pub(super) fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut st = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[st..i]);
                st = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[st..]);
    out
}

/// Parses `--columns 'id:int8!,name:text,price:numeric(10,2)'`.
pub fn parse_columns(spec: &str) -> Result<Vec<Column>> {
    let cat = Catalog::default();
    let mut cols = Vec::new();
    for part in split_top(spec) {
        let part = part.trim();
        let (name, ty) = part.split_once(':').unwrap_or((part, "text"));
        let (ty, not_null) = match ty.trim().strip_suffix('!') {
            Some(t) => (t, true),
            None => (ty.trim(), false),
        };
        let name = name.trim();
        if name.is_empty() || ty.is_empty() {
            return Err(Error::Usage(format!(
                "invalid --columns entry '{part}' (use name:type or name:type!)"
            )));
        }
        let ty = check_type_name(ty, &cat, true)
            .map_err(|e| Error::Usage(format!("--columns entry '{part}': {e}")))?;
        cols.push(Column {
            name: name.to_string(),
            ty,
            not_null,
        });
    }
    Ok(cols)
}

/// For each header field, the index of the column it names: the header must name every
/// column exactly once.
pub(super) fn header_order(columns: &[Column], names: &[String], file: &str) -> Result<Vec<usize>> {
    let mut perm = Vec::with_capacity(names.len());
    for n in names {
        match columns.iter().position(|c| &c.name == n) {
            Some(i) if !perm.contains(&i) => perm.push(i),
            Some(_) => {
                return Err(Error::file(
                    file,
                    format!("the header names column {n} twice"),
                ));
            }
            None => {
                return Err(Error::file(
                    file,
                    format!(
                        "the header names {n}, which is not a column of the table ({})",
                        columns
                            .iter()
                            .map(|c| c.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    if perm.len() != columns.len() {
        let missing: Vec<&str> = (0..columns.len())
            .filter(|i| !perm.contains(i))
            .map(|i| columns[i].name.as_str())
            .collect();
        return Err(Error::file(
            file,
            format!("the header lacks column(s) {}", missing.join(", ")),
        ));
    }
    Ok(perm)
}

/// Compares a header with the columns: a note where they differ, or an error when the
/// header gives the column order (`order_from_header`: the schema could not), since then a
/// file whose header differs would be checked against the wrong columns. Notes go to `notes`.
pub(super) fn header_notes(
    order_from_header: bool,
    notes: &mut Vec<String>,
    rec0: &[u8],
    f: &[Field],
    nf: usize,
    columns: &[Column],
    file: &str,
) -> Result<()> {
    let mut diffs = Vec::new();
    if nf != columns.len() {
        diffs.push(format!(
            "{file}: header has {nf} fields, the table {} columns",
            columns.len()
        ));
    } else {
        for (k, (x, c)) in f.iter().zip(columns).enumerate() {
            let h = x.value(rec0);
            if h.as_ref() != c.name.as_bytes() {
                diffs.push(format!(
                    "{file}: header field {} is '{}', the table's column is '{}'",
                    k + 1,
                    String::from_utf8_lossy(&h),
                    c.name
                ));
            }
        }
    }
    if order_from_header && !diffs.is_empty() {
        return Err(Error::Usage(format!(
            "{}; the first file's header gave the column order, every file's header must match it",
            diffs.join("; ")
        )));
    }
    notes.extend(diffs);
    Ok(())
}
