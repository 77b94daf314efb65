//! csvsplit's command line: the clap `Args`, and the checked `Config` they resolve to (the
//! distribution `Mode`, the load statements to print, names, key and filter).

use super::Template;
use super::sql;
use crate::io::cli;
use crate::io::error::{Error, IoContext, Result};
use crate::keys::{KeyArg, Nulls};
use crate::manifest::{Manifest, Table};
use std::path::{Path, PathBuf};

/// Shard a CSV into import-ready files: by rows, by bytes, into N near-equal chunks, or by
/// key hash. Never splits a record; copies records byte for byte; writes shards atomically
/// (`.gz` shards compressed in parallel); reports what it wrote.
#[derive(Debug, clap::Parser)]
#[command(name = "csvsplit", version)]
#[command(group(clap::ArgGroup::new("mode").required(true).multiple(true)
    .args(["rows", "bytes", "chunks", "split_points"])))]
pub struct Args {
    /// Input CSV; standard input when absent or `-`. gzip, zstd and lz4 input is recognised
    /// by its magic bytes.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// N records per shard (the last shard may have fewer).
    #[arg(short = 'r', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub rows: Option<u64>,

    /// At most SIZE bytes of CSV per shard, uncompressed and header included (e.g. 64M, 4G).
    /// A record that does not fit even in an empty shard gets a shard of its own, with a
    /// warning.
    #[arg(short = 'b', long, value_name = "SIZE", value_parser = size_arg)]
    pub bytes: Option<u64>,

    /// N shards of near-equal bytes: shard k ends at the first record end at or past
    /// (k+1)/N of the data. Input that is not a plain regular file (stdin, compressed) is
    /// first spooled, decompressed, to an unnamed temporary file in the first shard's
    /// directory. Always writes N shards, some possibly empty. With --by-hash: N buckets.
    #[arg(short = 'n', long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub chunks: Option<u64>,

    /// Send each record to shard XXH64(key) mod N (needs -n N): the same key always lands in
    /// the same shard, on any machine. COLS: comma-separated column names (from the header
    /// or --manifest) or 1-based column numbers. The key is hashed from the unquoted
    /// values, so "1" and 1 land together while NULL and "" differ; see docs/csvsplit.md for the
    /// exact bytes. Shard order is not input order; a last record without a newline gets
    /// one.
    #[arg(long, value_name = "COLS", requires = "chunks")]
    pub by_hash: Option<String>,

    /// Cut the key space of -k (or the --manifest table's primary key) into N ranges and
    /// send each record to its range's shard, input order kept: shard i holds the keys from
    /// split point i-1 (included) to split point i (excluded), so the shards, each sorted
    /// (pksort with the same -k and --nulls), concatenate to the whole input sorted. The N-1
    /// split points come from --split-points, or from a uniform sample of --samples-per-range
    /// records per range: the input is then read twice (stdin and compressed input are first
    /// spooled, decompressed, to an unnamed temporary file). Always writes N shards, some
    /// possibly empty; a last record without a newline gets one.
    #[arg(long, conflicts_with = "by_hash")]
    pub by_range: bool,

    /// With --by-range: the split points, one key per line, each a CSV record of the key's
    /// columns in -k order (typed and NULL-tokened like the input), in non-decreasing key
    /// order. N is their number plus one (-n may be left out). The input is read once.
    #[arg(long, value_name = "FILE", requires = "by_range")]
    pub split_points: Option<PathBuf>,

    /// With --by-range: write the split points used to FILE, in --split-points format (the
    /// key fields as they appear in the input), so that other inputs can be cut alike.
    #[arg(long, value_name = "FILE", requires = "by_range")]
    pub write_split_points: Option<PathBuf>,

    /// With --by-range: records sampled per range (m). With distinct keys, the largest range
    /// exceeds a*records/N with probability at most records*exp(-(1-1/a)^2*a*m/2): with the
    /// default, within 1.3 times the mean but for a chance below 1e-6 at 1e9 records. The
    /// sample (N*m keys, at most 1 Mi: m is lowered for large N) bounds the memory.
    #[arg(long, value_name = "M", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub samples_per_range: u64,

    /// Pipe each shard to `sh -c CMD` with the environment variable FILE set to the shard's
    /// name (from --output) instead of writing it, as GNU split --filter does: e.g.
    /// --filter 'aws s3 cp - s3://bucket/$FILE'. `.gz` shards are compressed before the
    /// filter. A filter that fails, or stops reading, is an error naming the shard (exit 2).
    /// At most -j filters run at once; when more shards fill at the same time (--by-hash,
    /// --by-range with N > -j), the others wait in unnamed temporary files in $TMPDIR.
    /// The filters' standard output is csvsplit's.
    #[arg(long, value_name = "CMD", conflicts_with = "copy_sql")]
    pub filter: Option<String>,

    /// Shard file names: `{n:04}` is the 0-based shard number zero-padded to 4 digits
    /// (`{n:0}`: not padded). A name ending in `.gz` makes gzip shards. Missing directories
    /// are created.
    #[arg(
        short,
        long,
        value_name = "TEMPLATE",
        default_value = "part-{n:04}.csv"
    )]
    pub output: String,

    /// The input starts with a header record; it is repeated at the top of every shard.
    #[arg(long)]
    pub header: bool,

    /// With --header: only the first shard gets the header (so the shards concatenate back
    /// to the input exactly).
    #[arg(long, requires = "header")]
    pub no_repeat_header: bool,

    /// gzip compression level for `.gz` shards, 0 (store) to 9 (smallest).
    #[arg(long, value_name = "LEVEL", default_value_t = 6,
          value_parser = clap::value_parser!(u32).range(0..=9))]
    pub level: u32,

    /// Write a JSON manifest of the shards to FILE (`-` for stdout): for each shard its file
    /// (relative to the manifest's directory), records, uncompressed bytes, file bytes and
    /// CRC-32 of the uncompressed content (the checksum gzip itself stores); with a key
    /// (-k, or the --manifest table's primary key) also each shard's first and last key
    /// and whether the shards are sorted and non-overlapping.
    #[arg(long = "write-manifest", value_name = "FILE")]
    pub write_manifest: Option<PathBuf>,

    /// Key column for the --write-manifest key ranges, most significant first:
    /// `COLUMN[:TYPE][:desc]`, as in pksort. Repeat the option or separate specs with commas.
    /// COLUMN is a 1-based number or a name (from --header or --manifest). TYPE is int
    /// (any length), numeric, float, text (bytewise, the default), uuid, bool, date,
    /// timestamp or timestamptz; with --manifest it defaults to the column's type.
    /// Without -k, --manifest uses the table's primary key, if it has one. Needs
    /// --write-manifest or --by-range. A key value that does not parse as its type is an
    /// error.
    #[arg(short = 'k', long = "key", value_name = "SPEC", value_delimiter = ',')]
    pub key: Vec<String>,

    /// No key: --write-manifest gives no key ranges even though the --manifest table has a
    /// primary key. Without a key, -b and -n of a plain file into plain shards find their
    /// cuts without visiting every record (the cut scan, docs/csvsplit.md).
    #[arg(long = "no-key", conflicts_with_all = ["key", "nulls", "by_range"])]
    pub no_key: bool,

    /// Allow NULL key values and order them first or last (as in pksort); without this a
    /// NULL in a key column is an error.
    #[arg(long, value_enum, value_name = "WHERE")]
    pub nulls: Option<Nulls>,

    /// Read column names, the NULL token, whether there is a header and the primary key from
    /// this pgdump2csv manifest (only read; --write-manifest writes). `--manifest-in` is
    /// the old spelling.
    #[arg(short = 'm', long, alias = "manifest-in", value_name = "FILE")]
    pub manifest: Option<PathBuf>,

    /// Table name: looked up in --manifest (optional when it has one table), and used in
    /// --import-sql / --copy-sql. The --write-manifest names the table (its schema and name,
    /// from --manifest, else from this name read as psql reads one: `"app.v2".users`), so
    /// csvload needs no -t for the shards.
    #[arg(short = 't', long, value_name = "NAME")]
    pub table: Option<String>,

    /// Print to stdout a CockroachDB `IMPORT INTO table (cols) CSV DATA (...)` statement
    /// loading every shard from URL_PREFIX/SHARD_FILE_NAME (needs --table or --manifest). A
    /// query string in URL_PREFIX (`s3://bucket/dir?AUTH=implicit`) goes after the file name.
    #[arg(long, value_name = "URL_PREFIX", conflicts_with = "copy_sql")]
    pub import_sql: Option<String>,

    /// Print to stdout a psql script of `\copy table (cols) FROM ... CSV` lines, one per
    /// shard, for PostgreSQL or YugabyteDB (needs --table or --manifest; run it from this
    /// directory). It sets ON_ERROR_STOP. A name or path with CR or LF is refused (exit 2);
    /// shards with a line that is exactly `\.`, which psql 17 and older cannot load, are
    /// warned about.
    #[arg(long)]
    pub copy_sql: bool,

    /// The NULL token of the input (default: from --manifest, else the unquoted empty
    /// field). Used by --by-hash, the key ranges and in the generated SQL.
    #[arg(long, value_name = "STRING")]
    pub null: Option<String>,

    /// Worker threads that checksum and compress shards, at most 4 per CPU (and 256)
    /// [default: number of CPUs].
    #[arg(short = 'j', long, alias = "parallel", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,

    /// No warnings and no progress bar on stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// At the end, print one summary line on stderr, the same shape in every tool (see
    /// dumpshard(7)): `read SIZE, N records; wrote N shards, N records, SIZE; N dropped; SECS s,
    /// RATE MB/s`.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Replace the files of an earlier run: without it, a run refuses (exit 2, before writing
    /// anything) when files matching the --output template exist already; with it, those the
    /// run does not write itself are removed once the new shards are in place, so the
    /// directory never mixes shards of two runs.
    #[arg(long)]
    pub force: bool,
}

fn size_arg(s: &str) -> std::result::Result<u64, String> {
    cli::parse_size(s).map_err(|e| e.to_string())
}

/// How records are distributed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// N records per shard.
    Rows(u64),
    /// At most this many bytes per shard.
    Bytes(u64),
    /// N shards of near-equal bytes.
    Chunks(u64),
    /// `hash(columns) mod n`.
    Hash {
        /// Column names or 1-based numbers, as given.
        columns: Vec<String>,
        /// Number of shards.
        n: u64,
    },
    /// Key ranges.
    Range {
        /// Number of shards.
        n: u64,
        /// `--split-points`; `None`: sample the input.
        points: Option<PathBuf>,
    },
}

/// Which load statements to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlOut {
    /// None.
    None,
    /// CockroachDB `IMPORT INTO`, with this URL prefix.
    Import(String),
    /// A psql `\copy` script.
    Copy,
}

/// A checked, resolved invocation.
#[derive(Debug, Clone)]
pub struct Config {
    /// Input path; `None` = stdin.
    pub input: Option<PathBuf>,
    /// The distribution.
    pub mode: Mode,
    /// Shard names.
    pub template: Template,
    /// gzip level for `.gz` shards.
    pub level: u32,
    /// The input has a header record.
    pub header: bool,
    /// Every shard (not only the first) gets the header.
    pub repeat_header: bool,
    /// Where to write the JSON manifest (`--write-manifest`).
    pub write_manifest: Option<PathBuf>,
    /// Track key ranges: the `-k` specs, or empty for the manifest table's primary key.
    /// `None`: no key.
    pub key: Option<Vec<KeyArg>>,
    /// NULL keys allowed, and where they order.
    pub nulls: Option<Nulls>,
    /// The table from `--manifest`.
    pub table: Option<Table>,
    /// `--table` as given.
    pub table_name: Option<String>,
    /// The table the shards hold, for the manifest: the --manifest table's schema and name,
    /// else `--table` read as psql reads a name (schema `None` when it gives none).
    pub target: Option<(Option<String>, String)>,
    /// Load statements to print.
    pub sql: SqlOut,
    /// NULL token.
    pub null: String,
    /// Worker threads.
    pub workers: usize,
    /// Suppress warnings and the progress bar.
    pub quiet: bool,
    /// Print the summary line.
    pub verbose: bool,
    /// Replace (and remove) the files of an earlier run.
    pub force: bool,
    /// `--write-split-points`.
    pub write_points: Option<PathBuf>,
    /// `--samples-per-range`.
    pub samples_per_range: u64,
    /// `--filter`: the command each shard is piped to.
    pub filter: Option<String>,
}

impl Config {
    /// Checks the options and resolves defaults.
    pub fn from_args(a: Args) -> Result<Config> {
        let mode = match (a.rows, a.bytes, a.chunks, &a.by_hash) {
            (None, None, n, None) if a.by_range => {
                let n = match (&a.split_points, n) {
                    (Some(p), n) => {
                        let count = count_points(p)?;
                        if n.is_some_and(|n| n != count + 1) {
                            return Err(Error::Usage(format!(
                                "-n {} does not match the {count} split point(s) of {} \
                                 (N ranges need N-1 points)",
                                n.unwrap_or_default(),
                                p.display()
                            )));
                        }
                        count + 1
                    }
                    (None, Some(n)) => n,
                    (None, None) => {
                        return Err(Error::Usage(
                            "--by-range needs -n N or --split-points FILE".into(),
                        ));
                    }
                };
                Mode::Range {
                    n,
                    points: a.split_points.clone(),
                }
            }
            (Some(r), None, None, None) => Mode::Rows(r),
            (None, Some(b), None, None) => Mode::Bytes(b),
            (None, None, Some(n), None) => Mode::Chunks(n),
            (None, None, Some(n), Some(cols)) => {
                let columns: Vec<String> = cols.split(',').map(|c| c.trim().to_string()).collect();
                if columns.iter().any(|c| c.is_empty()) {
                    return Err(Error::Usage(format!("--by-hash: bad column list '{cols}'")));
                }
                Mode::Hash { columns, n }
            }
            _ => {
                return Err(Error::Usage(
                    "give exactly one of --rows, --bytes, --chunks (with --by-hash: --chunks; \
                     with --by-range: --chunks or --split-points)"
                        .into(),
                ));
            }
        };
        let template = Template::parse(&a.output)?;
        let table = match &a.manifest {
            Some(p) => {
                // Until this release --manifest wrote csvsplit's own manifest.
                let m = Manifest::read_or_hint(
                    p,
                    "--manifest reads a pgdump2csv manifest; --write-manifest writes one",
                )?;
                Some(
                    m.select(a.table.as_deref(), &p.display().to_string())?
                        .clone(),
                )
            }
            None => None,
        };
        let header = a.header || table.as_ref().is_some_and(|t| t.header);
        let mut keys = Vec::new();
        for k in &a.key {
            keys.push(KeyArg::parse(k)?);
        }
        let has_pk = table.as_ref().is_some_and(|t| !t.primary_key.is_empty());
        let key = if !keys.is_empty() {
            if a.write_manifest.is_none() && !a.by_range {
                return Err(Error::Usage(
                    "-k needs --write-manifest (it gives the shards' key ranges) or --by-range"
                        .into(),
                ));
            }
            Some(keys)
        } else if (a.write_manifest.is_some() || a.by_range) && has_pk && !a.no_key {
            Some(Vec::new())
        } else if a.by_range {
            return Err(Error::Usage(
                "--by-range needs a key: -k, or -m/--manifest with a primary key".into(),
            ));
        } else {
            None
        };
        if a.nulls.is_some() && key.is_none() {
            return Err(Error::Usage(
                "--nulls needs a key: -k, or --manifest with a primary key (and --write-manifest)"
                    .into(),
            ));
        }
        let repeat_header = !a.no_repeat_header;
        let sql = match (&a.import_sql, a.copy_sql) {
            (Some(u), _) => SqlOut::Import(u.clone()),
            (None, true) => SqlOut::Copy,
            (None, false) => SqlOut::None,
        };
        if matches!(sql, SqlOut::Import(_)) && header && !repeat_header {
            return Err(Error::Usage(
                "--import-sql needs every shard alike: drop --no-repeat-header".into(),
            ));
        }
        if a.write_manifest
            .as_deref()
            .is_some_and(crate::io::stream::is_stdin)
            && sql != SqlOut::None
        {
            return Err(Error::Usage(
                "--write-manifest - and the SQL output would both go to stdout".into(),
            ));
        }
        if sql != SqlOut::None && table.is_none() && a.table.is_none() {
            return Err(Error::Usage(
                "--import-sql and --copy-sql need the table: give -t/--table or -m/--manifest"
                    .into(),
            ));
        }
        let null = a
            .null
            .clone()
            .or_else(|| table.as_ref().map(|t| t.null.clone()))
            .unwrap_or_default();
        if sql != SqlOut::None {
            sql::check_names(table.as_ref(), a.table.as_deref(), &null).map_err(Error::Usage)?;
        }
        if a.filter.as_deref().is_some_and(|f| f.trim().is_empty()) {
            return Err(Error::Usage("--filter: empty command".into()));
        }
        let target = match (&table, &a.table) {
            (Some(t), _) => Some((Some(t.schema.clone()), t.name.clone())),
            // Only the manifest needs the name's parts: the SQL output uses -t as written.
            (None, Some(n)) if a.write_manifest.is_some() => {
                let n = crate::manifest::TableName::parse(n)
                    .map_err(|e| Error::Usage(format!("-t/--table: {e}")))?;
                Some((n.schema, n.name))
            }
            _ => None,
        };
        let workers = crate::io::cli::threads("--jobs", a.jobs.map(|j| j as usize))?;
        Ok(Config {
            target,
            input: a.file.filter(|p| !crate::io::stream::is_stdin(p)),
            mode,
            template,
            level: a.level,
            header,
            repeat_header,
            write_manifest: a.write_manifest,
            key,
            nulls: a.nulls,
            table,
            table_name: a.table,
            sql,
            null,
            workers,
            quiet: a.quiet,
            verbose: a.verbose,
            force: a.force,
            write_points: a.write_split_points,
            samples_per_range: a.samples_per_range,
            filter: a.filter,
        })
    }
}

/// The number of split points in a `--split-points` file (records by quote parity), to know
/// N before the header is read; [`range::read`] checks them once the key is resolved.
fn count_points(p: &Path) -> Result<u64> {
    let data = std::fs::read(p).at(p)?;
    let (mut pos, mut q) = (0, false);
    let mut ends = Vec::new();
    crate::csv::records::scan_ends(&data, &mut pos, &mut q, usize::MAX, &mut ends);
    let tail = ends.last().copied().unwrap_or(0) < data.len();
    Ok(ends.len() as u64 + u64::from(tail))
}
