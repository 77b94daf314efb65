//! An archive's table data converted apart from its script: the data entries queued per table while
//! the script is read, then up to `--jobs` tables converted at once.

use super::args::Config;
use super::buf::Buf;
use super::copy::{CopyJob, Out, stopped};
use super::tables::header_record;
use super::{Converter, DataTable, Group, lock, pool_of};
use crate::csv::csvout::FieldWriter;
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::{AtomicFile, Sink};
use crate::pg::dump::archive::DataSet;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

impl Converter<'_> {
    /// The archive data entry the COPY statement `stmt` belongs to, when the archive's data
    /// is converted apart. A COPY that is not the next entry's (one inside a DDL entry, which
    /// pg_dump never writes) keeps its data in the script and is converted there.
    pub(super) fn take_deferred(&mut self, stmt: &[u8]) -> Option<usize> {
        let set = self.dset.as_ref()?;
        let e = set.entries.get(self.next_entry)?;
        if e.copy_stmt.trim_ascii_end() != stmt.trim_ascii_end() {
            return None;
        }
        self.next_entry += 1;
        Some(self.next_entry - 1)
    }

    /// A COPY whose data is archive entry `i`: its body in the script is empty; the entry is
    /// queued for its table, converted by [`Converter::convert_deferred`].
    pub(super) fn defer_copy(
        &mut self,
        key: (String, String),
        cols: Vec<String>,
        i: usize,
    ) -> Result<()> {
        self.enter_data()?;
        if let Some((idx, _)) = self.table_slot(&key, &cols)? {
            let g = match self.group_of.get(&idx) {
                Some(&g) => g,
                None => {
                    self.groups.push(Group {
                        idx,
                        entries: Vec::new(),
                    });
                    self.group_of.insert(idx, self.groups.len() - 1);
                    self.groups.len() - 1
                }
            };
            self.groups[g].entries.push(i);
        }
        // The empty body: its `\.` line.
        self.script_body(&key, cols.len(), false)
    }

    /// Converts the archive data entries queued by [`Converter::defer_copy`], up to `jobs`
    /// tables at once, biggest first. Each table's file is published when it is complete;
    /// the first table to fail stops the others (their files are not published) and its
    /// error is returned.
    ///
    /// Memory: each table in flight holds its read buffer (up to 2 x 2 MiB plus a longest
    /// line), its decompression queue (up to 10 blocks of 1 MB) and its converted pieces
    /// (about the read size): about 16 MB per job, whatever the table sizes.
    ///
    /// Threads: `jobs` at most working. W = min(jobs, tables) workers each read, convert and
    /// write one table; each has a decompression thread only when there are threads for it
    /// (jobs >= 2 W), and the rest form a pool for block conversion. A worker waits while the
    /// pool converts its blocks, so W - 1 workers + the pool + the decompression threads is
    /// at most `jobs`.
    pub(super) fn convert_deferred(&mut self) -> Result<()> {
        let Some(set) = self.dset.take() else {
            return Ok(());
        };
        let groups = std::mem::take(&mut self.groups);
        let size = |g: &Group| -> u64 { g.entries.iter().map(|&i| set.entries[i].size).sum() };
        let mut order: Vec<usize> = (0..groups.len()).collect();
        // Biggest first, so a big table does not start last; ties in script order.
        order.sort_by_key(|&g| std::cmp::Reverse(size(&groups[g])));
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let first_err: Mutex<Option<Error>> = Mutex::new(None);
        let results: Vec<Mutex<Option<(u64, u64)>>> =
            groups.iter().map(|_| Mutex::new(None)).collect();
        let jobs = self.cfg.jobs;
        let workers = jobs.min(groups.len());
        let inflate_thread = workers > 0 && jobs >= 2 * workers;
        let inflaters = if inflate_thread { workers } else { 0 };
        let pool = pool_of((jobs + 1).saturating_sub(workers + inflaters).max(1))?;
        let pool = pool.as_ref();
        let (cfg, data, archive) = (self.cfg, &self.data, &self.buf.name);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&g) = order.get(k) else { break };
                        let t = &data[groups[g].idx];
                        let grp = &groups[g];
                        match convert_group(cfg, pool, inflate_thread, &set, archive, t, grp, &stop)
                        {
                            Ok(r) => *lock(&results[g]) = Some(r),
                            Err(e) => {
                                let mut f = lock(&first_err);
                                if f.is_none() {
                                    *f = Some(e);
                                }
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = first_err.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        for (g, r) in groups.iter().zip(results) {
            if let Some((rows, bytes)) = r.into_inner().unwrap_or_else(|e| e.into_inner()) {
                self.data[g.idx].rows += rows;
                self.data[g.idx].bytes += bytes;
            }
        }
        Ok(())
    }
}

/// Converts one table's archive data entries (in script order) into its file, published
/// when complete. Returns its rows and bytes (the header's included).
#[allow(clippy::too_many_arguments)] // one call, from convert_deferred
pub(super) fn convert_group(
    cfg: &Config,
    pool: Option<&std::sync::Arc<rayon::ThreadPool>>,
    inflate_thread: bool,
    set: &DataSet,
    archive: &str,
    t: &DataTable,
    g: &Group,
    stop: &AtomicBool,
) -> Result<(u64, u64)> {
    let file = t.path.as_deref().map(AtomicFile::create).transpose()?;
    let mut sink = Sink::blocks(file, cfg.gzip, pool.cloned());
    crate::io::progress::phase(format!("table {}.{}", t.schema, t.name));
    let (mut rows, mut bytes) = (0u64, 0u64);
    if cfg.header {
        let h = header_record(cfg, &t.cols);
        let name = sink.name();
        sink.write_all(&h).at(name)?;
        bytes += h.len() as u64;
    }
    let fw = FieldWriter::new(cfg.null.as_bytes());
    let key = (t.schema.clone(), t.name.clone());
    let mut pieces = Vec::new();
    for &i in &g.entries {
        let e = &set.entries[i];
        if !e.wanted {
            continue;
        }
        let r = set.open(i, inflate_thread).at(archive)?;
        // Positions in messages are in the entry's decompressed data.
        let mut buf = Buf::new(r, format!("{archive}, {} data", e.what));
        let mut job = CopyJob {
            fw: &fw,
            ncols: t.cols.len(),
            key: &key,
            pieces: &mut pieces,
            pool: pool.map(|v| &**v),
            stop: Some(stop),
        };
        let out = Out {
            sink: &mut sink,
            rows: &mut rows,
            bytes: &mut bytes,
        };
        job.copy_rows(&mut buf, Some(out))?;
        // pg_dump ends the data with `\.` and two blank lines, which the script has already
        // given the schema output; anything else would be statements the script lost.
        loop {
            let a = buf.avail();
            if let Some(k) = a.iter().position(|b| !matches!(b, b'\n' | b'\r')) {
                return Err(Error::input(
                    buf.pos_at(k),
                    format!(
                        "text after the end of the COPY data of {}.{}: not what pg_dump writes",
                        key.0, key.1
                    ),
                ));
            }
            let n = a.len();
            buf.advance(n);
            if !buf.fill()? {
                break;
            }
        }
    }
    if stop.load(Ordering::Relaxed) {
        return Err(stopped());
    }
    sink.finish()?;
    Ok((rows, bytes))
}
