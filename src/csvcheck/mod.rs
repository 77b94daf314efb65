//! `csvcheck`: checks CSV against the target table's schema before a load and quarantines
//! the records PostgreSQL would refuse, byte for byte, with a reason for each.
//!
//! Records are cut into chunks ([`crate::records::ChunkReader`]) and checked in parallel with
//! rayon; a sequential merge then runs the primary-key check in record order and writes the
//! good and bad records in input order. Type rules live in [`crate::pgtypes`], the schema file
//! reader in [`ddl`].

pub mod ddl;

use crate::error::{Error, IoContext, Pos, Result};
use crate::keys::{self, ColumnRef, KeyArg, KeyType};
use crate::manifest::Manifest;
use crate::output::{Sink, wants_gzip};
use crate::pgtypes::{Catalog, PgType, check_type_name, excerpt};
use crate::records::{Chunk, ChunkReader, Field, Malformed, split_fields, strip_terminator};
use crate::{cli, csvout, input};
use clap::Parser;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::PathBuf;

/// Validate CSV against a PostgreSQL table schema and quarantine the bad records.
///
/// Checks structure (quoting, field count, UTF-8, NUL bytes, blank lines, line endings),
/// values against PostgreSQL's input rules for each column type, NOT NULL, and primary-key
/// uniqueness (and order with --sorted). A blank line in a one-column table is a NULL row,
/// as PostgreSQL reads it (noted, since CockroachDB skips blank lines). Exit status: 0 every
/// record was checked and is clean (or within --max-error-rate), 1 bad records found, 2
/// usage or I/O error, 3 stopped early: standard output (--filter) was closed before every
/// record was checked and none so far was bad (1 if one was), quietly.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "csvcheck",
    version,
    about,
    long_about,
    after_help = "Examples:\n  \
    csvcheck --ddl schema.sql -t public.customer customer.csv\n  \
    csvcheck -m m.json -t orders --filter --bad-rows bad.csv orders.csv.gz > good.csv\n  \
    csvcheck --columns 'id:int8!,name:varchar(40),price:numeric(10,2)' --key id --sorted --json in.csv"
)]
pub struct Args {
    /// CSV files to check, as one table (standard input when none or `-`); gzip, zstd and lz4
    /// input is recognised by its magic bytes.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Take the schema from a pgdump2csv manifest (--table names the table; optional when
    /// the manifest has one).
    #[arg(short = 'm', long, value_name = "FILE", conflicts_with_all = ["ddl", "columns"])]
    pub manifest: Option<PathBuf>,

    /// Take the schema from a pg_dump schema file or a whole plain dump (compressed or not;
    /// COPY data is skipped): CREATE TABLE, CREATE TYPE ... AS ENUM, CREATE DOMAIN and ALTER
    /// TABLE ... PRIMARY KEY statements (with --table). The column order is the COPY (or
    /// INSERT) column list when the file has one; for an INHERITS child that CREATE TABLE
    /// alone cannot order, the run is refused unless --header gives the order.
    #[arg(long, value_name = "FILE", conflicts_with = "columns")]
    pub ddl: Option<PathBuf>,

    /// The table to check against, `name` or `schema.name` (with --manifest or --ddl).
    #[arg(short = 't', long, value_name = "NAME")]
    pub table: Option<String>,

    /// Give the columns inline: `id:int8!,name:text,price:numeric(10,2)`; `!` marks NOT NULL.
    /// Without any schema option only the structure is checked, with the first record's field
    /// count as the width.
    #[arg(long, value_name = "SPEC")]
    pub columns: Option<String>,

    /// Primary-key column, most significant first: `COLUMN[:TYPE][:desc]`, as `-k` in pksort
    /// and csvsplit. Repeat the option or separate specs with commas. Overrides the schema's
    /// key; with --columns or no schema, the only way to get a key check. COLUMN is a name
    /// (from the schema or header) or a 1-based number. TYPE says how keys compare (int,
    /// numeric, float, text, uuid, bool, date, timestamp, timestamptz; default: the column's
    /// type, else text) and its values are checked as that type.
    #[arg(long, value_name = "SPEC", value_delimiter = ',')]
    pub key: Vec<String>,

    /// Skip the primary-key check.
    #[arg(long)]
    pub no_key_check: bool,

    /// The first record of each file is a header (also taken from the manifest). It is
    /// checked against the column names and copied once to --filter and --bad-rows outputs;
    /// where --ddl cannot tell the column order, the header gives it.
    #[arg(long)]
    pub header: bool,

    /// The NULL token: an unquoted field equal to it is NULL (default: unquoted empty, or the
    /// manifest's token).
    #[arg(long, value_name = "STRING")]
    pub null: Option<String>,

    /// The input is sorted by primary key: check order too, in constant memory. Keys compare
    /// exactly as in `pksort` (typed: numbers as numbers, timestamps as instants, text
    /// bytewise), so `pksort` output passes.
    #[arg(long)]
    pub sorted: bool,

    /// Memory for the duplicate-key check on unsorted input (e.g. 512M, 2G, 25%); beyond it
    /// the check stops and says to use `pksort --check`.
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    pub max_memory: String,

    /// Write the report as JSON on standard output (or to --report).
    #[arg(long)]
    pub json: bool,

    /// Write the JSON report to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Write the bad records to FILE, byte for byte (gzip if FILE ends in .gz).
    #[arg(long, value_name = "FILE")]
    pub bad_rows: Option<PathBuf>,

    /// Write one CSV line per problem (file,record,line,byte,column,check,message) to FILE.
    #[arg(long, value_name = "FILE")]
    pub bad_rows_reasons: Option<PathBuf>,

    /// Write the good records to standard output, byte for byte.
    #[arg(long)]
    pub filter: bool,

    /// Stop after N bad records (0 = no limit).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_errors: u64,

    /// Tolerate bad records up to this share of all records (e.g. 0.001 or 0.1%): exit 0 when
    /// within it. Bad records still go to --bad-rows.
    #[arg(long, value_name = "R")]
    pub max_error_rate: Option<String>,

    /// Examples per check in the summary.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub examples: usize,

    /// Worker threads, at most 4 per CPU (and 256) (default: all cores).
    #[arg(short = 'j', long = "jobs", alias = "threads", value_name = "N")]
    pub jobs: Option<usize>,

    /// Print nothing on stderr unless something is wrong (no progress bar, no summary).
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// The summary line, printed anyway unless -q (accepted as in every dumpshard tool). Its
    /// shape, as in every tool (see dumpshard(7)): `read SIZE, N records; wrote N files, N
    /// records, SIZE; N bad; SECS s, RATE MB/s`.
    #[arg(long, short = 'v', conflicts_with = "quiet")]
    pub verbose: bool,
}

/// One column to check.
#[derive(Debug, Clone)]
pub struct Column {
    /// Column name.
    pub name: String,
    /// Its type.
    pub ty: PgType,
    /// A NULL here is an error (NOT NULL, key column, or NOT NULL domain).
    pub not_null: bool,
}

/// The options of one run, resolved and checked once.
#[derive(Debug, Clone)]
pub struct Config {
    /// Inputs (`None` = stdin).
    pub inputs: Vec<Option<PathBuf>>,
    /// Columns, when a schema was given; empty for structure-only checks.
    pub columns: Vec<Column>,
    /// Key column indexes (empty = no key check).
    pub key: Vec<usize>,
    /// Key given by name when the schema is unknown yet (resolved from the header).
    pub key_spec: Option<Vec<String>>,
    /// Per key column, in key order: the type given with `--key COL:TYPE` (`None`: from
    /// the column's type). Empty when `--key` was not given.
    pub key_types: Vec<Option<KeyType>>,
    /// Per key column, in key order: descending (`--key COL:desc`).
    pub key_desc: Vec<bool>,
    /// Header records.
    pub header: bool,
    /// NULL token (empty = unquoted empty field).
    pub null: Vec<u8>,
    /// Check key order, streaming.
    pub sorted: bool,
    /// Byte budget of the duplicate-key set.
    pub key_memory: u64,
    /// JSON report on stdout.
    pub json_stdout: bool,
    /// JSON report file.
    pub report: Option<PathBuf>,
    /// Bad records file.
    pub bad_rows: Option<PathBuf>,
    /// Reasons file.
    pub reasons: Option<PathBuf>,
    /// Good records to stdout.
    pub filter: bool,
    /// Stop after this many bad records (0 = never).
    pub max_errors: u64,
    /// Tolerated share of bad records.
    pub max_error_rate: Option<f64>,
    /// Examples per check.
    pub examples: usize,
    /// Worker threads.
    pub threads: usize,
    /// Quiet.
    pub quiet: bool,
    /// Notes about the schema (unknown types, unchecked CHECK constraints).
    pub notes: Vec<String>,
    /// The schema cannot tell the column order (an `INHERITS` child, see
    /// [`ddl::parse_reader`]): the header record gives it, and every file's header must
    /// name the same columns in the same order.
    pub order_from_header: bool,
}

impl Config {
    /// Resolves the arguments, reading the manifest or schema file.
    pub fn from_args(a: Args) -> Result<Config> {
        let mut notes = Vec::new();
        let mut header = a.header;
        let mut null = a.null.clone().map(String::into_bytes);
        let mut key_names: Vec<String> = Vec::new();
        // Key columns the schema names but the data does not hold: generated columns.
        let mut generated: Vec<String> = Vec::new();
        let mut order_from_header = None;
        let columns: Vec<Column> = if let Some(m) = &a.manifest {
            let man = Manifest::read(m)?;
            let t = man.select(a.table.as_deref(), &m.display().to_string())?;
            header |= t.header;
            if null.is_none() {
                null = Some(t.null.clone().into_bytes());
            }
            key_names = t.primary_key.clone();
            // pgdump2csv's columns are pg_dump's COPY column list, which leaves out exactly
            // the generated columns: a key column missing from it is one.
            generated = key_names
                .iter()
                .filter(|k| !t.columns.iter().any(|c| &c.name == *k))
                .cloned()
                .collect();
            let cat = Catalog::default();
            t.columns
                .iter()
                .map(|c| {
                    Ok(Column {
                        name: c.name.clone(),
                        ty: match c.type_name.as_deref() {
                            Some(n) => check_type_name(n, &cat, false).map_err(|e| {
                                Error::file(
                                    m.display().to_string(),
                                    format!("table {}, column {}: {e}", t.qualified(), c.name),
                                )
                            })?,
                            None => PgType::Text,
                        },
                        not_null: c.not_null,
                    })
                })
                .collect::<Result<_>>()?
        } else if let Some(d) = &a.ddl {
            let table = a
                .table
                .as_deref()
                .ok_or_else(|| Error::Usage("--ddl needs -t/--table NAME".into()))?;
            // Through input::open, so a compressed schema file or dump is read as such.
            let inp = input::open(Some(d))?;
            let parsed = ddl::parse_reader(inp.reader, &inp.name)?;
            let t = ddl::find(&parsed, table).map_err(Error::Usage)?;
            if let Some(why) = &t.order_unknown {
                if !header {
                    return Err(Error::Usage(format!(
                        "{}: the order of table {table}'s columns in the data cannot be determined: \
                         {why}. Give --manifest (pgdump2csv's manifest has pg_dump's COPY column \
                         list), or --header if the CSV has one, or the whole dump as --ddl",
                        d.display()
                    )));
                }
                order_from_header = Some(why.clone());
            }
            key_names = t.primary_key.clone();
            generated = t.generated.clone();
            t.columns
                .iter()
                .map(|c| {
                    Ok(Column {
                        name: c.name.clone(),
                        ty: ddl::column_type(&parsed, c).map_err(|e| {
                            Error::file(
                                d.display().to_string(),
                                format!("table {table}, column {}: {e}", c.name),
                            )
                        })?,
                        not_null: c.not_null,
                    })
                })
                .collect::<Result<_>>()?
        } else if let Some(spec) = &a.columns {
            if a.table.is_some() {
                return Err(Error::Usage(
                    "--table goes with --manifest or --ddl, not --columns".into(),
                ));
            }
            parse_columns(spec)?
        } else {
            if a.table.is_some() {
                return Err(Error::Usage(
                    "--table needs --manifest or --ddl to look the table up in".into(),
                ));
            }
            Vec::new()
        };
        if let Some(dup) = columns
            .iter()
            .enumerate()
            .find(|(k, c)| columns[..*k].iter().any(|x| x.name == c.name))
        {
            return Err(Error::Usage(format!(
                "column {} is named twice in the table's columns",
                dup.1.name
            )));
        }
        let mut columns = columns;
        for c in &mut columns {
            if let PgType::Domain(d) = &c.ty {
                c.not_null |= d.not_null;
                if d.has_check {
                    notes.push(format!(
                        "column {}: CHECK constraints of domain {} are not verified",
                        c.name, d.name
                    ));
                }
            }
            if c.ty.is_unknown() {
                notes.push(format!(
                    "column {}: type {} is not checked (unknown to csvcheck)",
                    c.name,
                    c.ty.name()
                ));
            }
        }
        let mut key_spec = None;
        let key_args = a
            .key
            .iter()
            .map(|k| KeyArg::parse(k))
            .collect::<Result<Vec<_>>>()?;
        if !key_args.is_empty() {
            key_names = key_args
                .iter()
                .map(|k| match &k.column {
                    ColumnRef::Number(n) => n.to_string(),
                    ColumnRef::Name(n) => n.clone(),
                })
                .collect();
            if columns.is_empty() {
                key_spec = Some(key_names.clone());
            }
        }
        let mut key = Vec::new();
        let key_generated: Vec<&String> = if key_args.is_empty() {
            key_names.iter().filter(|k| generated.contains(k)).collect()
        } else {
            Vec::new()
        };
        if !columns.is_empty() {
            for n in &key_names {
                if key_generated.contains(&n) {
                    continue;
                }
                let idx = resolve_column(&columns, n)?;
                columns[idx].not_null = true;
                key.push(idx);
            }
        }
        if !key_generated.is_empty() {
            // The data cannot show whether such keys are unique (PostgreSQL computes the
            // generated part on load), and the other key columns alone need not be unique:
            // check their NOT NULL only.
            notes.push(format!(
                "primary key ({}) includes generated column{} {} (computed on load, not in the \
                 data): key uniqueness is not checked, only NOT NULL of the other key columns",
                key_names.join(", "),
                if key_generated.len() > 1 { "s" } else { "" },
                key_generated
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            key.clear();
        }
        if a.no_key_check {
            key.clear();
            key_spec = None;
        }
        if a.sorted && key.is_empty() && key_spec.is_none() {
            return Err(Error::Usage(if key_generated.is_empty() {
                "--sorted checks key order, but there is no primary key (give --key)".into()
            } else {
                "--sorted checks key order, but the primary key includes a generated column, \
                 which is not in the data (give --key)"
                    .into()
            }));
        }
        if a.filter && a.json && a.report.is_none() {
            return Err(Error::Usage(
                "--filter writes records to standard output; send the JSON report elsewhere with --report FILE".into(),
            ));
        }
        let max_error_rate = match &a.max_error_rate {
            None => None,
            Some(r) => Some(parse_rate(r)?),
        };
        let key_memory = cli::parse_size(&a.max_memory)?;
        let threads = a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        let inputs = if a.files.is_empty() {
            vec![None]
        } else {
            a.files
                .iter()
                .map(|p| (!input::is_stdin(p)).then(|| p.clone()))
                .collect()
        };
        if inputs.iter().filter(|i| i.is_none()).count() > 1 {
            return Err(Error::Usage("standard input can be read only once".into()));
        }
        Ok(Config {
            inputs,
            columns,
            key,
            key_spec,
            key_types: key_args.iter().map(|k| k.ty).collect(),
            key_desc: key_args.iter().map(|k| k.desc).collect(),
            header,
            null: null.unwrap_or_default(),
            sorted: a.sorted,
            key_memory,
            json_stdout: a.json && a.report.is_none(),
            report: a.report,
            bad_rows: a.bad_rows,
            reasons: a.bad_rows_reasons,
            filter: a.filter,
            max_errors: a.max_errors,
            max_error_rate,
            examples: a.examples,
            threads,
            quiet: a.quiet,
            notes,
            order_from_header: order_from_header.is_some(),
        })
    }
}

fn resolve_column(columns: &[Column], n: &str) -> Result<usize> {
    if let Some(i) = columns.iter().position(|c| c.name == n) {
        return Ok(i);
    }
    if let Ok(k) = n.parse::<usize>()
        && k >= 1
        && k <= columns.len()
    {
        return Ok(k - 1);
    }
    Err(Error::Usage(format!(
        "key column '{n}' is not a column of the table ({})",
        columns
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn parse_rate(r: &str) -> Result<f64> {
    let t = r.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
        None => t.parse::<f64>(),
    };
    match v {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(Error::Usage(format!(
            "invalid --max-error-rate '{r}' (use a share like 0.001 or a percentage like 0.1%)"
        ))),
    }
}

/// Splits at commas outside parentheses.
fn split_top(s: &str) -> Vec<&str> {
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

/// The checks, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// The input ends inside a quoted field.
    UnterminatedQuote,
    /// A `"` inside an unquoted field.
    BareQuote,
    /// Text after the closing quote of a field.
    TextAfterQuote,
    /// Not the table's number of fields.
    FieldCount,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// A NUL byte.
    NulByte,
    /// An empty line.
    BlankLine,
    /// A line ending different from the first record's, or a bare CR.
    LineEnding,
    /// A line `\.` that PostgreSQL takes as end of data.
    EndMarker,
    /// A value PostgreSQL's input function refuses.
    Type,
    /// NULL in a NOT NULL column.
    NotNull,
    /// Same key as an earlier record.
    DuplicateKey,
    /// Key smaller than the previous record's (with --sorted).
    KeyOrder,
}

impl Check {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Check::UnterminatedQuote => "unterminated-quote",
            Check::BareQuote => "bare-quote",
            Check::TextAfterQuote => "text-after-quote",
            Check::FieldCount => "field-count",
            Check::InvalidUtf8 => "invalid-utf8",
            Check::NulByte => "nul-byte",
            Check::BlankLine => "blank-line",
            Check::LineEnding => "line-ending",
            Check::EndMarker => "end-of-data-marker",
            Check::Type => "type",
            Check::NotNull => "not-null",
            Check::DuplicateKey => "duplicate-key",
            Check::KeyOrder => "key-order",
        }
    }
}

/// One problem with one record.
#[derive(Debug, Clone)]
struct Problem {
    /// Record index in its chunk.
    rec: usize,
    check: Check,
    col: Option<usize>,
    msg: String,
    excerpt: String,
    /// Filled in after the chunk is checked: line and byte position.
    line: u64,
    byte: u64,
}

/// A chunk's outcome.
#[derive(Default)]
struct Checked {
    problems: Vec<Problem>,
    /// Hash-mode keys: (record index, 128-bit key hash).
    hashes: Vec<(usize, u128)>,
    /// Sorted mode: first and last key (record index, encoded key).
    first_key: Option<(usize, Vec<u8>)>,
    last_key: Option<Vec<u8>>,
    /// Blank lines read as records of a one-column table.
    blank_rows: u64,
}

/// Everything the workers need, shared read-only.
struct Ctx<'a> {
    cfg: &'a Config,
    width: usize,
    crlf: bool,
    /// Per column: needs a value check.
    typed: Vec<bool>,
    key: Vec<usize>,
    /// How each key column compares, in key order.
    key_cols: Vec<KeyCol>,
    /// Keys so packed fit in 16 bytes and are used exactly; `None`: keys are hashed.
    exact_widths: Option<Vec<Exact>>,
}

/// How a key column goes into a 16-byte exact key (the duplicate check needs equality only,
/// not order).
#[derive(Clone, Copy)]
enum Exact {
    /// Its encoding padded with zeros to this width ([`KeyType::max_width`]): encodings are
    /// prefix-free, so padded ones stay distinct.
    Pad(usize),
    /// An integer column's value (in the column type's range, checked before) as this many
    /// big-endian bytes, one byte less than its encoding, so that four int4 columns fit.
    Int(usize),
}

/// One key column's comparison: pksort's key type and direction.
#[derive(Clone)]
struct KeyCol {
    ty: KeyType,
    desc: bool,
}

fn problem(rec: usize, check: Check, col: Option<usize>, msg: String, ex: String) -> Problem {
    Problem {
        rec,
        check,
        col,
        msg,
        excerpt: ex,
        line: 0,
        byte: 0,
    }
}

/// How key column `k` (in key order) of type `col_ty` compares: the type from `--key`, else
/// the column type's key order as in pksort (bytewise when it has none), and the direction.
fn key_col(cfg: &Config, k: usize, col_ty: &PgType) -> KeyCol {
    KeyCol {
        ty: cfg
            .key_types
            .get(k)
            .copied()
            .flatten()
            .or_else(|| KeyType::from_pg_type(col_ty))
            .unwrap_or(KeyType::Text),
        desc: cfg.key_desc.get(k).copied().unwrap_or(false),
    }
}

/// The padded width of each key column, when all are bounded and together fit in 16 bytes:
/// such keys are used as they are, with no hashing and so no collisions.
fn exact_key_widths(cols: &[KeyCol], types: &[PgType]) -> Option<Vec<Exact>> {
    let w: Vec<Exact> = cols
        .iter()
        .zip(types)
        .map(|(c, t)| {
            let base = match t {
                PgType::Domain(d) => &d.base,
                t => t,
            };
            match (c.ty, base) {
                (KeyType::Int, PgType::Int2) => Some(Exact::Int(2)),
                (KeyType::Int, PgType::Int4) => Some(Exact::Int(4)),
                (KeyType::Int, PgType::Int8) => Some(Exact::Int(8)),
                _ => c.ty.max_width(t).map(Exact::Pad),
            }
        })
        .collect::<Option<_>>()?;
    let total: usize = w
        .iter()
        .map(|e| match e {
            Exact::Pad(n) | Exact::Int(n) => n,
        })
        .sum();
    (total <= 16).then_some(w)
}

fn hash128(k: &[u8]) -> u128 {
    let mut a = std::collections::hash_map::DefaultHasher::new();
    k.hash(&mut a);
    let mut b = std::collections::hash_map::DefaultHasher::new();
    0x9E37_79B9_7F4A_7C15u64.hash(&mut b);
    k.hash(&mut b);
    ((a.finish() as u128) << 64) | b.finish() as u128
}

fn record_excerpt(rec: &[u8]) -> String {
    excerpt(strip_terminator(rec))
}

/// Checks every record of a chunk. `skip_first` skips a header record.
fn check_chunk(ctx: &Ctx, chunk: &Chunk, skip_first: bool) -> Checked {
    let mut out = Checked::default();
    let utf8_ok = std::str::from_utf8(&chunk.data).is_ok();
    let nul_free = memchr::memchr(0, &chunk.data).is_none();
    let cr_free = memchr::memchr(b'\r', &chunk.data).is_none();
    let mut fields: Vec<Field> = Vec::with_capacity(ctx.width.max(1) + 1);
    let mut keybuf: Vec<u8> = Vec::with_capacity(64);
    let mut prev_key: Option<Vec<u8>> = None;
    let null = ctx.cfg.null.as_slice();
    for i in 0..chunk.len() {
        if i == 0 && skip_first {
            continue;
        }
        let rec = chunk.record(i);
        let nprob = out.problems.len();
        let body = strip_terminator(rec);
        if rec.last() == Some(&b'\n') && rec.ends_with(b"\r\n") != ctx.crlf {
            out.problems.push(problem(
                i,
                Check::LineEnding,
                None,
                format!(
                    "record ends with {} but the file's first record with {}",
                    if ctx.crlf { "LF" } else { "CRLF" },
                    if ctx.crlf { "CRLF" } else { "LF" }
                ),
                record_excerpt(rec),
            ));
        }
        if body.is_empty() {
            if ctx.width == 1 {
                // PostgreSQL's COPY reads it as one unquoted empty field: the NULL row of a
                // one-column table (pg_dump's data has them), checked like any record.
                out.blank_rows += 1;
            } else {
                out.problems.push(problem(
                    i,
                    Check::BlankLine,
                    None,
                    "blank line (CockroachDB skips it, PostgreSQL reads it as a record)".into(),
                    String::new(),
                ));
                continue;
            }
        }
        if body == b"\\." {
            out.problems.push(problem(
                i,
                Check::EndMarker,
                None,
                "unquoted \\. line: PostgreSQL's COPY takes it as the end of data".into(),
                "\\.".into(),
            ));
            continue;
        }
        if !nul_free && memchr::memchr(0, rec).is_some() {
            out.problems.push(problem(
                i,
                Check::NulByte,
                None,
                "NUL byte (PostgreSQL text cannot hold it)".into(),
                record_excerpt(rec),
            ));
        }
        let text_ok = utf8_ok || std::str::from_utf8(rec).is_ok();
        if !text_ok {
            let at = std::str::from_utf8(rec)
                .err()
                .map_or(0, |e| e.valid_up_to());
            out.problems.push(problem(
                i,
                Check::InvalidUtf8,
                None,
                format!("invalid UTF-8 at byte {at} of the record"),
                record_excerpt(rec),
            ));
        }
        if let Err(m) = split_fast(rec, body, &mut fields) {
            let check = match m {
                Malformed::BareQuote(_) => Check::BareQuote,
                Malformed::TextAfterQuote(_) => Check::TextAfterQuote,
                Malformed::Unterminated => Check::UnterminatedQuote,
            };
            let msg = match m {
                Malformed::Unterminated => {
                    "unterminated quoted field: the input ends inside quotes".to_string()
                }
                Malformed::BareQuote(at) | Malformed::TextAfterQuote(at) => {
                    format!("{m} at byte {at} of the record")
                }
            };
            out.problems
                .push(problem(i, check, None, msg, record_excerpt(rec)));
            continue;
        }
        if fields.len() != ctx.width {
            out.problems.push(problem(
                i,
                Check::FieldCount,
                None,
                format!("{} fields, expected {}", fields.len(), ctx.width),
                record_excerpt(rec),
            ));
            continue;
        }
        if !cr_free && memchr::memchr(b'\r', body).is_some() {
            for (c, f) in fields.iter().enumerate() {
                if !f.quoted && memchr::memchr(b'\r', f.raw(rec)).is_some() {
                    out.problems.push(problem(
                        i,
                        Check::LineEnding,
                        Some(c),
                        "carriage return in an unquoted field".into(),
                        excerpt(f.raw(rec)),
                    ));
                }
            }
        }
        if !text_ok {
            continue;
        }
        for (c, col) in ctx.cfg.columns.iter().enumerate() {
            let f = fields[c];
            let raw = f.raw(rec);
            if !f.quoted && raw == null {
                if col.not_null {
                    out.problems.push(problem(
                        i,
                        Check::NotNull,
                        Some(c),
                        "NULL in a NOT NULL column".into(),
                        String::new(),
                    ));
                }
                continue;
            }
            if !ctx.typed[c] {
                continue;
            }
            // Unquoted fields (most of them) are checked in place, without a Cow.
            let res = if f.quoted {
                col.ty.check(&f.value(rec))
            } else {
                col.ty.check(raw)
            };
            if let Err(msg) = res {
                let ex = excerpt(&f.value(rec));
                out.problems.push(problem(i, Check::Type, Some(c), msg, ex));
            }
        }
        if ctx.key.is_empty() || out.problems.len() > nprob {
            continue;
        }
        // pksort's memcomparable encoding (`keys::encode`), so that the order checked here is
        // the order pksort sorts to, and equal keys are equal values (1.5 = 1.50).
        keybuf.clear();
        let mut ok = true;
        for (k, &c) in ctx.key.iter().enumerate() {
            let kc = &ctx.key_cols[k];
            let v = fields[c].value(rec);
            let start = keybuf.len();
            let exact = ctx.exact_widths.as_ref().map(|w| w[k]);
            let encoded = match exact {
                // Equality is all the duplicate set needs: the value, parsed once.
                Some(Exact::Int(n)) => crate::pgtypes::int_value(&v)
                    .map(|x| keybuf.extend_from_slice(&x.to_be_bytes()[8 - n..]))
                    .is_some(),
                _ => keys::encode(kc.ty, &v, &mut keybuf).is_ok(),
            };
            if !encoded {
                ok = false;
                out.problems.push(problem(
                    i,
                    Check::Type,
                    Some(c),
                    format!("not a valid {} key", kc.ty),
                    excerpt(&v),
                ));
                break;
            }
            if kc.desc {
                for b in &mut keybuf[start..] {
                    *b = !*b;
                }
            }
            if let Some(Exact::Pad(n)) = exact {
                keybuf.resize(start + n, 0);
            }
        }
        if !ok {
            continue;
        }
        if ctx.cfg.sorted {
            if let Some(p) = &prev_key {
                match keybuf.as_slice().cmp(p.as_slice()) {
                    std::cmp::Ordering::Equal => out.problems.push(problem(
                        i,
                        Check::DuplicateKey,
                        None,
                        "duplicate key (same as the previous record)".into(),
                        key_excerpt(rec, &fields, &ctx.key),
                    )),
                    std::cmp::Ordering::Less => out.problems.push(problem(
                        i,
                        Check::KeyOrder,
                        None,
                        "key out of order (smaller than the previous record's)".into(),
                        key_excerpt(rec, &fields, &ctx.key),
                    )),
                    std::cmp::Ordering::Greater => {}
                }
            } else {
                out.first_key = Some((i, keybuf.clone()));
            }
            match &mut prev_key {
                Some(p) => {
                    p.clear();
                    p.extend_from_slice(&keybuf);
                }
                None => prev_key = Some(keybuf.clone()),
            }
        } else {
            let k = if ctx.exact_widths.is_some() {
                keybuf.iter().fold(0u128, |a, &b| (a << 8) | b as u128)
            } else {
                hash128(&keybuf)
            };
            out.hashes.push((i, k));
        }
    }
    out.last_key = prev_key;
    locate(chunk, &mut out.problems);
    out
}

/// Bytes of `x` that are zero, as their high bits (exact: no borrow between bytes).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const HI7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((x & HI7).wrapping_add(HI7)) | x | HI7)
}

/// [`split_fields`], with one pass over the record eight bytes at a time instead of one
/// search per field when the record has no quote (the common case); records with quotes
/// take the strict path, so the result is always the same.
#[inline]
fn split_fast(rec: &[u8], body: &[u8], out: &mut Vec<Field>) -> Result<(), Malformed> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    out.clear();
    let n = body.len();
    let mut start = 0;
    let mut i = 0;
    while i + 8 <= n {
        let mut word = [0u8; 8];
        word.copy_from_slice(&body[i..i + 8]);
        let w = u64::from_le_bytes(word);
        if zero_bytes(w ^ (ONES * b'"' as u64)) != 0 {
            return split_fields(rec, out);
        }
        let mut commas = zero_bytes(w ^ (ONES * b',' as u64));
        while commas != 0 {
            let at = i + (commas.trailing_zeros() / 8) as usize;
            out.push(Field {
                start,
                end: at,
                quoted: false,
            });
            start = at + 1;
            commas &= commas - 1;
        }
        i += 8;
    }
    for (k, &b) in body.iter().enumerate().skip(i) {
        if b == b'"' {
            return split_fields(rec, out);
        }
        if b == b',' {
            out.push(Field {
                start,
                end: k,
                quoted: false,
            });
            start = k + 1;
        }
    }
    out.push(Field {
        start,
        end: n,
        quoted: false,
    });
    Ok(())
}

fn key_excerpt(rec: &[u8], fields: &[Field], key: &[usize]) -> String {
    key.iter()
        .map(|&c| excerpt(&fields[c].value(rec)))
        .collect::<Vec<_>>()
        .join(",")
}

/// Fills in line and byte positions of problems (sorted by record), counting newlines once.
fn locate(chunk: &Chunk, problems: &mut [Problem]) {
    let mut at = 0usize;
    let mut line = chunk.first_line;
    for p in problems.iter_mut() {
        let start = chunk.range(p.rec).start;
        if start >= at {
            line += memchr::memchr_iter(b'\n', &chunk.data[at..start]).count() as u64;
            at = start;
        }
        p.line = line;
        p.byte = chunk.first_byte + start as u64;
    }
}

#[derive(Serialize, Default)]
struct CheckStat {
    problems: u64,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    columns: BTreeMap<String, u64>,
}

#[derive(Serialize, Clone)]
struct Example {
    file: String,
    record: u64,
    line: u64,
    byte: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<String>,
    check: &'static str,
    message: String,
    excerpt: String,
}

#[derive(Serialize)]
struct FileStat {
    file: String,
    records: u64,
    bad: u64,
}

#[derive(Serialize)]
struct KeyReport {
    columns: Vec<String>,
    mode: &'static str,
    complete: bool,
}

#[derive(Serialize)]
struct Report {
    tool: &'static str,
    version: &'static str,
    files: Vec<FileStat>,
    records: u64,
    good: u64,
    bad: u64,
    bad_rate: f64,
    checks: BTreeMap<&'static str, CheckStat>,
    examples: Vec<Example>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<KeyReport>,
    notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<String>,
    verdict: &'static str,
}

/// The sequential side: key set, outputs and counts.
struct Merger<'a> {
    cfg: &'a Config,
    columns: Vec<String>,
    key: Vec<usize>,
    good_out: Option<Sink>,
    bad_out: Option<Sink>,
    reasons: Option<Sink>,
    good_open: bool,
    bad_open: bool,
    records: u64,
    bad: u64,
    checks: BTreeMap<Check, CheckStat>,
    /// Examples in input order, at most `cfg.examples` per check.
    examples: Vec<Example>,
    example_counts: HashMap<Check, usize>,
    seen: Option<KeySet>,
    max_keys: usize,
    key_complete: bool,
    last_key: Option<Vec<u8>>,
    files: Vec<FileStat>,
    stopped: Option<String>,
    header_written: bool,
    notes: Vec<String>,
    /// Blank lines read as records of a one-column table.
    blank_rows: u64,
    /// Standard output (--filter) was closed by its reader.
    stdout_closed: bool,
    /// Bytes of good records written (--filter), for the summary.
    good_bytes: u64,
}

/// Writes records to a sink, adding a newline before a record when the previous one (the
/// last of a file) had none, so records of consecutive files never run together.
fn put(sink: &mut Option<Sink>, open: &mut bool, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(s) = sink {
        if bytes.is_empty() {
            return Ok(());
        }
        if *open {
            s.write_all(b"\n")?;
        }
        s.write_all(bytes)?;
        *open = bytes.last() != Some(&b'\n');
    }
    Ok(())
}

impl Merger<'_> {
    fn sink_err(sink: &Option<Sink>, e: std::io::Error) -> Error {
        Error::io(sink.as_ref().map_or("<output>".into(), |s| s.name()), e)
    }

    /// Writes good records to standard output, noting when its reader went away.
    fn put_good(&mut self, bytes: &[u8]) -> Result<()> {
        if self.good_out.is_some() {
            self.good_bytes += bytes.len() as u64 + u64::from(self.good_open);
        }
        put(&mut self.good_out, &mut self.good_open, bytes).map_err(|e| {
            self.stdout_closed |= e.kind() == std::io::ErrorKind::BrokenPipe;
            Self::sink_err(&self.good_out, e)
        })
    }

    fn merge(
        &mut self,
        file: &str,
        chunk: &Chunk,
        mut res: Checked,
        skip_first: bool,
    ) -> Result<()> {
        let first_data = usize::from(skip_first);
        self.blank_rows += res.blank_rows;
        // Key checks that need the whole stream.
        if self.cfg.sorted {
            if let (Some(prev), Some((i, first))) = (&self.last_key, &res.first_key) {
                let check = match first.as_slice().cmp(prev.as_slice()) {
                    std::cmp::Ordering::Equal => Some((
                        Check::DuplicateKey,
                        "duplicate key (same as the previous record)",
                    )),
                    std::cmp::Ordering::Less => Some((
                        Check::KeyOrder,
                        "key out of order (smaller than the previous record's)",
                    )),
                    _ => None,
                };
                if let Some((c, m)) = check {
                    let mut p = problem(*i, c, None, m.into(), String::new());
                    let mut one = [p.clone()];
                    locate(chunk, &mut one);
                    p = one[0].clone();
                    let at = res.problems.partition_point(|q| q.rec <= *i);
                    res.problems.insert(at, p);
                }
            }
            if res.last_key.is_some() {
                self.last_key = res.last_key.take();
            }
        } else if self.seen.is_some() && !res.hashes.is_empty() {
            let mut dups: Vec<Problem> = Vec::new();
            let base = chunk.first_record;
            if let Some(seen) = &mut self.seen {
                // Records already bad keep their key out of the set; only good-so-far records
                // claim a key.
                for &(i, h) in &res.hashes {
                    let recno = base + i as u64;
                    if let Some(first) = seen.insert(h, recno) {
                        dups.push(problem(
                            i,
                            Check::DuplicateKey,
                            None,
                            format!("duplicate key, first seen in record {first}"),
                            String::new(),
                        ));
                    }
                }
                if seen.len() > self.max_keys {
                    self.key_complete = false;
                    self.notes.push(format!(
                        "duplicate-key check stopped after {} keys (--max-memory {}); sort the input and run `pksort --check` or csvcheck --sorted",
                        seen.len(),
                        self.cfg.key_memory
                    ));
                }
            }
            if !self.key_complete {
                self.seen = None;
            }
            if !dups.is_empty() {
                locate(chunk, &mut dups);
                let mut f = Vec::new();
                for d in &mut dups {
                    let rec = chunk.record(d.rec);
                    if split_fields(rec, &mut f).is_ok() && self.key.iter().all(|&k| k < f.len()) {
                        d.excerpt = key_excerpt(rec, &f, &self.key);
                    }
                }
                res.problems.extend(dups);
                res.problems.sort_by_key(|p| p.rec);
            }
        }
        // Records, in order.
        let mut run_start = first_data;
        let mut pi = 0;
        let n = chunk.len();
        let mut i = first_data;
        while i < n {
            if pi < res.problems.len() && res.problems[pi].rec == i {
                // Flush the good run before this bad record.
                if self.good_out.is_some() && run_start < i {
                    let r = chunk.range(run_start).start..chunk.range(i - 1).end;
                    self.put_good(&chunk.data[r])?;
                }
                let rec = chunk.record(i);
                put(&mut self.bad_out, &mut self.bad_open, rec)
                    .map_err(|e| Self::sink_err(&self.bad_out, e))?;
                self.bad += 1;
                while pi < res.problems.len() && res.problems[pi].rec == i {
                    let p = &res.problems[pi];
                    self.note_problem(file, chunk.first_record + i as u64, p)?;
                    pi += 1;
                }
                self.records += 1;
                i += 1;
                run_start = i;
                if self.cfg.max_errors > 0 && self.bad >= self.cfg.max_errors {
                    self.stopped = Some(format!(
                        "stopped after {} bad records (--max-errors)",
                        self.bad
                    ));
                    if let Some(f) = self.files.last_mut() {
                        f.records += (i - first_data) as u64;
                    }
                    return Ok(());
                }
                continue;
            }
            self.records += 1;
            i += 1;
        }
        if self.good_out.is_some() && run_start < n {
            let r = chunk.range(run_start).start..chunk.range(n - 1).end;
            self.put_good(&chunk.data[r])?;
        }
        if let Some(f) = self.files.last_mut() {
            f.records += (n - first_data) as u64;
        }
        Ok(())
    }

    fn note_problem(&mut self, file: &str, recno: u64, p: &Problem) -> Result<()> {
        let colname = p.col.and_then(|c| self.columns.get(c).cloned());
        let stat = self.checks.entry(p.check).or_default();
        stat.problems += 1;
        if let Some(c) = &colname {
            *stat.columns.entry(c.clone()).or_default() += 1;
        }
        let shown = self.example_counts.entry(p.check).or_default();
        let want = *shown < self.cfg.examples;
        if want {
            *shown += 1;
        }
        if want || self.reasons.is_some() {
            let e = Example {
                file: file.to_string(),
                record: recno,
                line: p.line,
                byte: p.byte,
                column: colname,
                check: p.check.name(),
                message: p.msg.clone(),
                excerpt: p.excerpt.clone(),
            };
            if let Some(r) = &mut self.reasons {
                let mut line = Vec::with_capacity(128);
                let w = csvout::FieldWriter::default();
                w.field(&mut line, Some(e.file.as_bytes()));
                for v in [e.record.to_string(), e.line.to_string(), e.byte.to_string()] {
                    line.push(b',');
                    w.field(&mut line, Some(v.as_bytes()));
                }
                line.push(b',');
                w.field(&mut line, e.column.as_deref().map(str::as_bytes));
                line.push(b',');
                w.field(&mut line, Some(e.check.as_bytes()));
                line.push(b',');
                let msg = if e.excerpt.is_empty() {
                    e.message.clone()
                } else {
                    format!("{}: \"{}\"", e.message, e.excerpt)
                };
                w.field(&mut line, Some(msg.as_bytes()));
                line.push(b'\n');
                r.write_all(&line).map_err(|err| Error::io(r.name(), err))?;
            }
            if want {
                self.examples.push(e);
            }
        }
        Ok(())
    }
}

const CHUNK: usize = 4 << 20;

/// Memory per key in the duplicate set: 24-byte slots at most 80% full, and the old table
/// alive while it grows.
const BYTES_PER_KEY: u64 = 64;

/// The duplicate-key set: open addressing with linear probing over 24-byte slots
/// (key, key, first record). Capacity is any size (multiply-shift picks the home slot), so
/// a table sized from the file size wastes no power-of-two slack; fewer pages touched and
/// consecutive probes in one cache line keep the sequential merge short.
#[derive(Default)]
struct KeySet {
    /// `[key low, key high, record]`; record 0 marks an empty slot (records count from 1).
    slots: Vec<[u64; 3]>,
    len: usize,
}

impl KeySet {
    fn len(&self) -> usize {
        self.len
    }

    /// Makes room for `n` keys without growing.
    fn reserve(&mut self, n: usize) {
        let want = n + n / 4 + 16;
        if want > self.slots.len() {
            self.rebuild(want);
        }
    }

    fn rebuild(&mut self, cap: usize) {
        let old = std::mem::replace(&mut self.slots, vec![[0u64; 3]; cap]);
        self.len = 0;
        for s in old {
            if s[2] != 0 {
                self.insert((s[1] as u128) << 64 | s[0] as u128, s[2]);
            }
        }
    }

    /// Inserts `key` first seen in record `rec`, or returns the record that had it first.
    #[inline]
    fn insert(&mut self, key: u128, rec: u64) -> Option<u64> {
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            self.rebuild((self.slots.len() * 2).max(1024));
        }
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        // Exact keys are not random: fold a 128-bit product to spread them.
        let m = (lo ^ 0x9E37_79B9_7F4A_7C15) as u128 * (hi ^ 0xC2B2_AE3D_27D4_EB4F) as u128;
        let h = (m as u64) ^ ((m >> 64) as u64);
        let n = self.slots.len();
        let mut i = ((h as u128 * n as u128) >> 64) as usize;
        loop {
            let s = &mut self.slots[i];
            if s[2] == 0 {
                *s = [lo, hi, rec];
                self.len += 1;
                return None;
            }
            if s[0] == lo && s[1] == hi {
                return Some(s[2]);
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }
}

/// Runs csvcheck.
pub fn run(mut args: Args) -> Result<()> {
    crate::output::Guard::new("an output")
        .inputs("FILE", &args.files)
        .input("--manifest", args.manifest.as_deref())
        .input("--ddl", args.ddl.as_deref())
        .output("--report", args.report.as_deref())
        .output("--bad-rows", args.bad_rows.as_deref())
        .output("--bad-rows-reasons", args.bad_rows_reasons.as_deref())
        .install()?;
    args.jobs = Some(crate::cli::threads("--jobs", args.jobs)?);
    let cfg = Config::from_args(args)?;
    check(&cfg)
}

/// Checks the inputs as configured and writes the outputs and the report.
pub fn check(cfg: &Config) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| Error::internal(format!("cannot start worker threads: {e}")))?;
    let ins: Vec<Option<&std::path::Path>> = cfg.inputs.iter().map(|p| p.as_deref()).collect();
    crate::progress::start("csvcheck", cfg.quiet, &ins);
    let open_sink = |p: &Option<PathBuf>| -> Result<Option<Sink>> {
        match p {
            Some(p) => Ok(Some(Sink::create(Some(p), wants_gzip(p), 6)?)),
            None => Ok(None),
        }
    };
    let mut m = Merger {
        cfg,
        columns: cfg.columns.iter().map(|c| c.name.clone()).collect(),
        key: cfg.key.clone(),
        good_out: if cfg.filter {
            Some(Sink::stdout())
        } else {
            None
        },
        bad_out: open_sink(&cfg.bad_rows)?,
        reasons: open_sink(&cfg.reasons)?,
        good_open: false,
        bad_open: false,
        records: 0,
        bad: 0,
        checks: BTreeMap::new(),
        examples: Vec::new(),
        example_counts: HashMap::new(),
        seen: (!cfg.sorted).then(KeySet::default),
        max_keys: (cfg.key_memory / BYTES_PER_KEY).max(1) as usize,
        key_complete: true,
        last_key: None,
        files: Vec::new(),
        stopped: None,
        header_written: false,
        notes: cfg.notes.clone(),
        blank_rows: 0,
        stdout_closed: false,
        good_bytes: 0,
    };
    if let Some(r) = &mut m.reasons {
        r.write_all(b"file,record,line,byte,column,check,message\n")
            .map_err(|e| Error::io(r.name(), e))?;
    }
    let mut columns = cfg.columns.clone();
    let mut key = cfg.key.clone();
    // With --header giving the column order: the configuration with columns in that order.
    let mut reordered: Option<Config> = None;
    let mut width: Option<usize> = (!columns.is_empty()).then_some(columns.len());
    for inp in &cfg.inputs {
        if m.stopped.is_some() {
            break;
        }
        // Each file is loaded on its own, so each sets its own line ending.
        let mut crlf: Option<bool> = None;
        let input = input::open(inp.as_deref())?;
        let name = input.name.clone();
        if cfg.inputs.len() > 1 {
            crate::progress::phase(name.clone());
        }
        let size_hint = input
            .path
            .as_ref()
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|md| md.len());
        m.files.push(FileStat {
            file: name.clone(),
            records: 0,
            bad: 0,
        });
        let bad_before = m.bad;
        let mut reader = ChunkReader::new(input.reader, &name, CHUNK);
        reader.keep_unterminated(true);
        let mut first_chunk = true;
        let scanned = std::thread::scope(|s| -> Result<()> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Chunk>>(cfg.threads * 2);
            let (back_tx, back_rx) = std::sync::mpsc::channel::<Chunk>();
            s.spawn(move || {
                crate::records::read_ahead(
                    |buf| reader.next_chunk_into(buf.unwrap_or_default()),
                    &tx,
                    &back_rx,
                )
            });
            // The merge of one batch runs while the workers check the next one.
            let mut pending: Option<(Vec<Chunk>, Vec<Checked>, bool)> = None;
            loop {
                let mut batch: Vec<Chunk> = Vec::new();
                match rx.recv() {
                    Ok(c) => batch.push(c?),
                    Err(_) => {
                        if let Some(p) = pending.take() {
                            merge_batch(&mut m, &name, p, &back_tx)?;
                        }
                        break;
                    }
                }
                while batch.len() < cfg.threads * 2 {
                    match rx.try_recv() {
                        Ok(c) => batch.push(c?),
                        Err(_) => break,
                    }
                }
                if first_chunk {
                    let c0 = &batch[0];
                    let rec0 = c0.record(0);
                    if crlf.is_none() {
                        crlf = Some(rec0.ends_with(b"\r\n"));
                    }
                    let mut f = Vec::new();
                    let nf = split_fields(rec0, &mut f).map(|_| f.len()).unwrap_or(0);
                    if cfg.header {
                        if cfg.order_from_header && reordered.is_none() {
                            let names: Vec<String> = f
                                .iter()
                                .map(|x| String::from_utf8_lossy(&x.value(rec0)).into_owned())
                                .collect();
                            let perm = header_order(&columns, &names, &name)?;
                            key = key
                                .iter()
                                .map(|&k| perm.iter().position(|&i| i == k).unwrap_or(k))
                                .collect();
                            columns = perm.iter().map(|&i| columns[i].clone()).collect();
                            m.columns = names;
                            let mut c = cfg.clone();
                            c.columns = columns.clone();
                            c.key = key.clone();
                            reordered = Some(c);
                        } else if !columns.is_empty() {
                            header_notes(&mut m, rec0, &f, nf, &columns, &name)?;
                        } else if width.is_none() {
                            // Structure-only: columns named by the header.
                            columns = f
                                .iter()
                                .map(|x| Column {
                                    name: String::from_utf8_lossy(&x.value(rec0)).into_owned(),
                                    ty: PgType::Text,
                                    not_null: false,
                                })
                                .collect();
                            m.columns = columns.iter().map(|c| c.name.clone()).collect();
                        }
                        if !m.header_written {
                            m.put_good(rec0)?;
                            put(&mut m.bad_out, &mut m.bad_open, rec0)
                                .map_err(|e| Merger::sink_err(&m.bad_out, e))?;
                            m.header_written = true;
                        }
                    }
                    if width.is_none() {
                        width = Some(if nf == 0 { 1 } else { nf });
                    }
                    // Size the key set once from the file size, instead of growing it by
                    // rehashing every key several times.
                    if let (Some(seen), Some(sz)) = (&mut m.seen, size_hint)
                        && (!key.is_empty() || cfg.key_spec.is_some())
                    {
                        let c0 = &batch[0];
                        let est = sz as f64 * c0.len() as f64 / c0.data.len().max(1) as f64;
                        seen.reserve(((est * 1.02) as usize).min(m.max_keys));
                    }
                    if key.is_empty()
                        && let Some(spec) = &cfg.key_spec
                    {
                        let cols: Vec<Column> = if columns.is_empty() {
                            (1..=width.unwrap_or(1))
                                .map(|k| Column {
                                    name: k.to_string(),
                                    ty: PgType::Text,
                                    not_null: false,
                                })
                                .collect()
                        } else {
                            columns.clone()
                        };
                        for n in spec {
                            key.push(resolve_column(&cols, n)?);
                        }
                    }
                }
                let structure_only = cfg.columns.is_empty();
                let ctx_cfg;
                let cfg_ref = if structure_only && !key.is_empty() {
                    // Key columns of a structure-only check must be non-NULL too.
                    let mut c = cfg.clone();
                    c.columns = (0..width.unwrap_or(1))
                        .map(|k| Column {
                            name: columns
                                .get(k)
                                .map_or_else(|| (k + 1).to_string(), |c| c.name.clone()),
                            ty: PgType::Text,
                            not_null: key.contains(&k),
                        })
                        .collect();
                    ctx_cfg = c;
                    &ctx_cfg
                } else {
                    reordered.as_ref().unwrap_or(cfg)
                };
                let key_types: Vec<PgType> = key
                    .iter()
                    .map(|&k| {
                        cfg_ref
                            .columns
                            .get(k)
                            .map_or(PgType::Text, |c| c.ty.clone())
                    })
                    .collect();
                let ctx = Ctx {
                    cfg: cfg_ref,
                    width: width.unwrap_or(1),
                    crlf: crlf.unwrap_or(false),
                    typed: cfg_ref
                        .columns
                        .iter()
                        .map(|c| !matches!(c.ty, PgType::Text | PgType::Unknown(_)))
                        .collect(),
                    key: key.clone(),
                    key_cols: key_types
                        .iter()
                        .enumerate()
                        .map(|(k, t)| key_col(cfg, k, t))
                        .collect(),
                    exact_widths: None,
                };
                m.key = key.clone();
                let mut ctx = ctx;
                // Exact keys are for the duplicate set only: --sorted compares encodings.
                if !cfg.sorted {
                    ctx.exact_widths = exact_key_widths(&ctx.key_cols, &key_types);
                }
                let skip0 = first_chunk && cfg.header;
                let prev = pending.take();
                let merger = &mut m;
                let back = &back_tx;
                let (results, merged): (Vec<Checked>, Result<()>) = pool.install(|| {
                    rayon::join(
                        || {
                            batch
                                .par_iter()
                                .enumerate()
                                .map(|(k, c)| check_chunk(&ctx, c, k == 0 && skip0))
                                .collect()
                        },
                        || match prev {
                            Some(p) => merge_batch(merger, &name, p, back),
                            None => Ok(()),
                        },
                    )
                });
                merged?;
                first_chunk = false;
                if m.stopped.is_some() {
                    break;
                }
                pending = Some((batch, results, skip0));
            }
            drop(rx);
            Ok(())
        });
        if let Err(e) = scanned {
            return Err(if m.stdout_closed {
                stopped_early(&mut m)
            } else {
                e
            });
        }
        if let Some(f) = m.files.last_mut() {
            f.bad = m.bad - bad_before;
        }
    }
    finish(m, &columns, &key)
}

/// Merges a checked batch in order and hands the chunk buffers back to the reader.
fn merge_batch(
    m: &mut Merger,
    name: &str,
    (chunks, results, skip0): (Vec<Chunk>, Vec<Checked>, bool),
    back: &std::sync::mpsc::Sender<Chunk>,
) -> Result<()> {
    for (k, (c, r)) in chunks.into_iter().zip(results).enumerate() {
        if m.stopped.is_none() {
            crate::progress::add_records(c.len() as u64);
            m.merge(name, &c, r, k == 0 && skip0)?;
        }
        let _ = back.send(c);
    }
    Ok(())
}

/// For each header field, the index of the column it names: the header must name every
/// column exactly once.
fn header_order(columns: &[Column], names: &[String], file: &str) -> Result<Vec<usize>> {
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
/// header gives the column order (the schema could not), since then a file whose header
/// differs would be checked against the wrong columns.
fn header_notes(
    m: &mut Merger,
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
    if m.cfg.order_from_header && !diffs.is_empty() {
        return Err(Error::Usage(format!(
            "{}; the first file's header gave the column order, every file's header must match it",
            diffs.join("; ")
        )));
    }
    m.notes.extend(diffs);
    Ok(())
}

fn finish(mut m: Merger, columns: &[Column], key: &[usize]) -> Result<()> {
    let cfg = m.cfg;
    if m.blank_rows > 0 {
        let value = if cfg.null.is_empty() {
            "NULL"
        } else {
            "an empty string"
        };
        m.notes.push(format!(
            "{} blank line(s): PostgreSQL reads each as a row whose one column is {value}; \
             CockroachDB's IMPORT skips blank lines, so it would not load these rows",
            m.blank_rows
        ));
    }
    let rate = if m.records == 0 {
        0.0
    } else {
        m.bad as f64 / m.records as f64
    };
    let tolerated =
        m.bad > 0 && m.stopped.is_none() && cfg.max_error_rate.is_some_and(|r| rate <= r);
    let verdict = if m.bad == 0 {
        "clean"
    } else if tolerated {
        "within tolerance"
    } else {
        "bad records"
    };
    if let Some(s) = m.good_out.take()
        && let Err(e) = s.finish()
    {
        m.stdout_closed |= e.is_broken_pipe();
        return Err(if m.stdout_closed {
            stopped_early(&mut m)
        } else {
            e
        });
    }
    if let Some(s) = m.bad_out.take() {
        s.finish()?;
    }
    if let Some(s) = m.reasons.take() {
        s.finish()?;
    }
    let report = Report {
        tool: "csvcheck",
        version: env!("CARGO_PKG_VERSION"),
        files: std::mem::take(&mut m.files),
        records: m.records,
        good: m.records - m.bad,
        bad: m.bad,
        bad_rate: rate,
        checks: std::mem::take(&mut m.checks)
            .into_iter()
            .map(|(k, v)| (k.name(), v))
            .collect(),
        examples: std::mem::take(&mut m.examples),
        key: (!key.is_empty()).then(|| KeyReport {
            columns: key
                .iter()
                .map(|&k| {
                    columns
                        .get(k)
                        .map_or((k + 1).to_string(), |c| c.name.clone())
                })
                .collect(),
            mode: if cfg.sorted { "sorted" } else { "hash" },
            complete: m.key_complete,
        }),
        notes: std::mem::take(&mut m.notes),
        stopped: m.stopped.take(),
        verdict,
    };
    if !cfg.quiet || m.bad > 0 {
        let outputs = [
            cfg.filter,
            cfg.bad_rows.is_some(),
            cfg.reasons.is_some(),
            cfg.report.is_some() || cfg.json_stdout,
        ];
        let line = crate::progress::Summary {
            read_bytes: crate::progress::read_bytes(),
            read_records: report.records,
            wrote: outputs.iter().filter(|&&o| o).count() as u64,
            unit: "file",
            wrote_records: if cfg.filter { report.good } else { 0 },
            wrote_bytes: m.good_bytes,
            bad: report.bad,
            bad_word: "bad",
        };
        print_summary(&report, &line);
    }
    let mut json = serde_json::to_vec_pretty(&report).map_err(|e| Error::Usage(e.to_string()))?;
    json.push(b'\n');
    if let Some(p) = &cfg.report {
        let mut f = crate::output::AtomicFile::create(p)?;
        f.write_all(&json).at(p)?;
        f.commit()?;
    } else if cfg.json_stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(&json).at("<stdout>")?;
        out.flush().at("<stdout>")?;
    }
    if m.bad > 0 && !tolerated {
        return Err(Error::Found(String::new()));
    }
    Ok(())
}

/// The end of a run whose standard output (--filter) was closed before it finished, e.g.
/// by `head`: quietly, and never with 0, which would mean every record was checked and is
/// clean. Exit 1 when bad records were already seen, else [`Error::StoppedEarly`] (exit 3).
/// The other outputs are dropped unfinished (their temporary files removed), so nothing
/// looks complete.
fn stopped_early(m: &mut Merger) -> Error {
    m.bad_out = None;
    m.reasons = None;
    if m.bad > 0 {
        Error::Found(String::new())
    } else {
        Error::StoppedEarly
    }
}

/// The report on stderr: problems by check, examples, notes, then the summary line (the
/// shape every tool shares, see [`crate::progress`]) last.
fn print_summary(r: &Report, line: &crate::progress::Summary) {
    crate::progress::clear();
    let mut e = std::io::stderr().lock();
    for (name, st) in &r.checks {
        let cols = if st.columns.is_empty() {
            String::new()
        } else {
            let mut v: Vec<_> = st.columns.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1));
            format!(
                " ({})",
                v.iter()
                    .map(|(c, n)| format!("{c}: {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let _ = writeln!(e, "csvcheck:   {name}: {}{cols}", st.problems);
    }
    for x in &r.examples {
        let pos = Pos {
            file: x.file.clone(),
            line: x.line,
            byte: x.byte,
            record: Some(x.record),
        };
        let col = x
            .column
            .as_ref()
            .map_or(String::new(), |c| format!("column {c}: "));
        let ex = if x.excerpt.is_empty() {
            String::new()
        } else {
            format!(": \"{}\"", x.excerpt)
        };
        let _ = writeln!(e, "csvcheck: {pos} {}: {col}{}{ex}", x.check, x.message);
    }
    if let Some(k) = &r.key
        && !k.complete
    {
        let _ = writeln!(e, "csvcheck: primary key not fully checked");
    }
    for n in &r.notes {
        let _ = writeln!(e, "csvcheck: note: {n}");
    }
    if let Some(s) = &r.stopped {
        let _ = writeln!(e, "csvcheck: {s}");
    }
    if r.bad > 0 {
        let _ = writeln!(
            e,
            "csvcheck: {:.4}% of the records are bad{}",
            r.bad_rate * 100.0,
            match r.verdict {
                "within tolerance" => ", within --max-error-rate",
                _ => "",
            }
        );
    }
    drop(e);
    line.print();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_fast_agrees_with_split_fields() {
        let recs: &[&[u8]] = &[
            b"a,b,c\n",
            b"a,,c\r\n",
            b"",
            b",",
            b"x",
            b"a,\"b,c\",d\n",
            b"a,b\"c\n",
            b"\"open\n",
            b"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21\n",
            b",,,,,,,,,,,,,,,,,\n",
            b"abcdefgh,ijklmnop,\xff\xfe,\x80\x2c\xac,qrstuvwx\n",
            b"abcdefghijklmnop,qrstuvw\"x\n",
            b"abcdefghijklmnop,\"qrst,uvw\",x,y,z\r\n",
        ];
        for rec in recs {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(rec, &mut a);
            let rb = split_fast(rec, strip_terminator(rec), &mut b);
            assert_eq!(ra, rb, "{rec:?}");
            if ra.is_ok() {
                assert_eq!(a, b, "{rec:?}");
            }
        }
    }
}

#[cfg(test)]
mod keyset_tests {
    use super::KeySet;

    #[test]
    fn finds_every_duplicate_across_growth() {
        let mut k = KeySet::default();
        for i in 0..100_000u128 {
            assert_eq!(k.insert(i * 7919, i as u64 + 1), None);
        }
        for i in 0..100_000u128 {
            assert_eq!(k.insert(i * 7919, 999_999), Some(i as u64 + 1));
        }
        assert_eq!(k.len(), 100_000);
        k.reserve(300_000);
        assert_eq!(k.insert(7919 * 5, 1), Some(6));
        assert_eq!(k.insert(u128::MAX, 1), None);
        assert_eq!(k.insert(0, 2), Some(1), "key 0 was inserted first as i = 0");
    }
}
