//! Cut points for `-b` over a mapped file without visiting every record.
//!
//! Where a record ends depends on the quote state there, which no local rule can decide (a
//! newline may sit inside a quoted field opened megabytes earlier), so every byte before a cut
//! is still read once. But the state is only the parity of the `"` bytes before: one forward
//! pass keeps it with the newline counts, 64 bytes at a time as masks (AVX2 and a carry-less
//! multiply where the CPU has them, [`wide`]; else searches while quotes are rare and SSE2
//! masks where they are not), so a record costs nothing of its own, quoted or not. Only near a
//! cut does a short backward walk find the last record end; records are counted as the
//! newlines less those inside quoted fields.

use super::pipeline::end_line_at;
use crate::csv::records::{DENSE_SPAN, byte_masks, dense_after, prefix_xor};

/// What a forward pass from a record start has seen so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Pass {
    /// Inside a quoted field where the pass stopped.
    pub in_quote: bool,
    /// Newlines so far inside the quoted field still open (they join `quoted_newlines`
    /// when it closes).
    pending: u64,
    /// Newlines inside quoted fields closed so far.
    pub quoted_newlines: u64,
    /// All newlines.
    pub newlines: u64,
    /// Lines that are exactly `\.` (the rule of the pipeline's `copy_end_lines`).
    pub end_lines: u64,
}

impl Pass {
    /// Continues the pass over `data[from..to]` (`from` is where it stopped, or a record
    /// start for a new pass).
    pub fn advance(&mut self, data: &[u8], from: usize, to: usize) {
        #[cfg(target_arch = "x86_64")]
        if wide::available() {
            // SAFETY: the CPU has the features `wide::advance` is compiled for (just checked).
            let at = unsafe { wide::advance(self, data, from, to) };
            return self.advance_portable(data, at, to);
        }
        self.advance_portable(data, from, to);
    }

    /// [`Pass::advance`] with SSE2 and memchr only: the path of CPUs without AVX2, the tail
    /// under 64 bytes of the wide path, and the reference the wide path is tested against.
    fn advance_portable(&mut self, data: &[u8], from: usize, to: usize) {
        // Both searches over one block while it is in the cache: the newline count over a
        // whole piece afterwards read it from memory again (7.5 % of a run's samples).
        let mut at = from;
        while at < to {
            let end = to.min(at + BLOCK);
            self.block(data, at, end);
            at = end;
        }
    }

    fn block(&mut self, data: &[u8], from: usize, to: usize) {
        let mut at = from;
        // Searches while quotes are rare; after a quote, 64-byte masks for a while (see
        // `records::DENSE_SPAN`): a quoted field per record made this pass a search and a
        // newline count per quote, 7x the clean pass, and 45x on jsonb documents.
        let mut dense_until = 0usize;
        let mut last_open = None;
        while at < to {
            if at < dense_until && at + 64 <= to {
                let [quotes, nls, slashes] = byte_masks(&data[at..], [b'"', b'\n', b'\\']);
                let inside = prefix_xor(quotes) ^ if self.in_quote { !0 } else { 0 };
                self.newlines += u64::from(nls.count_ones());
                let quoted = nls & inside;
                if quotes != 0 {
                    dense_until = at + 64 + DENSE_SPAN;
                    let end_inside = inside >> 63 != 0;
                    // Newlines after the last quote belong to a field still open when the
                    // block ends inside quotes (that quote opened it).
                    let open = if end_inside {
                        quoted & (!0u64 << (63 - quotes.leading_zeros()))
                    } else {
                        0
                    };
                    self.quoted_newlines += self.pending + u64::from((quoted & !open).count_ones());
                    self.pending = u64::from(open.count_ones());
                    self.in_quote = end_inside;
                } else {
                    self.pending += u64::from(quoted.count_ones());
                }
                let mut s = slashes;
                while s != 0 {
                    self.slash(data, at + s.trailing_zeros() as usize);
                    s &= s - 1;
                }
                at += 64;
                continue;
            }
            let part = data.get(at..to).unwrap_or_default();
            let (k, next) = match memchr::memchr2(b'"', b'\\', part) {
                Some(j) => (at + j, at + j + 1),
                None => (to, to),
            };
            let n = newlines(data.get(at..k).unwrap_or_default());
            self.newlines += n;
            if self.in_quote {
                self.pending += n;
            }
            if k < to {
                if data[k] == b'"' {
                    if self.in_quote {
                        self.quoted_newlines += self.pending;
                        self.pending = 0;
                    } else {
                        dense_until = dense_after(&mut last_open, k);
                    }
                    self.in_quote = !self.in_quote;
                } else {
                    self.slash(data, k);
                }
            }
            at = next;
        }
    }

    /// A backslash at `k`: a `\.` line if it starts one.
    #[inline]
    fn slash(&mut self, data: &[u8], k: usize) {
        if (k == 0 || data[k - 1] == b'\n') && end_line_at(data, k) {
            self.end_lines += 1;
        }
    }

    /// A new pass over `data[from..to]`, `from` being a record start.
    pub fn over(data: &[u8], from: usize, to: usize) -> Pass {
        let mut p = Pass::default();
        p.advance(data, from, to);
        p
    }
}

/// The pass with 32-byte compares (AVX2) and a carry-less multiply (PCLMULQDQ) for the
/// prefix XOR, as simdjson finds its strings: one path for every block, 64 bytes at a time.
/// On quote-dense data (a quoted name per record, jsonb documents, multi-line notes) the
/// portable path's 16-byte masks, software popcounts and search/mask switching cost 3.4-4.2x
/// the instructions per byte of clean data (callgrind, whole runs); here a block costs about
/// 31 instructions without a quote and 39 with one, and clean data costs less than by
/// searches. Hand-written: memchr (the SIMD byte search used elsewhere) finds bytes but gives
/// neither masks nor the quote parity, and no crate computes CSV quote state.
#[cfg(target_arch = "x86_64")]
mod wide {
    use super::{Pass, end_line_at};
    pub use crate::csv::records::wide::available;
    use crate::csv::records::wide::{eq, load, mask, prefix_xor};
    use std::arch::x86_64::{
        _mm256_cmpeq_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_testz_si256,
    };

    /// The `\.` lines among the backslashes at line starts `c` of the block at `at` (rare:
    /// out of the loop, whose registers it would take).
    #[cold]
    #[inline(never)]
    fn line_ends(data: &[u8], at: usize, mut c: u64) -> u64 {
        let mut n = 0;
        while c != 0 {
            n += u64::from(end_line_at(data, at + c.trailing_zeros() as usize));
            c &= c - 1;
        }
        n
    }

    /// Continues `p` over the whole 64-byte blocks of `data[from..to]`; returns where it
    /// stopped (less than 64 bytes before `to`), for the portable path to finish.
    ///
    /// # Safety
    /// The CPU has AVX2, PCLMULQDQ, POPCNT and LZCNT ([`available`]).
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,lzcnt")]
    pub unsafe fn advance(p: &mut Pass, data: &[u8], from: usize, to: usize) -> usize {
        let end = to.min(data.len());
        let mut at = from;
        if at >= end || end - at < 64 {
            return at;
        }
        let last = end - 64;
        let (vq, vn, vs) = (
            _mm256_set1_epi8(b'"' as i8),
            _mm256_set1_epi8(b'\n' as i8),
            _mm256_set1_epi8(b'\\' as i8),
        );
        // All ones while inside quotes.
        let mut inq = if p.in_quote { !0u64 } else { 0 };
        let (mut newlines, mut end_lines) = (p.newlines, p.end_lines);
        // Newlines inside quotes, in closed fields and the open one alike: which of them are
        // the open field's is settled at the end, from where the last block with a quote is
        // (its offset and the newlines before it), not per block.
        let mut inner = p.quoted_newlines + p.pending;
        let mut mark = (usize::MAX, 0u64);
        // Bit 0: the byte before the block ends a line (or the data starts there): a `\` at
        // bit k starts a line when bit k of `n << 1 | prev` is set.
        let mut prev = u64::from(at == 0 || data[at - 1] == b'\n');
        while at <= last {
            // SAFETY: `at + 64 <= end <= data.len()`.
            let (lo, hi) = unsafe { load(data.as_ptr().add(at)) };
            let (n, q) = (eq(lo, hi, vn), eq(lo, hi, vq));
            // Without quotes the state holds through the block.
            let mut inside = inq;
            if q != 0 {
                inside ^= prefix_xor(q);
                inq = ((inside as i64) >> 63) as u64;
                mark = (at, newlines);
            }
            inner += u64::from((n & inside).count_ones());
            newlines += u64::from(n.count_ones());
            let starts = n << 1 | prev;
            if starts != 0 {
                // Most lines hold no backslash at all: one test for the block.
                let (slo, shi) = (_mm256_cmpeq_epi8(lo, vs), _mm256_cmpeq_epi8(hi, vs));
                let any = _mm256_or_si256(slo, shi);
                if _mm256_testz_si256(any, any) == 0 {
                    let c = starts & mask(slo, shi);
                    if c != 0 {
                        end_lines += line_ends(data, at, c);
                    }
                }
            }
            prev = n >> 63;
            at += 64;
        }
        // The open field's newlines: all after the last quote (which opened it), or, without
        // a quote here, all since the pass came in (plus those it had then).
        let pending = match (inq != 0, mark) {
            (false, _) => 0,
            (true, (usize::MAX, _)) => p.pending + newlines - p.newlines,
            (true, (k, before)) => {
                // SAFETY: a block read above.
                let (lo, hi) = unsafe { load(data.as_ptr().add(k)) };
                let (n, q) = (eq(lo, hi, vn), eq(lo, hi, vq));
                newlines - before - u64::from((n & u64::MAX >> q.leading_zeros()).count_ones())
            }
        };
        p.in_quote = inq != 0;
        (p.newlines, p.quoted_newlines, p.pending, p.end_lines) =
            (newlines, inner - pending, pending, end_lines);
        at
    }
}

/// Bytes searched at a time by [`Pass::advance_portable`]: well inside a core's L2 cache.
const BLOCK: usize = 64 << 10;

/// Newlines in `b` (memchr counts with SIMD).
pub(super) fn newlines(b: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', b).count() as u64
}

/// The last record end in `(from, to]`, given the quote state at `to` (`from` is a record
/// start): walking back, each `"` flips the state, and a newline outside quotes ends a record.
pub(super) fn last_end(data: &[u8], from: usize, to: usize, mut in_quote: bool) -> Option<usize> {
    let mut cur = to;
    while cur > from {
        let k = from + memchr::memrchr2(b'"', b'\n', data.get(from..cur)?)?;
        if data[k] == b'"' {
            in_quote = !in_quote;
        } else if !in_quote {
            return Some(k + 1);
        }
        cur = k;
    }
    None
}

/// Data records in `data[from..to]`, both record boundaries, over which `pass` ran: the
/// newlines outside quotes, and a last record without a newline at the end of the input.
pub(super) fn records(data: &[u8], from: usize, to: usize, pass: &Pass) -> u64 {
    let part = data.get(from..to).unwrap_or_default();
    let last = u64::from(to == data.len() && !part.is_empty() && !part.ends_with(b"\n"));
    pass.newlines - pass.quoted_newlines + last
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Record ends by the record scanner, the reference.
    fn ends(data: &[u8]) -> Vec<usize> {
        let (mut pos, mut q, mut e) = (0, false, Vec::new());
        crate::csv::records::scan_ends(data, &mut pos, &mut q, usize::MAX, &mut e);
        e
    }

    #[test]
    fn last_end_agrees_with_the_scanner_everywhere() {
        let data: &[u8] = b"a,\"x\ny\"\nb,\"\"\"\n\"\"\"\r\n\\.\nc,\"\\.\n\"\n\"q\"\"\n\",d\nlast";
        let all = ends(data);
        for to in 0..=data.len() {
            let p = Pass::over(data, 0, to);
            let want = all.iter().copied().filter(|&e| e <= to).max();
            assert_eq!(last_end(data, 0, to, p.in_quote), want, "to {to}");
            // From a later record start too.
            for &from in &all {
                if from <= to {
                    let p = Pass::over(data, from, to);
                    let want = all.iter().copied().filter(|&e| e > from && e <= to).max();
                    assert_eq!(last_end(data, from, to, p.in_quote), want, "{from}..{to}");
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The pass by searches and by 64-byte masks against counts made byte by byte, on
        /// data whose quotes, newlines, backslashes and 0xff bytes fall at every place in and
        /// across the blocks, split into passes at any point (inside quotes too).
        #[test]
        fn pass_agrees_with_a_byte_count(
            data in proptest::collection::vec(proptest::sample::select(
                vec![b'a', b'a', b'a', b',', b'"', b'\n', b'\r', b'\\', b'.', 0xff]), 0..600),
            cut in 0usize..600,
        ) {
            let cut = cut.min(data.len());
            let (mut q, mut open, mut want) = (false, 0u64, Pass::default());
            for (k, &b) in data.iter().enumerate() {
                match b {
                    b'"' => {
                        if q {
                            want.quoted_newlines += open;
                            open = 0;
                        }
                        q = !q;
                    }
                    b'\n' => {
                        want.newlines += 1;
                        open += u64::from(q);
                    }
                    b'\\' if (k == 0 || data[k - 1] == b'\n') && end_line_at(&data, k) => {
                        want.end_lines += 1;
                    }
                    _ => {}
                }
            }
            want.in_quote = q;
            want.pending = open;
            let mut p = Pass::over(&data, 0, cut);
            p.advance(&data, cut, data.len());
            proptest::prop_assert_eq!(p, want);
        }
    }

    /// Pieces of CSV the pass cares about, for [`wide_agrees_with_portable`]: quotes alone
    /// and doubled, newlines bare and after CR, `\.` lines and their near misses, a 63-byte
    /// run that moves what follows across a block boundary, a quoted field spanning lines.
    const PIECES: [&[u8]; 14] = [
        b"\"",
        b"\"\"",
        b"\n",
        b"\r\n",
        b"\\.\n",
        b"\\.\r\n",
        b"\\",
        b".",
        b"a",
        b",",
        b"\xff",
        b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        b"\"x\ny\"\n",
        b"\"\n\\.\n",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The wide path (AVX2, where the CPU has it; else this compares the portable path
        /// with itself) against the portable one, field by field after every piece of a pass
        /// cut at any points, from any start and start state: quotes and backslashes at every
        /// offset of a block, fields open across many blocks, `\.` lines at block starts.
        #[test]
        fn wide_agrees_with_portable(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..120),
            pad in 0usize..64,
            start: proptest::sample::Index,
            in_quote: bool,
            cuts in proptest::collection::vec(proptest::arbitrary::any::<proptest::sample::Index>(), 0..5),
        ) {
            // `pad` moves every piece against the 64-byte blocks.
            let mut data = vec![b'a'; pad];
            for p in &pieces {
                data.extend_from_slice(p);
            }
            let start = start.index(data.len() + 1);
            let mut cuts: Vec<usize> =
                cuts.iter().map(|c| start + c.index(data.len() - start + 1)).collect();
            cuts.push(data.len());
            cuts.sort_unstable();
            let first = Pass { in_quote, ..Pass::default() };
            let (mut wide, mut portable, mut from) = (first, first, start);
            for &to in &cuts {
                wide.advance(&data, from, to);
                portable.advance_portable(&data, from, to);
                proptest::prop_assert_eq!(wide, portable, "{}..{} of {:?}", from, to, data);
                from = to;
            }
        }
    }

    #[test]
    fn counts_match_the_scanner_and_the_pipeline() {
        let data: &[u8] = b"a,\"x\ny\"\n\\.\nb,\"\\.\r\n\"\n\\.\r\nc\n\"\n\n\",\\.\nlast";
        let all = ends(data);
        let mut bounds = vec![0];
        bounds.extend(all.iter().copied());
        bounds.push(data.len());
        for (i, &from) in bounds.iter().enumerate() {
            for &to in &bounds[i..] {
                let p = Pass::over(data, from, to);
                assert!(!p.in_quote);
                let want = all.iter().filter(|&&e| e > from && e <= to).count() as u64
                    + u64::from(to == data.len() && from < to);
                assert_eq!(records(data, from, to, &p), want, "{from}..{to}");
                let raw = &data[from..to];
                let lines = memchr::memchr_iter(b'\\', raw)
                    .filter(|&k| (k == 0 || raw[k - 1] == b'\n') && end_line_at(raw, k))
                    .count() as u64;
                assert_eq!(p.end_lines, lines, "{from}..{to}");
            }
        }
        // Split passes add up: a pass continued equals one pass.
        let mut p = Pass::over(data, 0, 7);
        p.advance(data, 7, data.len());
        assert_eq!(p, Pass::over(data, 0, data.len()));
    }
}
