//! A small, strict, quote-aware CSV parser for tests (std only).
//!
//! Use with `use crate::support::csvparse;`.
//!
//! Semantics are those of PostgreSQL `COPY ... FROM ... (FORMAT csv)` with the
//! defaults `DELIMITER ','`, `QUOTE '"'`, `ESCAPE '"'`:
//! * records end at `\n` outside quotes (a final record without `\n` is accepted);
//! * a quoted field may contain `,`, `\n`, `\r` and `""` (one `"`);
//! * an **unquoted** field equal to the NULL string (default: empty) is NULL
//!   (`None`); a quoted field is never NULL, so `""` is `Some(b"")`;
//! * an empty line is a record with one NULL field (what COPY makes of it in a
//!   one-column table).
//!
//! Strict on purpose, to catch writer bugs: an unquoted `\r`, a `"` inside an
//! unquoted field, anything but `,`/newline/end after a closing quote, and an
//! unterminated quote are errors. Values are bytes (no UTF-8 requirement).
//!
//! Why not the `csv` crate (issue 11 asked whether it could be this oracle): it does not say
//! whether a field was quoted, so it cannot tell NULL (unquoted empty, or the NULL string)
//! from a quoted `""`, which is what these tests check; and it is lenient where this parser
//! must be strict (a stray `"` or `\r` in an unquoted field is accepted as data). `csv` is a
//! dev-dependency only, for tests that just need the fields.

#![allow(dead_code)]

use std::fmt;

pub type Field = Option<Vec<u8>>;
pub type Record = Vec<Field>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvError {
    /// Byte offset of the problem in the input.
    pub offset: usize,
    /// 1-based record number.
    pub record: usize,
    pub msg: String,
}

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CSV error at byte {} (record {}): {}",
            self.offset, self.record, self.msg
        )
    }
}

impl std::error::Error for CsvError {}

/// Parses with the default NULL string (unquoted empty field).
pub fn parse(data: &[u8]) -> Result<Vec<Record>, CsvError> {
    parse_with(data, b"")
}

/// Parses; an unquoted field equal to `null` is NULL.
pub fn parse_with(data: &[u8], null: &[u8]) -> Result<Vec<Record>, CsvError> {
    let mut records = Vec::new();
    let mut record: Record = Vec::new();
    let mut i = 0;
    let n = data.len();
    if n == 0 {
        return Ok(records);
    }
    let err = |offset: usize, record: usize, msg: &str| CsvError {
        offset,
        record,
        msg: msg.to_string(),
    };
    loop {
        // At the start of a field.
        let recno = records.len() + 1;
        if i < n && data[i] == b'"' {
            // Quoted field.
            let start = i;
            i += 1;
            let mut val = Vec::new();
            loop {
                if i >= n {
                    return Err(err(start, recno, "unterminated quoted field"));
                }
                if data[i] == b'"' {
                    if i + 1 < n && data[i + 1] == b'"' {
                        val.push(b'"');
                        i += 2;
                    } else {
                        i += 1;
                        break;
                    }
                } else {
                    val.push(data[i]);
                    i += 1;
                }
            }
            record.push(Some(val));
            if i < n && data[i] != b',' && data[i] != b'\n' {
                return Err(err(
                    i,
                    recno,
                    &format!("byte {:?} after closing quote", data[i] as char),
                ));
            }
        } else {
            let start = i;
            while i < n && data[i] != b',' && data[i] != b'\n' {
                match data[i] {
                    b'"' => return Err(err(i, recno, "quote inside unquoted field")),
                    b'\r' => return Err(err(i, recno, "unquoted carriage return")),
                    _ => i += 1,
                }
            }
            let raw = &data[start..i];
            record.push(if raw == null {
                None
            } else {
                Some(raw.to_vec())
            });
        }
        // After a field: delimiter, end of record, or end of input.
        if i >= n {
            records.push(std::mem::take(&mut record));
            return Ok(records);
        }
        if data[i] == b',' {
            i += 1;
            continue;
        }
        // data[i] == b'\n'
        i += 1;
        records.push(std::mem::take(&mut record));
        if i >= n {
            return Ok(records);
        }
    }
}

/// 1-based record numbers of records that start with an **unquoted** line that is
/// exactly `\.`: PostgreSQL < 18 `COPY ... FROM` (and psql) take such a line as the
/// end-of-data marker even in CSV mode, so a writer must quote a lone `\.` value.
pub fn unquoted_end_markers(data: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut in_quote = false;
    let mut line_start = true;
    let mut record = 1;
    for (i, &b) in data.iter().enumerate() {
        if line_start && !in_quote {
            let rest = &data[i..];
            if rest == b"\\." || rest.starts_with(b"\\.\n") || rest.starts_with(b"\\.\r\n") {
                out.push(record);
            }
        }
        line_start = b == b'\n';
        if b == b'"' {
            in_quote = !in_quote;
        } else if b == b'\n' && !in_quote {
            record += 1;
        }
    }
    out
}

/// Renders a field for failure messages: `NULL`, or a Rust-style escaped string.
pub fn show_field(f: &Field) -> String {
    match f {
        None => "NULL".to_string(),
        Some(v) => {
            let s = String::from_utf8_lossy(v);
            let mut out = format!("{s:?}");
            if out.len() > 120 {
                let cut: String = out.chars().take(100).collect();
                out = format!("{cut}...\" ({} bytes)", v.len());
            }
            out
        }
    }
}

pub fn show_record(r: &Record) -> String {
    let parts: Vec<String> = r.iter().map(show_field).collect();
    format!("[{}]", parts.join(", "))
}

/// Compares two parsed CSVs; on difference returns a message naming the first few
/// differing records.
pub fn diff(expected: &[Record], got: &[Record], max_shown: usize) -> Option<String> {
    if expected == got {
        return None;
    }
    let mut msg = String::new();
    if expected.len() != got.len() {
        msg.push_str(&format!(
            "record count: expected {}, got {}\n",
            expected.len(),
            got.len()
        ));
    }
    let mut shown = 0;
    for i in 0..expected.len().max(got.len()) {
        let (e, g) = (expected.get(i), got.get(i));
        if e != g {
            msg.push_str(&format!(
                "  record {}:\n    expected {}\n    got      {}\n",
                i + 1,
                e.map(show_record).unwrap_or_else(|| "(none)".into()),
                g.map(show_record).unwrap_or_else(|| "(none)".into()),
            ));
            shown += 1;
            if shown >= max_shown {
                msg.push_str("  ...\n");
                break;
            }
        }
    }
    Some(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Field {
        Some(v.as_bytes().to_vec())
    }

    #[test]
    fn basics() {
        assert_eq!(parse(b"").unwrap(), Vec::<Record>::new());
        assert_eq!(parse(b"a,b\n").unwrap(), vec![vec![s("a"), s("b")]]);
        assert_eq!(parse(b"a,b").unwrap(), vec![vec![s("a"), s("b")]]);
        assert_eq!(parse(b",\"\"\n").unwrap(), vec![vec![None, s("")]]);
        assert_eq!(parse(b"\n\n").unwrap(), vec![vec![None], vec![None]]);
        assert_eq!(parse(b"\"\"\n").unwrap(), vec![vec![s("")]]);
        assert_eq!(
            parse(b"\"a,\"\"b\"\"\r\nc\",\\.\n").unwrap(),
            vec![vec![s("a,\"b\"\r\nc"), s("\\.")]]
        );
        assert_eq!(parse(b"1,\n").unwrap(), vec![vec![s("1"), None]]);
        assert_eq!(
            parse_with(b"\\N,,\"\\N\"\n", b"\\N").unwrap(),
            vec![vec![None, s(""), s("\\N")]]
        );
    }

    #[test]
    fn end_markers() {
        assert_eq!(unquoted_end_markers(b"a\n\\.\nb\n\\."), vec![2, 4]);
        assert!(unquoted_end_markers(b"\"\\.\"\n\"x\n\\.\ny\"\n\\.x\n").is_empty());
    }

    #[test]
    fn strict() {
        assert!(parse(b"a\r\n").is_err());
        assert!(parse(b"a\"b\n").is_err());
        assert!(parse(b"\"a\"b\n").is_err());
        assert!(parse(b"\"abc\n").is_err());
    }
}
