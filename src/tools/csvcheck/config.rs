//! The checked options of one run and the columns a CSV is checked against: the types every
//! other part of csvcheck reads. `args` builds them from the command line (and the schema or
//! manifest it names); this module imports none of csvcheck's others.

use crate::keys::KeyType;
use crate::pg::types::PgType;
use std::path::PathBuf;

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
    /// [`super::ddl::parse_reader`]): the header record gives it, and every file's header must
    /// name the same columns in the same order.
    pub order_from_header: bool,
}
