//! csvcheck's command line: the options ([`Args`]) and the run they describe once resolved and
//! checked ([`Config`]): columns and key from --columns, --ddl or --manifest.

use super::config::{Column, Config};
use super::ddl;
use super::schema::parse_columns;
use crate::io::error::{Error, Result};
use crate::io::{cli, input};
use crate::keys::KeyArg;
use crate::manifest::Manifest;
use crate::pg::types::{PgType, check_type_name};
use clap::Parser;
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
    /// the manifest has one), with the enum labels and domain bases it carries. With --ddl
    /// too (pgdump2csv's --write-schema file), the manifest gives the columns and --ddl the
    /// enums and domains their types name (needed for a manifest from before they were in it).
    #[arg(short = 'm', long, value_name = "FILE", conflicts_with = "columns")]
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

    /// Replace output files that exist already. Without it, a run refuses (exit 2, before
    /// writing anything) an output file it did not create itself: the toolkit's one overwrite
    /// rule (dumpshard(7), FILES).
    #[arg(long)]
    pub force: bool,
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
            // pgdump2csv's manifest carries the dump's enums and domains; one written before
            // it did names the types only, and the schema file given with --ddl (which wins
            // when given) holds their labels and bases.
            let cat = match &a.ddl {
                Some(d) => {
                    let inp = input::open(Some(d))?;
                    ddl::parse_reader(inp.reader, &inp.name)?.catalog
                }
                None => ddl::manifest_catalog(&man),
            };
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
                // A schema-qualified name from a manifest is most likely an enum or a domain
                // whose definition is in the schema file.
                let hint = if a.manifest.is_some() && a.ddl.is_none() && c.ty.name().contains('.') {
                    "; give the schema file with --ddl to check its enum labels or domain base"
                } else {
                    ""
                };
                notes.push(format!(
                    "column {}: type {} is not checked (unknown to csvcheck){hint}",
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
            key_names = key_args.iter().map(|k| k.column.text()).collect();
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
                .map(|p| (!crate::io::stream::is_stdin(p)).then(|| p.clone()))
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

/// Key column `n` of `columns`, by the toolkit's one rule ([`crate::keys::resolve_column`]).
pub(super) fn resolve_column(columns: &[Column], n: &str) -> Result<usize> {
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    crate::keys::resolve_column(n, &names)
}

pub(super) fn parse_rate(r: &str) -> Result<f64> {
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
