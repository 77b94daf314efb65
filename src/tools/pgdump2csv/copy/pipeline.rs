//! One big COPY block on every core: this thread reads the block and cuts it into pieces of
//! whole lines (a COPY text row is one line: newlines in values are escaped), the pool
//! converts the pieces, and a writer thread writes them back in order, so reading,
//! converting and writing go on at once.
//!
//! Memory: at most `4 x threads + 2` pieces are between the reader and the writer, each
//! about [`PIECE`] bytes of input (held in the read buffers they were cut from, 2-4 MiB
//! each) and as much again of CSV; with `-j 2` about 40-60 MiB, whatever the block's size.

use super::super::buf::Buf;
use super::{CopyJob, Out, find_marker};
use crate::io::error::{Error, Pos, Result};
use crate::pg::dump::copytext::{CopyConverter, RowError};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

/// The size of the pieces a block is cut into for the pool (at line ends): big enough that
/// a piece costs far more to convert than to hand over, small enough that two cores share
/// a 2 MiB read evenly.
pub(super) const PIECE: usize = 1 << 20;

/// The piece size in force: [`PIECE`], or a smaller one from the hidden environment variable
/// `DUMPSHARD_COPY_CHUNK` (bytes), so that tests cut small dumps at many places.
fn piece_size() -> usize {
    std::env::var("DUMPSHARD_COPY_CHUNK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(PIECE, |v| v.clamp(1, PIECE))
}

/// The size of COPY data at hand from which a block goes through the pipeline (with a
/// pool): [`super::super::PAR_MIN`], or less with `DUMPSHARD_COPY_CHUNK`.
pub(super) fn threshold() -> usize {
    piece_size().min(super::super::PAR_MIN)
}

/// A converted piece, for the writer.
struct Done {
    seq: u64,
    /// Stream offset of the piece's first byte.
    byte: u64,
    res: std::result::Result<(Vec<u8>, u64), RowError>,
}

/// Why the reader stopped before the end marker: an error whose position needs the lines
/// the writer counts (an offset from `buf.pos` then), or one that has its position.
enum Stop {
    At(usize, String),
    Err(Error),
}

/// What the writer ends with: the rows written, and the first error in file order.
struct Written {
    rows: u64,
    err: Option<Error>,
}

impl CopyJob<'_> {
    /// Converts the rest of a COPY block (`buf` at a line start inside it; `row_no` rows of
    /// it already written) through its end marker into `out`, on `pool`. Returns the rows of
    /// the whole block. Errors are those [`CopyJob::copy_rows`] gives, at the same positions:
    /// of a bad row, the first in the file.
    pub(super) fn copy_rows_par(
        &mut self,
        buf: &mut Buf,
        out: &mut Out<'_>,
        conv: &CopyConverter,
        pool: &rayon::ThreadPool,
        row_no: u64,
    ) -> Result<u64> {
        let key = self.key;
        let name = buf.name.clone();
        let start_line = buf.line;
        let limit = pool.current_num_threads() * 4 + 2;
        let piece = piece_size();
        let abort = AtomicBool::new(false);
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        // One token per piece that may be out: the reader takes one to hand a piece over,
        // the writer gives it back when the piece is written.
        let (slot_tx, slot_rx) = mpsc::channel::<()>();
        for _ in 0..limit {
            let _ = slot_tx.send(());
        }
        // Output buffers, reused.
        let spare_out: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
        let (abort, spare_out) = (&abort, &spare_out);
        let (written, read) = std::thread::scope(|ts| {
            let writer = std::thread::Builder::new()
                .name("write".into())
                .spawn_scoped(ts, move || {
                    let mut pending: BTreeMap<u64, Done> = BTreeMap::new();
                    let mut next = 0u64;
                    let mut w = Written { rows: 0, err: None };
                    for d in done_rx {
                        pending.insert(d.seq, d);
                        while let Some(d) = pending.remove(&next) {
                            next += 1;
                            if w.err.is_none() {
                                match d.res {
                                    Ok((bytes, n)) => {
                                        if let Err(e) = out.write(&bytes) {
                                            w.err = Some(e);
                                            abort.store(true, Ordering::Relaxed);
                                        } else {
                                            w.rows += n;
                                            *out.rows += n;
                                            crate::io::progress::add_records(n);
                                        }
                                        super::super::lock(spare_out).push(bytes);
                                    }
                                    Err(e) => {
                                        let pos = Pos {
                                            file: name.clone(),
                                            line: start_line + w.rows + e.row,
                                            byte: d.byte + e.offset as u64,
                                            record: None,
                                        };
                                        w.err = Some(Error::input(
                                            pos,
                                            format!(
                                                "{}.{} row {}: {}",
                                                key.0,
                                                key.1,
                                                row_no + w.rows + e.row + 1,
                                                e.msg
                                            ),
                                        ));
                                        abort.store(true, Ordering::Relaxed);
                                    }
                                }
                            }
                            let _ = slot_tx.send(());
                        }
                    }
                    w
                });
            let writer = match writer {
                Ok(w) => w,
                Err(e) => {
                    let e = Error::internal(format!("cannot start a thread: {e}"));
                    return (Written { rows: 0, err: None }, Err(Stop::Err(e)));
                }
            };
            let read = pool.in_place_scope(|s| {
                let mut seq = 0u64;
                // Read buffers handed over, reused once no piece holds them.
                let mut retired: Vec<Arc<Vec<u8>>> = Vec::new();
                loop {
                    if abort.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    let (marker, region_end) =
                        find_marker(buf, key).map_err(|(c, m)| Stop::At(c, m))?;
                    if region_end > 0 {
                        let fresh = match retired.iter().position(|b| Arc::strong_count(b) == 1)
                        {
                            Some(i) => Arc::try_unwrap(retired.swap_remove(i)).unwrap_or_default(),
                            None => Vec::with_capacity(buf.data.capacity()),
                        };
                        let base = buf.base + buf.pos as u64;
                        let (data, start) = buf.hand_off(region_end, fresh);
                        let data = Arc::new(data);
                        let mut from = 0;
                        while from < region_end {
                            let cut = if region_end - from <= piece {
                                region_end
                            } else {
                                let at = start + from + piece;
                                memchr::memchr(b'\n', &data[at..start + region_end])
                                    .map_or(region_end, |k| at + k + 1 - start)
                            };
                            if slot_rx.recv().is_err() || abort.load(Ordering::Relaxed) {
                                return Ok(());
                            }
                            let (data, tx) = (Arc::clone(&data), done_tx.clone());
                            let (range, byte) = (start + from..start + cut, base + from as u64);
                            s.spawn(move |_| {
                                let mut o = super::super::lock(spare_out).pop().unwrap_or_default();
                                o.clear();
                                let res = conv.convert(&data[range], &mut o).map(|n| (o, n));
                                drop(data);
                                let _ = tx.send(Done { seq, byte, res });
                            });
                            seq += 1;
                            from = cut;
                        }
                        retired.push(data);
                    }
                    if let Some((_, end)) = marker
                        && end != usize::MAX
                    {
                        buf.advance(end - region_end);
                        return Ok(());
                    }
                    match buf.fill() {
                        Ok(true) => {}
                        Ok(false) => {
                            return Err(Stop::At(
                                0,
                                format!(
                                    "the dump ends inside the COPY data of {}.{} (no \\. end marker): it is truncated",
                                    key.0, key.1
                                ),
                            ));
                        }
                        Err(e) => return Err(Stop::Err(e)),
                    }
                }
            });
            // The pieces are all converted (the scope waited for them): the writer ends
            // when it has written them.
            drop(done_tx);
            let written = writer.join().unwrap_or_else(|_| Written {
                rows: 0,
                err: Some(Error::internal("the writer thread panicked")),
            });
            (written, read)
        });
        // The first error in the file: a row's (pieces before the reader's stop), else the
        // reader's.
        if let Some(e) = written.err {
            return Err(e);
        }
        buf.line += written.rows;
        match read {
            Ok(()) => Ok(row_no + written.rows),
            Err(Stop::At(c, msg)) => Err(Error::input(buf.pos_at(c), msg)),
            Err(Stop::Err(e)) => Err(e),
        }
    }
}
