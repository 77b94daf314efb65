//! csvsplit: shards a CSV into import-ready files (by rows, by bytes, into N near-equal
//! chunks, or by key hash), writes each shard atomically and optionally gzip-compressed in
//! parallel, and reports exactly what it wrote (a JSON manifest, `IMPORT INTO` or `\copy`
//! statements). With a key (`-k`, or a manifest's primary key) the manifest also gives each
//! shard's first and last key and whether the shards are sorted and non-overlapping (the
//! `keyrange` submodule, using the typed keys of [`crate::keys`]).
//!
//! Records are cut only at record boundaries found by quote parity ([`crate::csv::records`]) and
//! copied byte for byte; in every mode but `--by-hash` the shards, minus repeated headers,
//! concatenate back to the input. The reader thread only decides where records go; the
//! checksumming, compression and writing happen in the `pipeline` submodule.
//!
//! Files: `args` (command line and the checked `Config`), this module (the run: open or map
//! the input, feed blocks of records), `splitter` (which shard each record goes to),
//! `cut` (`-b` and `-n` cuts over a mapped file by quote parity, without visiting every
//! record),
//! `spool` (measuring a stream first), `pipeline` (checksum, compress, write) with `filter`
//! (`--filter` processes), `report` (the manifest and the load statements, worded in `sql`),
//! `hash`, `range` and `keyrange` (key hashing, split points, key ranges), `template`
//! (shard names), `mapped` (the mapped input).

mod args;
mod cut;
mod filter;
mod hash;
mod keyrange;
mod mapped;
mod pipeline;
pub mod range;
mod report;
mod splitter;
mod spool;
pub mod sql;
mod template;

pub use args::{Args, Config, Mode, SqlOut};
pub use hash::{hash_encoded, push_value, shard_of};
pub use keyrange::{KeyRanges, KeyTracker, Range};
pub use pipeline::Done;
pub use template::Template;

use crate::csv::records::{Chunk, ChunkReader};
use crate::io::error::{Error, IoContext, Pos, Result};
use crate::io::input;
use crate::io::progress;
use crate::keys::KeySpec;
use mapped::Mapped;
use report::report;
use splitter::{Run, View};
use spool::{shard_dir, spool};
use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;

/// Target size of the chunks read, and so of the blocks handed to workers: large enough that
/// per-block costs vanish, small enough that two workers stay busy on a single shard.
const CHUNK: usize = 1 << 20;

/// Runs csvsplit.
pub fn run(args: Args) -> Result<()> {
    crate::io::output::Guard::new("a shard of --output")
        .input("FILE", args.file.as_deref())
        .input("--manifest", args.manifest.as_deref())
        .input("--split-points", args.split_points.as_deref())
        .output("--write-manifest", args.write_manifest.as_deref())
        .output("--write-split-points", args.write_split_points.as_deref())
        .force(args.force)
        .install()?;
    let cfg = Config::from_args(args)?;
    // A .gz input in a regular file is inflated on -j threads from PAR_MIN_THREADS, by ISA-L
    // below (src/io/input.rs, `gzip_path`).
    crate::io::input::gzpar::set_threads(cfg.workers);
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
            .map(|(_, p)| crate::io::names::display_path(p))
            .collect();
        // The wording of the one overwrite rule (crate::io::output::exists).
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
    // The run succeeded: its shards are its result (pipeline.rs held them as temporaries).
    for d in &done.shards {
        crate::io::signals::unregister_temp(&d.path);
    }
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
    if Run::can_cut(cfg) {
        return run.cut(&shared, count);
    }
    let (mut pos, mut in_quote, mut record) = (0usize, false, 1u64);
    let mut ends = Vec::new();
    while pos < data.len() {
        ends.clear();
        let begin = pos;
        crate::csv::records::scan_ends(data, &mut pos, &mut in_quote, begin + CHUNK, &mut ends);
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
                return Err(crate::csv::records::unterminated(tail, last, at));
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
        crate::csv::records::scan_ends(data, &mut pos, &mut q, 0, &mut ends);
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
    crate::csv::records::header_names(header).map_err(|m| {
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

/// Bytes shared with the writer threads: a read buffer or the mapped file.
type Shared = Arc<dyn pipeline::Source>;

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
