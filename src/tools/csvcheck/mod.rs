//! `csvcheck`: checks CSV against the target table's schema before a load and quarantines
//! the records PostgreSQL would refuse, byte for byte, with a reason for each.
//!
//! Records are cut into chunks ([`crate::csv::records::ChunkReader`]) and checked in parallel with
//! rayon; a sequential merge then runs the primary-key check in record order and writes the
//! good and bad records in input order. Type rules live in [`crate::pg::types`], the schema file
//! reader in [`ddl`].

pub mod ddl;

use crate::csv::records::{Chunk, ChunkReader, field_names, split_fields};
use crate::io::error::{Error, Result};
use crate::io::input;
use crate::io::output::{Sink, wants_gzip};
use crate::pg::types::PgType;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;

mod args;
mod check;
mod config;
mod merge;
mod report;
mod schema;

use crate::keys::keyset::{BYTES_PER_KEY, KeySet};
pub use args::Args;
use args::resolve_column;
pub use check::Check;
use check::{Checked, Ctx, check_chunk, exact_key_widths, key_col};
pub use config::{Column, Config};
use merge::{Merger, merge_batch, put, stopped_early};
use report::{FileStat, finish};
pub use schema::parse_columns;
use schema::{header_notes, header_order};

/// The size of the chunks the input is read and checked in: 2 MiB, a core's L2 cache on the
/// benchmark machine, as pgdump2csv's reads (what a read copies in is still cached when the
/// chunk's records are found and checked). Against 4 MiB (`TOOL=csvcheck bash
/// bench/ab.sh`, typed + key, `-j 2`, 1M rows): notes 5% faster in two runs, clean, quoted
/// and json within 2.5% either way, the noise (docs/benchmarks.md, seventh run).
const CHUNK: usize = 2 << 20;

/// Runs csvcheck.
pub fn run(mut args: Args) -> Result<()> {
    crate::io::output::Guard::new("an output")
        .inputs("FILE", &args.files)
        .input("--manifest", args.manifest.as_deref())
        .input("--ddl", args.ddl.as_deref())
        .output("--report", args.report.as_deref())
        .output("--bad-rows", args.bad_rows.as_deref())
        .output("--bad-rows-reasons", args.bad_rows_reasons.as_deref())
        .force(args.force)
        .install()?;
    args.jobs = Some(crate::io::cli::threads("--jobs", args.jobs)?);
    let cfg = Config::from_args(args)?;
    // A .gz input in a regular file is inflated on -j threads from PAR_MIN_THREADS, by ISA-L
    // below (src/io/input.rs, `gzip_path`).
    crate::io::input::gzpar::set_threads(cfg.threads);
    check(&cfg)
}

/// Checks the inputs as configured and writes the outputs and the report.
pub fn check(cfg: &Config) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| Error::internal(format!("cannot start worker threads: {e}")))?;
    let ins: Vec<Option<&std::path::Path>> = cfg.inputs.iter().map(|p| p.as_deref()).collect();
    crate::io::progress::start("csvcheck", cfg.quiet, &ins);
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
        let input = input::open_records(inp.as_deref())?;
        let name = input.name.clone();
        if cfg.inputs.len() > 1 {
            crate::io::progress::phase(name.clone());
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
        let mut reader = ChunkReader::for_input(input, CHUNK);
        reader.keep_unterminated(true);
        let mut first_chunk = true;
        let scanned = std::thread::scope(|s| -> Result<()> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Chunk>>(cfg.threads * 2);
            let (back_tx, back_rx) = std::sync::mpsc::channel::<Chunk>();
            s.spawn(move || {
                crate::csv::records::read_ahead(
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
                            let names = field_names(rec0, &f);
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
                            header_notes(
                                cfg.order_from_header,
                                &mut m.notes,
                                rec0,
                                &f,
                                nf,
                                &columns,
                                &name,
                            )?;
                        } else if width.is_none() {
                            // Structure-only: columns named by the header.
                            columns = field_names(rec0, &f)
                                .into_iter()
                                .map(|name| Column {
                                    name,
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
                        .map(|c| {
                            !matches!(c.ty, PgType::Text | PgType::Bpchar | PgType::Unknown(_))
                        })
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
    let tally = m.finish()?;
    finish(tally, cfg, &columns, &key)
}
