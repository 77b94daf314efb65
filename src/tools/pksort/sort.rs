//! The sort phase: records read in chunks, keys encoded and chunks sorted in parallel, sorted
//! runs spilled past the memory budget (and merged in levels to bound the fan-in); with no
//! spilled run, the sorted records are gathered into blocks in parallel and written.

use super::*;

/// One record in the in-memory sort: the first 8 key bytes inline, so most comparisons
/// never leave the array, and where the rest of the key and the record are.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) prefix: u64,
    pub(super) batch: u32,
    pub(super) idx: u32,
}

/// Bytes per record for the final sort: the entries, the sorted halves' scratch space and
/// the merged result.
pub(super) const ENTRY_COST: usize = 3 * std::mem::size_of::<Entry>();

/// Chunks encoded and sorted together.
pub(super) const PENDING: usize = 4;

/// Sorts the records of `batches` by key, stably. Each batch is already sorted (see
/// [`Batch::sort`]), so this is a merge of presorted runs, which the standard library's sort
/// detects and merges without re-sorting them.
pub(super) fn sort_entries(batches: &mut [Batch]) -> Vec<Entry> {
    let n: usize = batches.iter().map(|b| b.chunk.len()).sum();
    // Each batch's entries filled in at its place, in parallel.
    let mut v = Vec::with_capacity(n);
    let mut parts = Vec::with_capacity(batches.len());
    let mut rest = &mut v.spare_capacity_mut()[..n];
    for b in batches.iter() {
        let (part, r) = rest.split_at_mut(b.chunk.len());
        parts.push(part);
        rest = r;
    }
    batches
        .par_iter_mut()
        .zip(parts)
        .enumerate()
        .for_each(|(bi, (b, part))| {
            if b.order.len() != b.chunk.len() {
                b.sort();
            }
            assert_eq!(b.order.len(), part.len());
            for (slot, &(prefix, idx)) in part.iter_mut().zip(&b.order) {
                slot.write(Entry {
                    prefix,
                    batch: bi as u32,
                    idx,
                });
            }
            b.order = Vec::new();
        });
    // SAFETY: every batch wrote its whole part (asserted above), and the parts are the
    // first `n` slots.
    unsafe { v.set_len(n) };
    let batches = &*batches;
    let key = |e: &Entry| batches[e.batch as usize].key(e.idx as usize);
    let cmp = |a: &Entry, b: &Entry| a.prefix.cmp(&b.prefix).then_with(|| key(a).cmp(key(b)));
    if batches.len() < 4 {
        v.sort_by(cmp);
        return v;
    }
    // Two halves sorted (their batches merged) in parallel, then merged.
    let mid: usize = batches[..batches.len() / 2]
        .iter()
        .map(|b| b.chunk.len())
        .sum();
    let (a, b) = v.split_at_mut(mid);
    rayon::join(|| a.sort_by(cmp), || b.sort_by(cmp));
    // The merge of the two, in two parts at once: the first `k` entries out are the first
    // `i` of `a` and the first `k - i` of `b` (a merge-path split), and each part is merged
    // on its own. It was a tenth of the time between the last read and the first write.
    let (a, b) = (&*a, &*b);
    let k = n / 2;
    let i = co_rank(a, b, k, |x, y| cmp(x, y).is_lt());
    let mut out = Vec::with_capacity(n);
    let (lo, hi) = out.spare_capacity_mut()[..n].split_at_mut(k);
    rayon::join(
        || merge_into(&a[..i], &b[..k - i], lo, cmp),
        || merge_into(&a[i..], &b[k - i..], hi, cmp),
    );
    // SAFETY: the two merges wrote every one of the first `n` slots (`merge_into` writes
    // exactly `a.len() + b.len()` entries, and the parts' lengths sum to `k` and `n - k`).
    unsafe { out.set_len(n) };
    out
}

/// How many of the first `k` entries of the stable merge of sorted `a` and `b` (ties taking
/// `a` first) come from `a`.
fn co_rank<T>(a: &[T], b: &[T], k: usize, lt: impl Fn(&T, &T) -> bool) -> usize {
    let (mut lo, mut hi) = (k.saturating_sub(b.len()), k.min(a.len()));
    while lo < hi {
        let i = lo + (hi - lo) / 2;
        // `a[i]` is among the first `k` when it does not come after `b[k - i - 1]`.
        if !lt(&b[k - i - 1], &a[i]) {
            lo = i + 1;
        } else {
            hi = i;
        }
    }
    lo
}

/// Merges sorted `a` and `b` into `out` (exactly their length), ties taking `a` first.
fn merge_into<T: Copy>(
    a: &[T],
    b: &[T],
    out: &mut [std::mem::MaybeUninit<T>],
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering,
) {
    // The caller's `set_len` relies on every slot being written: checked once a merge.
    assert_eq!(out.len(), a.len() + b.len());
    let (mut i, mut j, mut o) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        // Ties take the first: it holds the earlier input.
        if cmp(&b[j], &a[i]).is_lt() {
            out[o].write(b[j]);
            j += 1;
        } else {
            out[o].write(a[i]);
            i += 1;
        }
        o += 1;
    }
    for (slot, &x) in out[o..].iter_mut().zip(a[i..].iter().chain(&b[j..])) {
        slot.write(x);
    }
}

/// Under `--on-dup error`, finds the first pair of equal keys in sorted `v` and reports it
/// before anything is written.
pub(super) fn check_dups(
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
pub(super) struct Runs<'a> {
    pub(super) cfg: &'a Config,
    pub(super) stack: Vec<(u32, Run)>,
    pub(super) buf: usize,
    /// Runs spilled from memory so far (for the progress bar).
    pub(super) spilled: usize,
}

impl<'a> Runs<'a> {
    pub(super) fn new(cfg: &'a Config) -> Runs<'a> {
        let buf = (cfg.memory / 2 / (cfg.fan_in + 1)).clamp(16 << 10, 4 << 20);
        Runs {
            cfg,
            stack: Vec::new(),
            buf,
            spilled: 0,
        }
    }

    pub(super) fn push(&mut self, run: Run) -> Result<()> {
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
    pub(super) fn merge_last(&mut self, n: usize, lvl: u32) -> Result<()> {
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
    pub(super) fn finish(mut self) -> Result<Vec<Run>> {
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
pub(super) fn spill(
    cfg: &Config,
    spec: &KeySpec,
    batches: &mut [Batch],
    names: &[String],
) -> Result<Run> {
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

/// Records per gathered block, at most.
pub(super) const SEG_RECS: usize = 4096;
/// Bytes per gathered block, about (a block ends with the record that reaches this).
pub(super) const SEG_BYTES: usize = 1 << 20;

/// Cuts sorted `v` into blocks of about `seg_bytes` of records, each thread a part of `v`
/// (a block ends where a part does: the blocks only group records for [`gather`]).
pub(super) fn segments(
    batches: &[Batch],
    v: &[Entry],
    seg_bytes: usize,
) -> Vec<std::ops::Range<usize>> {
    let part = v
        .len()
        .div_ceil(rayon::current_num_threads().max(1))
        .max(SEG_RECS);
    let parts: Vec<Vec<std::ops::Range<usize>>> = v
        .par_chunks(part)
        .enumerate()
        .map(|(p, v)| {
            let base = p * part;
            let mut out = Vec::with_capacity(v.len() / SEG_RECS + 1);
            let (mut start, mut bytes) = (0, 0);
            for (i, e) in v.iter().enumerate() {
                bytes += batches[e.batch as usize].chunk.range(e.idx as usize).len();
                if bytes >= seg_bytes || i + 1 - start >= SEG_RECS {
                    out.push(base + start..base + i + 1);
                    start = i + 1;
                    bytes = 0;
                }
            }
            if start < v.len() {
                out.push(base + start..base + v.len());
            }
            out
        })
        .collect();
    parts.concat()
}

/// How many entries ahead [`gather`] asks for a record's bytes (and twice that for where it
/// starts). The records are scattered over the input in key order, so each copy began with
/// a wait for memory: the copy was a fifth of a sort of the quoted customer table (`perf`),
/// at a fraction of the speed of a sequential copy.
const AHEAD: usize = 16;

/// Asks the CPU to fetch a line into its caches (a hint: no fault, nothing else changes).
#[inline(always)]
pub(super) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault, whatever `p` is.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetches where `e`'s record starts (its entry in the chunk's ends).
#[inline(always)]
fn prefetch_end(batches: &[Batch], e: &Entry) {
    let ends = &batches[e.batch as usize].chunk.ends;
    if let Some(x) = ends.get((e.idx as usize).wrapping_sub(1)) {
        prefetch(std::ptr::from_ref(x).cast::<u8>());
    }
}

/// Prefetches the first two lines of `e`'s record (the hardware follows on from there).
#[inline(always)]
fn prefetch_record(batches: &[Batch], e: &Entry) {
    let c = &batches[e.batch as usize].chunk;
    let r = c.range(e.idx as usize);
    let rec = &c.data.as_ref()[r];
    prefetch(rec.as_ptr());
    if rec.len() > 64 {
        prefetch(rec[64..].as_ptr());
    }
}

/// Gathers the records of sorted `v` into contiguous blocks, a few blocks at a time in
/// parallel (the random reads from scattered records are the slow part of writing), and
/// hands the blocks in order to `sink`, which returns false to stop. `fill` appends one
/// entry's bytes to a block; blocks hold about `seg_bytes` of records.
pub(super) fn gather(
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
            let seg = &v[r.clone()];
            for (k, e) in seg.iter().enumerate() {
                if let Some(a) = seg.get(k + 2 * AHEAD) {
                    prefetch_end(batches, a);
                }
                if let Some(a) = seg.get(k + AHEAD) {
                    prefetch_record(batches, a);
                }
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
pub(super) fn write_gathered(
    out: &mut progress::Counter<Sink>,
    batches: &[Batch],
    v: &[Entry],
) -> Result<()> {
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
pub(super) fn sort(
    cfg: &Config,
    spec: &KeySpec,
    mut inputs: Inputs,
    header: Option<Vec<u8>>,
) -> Result<()> {
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
        .spawn(move || crate::csv::records::read_ahead(|r| inputs.next_chunk(r), &tx, &back_rx))
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

#[cfg(test)]
mod tests {
    use super::{co_rank, merge_into};
    use proptest::prelude::*;

    /// The merge of `a` and `b`, ties taking `a` first, by the book.
    fn stable_merge(a: &[(u8, u32)], b: &[(u8, u32)]) -> Vec<(u8, u32)> {
        let mut v: Vec<_> = a.iter().chain(b).copied().collect();
        v.sort_by_key(|x| x.0);
        v
    }

    fn merged(a: &[(u8, u32)], b: &[(u8, u32)]) -> Vec<(u8, u32)> {
        let mut out = Vec::with_capacity(a.len() + b.len());
        merge_into(
            a,
            b,
            &mut out.spare_capacity_mut()[..a.len() + b.len()],
            |x, y| x.0.cmp(&y.0),
        );
        // SAFETY: merge_into wrote every slot.
        unsafe { out.set_len(a.len() + b.len()) };
        out
    }

    proptest! {
        /// Split anywhere by `co_rank`, the two parts merged on their own and put one after
        /// the other are the stable merge: few distinct keys, so equal ones straddle the
        /// split.
        #[test]
        fn a_merge_split_by_co_rank_is_the_stable_merge(
            mut a in prop::collection::vec(0u8..6, 0..40),
            mut b in prop::collection::vec(0u8..6, 0..40),
            at in 0.0f64..=1.0,
        ) {
            a.sort_unstable();
            b.sort_unstable();
            // Tags say which side and where: `a`'s are below 1000.
            let a: Vec<(u8, u32)> = a.into_iter().zip(0..).collect();
            let b: Vec<(u8, u32)> = b.into_iter().zip(1000..).collect();
            let k = ((a.len() + b.len()) as f64 * at) as usize;
            let i = co_rank(&a, &b, k, |x, y| x.0 < y.0);
            let mut got = merged(&a[..i], &b[..k - i]);
            got.extend(merged(&a[i..], &b[k - i..]));
            prop_assert_eq!(got, stable_merge(&a, &b), "k {}, i {}", k, i);
        }
    }
}
