//! pksort: an external, typed, byte-preserving primary-key sort for CSV.
//!
//! A reader thread cuts the input into chunks of whole records with the quote-aware
//! [`crate::csv::records::ChunkReader`]; each record's key is encoded once into a memcomparable
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

mod args;
pub mod batch;
pub mod emit;
pub mod merge;
pub mod pmerge;
pub mod run;
mod sort;

pub use crate::keys::{key, spec};

use crate::io::error::{Error, IoContext, Result};
use crate::io::output::{self, Sink};
use crate::io::progress;
pub use args::{Args, Config, Mode};
use batch::{Batch, Inputs, Loc, Records};
use emit::{Emitter, OnDup};
use merge::{CsvSource, Source};
use rayon::prelude::*;
use run::{Run, RunReader, RunWriter};
use sort::{Runs, sort};
use spec::KeySpec;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc::sync_channel;

/// Runs pksort.
pub fn run(args: Args) -> Result<()> {
    output::Guard::new("an output")
        .inputs("FILE", &args.files)
        .input("--manifest", args.manifest.as_deref())
        .output("-o", args.output.as_deref())
        .output("--dups-out", args.dups_out.as_deref())
        .force(args.force)
        .install()?;
    if !args.check
        && args
            .output
            .as_deref()
            .is_none_or(crate::io::stream::is_stdin)
    {
        output::stdout_stream_pending();
    }
    let cfg = Config::from_args(args)?;
    // A .gz input in a regular file is inflated on -j threads from PAR_MIN_THREADS, by ISA-L
    // below (src/io/input.rs, `gzip_path`).
    crate::io::input::gzpar::set_threads(cfg.threads);
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
        (None, Some(h)) => crate::csv::records::header_names(h).map_err(|m| {
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
                    Some(p) => format!(" (written to {})", crate::io::names::display_path(p)),
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
                && crate::csv::records::strip_terminator(h2)
                    != crate::csv::records::strip_terminator(h)
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
