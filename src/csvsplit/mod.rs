//! csvsplit: shards a CSV into import-ready files (by rows, by bytes, into N near-equal
//! chunks, or by key hash), writes each shard atomically and optionally gzip-compressed in
//! parallel, and reports exactly what it wrote (a JSON manifest, `IMPORT INTO` or `\copy`
//! statements). With a key (`-k`, or a manifest's primary key) the manifest also gives each
//! shard's first and last key and whether the shards are sorted and non-overlapping (the
//! `keyrange` submodule, using the typed keys of [`crate::keys`]).
//!
//! Records are cut only at record boundaries found by quote parity ([`crate::records`]) and
//! copied byte for byte; in every mode but `--by-hash` the shards, minus repeated headers,
//! concatenate back to the input. The reader thread only decides where records go; the
//! checksumming, compression and writing happen in the `pipeline` submodule.

mod hash;
mod keyrange;
mod mapped;
mod pipeline;
pub mod range;
pub mod sql;
mod template;

pub use hash::{hash_encoded, push_value, shard_of};
pub use keyrange::{KeyRanges, KeyTracker, Range};
pub use pipeline::Done;
pub use template::Template;

use crate::cli;
use crate::error::{Error, IoContext, Pos, Result};
use crate::input;
use crate::keys::{KeyArg, KeySpec, Nulls};
use crate::manifest::{Manifest, Table};
use crate::output::AtomicFile;
use crate::progress;
use crate::records::{Chunk, ChunkReader, Field, split_fields};
use mapped::Mapped;
use pipeline::{Payload, Pipeline};
use serde::Serialize;
use std::collections::VecDeque;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

    /// Shard file names: `{n}` is the 0-based shard number, `{n:04}` zero-pads it to 4
    /// digits. A name ending in `.gz` makes gzip shards. Missing directories are created.
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
    /// --import-sql / --copy-sql.
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
        } else if (a.write_manifest.is_some() || a.by_range) && has_pk {
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
        if a.write_manifest.as_deref().is_some_and(input::is_stdin) && sql != SqlOut::None {
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
        let workers = crate::cli::threads("--jobs", a.jobs.map(|j| j as usize))?;
        Ok(Config {
            input: a.file.filter(|p| !input::is_stdin(p)),
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

/// Target size of the chunks read, and so of the blocks handed to workers: large enough that
/// per-block costs vanish, small enough that two workers stay busy on a single shard.
const CHUNK: usize = 1 << 20;

/// Runs csvsplit.
pub fn run(args: Args) -> Result<()> {
    crate::output::Guard::new("a shard of --output")
        .input("FILE", args.file.as_deref())
        .input("--manifest", args.manifest.as_deref())
        .input("--split-points", args.split_points.as_deref())
        .output("--write-manifest", args.write_manifest.as_deref())
        .output("--write-split-points", args.write_split_points.as_deref())
        .force(args.force)
        .install()?;
    let cfg = Config::from_args(args)?;
    // A .gz input in a regular file is inflated on -j threads (src/gzpar.rs).
    crate::gzpar::set_threads(cfg.workers);
    for (opt, f) in [
        ("--write-manifest", cfg.write_manifest.as_deref()),
        ("--write-split-points", cfg.write_points.as_deref()),
    ] {
        if let Some(m) = f
            && let Some(n) = cfg.template.number_of(m)
        {
            return Err(Error::Usage(format!(
                "{opt} {} is the name of shard {n} of --output: refusing to write it",
                m.display()
            )));
        }
    }
    // With --filter nothing is written under the shard names, so nothing of an earlier run
    // is in the way or to be removed.
    let old = if cfg.filter.is_some() {
        Vec::new()
    } else {
        cfg.template.existing()?
    };
    if !old.is_empty() && !cfg.force {
        let names: Vec<String> = old
            .iter()
            .take(5)
            .map(|(_, p)| crate::names::display_path(p))
            .collect();
        // The wording of the one overwrite rule (crate::output::exists).
        return Err(Error::Usage(format!(
            "--output: files of an earlier run exist already: {}{} (remove them, or use --force to replace them)",
            names.join(", "),
            if old.len() > 5 {
                format!(" and {} more", old.len() - 5)
            } else {
                String::new()
            }
        )));
    }
    progress::start("csvsplit", cfg.quiet, &[cfg.input.as_deref()]);
    let done = split(&cfg)?;
    for (_, p) in &old {
        if !done.shards.iter().any(|s| s.path == *p) {
            std::fs::remove_file(p).at(p)?;
        }
    }
    if let (Some(w), Some(p)) = (&cfg.write_points, &done.points) {
        p.write(w)?;
    }
    progress::clear();
    report(&cfg, &done)?;
    if cfg.verbose {
        let sum = |f: fn(&Done) -> u64| done.shards.iter().map(f).sum::<u64>();
        progress::Summary {
            read_bytes: progress::read_bytes(),
            // Every data record read goes to a shard (the header is not counted).
            read_records: sum(|d| d.records),
            wrote: done.shards.len() as u64,
            unit: "shard",
            wrote_records: sum(|d| d.records),
            wrote_bytes: sum(|d| d.bytes),
            bad: 0,
            bad_word: "dropped",
        }
        .print();
    }
    Ok(())
}

/// The number of split points in a `--split-points` file (records by quote parity), to know
/// N before the header is read; [`range::read`] checks them once the key is resolved.
fn count_points(p: &Path) -> Result<u64> {
    let data = std::fs::read(p).at(p)?;
    let (mut pos, mut q) = (0, false);
    let mut ends = Vec::new();
    crate::records::scan_ends(&data, &mut pos, &mut q, usize::MAX, &mut ends);
    let tail = ends.last().copied().unwrap_or(0) < data.len();
    Ok(ends.len() as u64 + u64::from(tail))
}

/// What a run wrote.
#[derive(Debug)]
pub struct Split {
    /// The shards, in shard order.
    pub shards: Vec<Done>,
    /// Key ranges, when a key was given.
    pub keys: Option<KeyRanges>,
    /// `--by-range`: the split points.
    pub points: Option<range::Points>,
}

/// Writes the shards; returns them in shard order, with their key ranges.
pub fn split(cfg: &Config) -> Result<Split> {
    let inp = input::open(cfg.input.as_deref())?;
    let name = inp.name.clone();
    let sampling = matches!(cfg.mode, Mode::Range { points: None, .. });
    if let Some(p) = &inp.path
        && let Some(m) = mapped::map_path(p).at(p)?
    {
        drop(inp);
        let points = sampling
            .then(|| sample_points(cfg, &name, m.as_ref()))
            .transpose()?;
        return split_mapped(cfg, name, m, true, points);
    }
    let mut points = None;
    let (reader, total): (Box<dyn Read + Send>, u64) = match &cfg.mode {
        Mode::Chunks(_) | Mode::Range { points: None, .. } => {
            let dir = match &cfg.filter {
                // The shards' directory need not exist here: spool where temporary files go.
                Some(_) => std::env::temp_dir(),
                None => shard_dir(&cfg.template.render(0)),
            };
            progress::phase("spooling the input to measure it");
            let (f, len) = spool(inp.reader, &name, &dir)?;
            if let Some(m) = Mapped::new(&f, len) {
                let points = sampling
                    .then(|| sample_points(cfg, &name, m.as_ref()))
                    .transpose()?;
                return split_mapped(cfg, name, m, false, points);
            }
            if let Mode::Range { n, .. } = cfg.mode {
                // Empty input: nothing to sample, every range is empty.
                points = Some(range::Points {
                    encoded: Vec::new(),
                    lines: Vec::new(),
                    values: Vec::new(),
                    source: range::Source::Sample {
                        records: 0,
                        samples: 0,
                        per_range: range::per_range(n, cfg.samples_per_range),
                    },
                });
            }
            (Box::new(std::io::BufReader::with_capacity(1 << 20, f)), len)
        }
        _ => (inp.reader, 0),
    };
    let mut rd = ChunkReader::new(reader, &name, CHUNK);
    let mut run = Run::new(cfg, name, total, points);
    let mut recycled: VecDeque<Arc<Vec<u8>>> = VecDeque::new();
    loop {
        let buf = reuse(&mut recycled);
        let Some(chunk) = rd.next_chunk(buf)? else {
            break;
        };
        let data = Arc::new(chunk.data);
        let shared: Shared = data.clone();
        let view = View {
            data: &shared,
            recs: Chunk {
                data: &data[..],
                begin: 0,
                ends: chunk.ends,
                first_record: chunk.first_record,
                first_line: chunk.first_line,
                first_byte: chunk.first_byte,
            },
        };
        run.feed(&view)?;
        drop(shared);
        recycled.push_back(data);
        if recycled.len() > 64 {
            recycled.pop_front();
        }
    }
    run.finish()
}

/// [`split`] over a mapped file: blocks of about [`CHUNK`] bytes are handed to the workers as
/// ranges of the mapping, so the data is never copied in user space. `count` says the bytes
/// are input read here (not a spool of input already counted as it was read).
fn split_mapped(
    cfg: &Config,
    name: String,
    m: Mapped,
    count: bool,
    points: Option<range::Points>,
) -> Result<Split> {
    let m = Arc::new(m);
    let shared: Shared = m.clone();
    let data: &[u8] = (*m).as_ref();
    let mut run = Run::new(cfg, name.clone(), data.len() as u64, points);
    let (mut pos, mut in_quote, mut record) = (0usize, false, 1u64);
    let mut ends = Vec::new();
    while pos < data.len() {
        ends.clear();
        let begin = pos;
        crate::records::scan_ends(data, &mut pos, &mut in_quote, begin + CHUNK, &mut ends);
        let last = ends.last().copied().unwrap_or(begin);
        if pos >= data.len() && last < data.len() {
            if in_quote {
                let at = |off: usize| Pos {
                    file: name.clone(),
                    line: 1 + memchr::memchr_iter(b'\n', data.get(..off).unwrap_or_default())
                        .count() as u64,
                    byte: off as u64,
                    record: Some(record + ends.len() as u64),
                };
                let tail = data.get(last..).unwrap_or_default();
                return Err(crate::records::unterminated(tail, last, at));
            }
            ends.push(data.len());
        }
        let view = View {
            data: &shared,
            recs: Chunk {
                data,
                begin,
                ends: std::mem::take(&mut ends),
                first_record: record,
                first_line: 1,
                first_byte: 0,
            },
        };
        run.feed(&view)?;
        ends = view.recs.ends;
        if count {
            progress::add_read((pos - begin) as u64);
        }
        record += ends.len() as u64;
    }
    run.finish()
}

/// `--by-range` without `--split-points`: resolves the key against the header (the first
/// record of `data` with `--header`) and samples `data` for the split points.
fn sample_points(cfg: &Config, name: &str, data: &[u8]) -> Result<range::Points> {
    let Mode::Range { n, .. } = cfg.mode else {
        return Err(Error::Usage(
            "internal error: sampling without --by-range".into(),
        ));
    };
    let mut header: &[u8] = &[];
    if cfg.header {
        let (mut pos, mut q) = (0, false);
        let mut ends = Vec::new();
        crate::records::scan_ends(data, &mut pos, &mut q, 0, &mut ends);
        let end = ends.first().copied().unwrap_or(data.len());
        header = data.get(..end).unwrap_or_default();
    }
    let spec = KeySpec::resolve(
        "csvsplit",
        cfg.key.as_deref().unwrap_or_default(),
        &column_names(cfg, header, name)?,
        cfg.table.as_ref(),
        cfg.nulls,
        cfg.null.as_bytes().to_vec(),
    )?;
    progress::phase("sampling the keys");
    range::sample(data, name, cfg.header, &spec, n, cfg.samples_per_range)
}

/// Column names, for resolving key and `--by-hash` columns: from the manifest, else the
/// header (none without either).
fn column_names(cfg: &Config, header: &[u8], name: &str) -> Result<Vec<String>> {
    if let Some(t) = &cfg.table {
        return Ok(t.column_names());
    }
    if header.is_empty() {
        return Ok(Vec::new());
    }
    crate::records::header_names(header).map_err(|m| {
        Error::input(
            Pos {
                file: name.to_string(),
                line: 1,
                byte: 0,
                record: Some(1),
            },
            format!("header: {m}"),
        )
    })
}

/// The directory of a shard path (`.` for a bare name).
fn shard_dir(shard: &Path) -> PathBuf {
    match shard.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Bytes shared with the writer threads: a read buffer or the mapped file.
type Shared = Arc<dyn pipeline::Source>;

/// One splitting run: the splitter, the writer pool, and whether the first record was seen.
struct Run<'a> {
    cfg: &'a Config,
    sp: Splitter<'a>,
    pipe: Pipeline,
    first: bool,
}

impl<'a> Run<'a> {
    fn new(cfg: &'a Config, name: String, total: u64, points: Option<range::Points>) -> Run<'a> {
        let mut sp = Splitter::new(cfg, name, total);
        sp.points = points;
        Run {
            cfg,
            sp,
            pipe: Pipeline::start(
                cfg.workers,
                cfg.template.gzip().then_some(cfg.level),
                cfg.write_manifest.is_some(),
                cfg.filter.as_deref(),
            ),
            first: true,
        }
    }

    fn feed(&mut self, v: &View) -> Result<()> {
        let mut from = 0;
        progress::add_records(v.ends.len() as u64);
        if self.first {
            self.first = false;
            if self.cfg.header && !v.ends.is_empty() {
                self.sp.set_header(v.record(0).to_vec())?;
                from = 1;
            }
            self.sp.begin(&mut self.pipe)?;
        }
        self.sp.chunk(&mut self.pipe, v, from)
    }

    fn finish(mut self) -> Result<Split> {
        if self.first {
            self.sp.begin(&mut self.pipe)?;
        }
        self.sp.finish(&mut self.pipe)?;
        let shards = self.pipe.finish()?;
        let keys = self.sp.keys.as_ref().map(|k| k.finish(shards.len()));
        Ok(Split {
            shards,
            keys,
            points: self.sp.points.take(),
        })
    }
}

/// A block of records seen by the splitter: a [`Chunk`] borrowing its bytes from `data`
/// (a chunk read into memory, or the whole mapped file), so workers get ranges of `data`
/// without a copy.
struct View<'a> {
    data: &'a Shared,
    recs: Chunk<&'a [u8]>,
}

impl<'a> std::ops::Deref for View<'a> {
    type Target = Chunk<&'a [u8]>;
    fn deref(&self) -> &Self::Target {
        &self.recs
    }
}

impl View<'_> {
    /// Where the block's last record ends (where it starts, if it has none).
    fn end(&self) -> usize {
        self.ends.last().copied().unwrap_or(self.begin)
    }

    fn slice(&self, r: std::ops::Range<usize>) -> Payload {
        Payload::Slice(Arc::clone(self.data), r)
    }
}

/// Takes back a chunk buffer that every worker is done with, if there is one.
fn reuse(recycled: &mut VecDeque<Arc<Vec<u8>>>) -> Vec<u8> {
    if recycled.front().is_some_and(|a| Arc::strong_count(a) == 1)
        && let Some(a) = recycled.pop_front()
        && let Ok(v) = Arc::try_unwrap(a)
    {
        return v;
    }
    Vec::new()
}

/// Copies a stream (decompressed) into an unnamed temporary file beside the first shard, so
/// `-n` can know the total size before it cuts: the quote state at an arbitrary offset is
/// unknowable without reading everything before it, so cut points are decided during one
/// sequential pass over input of known size.
fn spool(mut r: Box<dyn Read + Send>, name: &str, dir: &Path) -> Result<(std::fs::File, u64)> {
    std::fs::create_dir_all(dir).at(dir)?;
    let mut f = tempfile::tempfile_in(dir).at(dir)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(name, e)),
        };
        f.write_all(buf.get(..n).unwrap_or_default())
            .map_err(|e| Error::io(dir.join("<spool file>"), e))?;
        total += n as u64;
    }
    f.rewind().at(dir)?;
    Ok((f, total))
}

/// Decides where each record goes.
struct Splitter<'a> {
    cfg: &'a Config,
    name: String,
    header: Vec<u8>,
    /// Data bytes (after the header) for `-n`.
    data_total: u64,
    /// Open shard in sequential modes.
    cur: Option<usize>,
    /// Next shard number to open in sequential modes.
    next: usize,
    recs: u64,
    bytes: u64,
    consumed: u64,
    /// `--by-hash` state.
    hash_cols: Vec<usize>,
    bufs: Vec<Vec<u8>>,
    counts: Vec<u64>,
    block: usize,
    /// Bytes waiting in `bufs`.
    buffered: usize,
    /// Records that got a shard of their own for being larger than `--bytes`.
    oversized: u64,
    fields: Vec<Field>,
    keybuf: Vec<u8>,
    /// `-k` key ranges.
    keys: Option<KeyTracker>,
    /// `--by-range` split points (sampled before the split, or read at `begin`).
    points: Option<range::Points>,
}

impl<'a> Splitter<'a> {
    fn new(cfg: &'a Config, name: String, total: u64) -> Splitter<'a> {
        Splitter {
            cfg,
            name,
            header: Vec::new(),
            data_total: total,
            cur: None,
            next: 0,
            recs: 0,
            bytes: 0,
            consumed: 0,
            hash_cols: Vec::new(),
            bufs: Vec::new(),
            counts: Vec::new(),
            block: CHUNK,
            buffered: 0,
            oversized: 0,
            fields: Vec::new(),
            keybuf: Vec::new(),
            keys: None,
            points: None,
        }
    }

    fn set_header(&mut self, h: Vec<u8>) -> Result<()> {
        if let Mode::Bytes(max) = self.cfg.mode
            && h.len() as u64 >= max
        {
            return Err(Error::Usage(format!(
                "--bytes {max} leaves no room for records after the {}-byte header",
                h.len()
            )));
        }
        self.data_total = self.data_total.saturating_sub(h.len() as u64);
        self.header = h;
        Ok(())
    }

    /// Column names, for resolving key and `--by-hash` columns.
    fn column_names(&self) -> Result<Vec<String>> {
        column_names(self.cfg, &self.header, &self.name)
    }

    /// Called once before the first record (or at end of an empty input).
    fn begin(&mut self, pipe: &mut Pipeline) -> Result<()> {
        if let Some(args) = &self.cfg.key {
            let names = self.column_names()?;
            let spec = KeySpec::resolve(
                "csvsplit",
                args,
                &names,
                self.cfg.table.as_ref(),
                self.cfg.nulls,
                self.cfg.null.as_bytes().to_vec(),
            )?;
            if let Mode::Range {
                points: Some(file), ..
            } = &self.cfg.mode
            {
                self.points = Some(range::read(file, &spec)?);
            }
            self.keys = Some(KeyTracker::new(spec));
        }
        let n = match &self.cfg.mode {
            Mode::Hash { columns, n } => {
                let names = self.column_names()?;
                self.hash_cols = resolve_columns(columns, &names)?;
                Some(*n)
            }
            Mode::Range { n, .. } => Some(*n),
            _ => None,
        };
        if let Some(n) = n {
            let n = n as usize;
            // Bound the memory held in per-shard buffers when there are many shards.
            self.block = HASH_BUDGET
                .checked_div(n)
                .unwrap_or(CHUNK)
                .clamp(64 << 10, CHUNK);
            self.bufs = (0..n).map(|_| Vec::new()).collect();
            self.counts = vec![0; n];
            progress::phase(if matches!(self.cfg.mode, Mode::Range { .. }) {
                format!("{n} shards by key range")
            } else {
                format!("{n} shards by hash")
            });
            raise_open_files_limit(n as libc::rlim_t + 64);
            for s in 0..n {
                self.open_shard(pipe, s)?;
            }
        }
        Ok(())
    }

    fn open_shard(&mut self, pipe: &mut Pipeline, s: usize) -> Result<()> {
        let path = self.cfg.template.render(s);
        if !matches!(self.cfg.mode, Mode::Hash { .. }) {
            progress::phase(format!("shard {}", path.display()));
        }
        pipe.open(s, path)?;
        self.recs = 0;
        self.bytes = 0;
        if !self.header.is_empty() && (self.cfg.repeat_header || s == 0) {
            pipe.data(s, Payload::Owned(self.header.clone()))?;
            self.bytes = self.header.len() as u64;
        }
        Ok(())
    }

    fn open_next(&mut self, pipe: &mut Pipeline) -> Result<usize> {
        let s = self.next;
        self.open_shard(pipe, s)?;
        self.cur = Some(s);
        self.next += 1;
        Ok(s)
    }

    fn close_cur(&mut self, pipe: &mut Pipeline) -> Result<()> {
        if let Some(c) = self.cur.take() {
            pipe.close(c, self.recs)?;
        }
        Ok(())
    }

    fn chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize) -> Result<()> {
        match self.cfg.mode {
            Mode::Hash { n, .. } => self.hash_chunk(pipe, v, from, n),
            Mode::Range { .. } => self.range_chunk(pipe, v, from),
            _ => self.seq_chunk(pipe, v, from),
        }
    }

    /// `--by-range`: each record to the shard of its key's range.
    fn range_chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize) -> Result<()> {
        for i in from..v.ends.len() {
            let rec = v.record(i);
            let (Some(k), Some(p)) = (&mut self.keys, &self.points) else {
                return Err(Error::Usage(
                    "internal error: --by-range without a key or split points".into(),
                ));
            };
            let s = k
                .record_with(rec, |key| p.shard_of(key))
                .map_err(|m| Error::input(v.pos(i, &self.name), m))?;
            self.push_record(pipe, s, rec)?;
        }
        Ok(())
    }

    /// `-r`, `-b`, `-n`: shards are filled one after the other with runs of whole records,
    /// handed over as slices of the chunk (no copy).
    fn seq_chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize) -> Result<()> {
        let mut seg = v.start(from);
        for i in from..v.ends.len() {
            let (rs, re) = (v.start(i), v.ends[i]);
            let len = (re - rs) as u64;
            let full = match (self.cur, &self.cfg.mode) {
                (None, _) => true,
                (Some(_), Mode::Rows(n)) => self.recs >= *n,
                (Some(_), Mode::Bytes(max)) => self.recs > 0 && self.bytes + len > *max,
                _ => false,
            };
            if full {
                if let Some(c) = self.cur
                    && rs > seg
                {
                    pipe.data(c, v.slice(seg..rs))?;
                }
                seg = rs;
                self.close_cur(pipe)?;
                let s = self.open_next(pipe)?;
                if let Mode::Bytes(max) = self.cfg.mode
                    && self.bytes + len > max
                {
                    self.oversized += 1;
                    // Positions count lines from the start: only for the first few.
                    if !self.cfg.quiet && self.oversized <= MAX_WARNINGS {
                        progress::message(&format!(
                            "csvsplit: warning: {} record of {len} bytes is larger than --bytes \
                             {max}; it gets shard {s} of its own",
                            v.pos(i, &self.name)
                        ));
                    }
                }
            }
            if let (Some(k), Some(c)) = (&mut self.keys, self.cur) {
                k.record(c, v.record(i))
                    .map_err(|m| Error::input(v.pos(i, &self.name), m))?;
            }
            self.recs += 1;
            self.bytes += len;
            self.consumed += len;
            if let (Mode::Chunks(n), Some(c)) = (&self.cfg.mode, self.cur)
                && (c as u64) + 1 < *n
                && (self.consumed as u128) * (*n as u128)
                    >= (c as u128 + 1) * (self.data_total as u128)
            {
                pipe.data(c, v.slice(seg..re))?;
                seg = re;
                self.close_cur(pipe)?;
            }
        }
        let end = v.end();
        if let Some(c) = self.cur
            && end > seg
        {
            pipe.data(c, v.slice(seg..end))?;
        }
        Ok(())
    }

    fn hash_chunk(&mut self, pipe: &mut Pipeline, v: &View, from: usize, n: u64) -> Result<()> {
        let null = self.cfg.null.as_bytes();
        for i in from..v.ends.len() {
            let rec = v.record(i);
            split_fields(rec, &mut self.fields)
                .map_err(|m| Error::input(v.pos(i, &self.name), m.to_string()))?;
            self.keybuf.clear();
            for &c in &self.hash_cols {
                let f = self.fields.get(c).ok_or_else(|| {
                    Error::input(
                        v.pos(i, &self.name),
                        format!(
                            "record has {} fields; --by-hash column {} is field {}",
                            self.fields.len(),
                            c + 1,
                            c + 1
                        ),
                    )
                })?;
                if !f.quoted && f.raw(rec) == null {
                    push_value(&mut self.keybuf, None);
                } else {
                    push_value(&mut self.keybuf, Some(&f.value(rec)));
                }
            }
            let s = (hash_encoded(&self.keybuf) % n) as usize;
            if let Some(k) = &mut self.keys {
                k.record(s, rec)
                    .map_err(|m| Error::input(v.pos(i, &self.name), m))?;
            }
            self.push_record(pipe, s, rec)?;
        }
        Ok(())
    }

    /// `--by-hash`, `--by-range`: appends `rec` to shard `s`'s buffer, handing buffers over
    /// when full, or when all of them together hold more than [`HASH_BUDGET`].
    fn push_record(&mut self, pipe: &mut Pipeline, s: usize, rec: &[u8]) -> Result<()> {
        let (Some(buf), Some(count)) = (self.bufs.get_mut(s), self.counts.get_mut(s)) else {
            return Ok(());
        };
        buf.extend_from_slice(rec);
        if !rec.ends_with(b"\n") {
            // Only the input's last record can lack one; here it may not be last.
            buf.push(b'\n');
        }
        *count += 1;
        self.buffered += rec.len() + 1;
        if buf.len() >= self.block {
            let fresh = pipe
                .spare()
                .unwrap_or_else(|| Vec::with_capacity(self.block));
            let full = std::mem::replace(buf, fresh);
            self.buffered = self.buffered.saturating_sub(full.len());
            pipe.data(s, Payload::Owned(full))?;
        }
        if self.buffered > HASH_BUDGET {
            // Many shards, each with a little: hand over everything, small as it is.
            for (s, buf) in self.bufs.iter_mut().enumerate() {
                if !buf.is_empty() {
                    pipe.data(s, Payload::Owned(std::mem::take(buf)))?;
                }
            }
            self.buffered = 0;
        }
        Ok(())
    }

    fn finish(&mut self, pipe: &mut Pipeline) -> Result<()> {
        match self.cfg.mode {
            Mode::Hash { .. } | Mode::Range { .. } => {
                for s in 0..self.bufs.len() {
                    let buf = std::mem::take(&mut self.bufs[s]);
                    if !buf.is_empty() {
                        pipe.data(s, Payload::Owned(buf))?;
                    }
                    pipe.close(s, self.counts.get(s).copied().unwrap_or(0))?;
                }
            }
            Mode::Chunks(n) => {
                self.close_cur(pipe)?;
                while (self.next as u64) < n {
                    self.open_next(pipe)?;
                    self.close_cur(pipe)?;
                }
            }
            _ => self.close_cur(pipe)?,
        }
        if self.oversized > MAX_WARNINGS && !self.cfg.quiet {
            eprintln!(
                "csvsplit: warning: {} more records were larger than --bytes",
                self.oversized - MAX_WARNINGS
            );
        }
        Ok(())
    }
}

/// Oversized-record warnings printed before they are only counted.
const MAX_WARNINGS: u64 = 10;

/// Most bytes `--by-hash` keeps in its per-shard buffers before handing them to the writer.
const HASH_BUDGET: usize = 64 << 20;

/// `--by-hash` keeps every shard open: lift the soft limit on open files towards the hard
/// one when `want` descriptors would not fit (failure just leaves the limit as it was, and
/// opening a shard then reports "Too many open files").
fn raise_open_files_limit(want: libc::rlim_t) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit on this process with a valid, initialised struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < want {
            r.rlim_cur = r.rlim_max.min(want);
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// Column references to 0-based indexes, by the toolkit's one rule
/// ([`crate::keys::resolve_column`]).
fn resolve_columns(cols: &[String], names: &[String]) -> Result<Vec<usize>> {
    cols.iter()
        .map(|c| crate::keys::resolve_column(c, names))
        .collect()
}

/// The `--write-manifest` document.
#[derive(Debug, Serialize)]
struct Report<'a> {
    format: &'static str,
    version: u32,
    generator: String,
    source: String,
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hash: Option<HashReport<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<RangeReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filter: Option<&'a str>,
    header: bool,
    repeat_header: bool,
    compression: Option<&'static str>,
    null: &'a str,
    /// The CSV's column names in order, from `--manifest`: a loader needs them as the
    /// COPY column list, because the target table's own column order may differ (an
    /// `INHERITS` child whose parent gained a column, a table created by hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<KeyReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sorted_within_shards: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    non_overlapping: Option<bool>,
    records: u64,
    bytes: u64,
    shards: Vec<ShardReport>,
}

/// The key of the ranges: its columns in order, and where NULLs go.
#[derive(Debug, Serialize)]
struct KeyReport {
    columns: Vec<KeyColumnReport>,
    nulls: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct KeyColumnReport {
    /// Name, or the number as given when there are no names.
    column: String,
    /// 1-based field number.
    field: usize,
    #[serde(rename = "type")]
    ty: String,
    desc: bool,
}

/// Key values as reported: `null` for NULL.
type KeyValues = Option<Vec<Option<String>>>;

#[derive(Debug, Serialize)]
struct HashReport<'a> {
    function: &'static str,
    columns: &'a [String],
    buckets: u64,
}

/// `--by-range`: the split points and where they came from. Shard i holds the keys from
/// `split_points[i-1]` (included) to `split_points[i]` (excluded).
#[derive(Debug, Serialize)]
struct RangeReport {
    /// `sample` or `file`.
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    split_points_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sample: Option<SampleReport>,
    split_points: Vec<Vec<Option<String>>>,
}

#[derive(Debug, Serialize)]
struct SampleReport {
    /// Data records in the input.
    records: u64,
    /// Records sampled.
    samples: u64,
    /// Samples per range asked for (m).
    per_range: u64,
}

#[derive(Debug, Serialize)]
struct ShardReport {
    shard: usize,
    file: String,
    records: u64,
    bytes: u64,
    file_bytes: u64,
    crc32: String,
    /// With a key: the first record's key values (`null` for an empty shard).
    #[serde(skip_serializing_if = "Option::is_none")]
    first_key: Option<KeyValues>,
    /// With a key: the last record's key values.
    #[serde(skip_serializing_if = "Option::is_none")]
    last_key: Option<KeyValues>,
    /// `--by-range`: the least key the shard's range holds (`null`: no lower bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_key: Option<KeyValues>,
    /// `--by-range`: the key the shard's range stops before (`null`: no upper bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_key: Option<KeyValues>,
    /// Lines that are exactly `\.`, which psql 17 and older cannot load with `\copy`.
    #[serde(skip_serializing_if = "is_zero")]
    copy_end_lines: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn report(cfg: &Config, split: &Split) -> Result<()> {
    let done = split.shards.as_slice();
    for d in done.iter().filter(|d| d.copy_end_lines > 0 && !cfg.quiet) {
        eprintln!(
            "csvsplit: warning: {}: {} line(s) that are exactly \\. inside quoted values; psql 17 and older end \\copy data there, so load this shard with csvload or a server-side COPY",
            crate::names::display_path(&d.path),
            d.copy_end_lines
        );
    }
    let keys = split.keys.as_ref();
    if let Some(m) = &cfg.write_manifest {
        let stdout = input::is_stdin(m);
        let (mode, limit) = match &cfg.mode {
            Mode::Rows(n) => ("rows", Some(*n)),
            Mode::Bytes(b) => ("bytes", Some(*b)),
            Mode::Chunks(n) => ("chunks", Some(*n)),
            Mode::Hash { n, .. } => ("hash", Some(*n)),
            Mode::Range { n, .. } => ("range", Some(*n)),
        };
        let points = split.points.as_ref();
        let r = Report {
            format: "dumpshard-csvsplit",
            version: 1,
            generator: format!("csvsplit {}", env!("CARGO_PKG_VERSION")),
            source: cfg
                .input
                .as_ref()
                .map_or("<stdin>".into(), |p| p.display().to_string()),
            mode,
            limit,
            hash: match &cfg.mode {
                Mode::Hash { columns, n } => Some(HashReport {
                    function: "xxh64-v1",
                    columns,
                    buckets: *n,
                }),
                _ => None,
            },
            range: points.map(|p| RangeReport {
                source: match p.source {
                    range::Source::Sample { .. } => "sample",
                    range::Source::File(_) => "file",
                },
                split_points_file: match &p.source {
                    range::Source::File(f) => Some(f.clone()),
                    range::Source::Sample { .. } => None,
                },
                sample: match p.source {
                    range::Source::Sample {
                        records,
                        samples,
                        per_range,
                    } => Some(SampleReport {
                        records,
                        samples,
                        per_range,
                    }),
                    range::Source::File(_) => None,
                },
                split_points: p.values.clone(),
            }),
            filter: cfg.filter.as_deref(),
            header: cfg.header,
            repeat_header: cfg.repeat_header,
            compression: cfg.template.gzip().then_some("gzip"),
            null: &cfg.null,
            columns: cfg
                .table
                .as_ref()
                .map(|t| t.columns.iter().map(|c| c.name.as_str()).collect()),
            key: keys.map(|k| KeyReport {
                columns: k
                    .spec
                    .parts
                    .iter()
                    .map(|p| KeyColumnReport {
                        column: p.label.clone(),
                        field: p.col + 1,
                        ty: p.ty.to_string(),
                        desc: p.desc,
                    })
                    .collect(),
                nulls: k.spec.nulls.map(|n| match n {
                    Nulls::First => "first",
                    Nulls::Last => "last",
                }),
            }),
            sorted_within_shards: keys.map(|k| k.sorted_within_shards),
            non_overlapping: keys.map(|k| k.non_overlapping),
            records: done.iter().map(|d| d.records).sum(),
            bytes: done.iter().map(|d| d.bytes).sum(),
            shards: done
                .iter()
                .map(|d| ShardReport {
                    shard: d.shard,
                    file: if stdout || cfg.filter.is_some() {
                        d.path.display().to_string()
                    } else {
                        crate::manifest::relative_file(m, &d.path)
                    },
                    records: d.records,
                    bytes: d.bytes,
                    file_bytes: d.file_bytes,
                    crc32: format!("{:08x}", d.crc32),
                    first_key: keys.map(|k| k.shards.get(d.shard).and_then(|r| r.first.clone())),
                    last_key: keys.map(|k| k.shards.get(d.shard).and_then(|r| r.last.clone())),
                    lower_key: points.map(|p| {
                        d.shard
                            .checked_sub(1)
                            .and_then(|i| p.values.get(i).cloned())
                    }),
                    upper_key: points.map(|p| p.values.get(d.shard).cloned()),
                    copy_end_lines: d.copy_end_lines,
                })
                .collect(),
        };
        let mut json =
            serde_json::to_vec_pretty(&r).map_err(|e| Error::internal(format!("manifest: {e}")))?;
        json.push(b'\n');
        if stdout {
            let mut o = std::io::stdout().lock();
            o.write_all(&json).at("<stdout>")?;
            o.flush().at("<stdout>")?;
        } else {
            if std::fs::symlink_metadata(m).is_ok_and(|md| !md.is_file()) {
                return Err(Error::file(
                    m.display().to_string(),
                    "exists and is not a regular file; refusing to replace it",
                ));
            }
            let mut f = AtomicFile::create(m)?;
            f.write_all(&json).at(m)?;
            f.commit()?;
        }
    }
    if cfg.sql != SqlOut::None {
        print_sql(cfg, done)?;
    }
    Ok(())
}

fn print_sql(cfg: &Config, done: &[Done]) -> Result<()> {
    let table = match (&cfg.table, &cfg.table_name) {
        (Some(t), _) => format!(
            "{}.{}",
            sql::quote_ident(&t.schema),
            sql::quote_ident(&t.name)
        ),
        (None, Some(n)) => n.clone(),
        (None, None) => return Err(Error::Usage("the SQL output needs --table".into())),
    };
    let columns: Vec<String> = cfg
        .table
        .as_ref()
        .map(|t| t.column_names())
        .unwrap_or_default();
    let t = sql::Target {
        table: &table,
        columns: &columns,
        null: &cfg.null,
        gzip: cfg.template.gzip(),
    };
    let files: Vec<&Path> = done.iter().map(|d| d.path.as_path()).collect();
    let text = match &cfg.sql {
        SqlOut::Import(prefix) if files.is_empty() => {
            let _ = prefix;
            "-- csvsplit: the input had no records, so there is nothing to import\n".to_string()
        }
        SqlOut::Import(prefix) => {
            sql::import_into(&t, prefix, &files, cfg.header).map_err(Error::Usage)?
        }
        SqlOut::Copy => {
            let header: Vec<bool> = done
                .iter()
                .map(|d| cfg.header && (cfg.repeat_header || d.shard == 0))
                .collect();
            sql::copy_script(&t, &files, &header).map_err(Error::Usage)?
        }
        SqlOut::None => return Ok(()),
    };
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes()).at("<stdout>")?;
    o.flush().at("<stdout>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_resolve() {
        let names = vec!["a".to_string(), "b".to_string()];
        assert_eq!(
            resolve_columns(&["b".into(), "1".into()], &names).unwrap(),
            vec![1, 0]
        );
        assert!(resolve_columns(&["c".into()], &names).is_err());
        assert!(resolve_columns(&["3".into()], &names).is_err());
        assert_eq!(resolve_columns(&["3".into()], &[]).unwrap(), vec![2]);
        assert!(resolve_columns(&["x".into()], &[]).is_err());
        assert!(resolve_columns(&["0".into()], &[]).is_err());
    }
}
