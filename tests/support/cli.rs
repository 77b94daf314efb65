//! Shared helpers for tests that run the `pgdump2csv` binary on the fixtures:
//! paths, running the binary, reading the manifest and `fixtures/expected*/tables.json`.
//!
//! Use with `use crate::support::cli;` (it uses `env!("CARGO_BIN_EXE_pgdump2csv")`,
//! `serde_json`, `flate2`).

#![allow(dead_code)]

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::cmd::Within;
use serde_json::Value;

pub fn pgdump2csv_bin() -> &'static str {
    env!("CARGO_BIN_EXE_pgdump2csv")
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

pub fn dump_path(name: &str) -> PathBuf {
    fixtures().join("dumps").join(name)
}

/// The nasty dump variants written by fixtures/make.sh, with the expected-CSV
/// directory that applies to each.
pub const NASTY_DUMPS: &[(&str, &str)] = &[
    ("nasty.sql", "expected"),
    ("nasty.sql.gz", "expected"),
    ("nasty-inserts.sql", "expected"),
    ("nasty-colinserts.sql", "expected"),
    ("nasty-partroot.sql", "expected-partroot"),
    ("nasty-crlf.sql", "expected"),
];

/// How the dump reaches pgdump2csv.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// As the DUMP argument.
    Path,
    /// On stdin (no DUMP argument).
    Stdin,
}

/// Runs `pgdump2csv ARGS [DUMP]` (or with the dump on stdin); returns the output,
/// panicking with stderr if it fails.
pub fn run_pgdump2csv(dump: &Path, input: Input, args: &[&std::ffi::OsStr]) -> Output {
    let mut c = Command::new(pgdump2csv_bin());
    c.args(args);
    match input {
        Input::Path => {
            c.arg(dump).stdin(Stdio::null());
        }
        Input::Stdin => {
            let f = fs::File::open(dump).unwrap_or_else(|e| panic!("open {}: {e}", dump.display()));
            c.stdin(Stdio::from(f));
        }
    }
    let out = c
        .output_within()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", pgdump2csv_bin()));
    if !out.status.success() {
        panic!(
            "pgdump2csv {:?} {} failed ({}):\n--- stderr ---\n{}",
            args,
            match input {
                Input::Path => dump.display().to_string(),
                Input::Stdin => format!("< {}", dump.display()),
            },
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// The outputs of one conversion into a temp dir.
pub struct Converted {
    pub dir: tempfile::TempDir,
    pub csv_dir: PathBuf,
    pub manifest_path: PathBuf,
    pub schema: PathBuf,
    pub post: PathBuf,
    pub stderr: String,
}

/// Runs `pgdump2csv -o DIR/csv --write-manifest DIR/manifest.json --schema DIR/schema.sql
/// --post-data DIR/post.sql EXTRA... DUMP`.
pub fn convert(dump: &Path, input: Input, extra: &[&str]) -> Converted {
    let dir = tempfile::Builder::new()
        .prefix("dumpshard-test-")
        .tempdir()
        .unwrap();
    let csv_dir = dir.path().join("csv");
    let manifest_path = dir.path().join("manifest.json");
    let schema = dir.path().join("schema.sql");
    let post = dir.path().join("post.sql");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "-o".as_ref(),
        csv_dir.as_os_str(),
        "--write-manifest".as_ref(),
        manifest_path.as_os_str(),
        "--write-schema".as_ref(),
        schema.as_os_str(),
        "--write-post-data".as_ref(),
        post.as_os_str(),
    ];
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    let out = run_pgdump2csv(dump, input, &args);
    Converted {
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
        csv_dir,
        manifest_path,
        schema,
        post,
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub ty: String,
    pub not_null: bool,
}

/// One table of a manifest (or of fixtures/expected*/tables.json).
#[derive(Debug, Clone)]
pub struct Table {
    pub schema: String,
    pub name: String,
    pub file: String,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    pub rows: u64,
    pub bytes: Option<u64>,
    pub header: bool,
    pub null: String,
}

impl Table {
    /// `"schema"."name" ("c1", "c2")`, for COPY.
    pub fn copy_target(&self) -> String {
        let cols: Vec<String> = self.columns.iter().map(|c| quote_ident(&c.name)).collect();
        format!(
            "{}.{} ({})",
            quote_ident(&self.schema),
            quote_ident(&self.name),
            cols.join(", ")
        )
    }

    pub fn qualified(&self) -> String {
        format!("{}.{}", quote_ident(&self.schema), quote_ident(&self.name))
    }

    pub fn column_names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }
}

pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

pub fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn str_field(v: &Value, key: &str, ctx: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{ctx}: missing string field {key:?} in {v}"))
        .to_string()
}

fn parse_table(v: &Value, ctx: &str, manifest: bool) -> Table {
    let columns = v
        .get("columns")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{ctx}: missing array \"columns\" in {v}"))
        .iter()
        .map(|c| Column {
            name: str_field(c, "name", ctx),
            ty: c
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            not_null: c.get("not_null").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect();
    let primary_key = v
        .get("primary_key")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{ctx}: missing array \"primary_key\" in {v}"))
        .iter()
        .map(|k| {
            k.as_str()
                .unwrap_or_else(|| panic!("{ctx}: primary_key entry {k}"))
                .to_string()
        })
        .collect();
    let rows = v
        .get("rows")
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{ctx}: missing integer \"rows\" in {v}"));
    let header = match v.get("header") {
        Some(h) => h
            .as_bool()
            .unwrap_or_else(|| panic!("{ctx}: \"header\" is not a bool in {v}")),
        None if manifest => panic!("{ctx}: missing \"header\" in {v}"),
        None => false,
    };
    let null = match v.get("null") {
        Some(n) => n
            .as_str()
            .unwrap_or_else(|| panic!("{ctx}: \"null\" is not a string in {v}"))
            .to_string(),
        None if manifest => panic!("{ctx}: missing \"null\" in {v}"),
        None => String::new(),
    };
    Table {
        schema: str_field(v, "schema", ctx),
        name: str_field(v, "name", ctx),
        file: str_field(v, "file", ctx),
        columns,
        primary_key,
        rows,
        bytes: v.get("bytes").and_then(Value::as_u64),
        header,
        null,
    }
}

/// Reads and validates a pgdump2csv manifest.
pub fn read_manifest(path: &Path) -> Vec<Table> {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read manifest {}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("manifest {} is not JSON: {e}\n{text}", path.display()));
    assert_eq!(
        v.get("format").and_then(Value::as_str),
        Some("dumpshard-manifest"),
        "manifest format field"
    );
    assert_eq!(
        v.get("version").and_then(Value::as_u64),
        Some(1),
        "manifest version field"
    );
    v.get("tables")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("manifest has no \"tables\" array"))
        .iter()
        .map(|t| parse_table(t, "manifest", true))
        .collect()
}

/// Reads fixtures/<dir>/tables.json (written by fixtures/make.sh).
pub fn read_expected_tables(expected_dir: &Path) -> Vec<Table> {
    let path = expected_dir.join("tables.json");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    v.as_array()
        .unwrap_or_else(|| panic!("{} is not an array", path.display()))
        .iter()
        .map(|t| parse_table(t, "tables.json", false))
        .collect()
}

/// A file's bytes, gunzipped if it starts with the gzip magic.
pub fn read_maybe_gz(path: &Path) -> Vec<u8> {
    let raw = fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("gunzip {}: {e}", path.display()));
        out
    } else {
        raw
    }
}

/// A plain-SQL copy of `dump` that psql can run: the dump itself, or a gunzipped
/// copy in `tmp`.
pub fn plain_sql(dump: &Path, tmp: &Path) -> PathBuf {
    let raw = fs::read(dump).unwrap_or_else(|e| panic!("read {}: {e}", dump.display()));
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return dump.to_path_buf();
    }
    let p = tmp.join(format!(
        "{}.plain.sql",
        dump.file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".gz")
    ));
    let mut f = fs::File::create(&p).unwrap();
    f.write_all(&read_maybe_gz(dump)).unwrap();
    p
}

/// The file-naming rule: keep `[A-Za-z0-9_-]`, write every other byte as `%XX`.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn csv_file_name(schema: &str, table: &str) -> String {
    format!("{}.{}.csv", enc(schema), enc(table))
}

/// Every regular file below `dir`, as paths relative to `dir`.
pub fn list_files(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<String>) {
        let Ok(rd) = fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Where a manifest entry's `file` is: relative to the manifest's directory (as the
/// README documents), or else relative to the `-o` dir (what the original test brief
/// assumed); both are accepted.
pub fn resolve_csv(file: &str, csv_dir: &Path, manifest_path: &Path) -> PathBuf {
    let by_manifest = manifest_path.parent().unwrap_or(Path::new(".")).join(file);
    if by_manifest.exists() {
        return by_manifest;
    }
    let by_out_dir = csv_dir.join(file);
    if by_out_dir.exists() {
        by_out_dir
    } else {
        by_manifest
    }
}
