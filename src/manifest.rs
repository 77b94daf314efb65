//! The manifest: a versioned JSON description of the tables `pgdump2csv` wrote (columns with
//! PostgreSQL types, NOT NULL, primary key, row and byte counts, CSV options). The other tools
//! read it to learn a table's key and types; the format is documented in `man/dumpshard.7`
//! and `docs/manifest.md`.
//!
//! Format `dumpshard-manifest`, version 1. Readers accept any version-1 manifest and ignore
//! fields they do not know, so new fields can be added without a version bump.

use crate::io::error::{Error, IoContext, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A JSON file that could not be read as `what` (e.g. "manifest"), in words: what is wrong
/// and where (line and column), without the names of the Rust types it was read into
/// (`expected struct Probe`) or serde's phrasing of them.
pub fn json_error(name: &str, what: &str, e: &serde_json::Error) -> Error {
    use serde_json::error::Category;
    let raw = e.to_string();
    // serde_json appends " at line L column C"; the position is given once, below.
    let msg = match raw.rfind(" at line ") {
        Some(i) => &raw[..i],
        None => raw.as_str(),
    };
    let words = match e.classify() {
        Category::Eof => "the file ends before the JSON is complete".to_string(),
        Category::Syntax => format!(
            "not JSON: {}",
            match msg {
                "expected ident" => "a bare word that is not true, false or null",
                "expected value" => "expected a value",
                m => m,
            }
        ),
        Category::Io => msg.to_string(),
        Category::Data => plain_types(msg),
    };
    let at = if e.line() > 0 {
        format!(" (line {}, column {})", e.line(), e.column())
    } else {
        String::new()
    };
    Error::file(name, format!("not a valid {what}: {words}{at}"))
}

/// serde's data error text with Rust type names said in JSON's words.
fn plain_types(msg: &str) -> String {
    let mut out = Vec::new();
    let mut words = msg.split(' ').peekable();
    while let Some(w) = words.next() {
        match w {
            "struct" | "enum" | "tuple" if words.peek().is_some() => {
                let next = words.next().unwrap_or_default();
                let tail: String = next
                    .chars()
                    .skip_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.push(format!(
                    "{}{tail}",
                    match w {
                        "struct" => "a JSON object",
                        "enum" => "one of the known values",
                        _ => "a list",
                    }
                ));
            }
            "sequence" | "sequence," => out.push(w.replace("sequence", "list")),
            "map" | "map," => out.push(w.replace("map", "object")),
            w => {
                let t = w.trim_end_matches(',');
                let plain = match t {
                    "u8" | "u16" | "u32" | "u64" | "i8" | "i16" | "i32" | "i64" | "usize" => {
                        Some("a whole number")
                    }
                    "f32" | "f64" => Some("a number"),
                    _ => None,
                };
                match plain {
                    Some(p) => out.push(format!("{p}{}", &w[t.len()..])),
                    None => out.push(w.to_string()),
                }
            }
        }
    }
    out.join(" ").replace("a a ", "a ").replace("an a ", "a ")
}

/// The `format` value every manifest carries.
pub const FORMAT: &str = "dumpshard-manifest";
/// The manifest version this library writes and reads.
pub const VERSION: u32 = 1;

/// A whole manifest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] for this library.
    pub version: u32,
    /// The tool that wrote it, with its version.
    #[serde(default)]
    pub generator: String,
    /// The input it was made from (`<stdin>` for standard input).
    #[serde(default)]
    pub source: String,
    /// The tables, in the order their data appeared.
    pub tables: Vec<Table>,
    /// When the input was a pg_dump archive: its format, version, compression, versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<crate::pg::dump::archive::Facts>,
    /// The enum types the dump declares, so that `csvcheck -m` checks labels without the
    /// schema file (absent in manifests written before them: csvcheck then needs --ddl).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enums: Vec<EnumDef>,
    /// The domains the dump declares, in declaration order (a domain over a domain or an
    /// enum names one declared before it, as pg_dump orders them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<DomainDef>,
}

/// `CREATE TYPE schema.name AS ENUM (labels)`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EnumDef {
    /// Schema, unquoted (`null` when the dump did not place it).
    pub schema: Option<String>,
    /// Type name, unquoted.
    pub name: String,
    /// The labels in declaration order, exactly as stored.
    pub labels: Vec<String>,
}

/// `CREATE DOMAIN schema.name AS base_type ...`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DomainDef {
    /// Schema, unquoted (`null` when the dump did not place it).
    pub schema: Option<String>,
    /// Domain name, unquoted.
    pub name: String,
    /// The base type as the dump writes it (may be another domain or an enum).
    pub base_type: String,
    /// The domain is declared NOT NULL.
    pub not_null: bool,
    /// The domain has CHECK constraints (not carried: csvcheck does not evaluate them).
    #[serde(default)]
    pub has_check: bool,
}

/// One table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Table {
    /// Schema name, unquoted (as stored in the catalog).
    pub schema: String,
    /// Table name, unquoted.
    pub name: String,
    /// The CSV file, relative to the manifest's directory; `null` when written to stdout.
    pub file: Option<String>,
    /// Columns in CSV order.
    pub columns: Vec<Column>,
    /// Primary-key column names, in key order (empty if the table has none).
    #[serde(default)]
    pub primary_key: Vec<String>,
    /// Data records written (header excluded).
    pub rows: u64,
    /// Bytes of CSV written (uncompressed, header included).
    pub bytes: u64,
    /// Whether the file starts with a header record.
    pub header: bool,
    /// The NULL token: `""` means an unquoted empty field.
    pub null: String,
    /// `"gzip"` when the file is gzip-compressed, else `null`.
    #[serde(default)]
    pub compression: Option<String>,
}

/// One column.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Column {
    /// Column name, unquoted.
    pub name: String,
    /// PostgreSQL type as written in the dump's `CREATE TABLE` (e.g. `numeric(10,2)`,
    /// `timestamp with time zone`, `public.mood`), or `null` when the dump did not say.
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// Declared NOT NULL (primary-key columns count as NOT NULL).
    pub not_null: bool,
}

impl Table {
    /// `schema.name`, unquoted.
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.schema, self.name)
    }

    /// The column names, in order.
    pub fn column_names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }

    /// Index of a column by name.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

impl Manifest {
    /// An empty manifest for `source`.
    pub fn new(source: &str) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            version: VERSION,
            generator: format!("dumpshard {}", env!("CARGO_PKG_VERSION")),
            source: source.into(),
            tables: Vec::new(),
            archive: None,
            enums: Vec::new(),
            domains: Vec::new(),
        }
    }

    /// Reads and checks a manifest file.
    pub fn read(path: &Path) -> Result<Manifest> {
        let mut bytes = std::fs::read(path).at(path)?;
        Self::parse(&mut bytes, &path.display().to_string())
    }

    /// [`Manifest::read`] for a flag whose meaning changed this release (csvsplit's
    /// `--manifest` wrote, pksort's `-m` merged): a missing file or one that is not a
    /// manifest gets `hint`, naming the new spelling, after the error.
    pub fn read_or_hint(path: &Path, hint: &str) -> Result<Manifest> {
        Self::read(path).map_err(|e| match e {
            Error::File { file, msg } => Error::File {
                file,
                msg: format!("{msg} ({hint})"),
            },
            Error::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound => {
                Error::File {
                    file: path,
                    msg: format!("{source} ({hint})"),
                }
            }
            e => e,
        })
    }

    /// Parses manifest JSON (simd-json; the buffer is used as scratch space).
    pub fn parse(bytes: &mut [u8], name: &str) -> Result<Manifest> {
        // simd-json parses in place; its errors name Rust types and a character index, so on
        // an error the original bytes are parsed again by serde_json for words and a line.
        let orig = bytes.to_vec();
        let m: Manifest = match simd_json::serde::from_slice(bytes) {
            Ok(m) => m,
            Err(simd) => {
                return Err(match serde_json::from_slice::<Manifest>(&orig) {
                    Err(e) => json_error(name, "manifest", &e),
                    Ok(_) => Error::file(name, format!("not a valid manifest ({simd})")),
                });
            }
        };
        if m.format != FORMAT {
            return Err(Error::file(
                name,
                format!("not a dumpshard manifest (format is '{}')", m.format),
            ));
        }
        if m.version != VERSION {
            return Err(Error::file(
                name,
                format!(
                    "manifest version {} is not supported (this is version {VERSION})",
                    m.version
                ),
            ));
        }
        Ok(m)
    }

    /// Serialises as pretty JSON with a final newline.
    pub fn to_json(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).expect("manifest serialises");
        v.push(b'\n');
        v
    }

    /// Finds a table by `name` or `schema.name`. A bare name must be unique across schemas.
    /// The name is read as psql reads one ([`TableName::parse`]: `"app.v2".users`,
    /// `"Price History"`); where that finds nothing, the unquoted `schema.name` as written
    /// in the manifest (`app.v2.users`, `public.Price History`) still does, as before.
    pub fn table(&self, name: &str) -> Result<&Table> {
        let found: Vec<&Table> = match TableName::parse(name) {
            Ok(n) => self
                .tables
                .iter()
                .filter(|t| n.names(&t.schema, &t.name))
                .collect(),
            Err(_) => Vec::new(),
        };
        let found = if !found.is_empty() {
            found
        } else {
            let exact: Vec<&Table> = self
                .tables
                .iter()
                .filter(|t| t.qualified() == name)
                .collect();
            if exact.is_empty() {
                self.tables.iter().filter(|t| t.name == name).collect()
            } else {
                exact
            }
        };
        match found.as_slice() {
            [t] => Ok(t),
            [] => Err(Error::Usage(format!(
                "table '{}' is not in the manifest (it has: {})",
                crate::io::names::Escaped(name),
                self.names()
            ))),
            _ => Err(Error::Usage(format!(
                "table name '{}' is ambiguous; qualify it with its schema",
                crate::io::names::Escaped(name)
            ))),
        }
    }
}

impl Manifest {
    /// The table a single-table tool works on, the one rule of pksort, csvsplit and csvcheck
    /// (csvload, which loads many tables, looks each `-t` up with [`Manifest::table`]):
    /// the table `name` (`-t/--table`) if given; without one, the manifest's only table;
    /// else a usage error listing the tables. `manifest` names the file in messages.
    pub fn select(&self, name: Option<&str>, manifest: &str) -> Result<&Table> {
        match (name, self.tables.as_slice()) {
            (Some(name), _) => self.table(name),
            (None, [t]) => Ok(t),
            (None, []) => Err(Error::file(manifest, "the manifest lists no tables")),
            (None, tables) => Err(Error::Usage(format!(
                "{manifest}: the manifest has {} tables; choose one with -t/--table ({})",
                tables.len(),
                self.names()
            ))),
        }
    }

    /// The tables' `schema.name`s, comma-separated, for messages.
    fn names(&self) -> String {
        self.tables
            .iter()
            .map(|t| crate::io::names::display_name(&t.qualified()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A table name as given on a command line (`-t`), read as psql and pg_dump read one: parts
/// separated by dots outside double quotes; a quoted part as written (`""` is one quote),
/// an unquoted one folded to lower case (ASCII, as PostgreSQL folds identifiers). So
/// `"app.v2".users` is table `users` of schema `app.v2`, and `MixedCase` is `mixedcase`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    /// The schema, when the name has one.
    pub schema: Option<String>,
    /// The table.
    pub name: String,
    /// An unquoted part held upper case, which the folding lost (for a hint to quote it).
    pub folded: bool,
}

impl TableName {
    /// Parses `[schema.]name`; an error says what is wrong in words.
    pub fn parse(text: &str) -> std::result::Result<TableName, String> {
        let mut parts: Vec<String> = vec![String::new()];
        let mut quoted = vec![false];
        let (mut in_q, mut folded) = (false, false);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let cur = parts.last_mut().expect("one part");
            match c {
                '"' if in_q && chars.peek() == Some(&'"') => {
                    chars.next();
                    cur.push('"');
                }
                '"' => {
                    in_q = !in_q;
                    *quoted.last_mut().expect("one part") = true;
                }
                '.' if !in_q => {
                    parts.push(String::new());
                    quoted.push(false);
                }
                c if in_q => cur.push(c),
                c => {
                    folded |= c.is_ascii_uppercase();
                    cur.push(c.to_ascii_lowercase());
                }
            }
        }
        if in_q {
            return Err(format!(
                "table name '{}' has an unterminated double quote",
                crate::io::names::Escaped(text)
            ));
        }
        if let Some(i) = parts.iter().position(|p| p.is_empty()) {
            if !quoted[i] {
                return Err(format!(
                    "table name '{}' has an empty part; a name with a dot in it is quoted: '\"app.v2\".users'",
                    crate::io::names::Escaped(text)
                ));
            }
            return Err(format!(
                "table name '{}' has an empty quoted part",
                crate::io::names::Escaped(text)
            ));
        }
        let mut parts = parts.into_iter();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(name), None, None) => Ok(TableName {
                schema: None,
                name,
                folded,
            }),
            (Some(schema), Some(name), None) => Ok(TableName {
                schema: Some(schema),
                name,
                folded,
            }),
            _ => Err(format!(
                "table name '{}' has more than two dot-separated parts; quote a schema or table name that holds a dot, as in SQL: '\"app.v2\".users'",
                crate::io::names::Escaped(text)
            )),
        }
    }

    /// Whether this names table `name` of schema `schema` (any schema when it has none).
    pub fn names(&self, schema: &str, name: &str) -> bool {
        self.name == name && self.schema.as_deref().is_none_or(|s| s == schema)
    }
}

/// Whether `-t` text `given` names table `name` of `schema` (`None`: the schema is not
/// known): read as psql reads it ([`TableName::parse`]), or else as the unquoted
/// `schema.name` or `name` itself (how `-t` was matched before it was parsed).
pub fn names_table(given: &str, schema: Option<&str>, name: &str) -> bool {
    let parsed = TableName::parse(given).is_ok_and(|n| {
        n.name == name
            && match (&n.schema, schema) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    });
    parsed || given == name || schema.is_some_and(|s| given == format!("{s}.{name}"))
}

/// Resolves a table's `file` against the directory of the manifest at `manifest_path`.
pub fn resolve_file(manifest_path: &Path, file: &str) -> PathBuf {
    let p = Path::new(file);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    manifest_path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(p)
}

/// What a manifest at `manifest` records as the `file` of an output at `file` (the one rule
/// of every tool that writes a manifest): the path relative to the manifest's directory,
/// with `..` steps when the output lies elsewhere, and `/` separators. A manifest moved
/// together with its outputs (to a loading machine, say) stays valid; [`resolve_file`] reads
/// it back. Directories are canonicalized, so a symlinked one does not add false `..` steps.
pub fn relative_file(manifest: &Path, file: &Path) -> String {
    fn dir_of(p: &Path) -> PathBuf {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::canonicalize(dir)
            .or_else(|_| std::path::absolute(dir))
            .unwrap_or_else(|_| dir.to_path_buf())
    }
    let (base, tdir) = (dir_of(manifest), dir_of(file));
    let b: Vec<_> = base.components().collect();
    let t: Vec<_> = tdir.components().collect();
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".into(); b.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.push(
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Manifest errors say what is wrong in JSON's words, with a line and column, never the
    /// Rust types behind them (issue 19 item 17: `expected struct Probe`).
    #[test]
    fn manifest_errors_are_words_with_positions() {
        let cases: [(&str, &[&str]); 5] = [
            ("\"x\"", &["a JSON object", "line 1"]),
            (
                "{\"format\": \"dumpshard-manifest\",\n \"version\": \"one\"}",
                &["whole number", "line 2"],
            ),
            (
                "{\"format\": \"dumpshard-manifest\", \"version\": 1",
                &["ends before", "line 1"],
            ),
            (
                "{\"format\": \"dumpshard-manifest\", \"version\": 1}",
                &["missing field `tables`"],
            ),
            ("not json", &["not JSON: a bare word", "line 1, column"]),
        ];
        for (text, want) in cases {
            let err = Manifest::parse(&mut text.as_bytes().to_vec(), "m.json")
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("m.json: not a valid manifest: "), "{err}");
            for w in want {
                assert!(err.contains(w), "{text:?}: {err}");
            }
            for internal in ["struct", "Manifest", "u32", "Serde(", "character"] {
                assert!(!err.contains(internal), "{text:?}: {err}");
            }
        }
    }

    /// `-t` read as psql reads a name (issue 34 item 6: `"app.v2".users` could not be
    /// named; `Manifest::table` compared the text with `schema.name`).
    #[test]
    fn table_names_read_as_psql_reads_them() {
        let p = |s: &str| TableName::parse(s).map(|t| (t.schema, t.name, t.folded));
        let some = |s: &str| Some(s.to_string());
        assert_eq!(p("users"), Ok((None, "users".into(), false)));
        assert_eq!(p("MixedCase"), Ok((None, "mixedcase".into(), true)));
        assert_eq!(
            p("\"app.v2\".users"),
            Ok((some("app.v2"), "users".into(), false))
        );
        assert_eq!(
            p("\"Mixed Case\".\"Price \"\"History\"\"\""),
            Ok((some("Mixed Case"), "Price \"History\"".into(), false))
        );
        assert_eq!(p("ünï.Ab"), Ok((some("ünï"), "ab".into(), true)));
        for bad in ["app.v2.users", "\"app", "a.", ".a", "\"\".a"] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert!(p("app.v2.users").unwrap_err().contains("\"app.v2\".users"));
        let mut m = Manifest::new("d.sql");
        for (schema, name) in [("app.v2", "users"), ("public", "Price History")] {
            m.tables.push(Table {
                schema: schema.into(),
                name: name.into(),
                file: None,
                columns: vec![],
                primary_key: vec![],
                rows: 0,
                bytes: 0,
                header: false,
                null: String::new(),
                compression: None,
            });
        }
        for (given, want) in [
            ("\"app.v2\".users", "users"),
            ("app.v2.users", "users"),
            ("users", "users"),
            ("\"Price History\"", "Price History"),
            ("public.Price History", "Price History"),
        ] {
            assert_eq!(m.table(given).unwrap().name, want, "{given}");
        }
        assert!(m.table("app.users").is_err());
        assert!(names_table("\"app.v2\".users", None, "users"));
        assert!(!names_table("other.users", Some("app.v2"), "users"));
    }

    #[test]
    fn relative_files_resolve_back() {
        let d = tempfile::tempdir().unwrap();
        let (m, out, other) = (
            d.path().join("m"),
            d.path().join("m/out"),
            d.path().join("x"),
        );
        for dir in [&m, &out, &other] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let mpath = m.join("m.json");
        for (file, want) in [
            (m.join("t.csv"), "t.csv"),
            (out.join("p-1.csv"), "out/p-1.csv"),
            (other.join("p.csv"), "../x/p.csv"),
        ] {
            let rel = relative_file(&mpath, &file);
            assert_eq!(rel, want);
            assert_eq!(
                std::fs::canonicalize(resolve_file(&mpath, &rel).parent().unwrap()).unwrap(),
                std::fs::canonicalize(file.parent().unwrap()).unwrap()
            );
        }
        // Relative names, resolved against the working directory.
        assert_eq!(
            relative_file(Path::new("m.json"), Path::new("p-1.csv")),
            "p-1.csv"
        );
    }

    #[test]
    fn roundtrip_and_lookup() {
        let mut m = Manifest::new("d.sql");
        for schema in ["public", "sales"] {
            m.tables.push(Table {
                schema: schema.into(),
                name: "items".into(),
                file: Some(format!("{schema}.items.csv")),
                columns: vec![Column {
                    name: "id".into(),
                    type_name: Some("bigint".into()),
                    not_null: true,
                }],
                primary_key: vec!["id".into()],
                rows: 3,
                bytes: 6,
                header: false,
                null: String::new(),
                compression: None,
            });
        }
        let mut j = m.to_json();
        let back = Manifest::parse(&mut j, "m").unwrap();
        assert_eq!(back, m);
        assert_eq!(back.table("sales.items").unwrap().schema, "sales");
        assert!(back.table("items").is_err());
        assert!(back.table("nope").is_err());
        assert_eq!(
            back.select(Some("sales.items"), "m").unwrap().schema,
            "sales"
        );
        let many = back.select(None, "m").unwrap_err().to_string();
        assert!(
            many.contains("2 tables") && many.contains("public.items, sales.items"),
            "{many}"
        );
        let mut one = back.clone();
        one.tables.truncate(1);
        assert_eq!(one.select(None, "m").unwrap().schema, "public");
        one.tables.clear();
        assert!(one.select(None, "m").is_err());
        let mut bad = br#"{"format":"x","version":1,"tables":[]}"#.to_vec();
        assert!(Manifest::parse(&mut bad, "m").is_err());
    }
}
