//! pksort: an external, typed, byte-preserving primary-key sort for CSV.
//!
//! A reader thread cuts the input into chunks of whole records with the quote-aware
//! [`crate::records::ChunkReader`]; each record's key is encoded once into a memcomparable
//! byte string ([`key`]) and each chunk's (key prefix, record) pairs are sorted stably, in
//! parallel, while the next chunks are read. The final sort then only merges presorted runs,
//! and the records are gathered into output blocks in parallel while a writer thread writes.
//! Input beyond the memory budget is spilled as sorted runs to anonymous temporary files and
//! merged k-way with a bounded fan-in ([`merge`]); the last merge runs on every thread, over
//! key ranges cut at keys sampled from the runs ([`pmerge`]). Records are written back exactly
//! as they were read.
//!
//! The issue named the `extsort` crate as the starting point. It is not used, because it
//! misses the contract in ways that cannot be configured away: its in-memory sort is
//! `par_sort_unstable_by` (pksort must be stable), it cuts segments by item count rather than
//! bytes (so with records of varying size memory is not bounded by `-S`), it keeps every
//! segment file open and merges them in one pass (no fan-in limit, so a big input with a
//! small buffer runs out of file descriptors), it names its segment files in a directory
//! (left behind on Ctrl-C), and it needs one owned value per item (an allocation per record).
//! The design follows uutils sort's chunked one instead (`src/uu/sort/src/ext_sort.rs`): chunks
//! of raw bytes with records as offsets into them, a reader thread, recycled chunk buffers,
//! and a merge with a file limit. Two things differ: uutils writes every chunk (a tenth of the
//! buffer) as its own run, while pksort keeps chunks until the whole budget is used and spills
//! them as one run, so there are ten times fewer runs and merge levels; and keys are encoded
//! once per record instead of being re-parsed at every comparison.

pub mod batch;
pub mod emit;
pub mod merge;
pub mod pmerge;
pub mod run;

pub use crate::keys::{key, spec};

use crate::error::{Error, IoContext, Result};
use crate::manifest::{Manifest, Table};
use crate::output::{self, Sink};
use crate::progress;
use batch::{Batch, Inputs, Loc, Records};
use emit::{Emitter, OnDup};
use merge::{CsvSource, Source};
use rayon::prelude::*;
use run::{Run, RunReader, RunWriter, Sampling};
use spec::{KeyArg, KeySpec, Nulls};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;

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
            .filter(|p| p.as_deref().is_none_or(crate::input::is_stdin))
            .count()
            > 1
        {
            return Err(Error::Usage("standard input can be read only once".into()));
        }
        let memory = match &a.buffer_size {
            Some(s) => crate::cli::parse_size(s)?,
            None => (crate::cli::available_memory() / 2).max(64 << 20),
        };
        let threads = crate::cli::threads("--jobs", a.jobs)?;
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
            output: a.output.filter(|p| !crate::input::is_stdin(p)),
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
    fn chunk_target(&self) -> usize {
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
    fn sampling(&self) -> Sampling {
        Sampling {
            every: (self.memory as u64 / 4096).clamp(256, 16 << 10),
            cap: (self.memory / 8 / (self.fan_in * 64)).clamp(64, 1 << 16),
        }
    }
}

/// Runs pksort.
pub fn run(args: Args) -> Result<()> {
    output::Guard::new("an output")
        .inputs("FILE", &args.files)
        .input("--manifest", args.manifest.as_deref())
        .output("-o", args.output.as_deref())
        .output("--dups-out", args.dups_out.as_deref())
        .force(args.force)
        .install()?;
    if !args.check && args.output.as_deref().is_none_or(crate::input::is_stdin) {
        output::stdout_stream_pending();
    }
    let cfg = Config::from_args(args)?;
    // A .gz input in a regular file is inflated on -j threads (src/gzpar.rs).
    crate::gzpar::set_threads(cfg.threads);
    let ins: Vec<Option<&Path>> = cfg.inputs.iter().map(|p| p.as_deref()).collect();
    progress::start("pksort", cfg.quiet, &ins);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| Error::internal(format!("cannot start {} threads: {e}", cfg.threads)))?;
    pool.install(|| run_config(&cfg))
}

fn run_config(cfg: &Config) -> Result<()> {
    timing("start");
    let target = cfg.chunk_target();
    let mut sources: Vec<Inputs> = match cfg.mode {
        Mode::Sort => vec![Inputs::new(cfg.inputs.clone(), cfg.header, target)],
        _ => Inputs::each(cfg.inputs.clone(), cfg.header, target),
    };
    let header = match sources.first_mut() {
        Some(s) => s.peek_header()?.map(<[u8]>::to_vec),
        None => None,
    };
    let names: Vec<String> = match (&cfg.table, &header) {
        (Some(t), _) => t.column_names(),
        (None, Some(h)) => crate::records::header_names(h).map_err(|m| {
            Error::file(
                sources[0].names[0].clone(),
                format!("malformed header: {m}"),
            )
        })?,
        _ => Vec::new(),
    };
    let spec = KeySpec::resolve(
        "pksort",
        &cfg.keys,
        &names,
        cfg.table.as_ref(),
        cfg.nulls,
        cfg.null_token.clone(),
    )
    .map_err(|e| match (&header, &cfg.table, sources.first()) {
        // With --header, an empty input has no header to name the key columns by.
        (None, None, Some(s)) if cfg.header => Error::file(
            s.names.join(", "),
            "is empty, but --header says it starts with a header record naming the key columns",
        ),
        _ => e,
    })?;
    match cfg.mode {
        Mode::Check => check(cfg, &spec, sources),
        Mode::Merge => merge_inputs(cfg, &spec, sources, header),
        Mode::Sort => {
            let Some(inputs) = sources.pop() else {
                return Ok(());
            };
            sort(cfg, &spec, inputs, header)
        }
    }
}

/// The main output and the optional duplicates file, opened when there is something to write.
struct Outputs {
    out: progress::Counter<Sink>,
    dups: Option<Sink>,
}

impl Outputs {
    fn open(cfg: &Config, header: Option<&[u8]>) -> Result<Outputs> {
        let gz = cfg.output.as_deref().is_some_and(output::wants_gzip);
        let mut out = Sink::create(cfg.output.as_deref(), gz, 6)?;
        let mut dups = match &cfg.dups_out {
            Some(p) => Some(Sink::create(Some(p), output::wants_gzip(p), 6)?),
            None => None,
        };
        let mut head = 0;
        if let Some(h) = header {
            put_line(&mut out, h)?;
            head = h.len() as u64 + u64::from(h.last() != Some(&b'\n'));
            if let Some(d) = dups.as_mut() {
                put_line(d, h)?;
            }
        }
        Ok(Outputs {
            out: progress::Counter::new(out, head),
            dups,
        })
    }

    fn emitter<'a>(
        &'a mut self,
        cfg: &Config,
        spec: &'a KeySpec,
    ) -> Emitter<'a, progress::Counter<Sink>, Sink> {
        let out_name = self.out.inner.name();
        let dups = self.dups.as_mut().map(|d| {
            let n = d.name();
            (d, n)
        });
        Emitter::new(&mut self.out, out_name, dups, cfg.on_dup, spec)
    }

    /// Completes the outputs; `written` records went to the main output, `dups` shared their
    /// key with another (dropped under first/last).
    fn finish(self, cfg: &Config, written: u64, dups: u64) -> Result<()> {
        if let Some(d) = self.dups {
            d.finish()?;
        }
        let bytes = self.out.bytes;
        self.out.inner.finish()?;
        progress::clear();
        let dropped = if matches!(cfg.on_dup, OnDup::First | OnDup::Last) {
            dups
        } else {
            0
        };
        if dropped > 0 {
            eprintln!(
                "pksort: dropped {dropped} record(s) with duplicate keys{}",
                match &cfg.dups_out {
                    Some(p) => format!(" (written to {})", crate::names::display_path(p)),
                    None => String::new(),
                }
            );
        }
        if cfg.verbose {
            progress::Summary {
                read_bytes: progress::read_bytes(),
                read_records: progress::records(),
                wrote: 1,
                unit: "file",
                wrote_records: written,
                wrote_bytes: bytes,
                bad: dropped,
                bad_word: "dropped",
            }
            .print();
        }
        Ok(())
    }
}

fn put_line(w: &mut Sink, rec: &[u8]) -> Result<()> {
    let name = w.name();
    w.write_all(rec).at(&name)?;
    if rec.last() != Some(&b'\n') {
        w.write_all(b"\n").at(&name)?;
    }
    Ok(())
}

/// `--check`: each input must be in key order (and unique unless duplicates are kept).
fn check(cfg: &Config, spec: &KeySpec, sources: Vec<Inputs>) -> Result<()> {
    progress::phase("checking");
    for inputs in sources {
        let mut src = CsvSource::new(inputs, spec, false)?;
        let mut prev: Vec<u8> = Vec::new();
        let mut prev_loc: Option<Loc> = None;
        while let Some((k, rec, loc)) = src.current() {
            if let Some(pl) = prev_loc {
                let ord = k.cmp(&prev);
                let bad = match ord {
                    std::cmp::Ordering::Less => Some("out of order"),
                    std::cmp::Ordering::Equal if cfg.on_dup != OnDup::Keep => Some("duplicate key"),
                    _ => None,
                };
                if let Some(what) = bad {
                    return Err(Error::Found(format!(
                        "{} {what}: key {} {} the key at line {} (record {})",
                        loc.pos(src.names()),
                        spec.display(rec),
                        if ord.is_lt() {
                            "sorts before"
                        } else {
                            "equals"
                        },
                        pl.line,
                        pl.record
                    )));
                }
            }
            prev.clear();
            prev.extend_from_slice(k);
            prev_loc = Some(loc);
            src.advance()?;
        }
    }
    if cfg.verbose {
        progress::Summary {
            read_bytes: progress::read_bytes(),
            read_records: progress::records(),
            unit: "file",
            bad_word: "dropped",
            ..progress::Summary::default()
        }
        .print();
    }
    Ok(())
}

/// `--merge`: k-way merge of inputs that are each sorted. More inputs than the fan-in are
/// merged in groups into runs first, so at most `--batch-size` inputs are open at once.
fn merge_inputs(
    cfg: &Config,
    spec: &KeySpec,
    mut sources: Vec<Inputs>,
    header: Option<Vec<u8>>,
) -> Result<()> {
    let names: Vec<String> = sources
        .first()
        .map(|s| s.names.to_vec())
        .unwrap_or_default();
    let open = |group: Vec<Inputs>, base: usize| -> Result<Vec<CsvSource<'_>>> {
        let mut srcs = Vec::with_capacity(group.len());
        for (i, inputs) in group.into_iter().enumerate() {
            let s = CsvSource::new(inputs, spec, true)?;
            if let (Some(h), Some(h2)) = (&header, s.header())
                && crate::records::strip_terminator(h2) != crate::records::strip_terminator(h)
            {
                return Err(Error::file(
                    names[base + i].clone(),
                    "header differs from the first input's header",
                ));
            }
            srcs.push(s);
        }
        Ok(srcs)
    };
    let pos = |l: Loc| l.pos(&names);
    progress::phase("merging");
    if sources.len() <= cfg.fan_in {
        let mut srcs = open(sources, 0)?;
        let mut outs = Outputs::open(cfg, header.as_deref())?;
        let mut em = outs.emitter(cfg, spec);
        merge::merge(&mut srcs, |k, r, l| em.push(k, r, l, &pos))?;
        let (written, dups) = em.finish()?;
        return outs.finish(cfg, written, dups);
    }
    progress::phase(format!("merging {} inputs in groups", sources.len()));
    let mut runs = Runs::new(cfg);
    let mut base = 0;
    while !sources.is_empty() {
        let group: Vec<Inputs> = sources.drain(..cfg.fan_in.min(sources.len())).collect();
        let n = group.len();
        let mut srcs = open(group, base)?;
        let mut w = RunWriter::create(&cfg.tmpdir, runs.buf, cfg.sampling())?;
        merge::merge(&mut srcs, |k, r, l| w.push(k, r, l))?;
        drop(srcs);
        runs.push(w.finish()?)?;
        base += n;
    }
    let buf = runs.buf;
    progress::phase("merging");
    final_merge(cfg, spec, runs.finish()?, buf, &names, header.as_deref())
}

/// The last merge of the runs into the outputs: in parallel over key ranges
/// ([`pmerge`]) when there are threads to use, else one k-way merge.
fn final_merge(
    cfg: &Config,
    spec: &KeySpec,
    runs: Vec<Run>,
    buf: usize,
    names: &[String],
    header: Option<&[u8]>,
) -> Result<()> {
    let pos = |l: Loc| l.pos(names);
    let mut outs = Outputs::open(cfg, header)?;
    if cfg.threads > 1 {
        let p = pmerge::Params::new(cfg.memory, cfg.threads, buf, &runs);
        let splits = pmerge::split_points(&runs, p.range_bytes);
        if !splits.is_empty() {
            timing(&format!(
                "runs ready: {} runs, merged in {} key ranges",
                runs.len(),
                splits.len() + 1
            ));
            let (written, dups) =
                pmerge::merge(&runs, &splits, &p, cfg.on_dup, spec, &pos, &mut outs)?;
            return outs.finish(cfg, written, dups);
        }
    }
    let mut readers = Vec::with_capacity(runs.len());
    for r in runs {
        readers.push(RunReader::new(r, buf)?);
    }
    let mut em = outs.emitter(cfg, spec);
    merge::merge(&mut readers, |k, r, l| em.push(k, r, l, &pos))?;
    let (written, dups) = em.finish()?;
    outs.finish(cfg, written, dups)
}

/// One record in the in-memory sort: the first 8 key bytes inline, so most comparisons
/// never leave the array, and where the rest of the key and the record are.
#[derive(Clone, Copy)]
struct Entry {
    prefix: u64,
    batch: u32,
    idx: u32,
}

/// Bytes per record for the final sort: the entries, the sorted halves' scratch space and
/// the merged result.
const ENTRY_COST: usize = 3 * std::mem::size_of::<Entry>();

/// Chunks encoded and sorted together.
const PENDING: usize = 4;

/// Sorts the records of `batches` by key, stably. Each batch is already sorted (see
/// [`Batch::sort`]), so this is a merge of presorted runs, which the standard library's sort
/// detects and merges without re-sorting them.
fn sort_entries(batches: &mut [Batch]) -> Vec<Entry> {
    let n: usize = batches.iter().map(|b| b.chunk.len()).sum();
    let mut v = Vec::with_capacity(n);
    for (bi, b) in batches.iter_mut().enumerate() {
        if b.order.len() != b.chunk.len() {
            b.sort();
        }
        v.extend(b.order.iter().map(|&(prefix, idx)| Entry {
            prefix,
            batch: bi as u32,
            idx,
        }));
        b.order = Vec::new();
    }
    let batches = &*batches;
    let key = |e: &Entry| batches[e.batch as usize].key(e.idx as usize);
    let cmp = |a: &Entry, b: &Entry| a.prefix.cmp(&b.prefix).then_with(|| key(a).cmp(key(b)));
    if batches.len() < 4 {
        v.sort_by(cmp);
        return v;
    }
    // Two halves merged in parallel, then one merge of the two.
    let mid: usize = batches[..batches.len() / 2]
        .iter()
        .map(|b| b.chunk.len())
        .sum();
    let (a, b) = v.split_at_mut(mid);
    rayon::join(|| a.sort_by(cmp), || b.sort_by(cmp));
    let mut out = Vec::with_capacity(n);
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        // Ties take the first half: it holds the earlier input.
        if cmp(&b[j], &a[i]).is_lt() {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Under `--on-dup error`, finds the first pair of equal keys in sorted `v` and reports it
/// before anything is written.
fn check_dups(
    cfg: &Config,
    spec: &KeySpec,
    batches: &[Batch],
    v: &[Entry],
    names: &[String],
) -> Result<()> {
    if cfg.on_dup != OnDup::Error {
        return Ok(());
    }
    let key = |e: &Entry| batches[e.batch as usize].key(e.idx as usize);
    let hit = v
        .par_windows(2)
        .position_first(|w| w[0].prefix == w[1].prefix && key(&w[0]) == key(&w[1]));
    if let Some(i) = hit {
        let pos = |e: &Entry| {
            let b = &batches[e.batch as usize];
            b.chunk.pos(e.idx as usize, &names[b.input as usize])
        };
        let b = &batches[v[i + 1].batch as usize];
        return Err(emit::dup_error(
            spec,
            b.chunk.record(v[i + 1].idx as usize),
            pos(&v[i]),
            pos(&v[i + 1]),
        ));
    }
    Ok(())
}

/// Sorted runs on disk, merged in groups of `fan_in` as they pile up so that few files are
/// open at any time; the list stays in input order, which keeps the sort stable.
struct Runs<'a> {
    cfg: &'a Config,
    stack: Vec<(u32, Run)>,
    buf: usize,
    /// Runs spilled from memory so far (for the progress bar).
    spilled: usize,
}

impl<'a> Runs<'a> {
    fn new(cfg: &'a Config) -> Runs<'a> {
        let buf = (cfg.memory / 2 / (cfg.fan_in + 1)).clamp(16 << 10, 4 << 20);
        Runs {
            cfg,
            stack: Vec::new(),
            buf,
            spilled: 0,
        }
    }

    fn push(&mut self, run: Run) -> Result<()> {
        self.spilled += 1;
        self.stack.push((0, run));
        let f = self.cfg.fan_in;
        while self.stack.len() >= f {
            let lvl = self.stack[self.stack.len() - 1].0;
            if self.stack[self.stack.len() - f..]
                .iter()
                .any(|(l, _)| *l != lvl)
            {
                break;
            }
            self.merge_last(f, lvl + 1)?;
        }
        Ok(())
    }

    /// Merges the last `n` runs into one run of level `lvl`.
    fn merge_last(&mut self, n: usize, lvl: u32) -> Result<()> {
        let group = self.stack.split_off(self.stack.len() - n);
        let mut readers = Vec::with_capacity(n);
        for (_, r) in group {
            readers.push(RunReader::new(r, self.buf)?);
        }
        let mut w = RunWriter::create(&self.cfg.tmpdir, self.buf, self.cfg.sampling())?;
        merge::merge(&mut readers, |k, r, l| w.push(k, r, l))?;
        drop(readers);
        self.stack.push((lvl, w.finish()?));
        Ok(())
    }

    /// All runs, at most `fan_in` of them, in input order.
    fn finish(mut self) -> Result<Vec<Run>> {
        while self.stack.len() > self.cfg.fan_in {
            let n = self.cfg.fan_in.min(self.stack.len() - self.cfg.fan_in + 1);
            let lvl = self.stack[self.stack.len() - n..]
                .iter()
                .map(|(l, _)| *l)
                .max()
                .unwrap_or(0);
            self.merge_last(n, lvl + 1)?;
        }
        Ok(self.stack.into_iter().map(|(_, r)| r).collect())
    }
}

/// Sorts the batches and writes them as one run.
fn spill(cfg: &Config, spec: &KeySpec, batches: &mut [Batch], names: &[String]) -> Result<Run> {
    let v = sort_entries(batches);
    check_dups(cfg, spec, batches, &v, names)?;
    let lines: Vec<Vec<u64>> = batches.par_iter().map(Batch::lines).collect();
    // A run's samples are the first keys of its blocks ([`RunWriter::write_block`]), so
    // blocks are small: each range of the final merge starts each run's reader up to one
    // block before the range's first key. The file buffer is no larger than a block, so
    // blocks go to the file directly instead of being copied into it.
    let seg = (cfg.memory / 64).clamp(1 << 10, 64 << 10);
    let mut w = RunWriter::create(&cfg.tmpdir, seg, cfg.sampling())?;
    let batches = &*batches;
    gather(
        batches,
        &v,
        seg,
        |out, e| {
            let b = &batches[e.batch as usize];
            let i = e.idx as usize;
            let loc = b.loc(i, lines[e.batch as usize][i]);
            run::encode_item(out, b.key(i), b.chunk.record(i), loc);
        },
        Vec::new,
        |block| w.write_block(&block).map(|()| true),
    )?;
    w.finish()
}

/// Prints the time since start with a label when `PKSORT_TIMING` is set (for tuning).
fn timing(what: &str) {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Option<Instant>> = OnceLock::new();
    if let Some(t) = START.get_or_init(|| std::env::var_os("PKSORT_TIMING").map(|_| Instant::now()))
    {
        eprintln!("pksort: {what} at {:.3}s", t.elapsed().as_secs_f64());
    }
}

/// Records per gathered block, at most.
const SEG_RECS: usize = 4096;
/// Bytes per gathered block, about (a block ends with the record that reaches this).
const SEG_BYTES: usize = 1 << 20;

/// Cuts sorted `v` into blocks of about `seg_bytes` of records.
fn segments(batches: &[Batch], v: &[Entry], seg_bytes: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::with_capacity(v.len() / SEG_RECS + 1);
    let (mut start, mut bytes) = (0, 0);
    for (i, e) in v.iter().enumerate() {
        bytes += batches[e.batch as usize].chunk.range(e.idx as usize).len();
        if bytes >= seg_bytes || i + 1 - start >= SEG_RECS {
            out.push(start..i + 1);
            start = i + 1;
            bytes = 0;
        }
    }
    if start < v.len() {
        out.push(start..v.len());
    }
    out
}

/// Gathers the records of sorted `v` into contiguous blocks, a few blocks at a time in
/// parallel (the random reads from scattered records are the slow part of writing), and
/// hands the blocks in order to `sink`, which returns false to stop. `fill` appends one
/// entry's bytes to a block; blocks hold about `seg_bytes` of records.
fn gather(
    batches: &[Batch],
    v: &[Entry],
    seg_bytes: usize,
    fill: impl Fn(&mut Vec<u8>, &Entry) + Sync,
    fresh: impl Fn() -> Vec<u8>,
    mut sink: impl FnMut(Vec<u8>) -> Result<bool>,
) -> Result<()> {
    let segs = segments(batches, v, seg_bytes);
    // As many bytes per parallel step as with full-size blocks.
    let group = 2 * rayon::current_num_threads() * (SEG_BYTES / seg_bytes.max(1)).max(1);
    for g in segs.chunks(group) {
        let mut bufs: Vec<Vec<u8>> = g.iter().map(|_| fresh()).collect();
        bufs.par_iter_mut().zip(g.par_iter()).for_each(|(buf, r)| {
            for e in &v[r.clone()] {
                fill(buf, e);
            }
        });
        for b in bufs {
            if !sink(b)? {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Writes the records of sorted `v` when no duplicate policy needs to see them: blocks are
/// gathered in parallel while a writer thread writes the previous ones.
fn write_gathered(out: &mut progress::Counter<Sink>, batches: &[Batch], v: &[Entry]) -> Result<()> {
    let name = out.inner.name();
    let (tx, rx) = sync_channel::<Vec<u8>>(4);
    let (back_tx, back_rx) = sync_channel::<Vec<u8>>(16);
    std::thread::scope(|s| -> Result<()> {
        let writer = s.spawn(move || -> std::io::Result<()> {
            for mut buf in rx {
                out.write_all(&buf)?;
                buf.clear();
                let _ = back_tx.try_send(buf);
            }
            Ok(())
        });
        // A send fails only when the writer stopped on an error, which join reports.
        gather(
            batches,
            v,
            SEG_BYTES,
            |buf, e| {
                let rec = batches[e.batch as usize].chunk.record(e.idx as usize);
                buf.extend_from_slice(rec);
                if rec.last() != Some(&b'\n') {
                    buf.push(b'\n');
                }
            },
            || back_rx.try_recv().unwrap_or_default(),
            |b| Ok(tx.send(b).is_ok()),
        )?;
        drop(tx);
        match writer.join() {
            Ok(r) => r.at(&name),
            Err(_) => Err(Error::internal(format!(
                "the writer thread of {name} panicked"
            ))),
        }
    })
}

/// Sorting mode: read everything (spilling runs past the budget), then write in key order.
fn sort(cfg: &Config, spec: &KeySpec, mut inputs: Inputs, header: Option<Vec<u8>>) -> Result<()> {
    progress::phase("reading");
    let names = inputs.names.to_vec();
    let target = cfg.chunk_target();
    // Chunks in flight between the reader thread and here: one in the channel, one being
    // read, one being encoded.
    let budget = cfg
        .memory
        .saturating_sub(3 * (target + (64 << 10)))
        .max(target);
    let (tx, rx) = sync_channel::<Result<(u32, Records)>>(1);
    let (back_tx, back_rx) = sync_channel::<Records>(2);
    // Not a scoped thread: after an error the sort returns at once instead of waiting for the
    // reader, which may be blocked on a slow pipe; exiting ends it.
    std::thread::Builder::new()
        .name("pksort reader".into())
        .spawn(move || crate::records::read_ahead(|r| inputs.next_chunk(r), &tx, &back_rx))
        .map_err(|e| Error::internal(format!("cannot start the reader thread: {e}")))?;
    (|| -> Result<()> {
        // Owned here so that an early error return drops it and unblocks the reader.
        let rx = rx;
        let mut batches: Vec<Batch> = Vec::new();
        let mut mem = 0usize;
        let mut runs = Runs::new(cfg);
        // Chunks are encoded and sorted a few at a time in parallel: one chunk's sort is
        // sequential, and the reader thread delivers chunks faster than one core sorts them.
        let group = rayon::current_num_threads().clamp(1, PENDING);
        let mut pending: Vec<(u32, Records)> = Vec::with_capacity(group);
        let mut msgs = rx.iter();
        loop {
            let msg = msgs.next();
            let end = msg.is_none();
            if let Some(m) = msg {
                pending.push(m?);
            }
            let flush = pending.len() >= group || (end && !pending.is_empty());
            if !flush {
                if end {
                    break;
                }
                continue;
            }
            let done: Vec<Result<Batch>> = std::mem::take(&mut pending)
                .into_par_iter()
                .map(|(input, chunk)| {
                    let mut b = Batch::new(chunk, input, spec, &names[input as usize])?;
                    b.sort();
                    Ok(b)
                })
                .collect();
            for b in done {
                let b = b?;
                mem += b.mem() + b.chunk.len() * ENTRY_COST;
                batches.push(b);
                if mem > budget {
                    progress::phase(format!("reading, spilling run {}", runs.spilled + 1));
                    let run = spill(cfg, spec, &mut batches, &names)?;
                    for b in batches.drain(..) {
                        let _ = back_tx.try_send(b.chunk);
                    }
                    mem = 0;
                    runs.push(run)?;
                    progress::phase(format!("reading, {} runs spilled", runs.spilled));
                }
            }
            if end {
                break;
            }
        }
        drop(back_tx);
        timing("read");
        if runs.stack.is_empty() {
            progress::phase("sorting");
            let v = sort_entries(&mut batches);
            check_dups(cfg, spec, &batches, &v, &names)?;
            let mut outs = Outputs::open(cfg, header.as_deref())?;
            timing("sorted");
            progress::phase("writing");
            if cfg.on_dup == OnDup::Error || (cfg.on_dup == OnDup::Keep && cfg.dups_out.is_none()) {
                write_gathered(&mut outs.out, &batches, &v)?;
                timing("written");
                return outs.finish(cfg, v.len() as u64, 0);
            }
            let pos = |l: Loc| l.pos(&names);
            let mut em = outs.emitter(cfg, spec);
            for e in &v {
                let b = &batches[e.batch as usize];
                let i = e.idx as usize;
                // Duplicates were ruled out above when they are errors, so the line number
                // (which costs a scan) is never needed here.
                em.push(b.key(i), b.chunk.record(i), b.loc(i, 0), &pos)?;
            }
            let (written, dups) = em.finish()?;
            return outs.finish(cfg, written, dups);
        }
        if !batches.is_empty() {
            progress::phase(format!("spilling run {}", runs.spilled + 1));
            let run = spill(cfg, spec, &mut batches, &names)?;
            batches.clear();
            runs.push(run)?;
        }
        progress::phase(format!("merging {} runs", runs.spilled));
        let buf = runs.buf;
        final_merge(cfg, spec, runs.finish()?, buf, &names, header.as_deref())
    })()
}
