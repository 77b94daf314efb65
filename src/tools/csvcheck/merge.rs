//! The sequential side: checked chunks merged in input order, the primary-key check across the
//! whole input (duplicates, order), good and bad records written.

use super::check::{Check, Checked, Problem, key_excerpt, locate, problem};
use super::config::Config;
use super::report::{CheckStat, Example, FileStat, Tally};
use crate::csv::csvout;
use crate::csv::records::{Chunk, split_fields};
use crate::io::error::{Error, Result};
use crate::io::output::Sink;
use crate::keys::keyset::KeySet;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

/// The sequential side: key set, outputs and counts.
pub(super) struct Merger<'a> {
    pub(super) cfg: &'a Config,
    pub(super) columns: Vec<String>,
    pub(super) key: Vec<usize>,
    pub(super) good_out: Option<Sink>,
    pub(super) bad_out: Option<Sink>,
    pub(super) reasons: Option<Sink>,
    pub(super) good_open: bool,
    pub(super) bad_open: bool,
    pub(super) records: u64,
    pub(super) bad: u64,
    pub(super) checks: BTreeMap<Check, CheckStat>,
    /// Examples in input order, at most `cfg.examples` per check.
    pub(super) examples: Vec<Example>,
    pub(super) example_counts: HashMap<Check, usize>,
    pub(super) seen: Option<KeySet>,
    pub(super) max_keys: usize,
    pub(super) key_complete: bool,
    pub(super) last_key: Option<Vec<u8>>,
    pub(super) files: Vec<FileStat>,
    pub(super) stopped: Option<String>,
    pub(super) header_written: bool,
    pub(super) notes: Vec<String>,
    /// Blank lines read as records of a one-column table.
    pub(super) blank_rows: u64,
    /// Standard output (--filter) was closed by its reader.
    pub(super) stdout_closed: bool,
    /// Bytes of good records written (--filter), for the summary.
    pub(super) good_bytes: u64,
}

/// Writes records to a sink, adding a newline before a record when the previous one (the
/// last of a file) had none, so records of consecutive files never run together.
pub(super) fn put(sink: &mut Option<Sink>, open: &mut bool, bytes: &[u8]) -> std::io::Result<()> {
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
    pub(super) fn sink_err(sink: &Option<Sink>, e: std::io::Error) -> Error {
        Error::io(sink.as_ref().map_or("<output>".into(), |s| s.name()), e)
    }

    /// Writes good records to standard output, noting when its reader went away.
    pub(super) fn put_good(&mut self, bytes: &[u8]) -> Result<()> {
        if self.good_out.is_some() {
            self.good_bytes += bytes.len() as u64 + u64::from(self.good_open);
        }
        put(&mut self.good_out, &mut self.good_open, bytes).map_err(|e| {
            self.stdout_closed |= e.kind() == std::io::ErrorKind::BrokenPipe;
            Self::sink_err(&self.good_out, e)
        })
    }

    pub(super) fn merge(
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
                // Prefetch distance: enough inserts to cover a memory access.
                const AHEAD: usize = 16;
                for (j, &(i, h)) in res.hashes.iter().enumerate() {
                    if let Some(&(_, next)) = res.hashes.get(j + AHEAD) {
                        seen.prefetch(next);
                    }
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

    pub(super) fn note_problem(&mut self, file: &str, recno: u64, p: &Problem) -> Result<()> {
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

impl Merger<'_> {
    /// Finishes the outputs (a closed standard output ends the run as [`stopped_early`]
    /// says) and hands the counts to the report.
    pub(super) fn finish(mut self) -> Result<Tally> {
        if let Some(s) = self.good_out.take()
            && let Err(e) = s.finish()
        {
            self.stdout_closed |= e.is_broken_pipe();
            return Err(if self.stdout_closed {
                stopped_early(&mut self)
            } else {
                e
            });
        }
        if let Some(s) = self.bad_out.take() {
            s.finish()?;
        }
        if let Some(s) = self.reasons.take() {
            s.finish()?;
        }
        Ok(Tally {
            files: self.files,
            records: self.records,
            bad: self.bad,
            checks: self
                .checks
                .into_iter()
                .map(|(k, v)| (k.name(), v))
                .collect(),
            examples: self.examples,
            key_complete: self.key_complete,
            notes: self.notes,
            stopped: self.stopped,
            blank_rows: self.blank_rows,
            good_bytes: self.good_bytes,
        })
    }
}

/// Merges a checked batch in order and hands the chunk buffers back to the reader.
pub(super) fn merge_batch(
    m: &mut Merger,
    name: &str,
    (chunks, results, skip0): (Vec<Chunk>, Vec<Checked>, bool),
    back: &std::sync::mpsc::Sender<Chunk>,
) -> Result<()> {
    for (k, (c, r)) in chunks.into_iter().zip(results).enumerate() {
        if m.stopped.is_none() {
            crate::io::progress::add_records(c.len() as u64);
            m.merge(name, &c, r, k == 0 && skip0)?;
        }
        let _ = back.send(c);
    }
    Ok(())
}

/// The end of a run whose standard output (--filter) was closed before it finished, e.g.
/// by `head`: quietly, and never with 0, which would mean every record was checked and is
/// clean. Exit 1 when bad records were already seen, else [`Error::StoppedEarly`] (exit 3).
/// The other outputs are dropped unfinished (their temporary files removed), so nothing
/// looks complete.
pub(super) fn stopped_early(m: &mut Merger) -> Error {
    m.bad_out = None;
    m.reasons = None;
    if m.bad > 0 {
        Error::Found(String::new())
    } else {
        Error::StoppedEarly
    }
}
