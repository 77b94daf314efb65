//! The final merge of sorted runs on every core: the key space is cut into ranges at keys
//! sampled from the runs, worker threads merge the ranges (each its own k-way merge over all
//! runs, reading each run from the range's first key on) into blocks, and the calling thread
//! writes the blocks range after range.
//!
//! The output is byte for byte the one-threaded merge's: ranges are key intervals
//! `[split i-1, split i)`, so they come out in key order, equal keys always fall in one range
//! (ties keep run order inside a merge as before), and the duplicate policy, which only looks
//! at adjacent equal keys, sees exactly the same groups.
//!
//! Memory: each worker reads every run through its own buffer of `reader_buf` bytes (the
//! sequential merge's buffer over the number of workers), and at most `threads + 1` ranges are
//! in flight, each holding at most `capacity` blocks of about `block` bytes (plus one being
//! filled), which [`Params::new`] sizes to half of `-S`. A range larger than its blocks (a
//! long run of one key, or coarse samples) does not grow memory: its worker waits for the
//! writer, so such a range is merged at one-thread speed.

use super::Outputs;
use super::batch::Loc;
use super::emit::{Emitter, OnDup};
use super::merge::{self, Source};
use super::run::{Run, RunReader};
use super::spec::KeySpec;
use crate::io::error::{Error, IoContext, Pos, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Condvar, Mutex};

/// Sizes for one parallel merge.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// Worker threads.
    pub threads: usize,
    /// Read buffer per run per worker.
    pub reader_buf: usize,
    /// Bytes per output block, about.
    pub block: usize,
    /// Blocks a range may have waiting for the writer.
    pub capacity: usize,
    /// Target bytes of run data per range.
    pub range_bytes: u64,
}

impl Params {
    /// Sizes for a budget of `memory` bytes, `threads` workers, `buf` bytes of read buffer
    /// per run in the one-threaded merge, and `runs`.
    pub fn new(memory: usize, threads: usize, buf: usize, runs: &[Run]) -> Params {
        let threads = threads.max(1);
        let per_range = (memory / 2 / (threads + 1)).max(4 << 10);
        let block = (per_range / 4).clamp(1 << 10, 1 << 20);
        // Starting a range scans each run from the sample before the range's first key, half
        // the spacing of samples on average: ranges at least 4 times all those scans keep
        // them under an eighth of the work. (Larger ranges than the blocks hold make workers
        // wait for the writer, which costs parallelism, never memory.)
        let spacing = runs
            .iter()
            .map(|r| r.len / r.samples.len().max(1) as u64)
            .max()
            .unwrap_or(0);
        Params {
            threads,
            reader_buf: (buf / threads).max(16 << 10),
            block,
            capacity: (per_range / block).max(2),
            range_bytes: (per_range as u64).max(4 * runs.len() as u64 * spacing),
        }
    }
}

/// Keys that cut the runs' samples into ranges of about `target` bytes of run data:
/// strictly increasing, empty when everything fits one range.
pub fn split_points(runs: &[Run], target: u64) -> Vec<Vec<u8>> {
    // Each sample stands for the bytes up to the next sample of its run.
    let mut all: Vec<(&[u8], u64)> = Vec::new();
    for r in runs {
        for (i, s) in r.samples.iter().enumerate() {
            let next = r.samples.get(i + 1).map_or(r.len, |n| n.offset);
            all.push((&s.key, next.saturating_sub(s.offset)));
        }
    }
    all.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut splits: Vec<Vec<u8>> = Vec::new();
    let mut acc = 0u64;
    for (k, w) in all {
        // `acc` starts at 0, so no split is made at the smallest key (an empty first range).
        if acc >= target.max(1) && splits.last().is_none_or(|s| s.as_slice() < k) {
            splits.push(k.to_vec());
            acc = 0;
        }
        acc += w;
    }
    splits
}

/// One run's items in `[lo, hi)`.
struct Bounded<'a> {
    r: RunReader,
    hi: Option<&'a [u8]>,
    done: bool,
}

impl<'a> Bounded<'a> {
    fn new(run: &Run, lo: Option<&[u8]>, hi: Option<&'a [u8]>, buf: Vec<u8>) -> Result<Self> {
        // Every item before the last sample whose key is below `lo` has a key below `lo`.
        let offset = match lo {
            None => 0,
            Some(lo) => {
                let j = run.samples.partition_point(|s| s.key.as_slice() < lo);
                j.checked_sub(1).map_or(0, |j| run.samples[j].offset)
            }
        };
        let mut r = RunReader::reusing(run, offset, buf)?;
        if let Some(lo) = lo {
            while r.current().is_some_and(|(k, _, _)| k < lo) {
                r.advance()?;
            }
        }
        let mut b = Bounded { r, hi, done: false };
        b.check();
        Ok(b)
    }

    fn check(&mut self) {
        self.done = match (self.r.current(), self.hi) {
            (None, _) => true,
            (Some((k, _, _)), Some(hi)) => k >= hi,
            (Some(_), None) => false,
        };
    }
}

impl Source for Bounded<'_> {
    fn current(&self) -> Option<(&[u8], &[u8], Loc)> {
        if self.done { None } else { self.r.current() }
    }
    fn advance(&mut self) -> Result<()> {
        self.r.advance()?;
        self.check();
        Ok(())
    }
}

/// What a worker sends the writer for one range, in order.
enum Msg {
    Out(Vec<u8>),
    Dups(Vec<u8>),
    /// The range is complete: records written, and records that had duplicate keys.
    Done(u64, u64),
    Err(Error),
}

/// Collects a range's output into blocks sent to the writer.
struct ChanWriter<'a> {
    tx: &'a SyncSender<Msg>,
    /// Written blocks handed back by the writer: fresh large buffers would cost a page fault
    /// per 4 KiB.
    spare: &'a Mutex<Receiver<Vec<u8>>>,
    buf: Vec<u8>,
    block: usize,
    dups: bool,
}

impl ChanWriter<'_> {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let fresh = self
            .spare
            .lock()
            .ok()
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_else(|| Vec::with_capacity(self.block + (4 << 10)));
        let b = std::mem::replace(&mut self.buf, fresh);
        let m = if self.dups { Msg::Dups(b) } else { Msg::Out(b) };
        // Fails only when the writer gave up, whose own error is the one reported.
        self.tx
            .send(m)
            .map_err(|_| std::io::Error::other("the merge was abandoned"))
    }
}

impl Write for ChanWriter<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= self.block {
            self.send()?;
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

struct State {
    /// The next range a worker takes.
    next: usize,
    /// Ranges the writer has finished.
    written: usize,
    abort: bool,
    /// Ranges started by a worker and not yet taken by the writer.
    ready: BTreeMap<usize, Receiver<Msg>>,
}

/// Merges `runs` in the ranges cut at `splits` into `outs`; returns the records written and
/// those with duplicate keys, as [`Emitter::finish`] does.
#[allow(clippy::too_many_arguments)]
pub(super) fn merge(
    runs: &[Run],
    splits: &[Vec<u8>],
    p: &Params,
    policy: OnDup,
    spec: &KeySpec,
    pos: &(dyn Fn(Loc) -> Pos + Sync),
    outs: &mut Outputs,
) -> Result<(u64, u64)> {
    let n = splits.len() + 1;
    let window = p.threads + 1;
    let state = Mutex::new(State {
        next: 0,
        written: 0,
        abort: false,
        ready: BTreeMap::new(),
    });
    let cv = Condvar::new();
    let with_dups = outs.dups.is_some();
    let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(2 * window);
    let spare = Mutex::new(spare_rx);
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|s| {
        for w in 0..p.threads.min(n) {
            let (cv, spare) = (&cv, &spare);
            let lock = &lock;
            let spawned = std::thread::Builder::new()
                .name(format!("pksort merge {w}"))
                .spawn_scoped(s, move || {
                    // The worker's read buffers, one per run, reused range after range.
                    let mut bufs: Vec<Vec<u8>> = Vec::new();
                    loop {
                        let mut st = lock();
                        if st.abort || st.next >= n {
                            return;
                        }
                        let i = st.next;
                        st.next += 1;
                        while i >= st.written + window && !st.abort {
                            st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
                        }
                        if st.abort {
                            return;
                        }
                        let (tx, rx) = sync_channel::<Msg>(p.capacity);
                        st.ready.insert(i, rx);
                        drop(st);
                        cv.notify_all();
                        let lo = i.checked_sub(1).map(|j| splits[j].as_slice());
                        let hi = splits.get(i).map(|v| v.as_slice());
                        let r = merge_range(
                            runs, lo, hi, p, &tx, spare, &mut bufs, with_dups, policy, spec, pos,
                        );
                        let _ = tx.send(match r {
                            Ok((w, d)) => Msg::Done(w, d),
                            Err(e) => Msg::Err(e),
                        });
                    }
                });
            if let Err(e) = spawned {
                lock().abort = true;
                cv.notify_all();
                return Err(Error::io("<merge thread>", e));
            }
        }
        let r = write_ranges(n, &lock, &cv, &spare_tx, outs);
        // Whatever happened, let the workers go: waiting ones see `abort`, sending ones see
        // their receiver dropped.
        {
            let mut st = lock();
            st.abort = true;
            st.ready.clear();
        }
        cv.notify_all();
        r
    })
}

/// The writer: takes the ranges in order and writes their blocks.
fn write_ranges<'a>(
    n: usize,
    lock: &dyn Fn() -> std::sync::MutexGuard<'a, State>,
    cv: &Condvar,
    spare: &SyncSender<Vec<u8>>,
    outs: &mut Outputs,
) -> Result<(u64, u64)> {
    let out_name = outs.out.inner.name();
    let dups_name = outs.dups.as_ref().map(|d| d.name()).unwrap_or_default();
    let (mut written, mut dups) = (0, 0);
    for i in 0..n {
        let rx = {
            let mut st = lock();
            loop {
                if let Some(rx) = st.ready.remove(&i) {
                    break rx;
                }
                if st.abort {
                    return Err(Error::Usage("internal error: the merge stopped".into()));
                }
                st = cv.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        };
        let mut done = false;
        for m in rx {
            match m {
                Msg::Out(mut b) => {
                    outs.out.write_all(&b).at(&out_name)?;
                    b.clear();
                    let _ = spare.try_send(b);
                }
                Msg::Dups(b) => {
                    if let Some(d) = outs.dups.as_mut() {
                        d.write_all(&b).at(&dups_name)?;
                    }
                }
                Msg::Done(w, d) => {
                    written += w;
                    dups += d;
                    done = true;
                }
                Msg::Err(e) => return Err(e),
            }
        }
        if !done {
            return Err(Error::Usage(
                "internal error: a merge thread stopped early".into(),
            ));
        }
        lock().written = i + 1;
        cv.notify_all();
    }
    Ok((written, dups))
}

/// Merges the runs' items in `[lo, hi)` through the duplicate policy into blocks on `tx`.
#[allow(clippy::too_many_arguments)]
fn merge_range(
    runs: &[Run],
    lo: Option<&[u8]>,
    hi: Option<&[u8]>,
    p: &Params,
    tx: &SyncSender<Msg>,
    spare: &Mutex<Receiver<Vec<u8>>>,
    bufs: &mut Vec<Vec<u8>>,
    with_dups: bool,
    policy: OnDup,
    spec: &KeySpec,
    pos: &(dyn Fn(Loc) -> Pos + Sync),
) -> Result<(u64, u64)> {
    let mut srcs = Vec::with_capacity(runs.len());
    for r in runs {
        let buf = bufs.pop().unwrap_or_else(|| vec![0; p.reader_buf]);
        srcs.push(Bounded::new(r, lo, hi, buf)?);
    }
    let mut out = ChanWriter {
        tx,
        spare,
        buf: Vec::with_capacity(p.block + (4 << 10)),
        block: p.block,
        dups: false,
    };
    let mut dw = ChanWriter {
        tx,
        spare,
        buf: Vec::new(),
        block: p.block,
        dups: true,
    };
    // The names only show in write errors, which happen only when the writer gave up.
    let name = "<merge>";
    let counts = {
        let dw = with_dups.then_some((&mut dw, name.to_string()));
        let mut em = Emitter::new(&mut out, name.to_string(), dw, policy, spec);
        merge::merge(&mut srcs, |k, r, l| em.push(k, r, l, pos))?;
        em.finish()?
    };
    bufs.extend(srcs.into_iter().map(|s| s.r.into_buf()));
    out.flush().at(name)?;
    dw.flush().at(name)?;
    Ok(counts)
}
