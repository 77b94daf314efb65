//! Which columns make the key and how each is compared: parsing `-k` specs, resolving names
//! against a header or a manifest, and turning one raw record into its encoded key.

use super::key::{self, KeyType};
use crate::csv::records::{Field, split_fields, split_fields_upto};
use crate::io::error::{Error, Result};
use crate::manifest::Table;

/// Where NULL key values go, when they are allowed at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Nulls {
    /// Before every value (also for descending keys).
    First,
    /// After every value (also for descending keys).
    Last,
}

/// One `-k` spec as typed: the column (number or name), an optional type, the direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyArg {
    /// A 1-based column number or a column name.
    pub column: ColumnRef,
    /// The type, when given.
    pub ty: Option<KeyType>,
    /// Descending.
    pub desc: bool,
}

/// A column reference as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnRef {
    /// 1-based number.
    Number(usize),
    /// Name from the header or manifest.
    Name(String),
}

impl ColumnRef {
    /// The reference as typed.
    pub fn text(&self) -> String {
        match self {
            ColumnRef::Number(n) => n.to_string(),
            ColumnRef::Name(n) => n.clone(),
        }
    }
}

/// The one column-reference rule of the toolkit (`-k`, csvsplit's `--by-hash` columns,
/// csvcheck's `--key`): a name of `names` (a header or manifest; may be empty) first, else a
/// 1-based column number, within `names` when they are known. Returns the 0-based index.
pub fn resolve_column(text: &str, names: &[String]) -> Result<usize> {
    if let Some(i) = names.iter().position(|n| n == text) {
        return Ok(i);
    }
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<usize>() {
            Ok(n) if n >= 1 && (names.is_empty() || n <= names.len()) => Ok(n - 1),
            Ok(0) => Err(Error::Usage(format!(
                "column '{text}': column numbers start at 1"
            ))),
            _ => Err(Error::Usage(format!(
                "column {text} is out of range: there are {} columns ({})",
                names.len(),
                names.join(", ")
            ))),
        };
    }
    if names.is_empty() {
        return Err(Error::Usage(format!(
            "column '{text}' is a name: use --header or --manifest, or give its 1-based number"
        )));
    }
    Err(Error::Usage(format!(
        "no column named '{text}' (columns: {})",
        names.join(", ")
    )))
}

impl KeyArg {
    /// Parses `COLUMN[:TYPE][:desc]`.
    pub fn parse(s: &str) -> Result<KeyArg> {
        let bad = |why: &str| Error::Usage(format!("bad key '{s}': {why}"));
        let mut parts = s.split(':');
        let col = parts.next().unwrap_or("").trim();
        if col.is_empty() {
            return Err(bad("no column"));
        }
        let column = if col.bytes().all(|b| b.is_ascii_digit()) {
            match col.parse::<usize>() {
                Ok(n) if n >= 1 => ColumnRef::Number(n),
                Ok(_) => return Err(bad("column numbers start at 1")),
                Err(_) => return Err(bad("column number out of range")),
            }
        } else {
            ColumnRef::Name(col.to_string())
        };
        let mut arg = KeyArg {
            column,
            ty: None,
            desc: false,
        };
        for p in parts {
            let p = p.trim();
            if p.eq_ignore_ascii_case("desc") {
                arg.desc = true;
            } else if p.eq_ignore_ascii_case("asc") {
                arg.desc = false;
            } else if let Some(t) = KeyType::from_cli(p) {
                if arg.ty.replace(t).is_some() {
                    return Err(bad("two types"));
                }
            } else {
                return Err(bad(&format!(
                    "unknown type or direction '{p}' (types: int, numeric, float, text, uuid, \
                     bool, date, timestamp, timestamptz; direction: asc, desc)"
                )));
            }
        }
        Ok(arg)
    }
}

/// One resolved key column.
#[derive(Debug, Clone)]
pub struct KeyPart {
    /// 0-based field index.
    pub col: usize,
    /// How it compares.
    pub ty: KeyType,
    /// Descending.
    pub desc: bool,
    /// Name for messages: the column name, or its number.
    pub label: String,
}

/// The whole key: parts in order, NULL handling and the NULL token.
#[derive(Debug, Clone)]
pub struct KeySpec {
    /// Key columns, most significant first.
    pub parts: Vec<KeyPart>,
    /// Where NULLs go; `None` makes a NULL key an error.
    pub nulls: Option<Nulls>,
    /// The NULL token: empty means an unquoted empty field.
    pub null_token: Vec<u8>,
    /// Fields needed to reach the last key column.
    max_fields: usize,
}

impl KeySpec {
    /// Resolves `args` against column names (from a header or manifest; may be empty) and
    /// manifest types. With no args, `default_key` (a manifest primary key) is used. `tool`
    /// prefixes warnings (a manifest type compared as text).
    pub fn resolve(
        tool: &str,
        args: &[KeyArg],
        names: &[String],
        table: Option<&Table>,
        nulls: Option<Nulls>,
        null_token: Vec<u8>,
    ) -> Result<KeySpec> {
        let mut owned = Vec::new();
        let args = if args.is_empty() {
            match table {
                Some(t) if !t.primary_key.is_empty() => {
                    for c in &t.primary_key {
                        owned.push(KeyArg {
                            column: ColumnRef::Name(c.clone()),
                            ty: None,
                            desc: false,
                        });
                    }
                    &owned[..]
                }
                Some(t) => {
                    return Err(Error::Usage(format!(
                        "table {} has no primary key in the manifest; give the key with -k",
                        t.qualified()
                    )));
                }
                None => {
                    return Err(Error::Usage(
                        "no key: give -k COLUMN[:TYPE][:desc], or -m MANIFEST (and -t TABLE)"
                            .into(),
                    ));
                }
            }
        } else {
            args
        };
        let mut parts = Vec::new();
        for a in args {
            let col = resolve_column(&a.column.text(), names)?;
            let label = names.get(col).cloned().unwrap_or_else(|| a.column.text());
            let ty = match a.ty {
                Some(t) => t,
                None => match table.and_then(|t| t.columns.get(col)) {
                    Some(c) => {
                        let pg = c.type_name.as_deref().unwrap_or("text");
                        let (t, known) = KeyType::from_pg(pg);
                        if !known {
                            let (label, pg) = (
                                crate::io::names::Escaped(&label),
                                crate::io::names::Escaped(pg),
                            );
                            eprintln!(
                                "{tool}: warning: key column {label} has type {pg}, which is \
                                 compared as text (bytewise); give -k {label}:TYPE to override"
                            );
                        }
                        t
                    }
                    None => KeyType::Text,
                },
            };
            parts.push(KeyPart {
                col,
                ty,
                desc: a.desc,
                label,
            });
        }
        Ok(KeySpec {
            max_fields: parts.iter().map(|p| p.col + 1).max().unwrap_or(0),
            parts,
            nulls,
            null_token,
        })
    }

    /// The same key over a record that holds just the key columns, in key order (a
    /// `--split-points` line): part `i` reads field `i`.
    pub fn positional(&self) -> KeySpec {
        let parts: Vec<KeyPart> = self
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| KeyPart {
                col: i,
                ..p.clone()
            })
            .collect();
        KeySpec {
            max_fields: parts.len(),
            parts,
            nulls: self.nulls,
            null_token: self.null_token.clone(),
        }
    }

    /// The raw key fields of `rec` (quotes kept, as in the input), in key order, joined by
    /// commas: a CSV line that [`KeySpec::positional`] reads back as the same key.
    pub fn raw_key(&self, rec: &[u8]) -> Vec<u8> {
        let mut fields = Vec::new();
        let _ = split_fields_upto(rec, self.max_fields, &mut fields);
        let mut out = Vec::new();
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            if let Some(f) = fields.get(p.col) {
                out.extend_from_slice(f.raw(rec));
            }
        }
        out
    }

    /// Appends the encoded key of `rec` to `out`. `fields` is scratch space. The error is a
    /// message for [`Error::input`].
    pub fn encode_record(
        &self,
        rec: &[u8],
        fields: &mut Vec<Field>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        split_fields_upto(rec, self.max_fields, fields)
            .map_err(|m| format!("malformed CSV: {m}"))?;
        for p in &self.parts {
            let Some(f) = fields.get(p.col) else {
                return Err(format!(
                    "the record has {} field(s); key column {} is missing",
                    fields.len(),
                    p.label
                ));
            };
            if !f.quoted && f.raw(rec) == self.null_token.as_slice() {
                match self.nulls {
                    None => {
                        return Err(format!(
                            "NULL in key column {} (use --nulls first|last to allow it)",
                            p.label
                        ));
                    }
                    Some(Nulls::First) => out.push(0),
                    Some(Nulls::Last) => out.push(2),
                }
                continue;
            }
            if self.nulls.is_some() {
                out.push(1);
            }
            let start = out.len();
            let v = f.value(rec);
            if key::encode(p.ty, &v, out).is_err() {
                return Err(format!(
                    "key column {}: '{}' is not a valid {}",
                    p.label,
                    show(&v),
                    p.ty
                ));
            }
            if p.desc {
                for b in &mut out[start..] {
                    *b = !*b;
                }
            }
        }
        Ok(())
    }

    /// The key values of `rec` in key order: unquoted, `None` for NULL (lossy UTF-8; a
    /// missing or malformed field is `None` too, which [`KeySpec::encode_record`] rejects).
    pub fn values(&self, rec: &[u8]) -> Vec<Option<String>> {
        let mut fields = Vec::new();
        let _ = split_fields_upto(rec, self.max_fields, &mut fields);
        self.parts
            .iter()
            .map(|p| match fields.get(p.col) {
                Some(f) if !f.quoted && f.raw(rec) == self.null_token.as_slice() => None,
                Some(f) => Some(String::from_utf8_lossy(&f.value(rec)).into_owned()),
                None => None,
            })
            .collect()
    }

    /// The key of `rec` for messages, like `(c_w_id, c_id)=(1, 7)`.
    pub fn display(&self, rec: &[u8]) -> String {
        let mut fields = Vec::new();
        let _ = split_fields(rec, &mut fields);
        let names: Vec<&str> = self.parts.iter().map(|p| p.label.as_str()).collect();
        let vals: Vec<String> = self
            .parts
            .iter()
            .map(|p| match fields.get(p.col) {
                Some(f) if !f.quoted && f.raw(rec) == self.null_token.as_slice() => "NULL".into(),
                Some(f) => show(&f.value(rec)),
                None => "?".into(),
            })
            .collect();
        format!("({})=({})", names.join(", "), vals.join(", "))
    }
}

/// A value for a message: lossy UTF-8, control characters escaped, long values cut.
pub fn show(v: &[u8]) -> String {
    let s = String::from_utf8_lossy(v);
    let mut out: String = s.chars().take(60).flat_map(char::escape_debug).collect();
    if s.chars().count() > 60 {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_column_reference_rule() {
        let names: Vec<String> = ["id", "2", "name"].map(String::from).to_vec();
        assert_eq!(resolve_column("name", &names).unwrap(), 2);
        // A name first, also when it looks like a number.
        assert_eq!(resolve_column("2", &names).unwrap(), 1);
        assert_eq!(resolve_column("3", &names).unwrap(), 2);
        assert!(resolve_column("4", &names).is_err());
        assert!(resolve_column("0", &names).is_err());
        let e = resolve_column("nope", &names).unwrap_err().to_string();
        assert!(
            e.contains("no column named 'nope'") && e.contains("id, 2, name"),
            "{e}"
        );
        assert_eq!(resolve_column("7", &[]).unwrap(), 6);
        assert!(resolve_column("id", &[]).is_err());
    }

    #[test]
    fn parse_args() {
        let a = KeyArg::parse("3:int:desc").unwrap();
        assert_eq!(a.column, ColumnRef::Number(3));
        assert_eq!(a.ty, Some(KeyType::Int));
        assert!(a.desc);
        let a = KeyArg::parse("c_id").unwrap();
        assert_eq!(a.column, ColumnRef::Name("c_id".into()));
        assert!(KeyArg::parse("0").is_err());
        assert!(KeyArg::parse("1:wat").is_err());
        assert!(KeyArg::parse("").is_err());
    }

    #[test]
    fn encodes_records() {
        let spec = KeySpec::resolve(
            "pksort",
            &[
                KeyArg::parse("2:int:desc").unwrap(),
                KeyArg::parse("1").unwrap(),
            ],
            &[],
            None,
            None,
            Vec::new(),
        )
        .unwrap();
        let mut f = Vec::new();
        let key = |r: &[u8], f: &mut Vec<Field>| {
            let mut k = Vec::new();
            spec.encode_record(r, f, &mut k).map(|_| k)
        };
        let a = key(b"x,10\n", &mut f).unwrap();
        let b = key(b"\"x\",9\n", &mut f).unwrap();
        assert!(a < b, "10 desc sorts before 9");
        assert!(key(b"x,\n", &mut f).unwrap_err().contains("NULL"));
        assert!(
            key(b"x,ten\n", &mut f)
                .unwrap_err()
                .contains("'ten' is not a valid int")
        );
        assert!(key(b"x\n", &mut f).unwrap_err().contains("missing"));
        assert!(key(b"x,1\"\n", &mut f).unwrap_err().contains("malformed"));
        assert_eq!(spec.display(b"a,\"5\"\n"), "(2, 1)=(5, a)");
        assert_eq!(
            spec.values(b"\"a,\"\"b\",5\r\n"),
            vec![Some("5".to_string()), Some("a,\"b".to_string())]
        );
    }
}
