//! pksort's command line: the options ([`Args`]) and the run they describe once checked
//! ([`Config`]).

use super::emit::OnDup;
use super::run::Sampling;
use super::spec::{KeyArg, Nulls};
use crate::io::error::{Error, Result};
use crate::manifest::{Manifest, Table};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  pksort -m out/manifest.json -t public.customer out/csv/public.customer.csv -o sorted.csv
  pksort -k 3:int,2:int,1:int -S 1G customer.csv.gz > sorted.csv
  pksort --header -k id:uuid --on-dup last --dups-out dropped.csv -o out.csv in.csv
  pksort -c -m m.json -t orders orders.sorted.csv
  pksort --merge -k 1:int shard1.csv shard2.csv -o all.csv

Exit status: 0 done; 1 --check found a record out of order or a duplicate; 2 usage or I/O
error, or input that cannot be sorted (malformed CSV, a bad or NULL key value, a duplicate key
under --on-dup error).";

/// Sort CSV by its primary key: typed, in bounded memory, records written back byte for byte.
///
/// Reads FILEs (or standard input), sorts the records by the key columns and writes them
/// unchanged: quoting, CRLF and everything else stays as read (a last record without a
/// newline gets one). Quoted commas and newlines are understood. gzip, zstd and lz4 inputs
/// are recognised by their magic bytes. Records with equal keys keep their input order.
///
/// On pgdump2csv output, `-m m.json -t NAME` (`--manifest`, `--table`) takes the key columns
/// and their types from the table's primary key. Like every dumpshard filter, pksort reads
/// standard input when no FILE is given, so it works in the middle of a pipeline.
#[derive(Debug, clap::Parser)]
#[command(name = "pksort", version, max_term_width = 100, after_help = EXAMPLES)]
pub struct Args {
    /// Input CSV files; none or `-` reads standard input. Several files are sorted together
    /// (with --merge: merged, each already sorted).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Key column, most significant first: `COLUMN[:TYPE][:desc]`. Repeat the option or separate
    /// specs with commas. COLUMN is a 1-based number or a name (from --header or the
    /// manifest). TYPE is int (any length), numeric, float, text (bytewise, the default),
    /// uuid, bool, date, timestamp or timestamptz; with a manifest it defaults to the
    /// column's type.
    #[arg(short = 'k', long = "key", value_name = "SPEC", value_delimiter = ',')]
    pub key: Vec<String>,

    /// A pgdump2csv manifest: key columns and types, the header and the NULL token come from
    /// the table's entry. (`-m` is --manifest in every dumpshard tool; GNU sort's `-m` is
    /// --merge here.)
    #[arg(short = 'm', long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,

    /// The manifest table (`name` or `schema.name`); optional when the manifest has one table.
    #[arg(short = 't', long, value_name = "NAME", requires = "manifest")]
    pub table: Option<String>,

    /// The first record of each input is a header: it is written first, and names key columns.
    #[arg(long)]
    pub header: bool,

    /// Memory budget, e.g. 512M or 2G or 25%. Larger inputs are sorted in runs spilled to
    /// disk and merged. [default: half of the available memory]
    #[arg(short = 'S', long = "buffer-size", value_name = "SIZE")]
    pub buffer_size: Option<String>,

    /// Directory for the spilled runs. GNU sort's `-T DIR` still works for this release, with
    /// a warning: `-T` is --exclude-table in dumpshard. [default: $TMPDIR or /tmp]
    #[arg(long = "temporary-directory", value_name = "DIR")]
    pub temporary_directory: Option<PathBuf>,

    /// GNU sort's `-T DIR`: deprecated, to be removed in the next release, because `-T` is
    /// --exclude-table in dumpshard (as in pg_dump). Works as --temporary-directory and
    /// warns.
    #[arg(
        short = 'T',
        hide = true,
        value_name = "DIR",
        conflicts_with = "temporary_directory"
    )]
    pub temporary_directory_t: Option<PathBuf>,

    /// Threads for sorting and key encoding, at most 4 per CPU (and 256). [default: all cores]
    #[arg(short = 'j', long = "jobs", alias = "parallel", value_name = "N")]
    pub jobs: Option<usize>,

    /// Write to FILE instead of standard output; it appears only when complete. A `.gz` name
    /// compresses.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// What to do with records whose keys are equal: error (stop, naming both records), keep
    /// all, or keep only the first or last in input order.
    #[arg(
        long = "on-dup",
        value_enum,
        value_name = "POLICY",
        default_value = "error"
    )]
    pub on_dup: OnDup,

    /// Write the dropped records (first/last) or all records of duplicate keys (keep) to FILE.
    #[arg(long = "dups-out", value_name = "FILE")]
    pub dups_out: Option<PathBuf>,

    /// Only check that each input is sorted (and unique unless --on-dup keep); exit 1 naming
    /// the first offending record.
    #[arg(short = 'c', long, conflicts_with_all = ["merge", "output", "dups_out"])]
    pub check: bool,

    /// The inputs are already sorted: only merge them (an unsorted input is an error). GNU
    /// sort's `-m`; in dumpshard `-m` is --manifest.
    #[arg(long)]
    pub merge: bool,

    /// The NULL token: an unquoted field exactly STRING is NULL (as in csvsplit and
    /// csvcheck). [default: the manifest table's token, else the unquoted empty field]
    #[arg(long, value_name = "STRING")]
    pub null: Option<String>,

    /// Allow NULL key values (see --null) and put them first or last; without this a NULL
    /// key is an error.
    #[arg(long, value_enum, value_name = "WHERE")]
    pub nulls: Option<Nulls>,

    /// Merge at most N runs at once (more are merged in several passes).
    #[arg(long = "batch-size", value_name = "N", default_value_t = 32,
          value_parser = clap::value_parser!(u16).range(2..))]
    pub batch_size: u16,

    /// No progress bar on a terminal (errors and the count of dropped duplicates still print).
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// At the end, print one summary line on stderr, the same shape in every tool (see
    /// dumpshard(7)): `read SIZE, N records; wrote N files, N records, SIZE; N dropped; SECS s,
    /// RATE MB/s`.
    #[arg(short = 'v', long, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Replace output files that exist already. Without it, a run refuses (exit 2, before
    /// writing anything) an output file it did not create itself: the toolkit's one overwrite
    /// rule (dumpshard(7), FILES).
    #[arg(long)]
    pub force: bool,
}

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Sort the inputs together.
    Sort,
    /// Merge sorted inputs.
    Merge,
    /// Check that each input is sorted.
    Check,
}

/// The options, checked and resolved (except key names, which may need a header).
#[derive(Debug)]
pub struct Config {
    /// Inputs in order; `None` is standard input.
    pub inputs: Vec<Option<PathBuf>>,
    /// Key specs as typed (empty: the manifest table's primary key).
    pub keys: Vec<KeyArg>,
    /// The manifest table, if any.
    pub table: Option<Table>,
    /// Inputs start with a header record.
    pub header: bool,
    /// The NULL token (empty: unquoted empty field).
    pub null_token: Vec<u8>,
    /// NULL keys allowed, and where they go.
    pub nulls: Option<Nulls>,
    /// Memory budget in bytes.
    pub memory: usize,
    /// Where runs are spilled.
    pub tmpdir: PathBuf,
    /// Worker threads.
    pub threads: usize,
    /// Output file (`None`: stdout).
    pub output: Option<PathBuf>,
    /// Duplicate policy.
    pub on_dup: OnDup,
    /// Where dropped/duplicate records go.
    pub dups_out: Option<PathBuf>,
    /// Sort, merge or check.
    pub mode: Mode,
    /// Merge fan-in.
    pub fan_in: usize,
    /// No progress bar.
    pub quiet: bool,
    /// Print the summary line.
    pub verbose: bool,
}

impl Config {
    /// Checks and resolves the command line.
    pub fn from_args(a: Args) -> Result<Config> {
        let mut keys = Vec::new();
        for k in &a.key {
            keys.push(KeyArg::parse(k)?);
        }
        let mut table = None;
        let mut inputs: Vec<Option<PathBuf>> = a.files.iter().map(|p| Some(p.clone())).collect();
        if let Some(mpath) = &a.manifest {
            // `-m` was GNU sort's --merge here until this release.
            let m = Manifest::read_or_hint(
                mpath,
                "-m is --manifest; to merge sorted inputs use --merge",
            )?;
            table = Some(
                m.select(a.table.as_deref(), &mpath.display().to_string())?
                    .clone(),
            );
        }
        if inputs.is_empty() {
            inputs.push(None);
        }
        if inputs
            .iter()
            .filter(|p| p.as_deref().is_none_or(crate::io::stream::is_stdin))
            .count()
            > 1
        {
            return Err(Error::Usage("standard input can be read only once".into()));
        }
        let memory = match &a.buffer_size {
            Some(s) => crate::io::cli::parse_size(s)?,
            None => (crate::io::cli::available_memory() / 2).max(64 << 20),
        };
        let threads = crate::io::cli::threads("--jobs", a.jobs)?;
        if a.temporary_directory_t.is_some() {
            eprintln!("pksort: -T is deprecated, use --temporary-directory");
        }
        let mode = if a.check {
            Mode::Check
        } else if a.merge {
            Mode::Merge
        } else {
            Mode::Sort
        };
        Ok(Config {
            header: a.header || table.as_ref().is_some_and(|t| t.header),
            null_token: match (&a.null, &table) {
                (Some(n), _) => n.as_bytes().to_vec(),
                (None, Some(t)) => t.null.as_bytes().to_vec(),
                (None, None) => Vec::new(),
            },
            table,
            inputs,
            keys,
            nulls: a.nulls,
            memory: usize::try_from(memory).unwrap_or(usize::MAX),
            tmpdir: a
                .temporary_directory
                .or(a.temporary_directory_t)
                .unwrap_or_else(std::env::temp_dir),
            threads,
            output: a.output.filter(|p| !crate::io::stream::is_stdin(p)),
            on_dup: a.on_dup,
            dups_out: a.dups_out,
            mode,
            fan_in: usize::from(a.batch_size),
            quiet: a.quiet,
            verbose: a.verbose,
        })
    }

    /// Bytes per input chunk: small enough that a few in flight are a small part of the
    /// budget, big enough to amortise per-chunk work.
    pub(super) fn chunk_target(&self) -> usize {
        match self.mode {
            // Every open input of a merge holds a chunk (and its keys); a megabyte each is
            // plenty for sequential reads.
            Mode::Merge => {
                (self.memory / (4 * self.inputs.len().min(self.fan_in))).clamp(4 << 10, 1 << 20)
            }
            _ => (self.memory / 32).clamp(4 << 10, 8 << 20),
        }
    }

    /// How runs sample their keys for the parallel final merge: the final merge holds at most
    /// `fan_in` runs, so capping each run's samples at an eighth of the budget over `fan_in`
    /// (counting about 64 bytes a sample) keeps them all within an eighth of `-S` for keys of
    /// usual length. Dense at first (a sample per 16 KiB, finer for tiny budgets) so that the
    /// ranges can be small, and thinned as a run grows.
    pub(super) fn sampling(&self) -> Sampling {
        Sampling {
            every: (self.memory as u64 / 4096).clamp(256, 16 << 10),
            cap: (self.memory / 8 / (self.fan_in * 64)).clamp(64, 1 << 16),
        }
    }
}
