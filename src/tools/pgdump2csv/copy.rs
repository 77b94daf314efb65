//! `COPY ... FROM stdin` data: blocks of whole lines converted to CSV, split across cores and
//! written in order.

mod pipeline;

use super::buf::Buf;
use super::{Converter, PAR_MIN};
use crate::csv::csvout::FieldWriter;
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::Sink;
use crate::pg::dump::copytext::CopyConverter;
use crate::pg::dump::copytext::RowError;
use rayon::prelude::*;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

impl Converter<'_> {
    /// Converts (or skips) the data of a COPY block; `pos` is at its first line.
    pub(super) fn copy_data(&mut self, key: (String, String), cols: Vec<String>) -> Result<()> {
        self.enter_data()?;
        let selected = self.open_table(&key, &cols)?;
        self.script_body(&key, cols.len(), selected)
    }

    /// Reads the COPY data that follows in the script through its `\.` line: into the open
    /// table's output when `keep`, else read and dropped (an unselected table, or an archive
    /// entry whose data is converted apart and whose body here is only its `\.`).
    pub(super) fn script_body(
        &mut self,
        key: &(String, String),
        ncols: usize,
        keep: bool,
    ) -> Result<()> {
        let out = match self.open.as_mut() {
            Some(o) if keep => {
                let t = &mut self.data[o.idx];
                Some(Out {
                    sink: &mut o.sink,
                    rows: &mut t.rows,
                    bytes: &mut t.bytes,
                })
            }
            _ => None,
        };
        script_copy(
            &mut self.buf,
            self.pool.map(|v| &**v),
            &self.fw,
            &mut self.piece_bufs,
            key,
            ncols,
            out,
        )?;
        Ok(())
    }
}

/// Converts the COPY data that follows its statement in the script (`buf` at its first
/// line) through its `\.` line into `out` (`None`: read and dropped), its blocks converted
/// on `pool` (`None`: on this thread); no stop flag: the script is read by one thread.
fn script_copy(
    buf: &mut Buf,
    pool: Option<&rayon::ThreadPool>,
    fw: &FieldWriter,
    pieces: &mut Vec<Vec<u8>>,
    key: &(String, String),
    ncols: usize,
    out: Option<Out<'_>>,
) -> Result<u64> {
    CopyJob {
        fw,
        ncols,
        key,
        pieces,
        pool,
        stop: None,
    }
    .copy_rows(buf, out)
}

/// Where a COPY block's converted rows go, with its table's counters.
pub(super) struct Out<'a> {
    pub(super) sink: &'a mut Sink,
    pub(super) rows: &'a mut u64,
    pub(super) bytes: &'a mut u64,
}

impl Out<'_> {
    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self.sink.name();
        self.sink.write_all(bytes).at(name)?;
        *self.bytes += bytes.len() as u64;
        Ok(())
    }
}

/// The conversion of COPY blocks of one table: by the converter for data in the dump, and
/// by a worker for an archive entry's data read on its own.
pub(super) struct CopyJob<'a> {
    pub(super) fw: &'a FieldWriter,
    pub(super) ncols: usize,
    pub(super) key: &'a (String, String),
    /// Output buffers of the pieces converted in parallel, kept for the next region.
    pub(super) pieces: &'a mut Vec<Vec<u8>>,
    /// The pool to convert pieces on (`None`: on this thread, one piece at a time).
    pub(super) pool: Option<&'a rayon::ThreadPool>,
    /// Set when another table failed: this one stops (its file is not published).
    pub(super) stop: Option<&'a AtomicBool>,
}

/// The error a worker stops with when another table failed first (never shown: the first
/// error is).
pub(super) fn stopped() -> Error {
    Error::Usage("stopped: another table failed".into())
}

impl CopyJob<'_> {
    /// Reads COPY data from `buf` (at its first line) up to its `\.` end marker, converting it
    /// into `out` (`None`: skipped). Returns the rows.
    pub(super) fn copy_rows(&mut self, buf: &mut Buf, mut out: Option<Out<'_>>) -> Result<u64> {
        let key = self.key;
        // The first row's line end is the block's, as PostgreSQL reads it.
        let crlf = loop {
            if let Some(k) = memchr::memchr(b'\n', buf.avail()) {
                break k > 0 && buf.avail()[k - 1] == b'\r';
            }
            if !buf.fill()? {
                break false;
            }
        };
        let conv = CopyConverter::new(self.ncols, self.fw.clone()).with_crlf(crlf);
        let mut row_no = 0u64;
        // A block bigger than the buffer is converted by the pipeline (reading, converting
        // and writing at once) when there is a pool; an archive worker (`stop` set) shares its
        // pool with the other tables' workers and keeps to regions.
        let par = match (self.pool, self.stop) {
            (Some(p), None) if p.current_num_threads() > 1 => Some(p),
            _ => None,
        };
        loop {
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(stopped());
            }
            let (marker, region_end) =
                find_marker(buf, key).map_err(|(c, msg)| Error::input(buf.pos_at(c), msg))?;
            if let (Some(p), Some(o)) = (par, out.as_mut())
                && region_end >= pipeline::threshold()
            {
                return self.copy_rows_par(buf, o, &conv, p, row_no);
            }
            if region_end > 0 {
                let rows = match out.as_mut() {
                    Some(o) => self.convert_region(buf, &conv, region_end, row_no, o)?,
                    None => memchr::memchr_iter(b'\n', &buf.avail()[..region_end]).count() as u64,
                };
                row_no += rows;
                buf.line += rows;
                buf.pos += region_end;
            }
            match marker {
                Some((_, end)) if end != usize::MAX => {
                    let end = end - region_end;
                    buf.advance(end);
                    break;
                }
                _ => {}
            }
            if !buf.fill()? {
                return Err(Error::input(
                    buf.pos_at(0),
                    format!(
                        "the dump ends inside the COPY data of {}.{} (no \\. end marker): it is truncated",
                        key.0, key.1
                    ),
                ));
            }
        }
        Ok(row_no)
    }

    /// Converts `buf.avail()[..len]` (whole lines) and writes it to `out`.
    pub(super) fn convert_region(
        &mut self,
        buf: &Buf,
        conv: &CopyConverter,
        len: usize,
        row_no: u64,
        out: &mut Out<'_>,
    ) -> Result<u64> {
        let key = self.key;
        let region = &buf.data[buf.pos..buf.pos + len];
        let threads = self.pool.map_or(1, |p| p.current_num_threads());
        // Cut into pieces at line ends so cores can share the work.
        let pieces = if len < PAR_MIN || threads == 1 {
            1
        } else {
            (threads * 2).max(1)
        };
        let mut bounds = Vec::with_capacity(pieces + 1);
        bounds.push(0);
        for p in 1..pieces {
            let target = len * p / pieces;
            let prev = *bounds.last().unwrap_or(&0);
            if target <= prev {
                continue;
            }
            match memchr::memchr(b'\n', &region[target..]) {
                Some(k) if target + k + 1 < len => bounds.push(target + k + 1),
                _ => break,
            }
        }
        bounds.push(len);
        let n = bounds.len() - 1;
        self.pieces.resize_with(n, Vec::new);
        let work = |bufs: &mut [Vec<u8>]| -> Vec<std::result::Result<u64, RowError>> {
            bufs.par_iter_mut()
                .enumerate()
                .map(|(k, o)| {
                    o.clear();
                    conv.convert(&region[bounds[k]..bounds[k + 1]], o)
                })
                .collect()
        };
        let results = match self.pool {
            Some(p) if n > 1 => p.install(|| work(&mut self.pieces[..n])),
            // On this thread: no rayon at all (its global pool would start threads).
            _ => self.pieces[..n]
                .iter_mut()
                .enumerate()
                .map(|(k, o)| {
                    o.clear();
                    conv.convert(&region[bounds[k]..bounds[k + 1]], o)
                })
                .collect(),
        };
        let mut rows = 0u64;
        for (k, r) in results.into_iter().enumerate() {
            match r {
                Ok(nr) => rows += nr,
                Err(e) => {
                    let rel = bounds[k] + e.offset;
                    let mut pos = buf.pos_at(0);
                    pos.line += rows + e.row;
                    pos.byte += rel as u64;
                    return Err(Error::input(
                        pos,
                        format!(
                            "{}.{} row {}: {}",
                            key.0,
                            key.1,
                            row_no + rows + e.row + 1,
                            e.msg
                        ),
                    ));
                }
            }
        }
        for b in &self.pieces[..n] {
            out.write(b)?;
        }
        *out.rows += rows;
        crate::io::progress::add_records(rows);
        Ok(rows)
    }
}

/// The end marker line of a COPY block: its start and end (offsets in `buf.avail()`).
pub(super) type Marker = Option<(usize, usize)>;

/// Where the COPY data in `buf.avail()` ends: the end marker line, a line that is exactly `\.`
/// (before `\n`, `\r\n`, or end of input), as (its start, its end; `usize::MAX` when that
/// cannot be told before reading more), and the end of the whole lines before it (or before
/// the last incomplete line). A corrupt marker is an error at its offset.
pub(super) fn find_marker(
    buf: &Buf,
    key: &(String, String),
) -> std::result::Result<(Marker, usize), (usize, String)> {
    let avail = buf.avail();
    let c = if avail.starts_with(b"\\.") {
        Some(0)
    } else {
        memchr::memmem::find(avail, b"\n\\.").map(|k| k + 1)
    };
    let marker = match c {
        None => None,
        Some(c) => match (avail.get(c + 2), avail.get(c + 3)) {
            (Some(b'\n'), _) => Some((c, c + 3)),
            (Some(b'\r'), Some(b'\n')) => Some((c, c + 4)),
            (None, _) | (Some(b'\r'), None) if !buf.eof => Some((c, usize::MAX)),
            (None, _) | (Some(b'\r'), None) => Some((c, avail.len())),
            _ => {
                return Err((
                    c,
                    format!(
                        "end-of-copy marker corrupt: a line of {}.{} starts with \\. followed by other text",
                        key.0, key.1
                    ),
                ));
            }
        },
    };
    let region_end = match marker {
        Some((c, _)) => c,
        None => memchr::memrchr(b'\n', avail).map_or(0, |k| k + 1),
    };
    Ok((marker, region_end))
}
