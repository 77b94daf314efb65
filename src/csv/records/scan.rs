//! Record ends by quote parity: searches, 64-byte quote and newline masks (SSE2 everywhere,
//! [`wide`] with AVX2 and PCLMULQDQ), and the byte-at-a-time scan the property tests hold them
//! to. Apart because the SIMD, its `cfg` and `target_feature` gates and its `unsafe` are one
//! concern, shared by the chunk readers and csvsplit's cut pass.

/// How a scan takes a 64-byte block: its quote and newline masks, and the prefix XOR of a
/// quote mask ([`Portable`] on any CPU, [`wide::Wide`] where AVX2 and PCLMULQDQ are).
trait Blocks: Copy {
    /// The quote and newline masks of `b[..64]`.
    fn masks(self, b: &[u8]) -> [u64; 2];
    /// [`prefix_xor`].
    fn prefix_xor(self, x: u64) -> u64;
}

/// SSE2 compares (x86_64's baseline) and a shift-and-XOR prefix.
#[derive(Clone, Copy)]
struct Portable;

impl Blocks for Portable {
    #[inline(always)]
    fn masks(self, b: &[u8]) -> [u64; 2] {
        byte_masks(b, [b'"', b'\n'])
    }

    #[inline(always)]
    fn prefix_xor(self, x: u64) -> u64 {
        prefix_xor(x)
    }
}

/// 64-byte blocks with 32-byte compares (AVX2) and the prefix XOR in one carry-less multiply
/// (PCLMULQDQ), as simdjson finds its strings: the record scanner's quote-dense path and
/// csvsplit's cut pass. Hand-written: memchr (the SIMD search used elsewhere) finds bytes but
/// gives neither masks nor the quote parity, and no crate computes CSV quote state.
#[cfg(target_arch = "x86_64")]
pub mod wide {
    use std::arch::x86_64::{
        __m256i, _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };

    /// Whether the CPU has what this module's functions are compiled for (std caches the
    /// answer; a call is a load and a test), and BMI1/BMI2, which pgdump2csv's note path
    /// is compiled for (every AVX2 CPU from Intel and AMD has them; one without takes the
    /// portable paths).
    pub fn available() -> bool {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("pclmulqdq")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
    }

    /// The 64-bit mask of two 32-byte compare results.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn mask(lo: __m256i, hi: __m256i) -> u64 {
        u64::from(_mm256_movemask_epi8(lo) as u32)
            | u64::from(_mm256_movemask_epi8(hi) as u32) << 32
    }

    /// The 64 bytes at `ptr`, in two halves.
    ///
    /// # Safety
    /// `ptr` points to 64 readable bytes, and the CPU has AVX2 ([`available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn load(ptr: *const u8) -> (__m256i, __m256i) {
        let ptr = ptr.cast::<__m256i>();
        // SAFETY: the caller's.
        unsafe { (_mm256_loadu_si256(ptr), _mm256_loadu_si256(ptr.add(1))) }
    }

    /// Bit `k`: byte `k` of the 64 in `lo` and `hi` is the byte in every lane of `v`.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn eq(lo: __m256i, hi: __m256i, v: __m256i) -> u64 {
        mask(_mm256_cmpeq_epi8(lo, v), _mm256_cmpeq_epi8(hi, v))
    }

    /// [`super::prefix_xor`] in one carry-less multiply by all ones.
    ///
    /// # Safety
    /// The CPU has PCLMULQDQ ([`available`]).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub fn prefix_xor(q: u64) -> u64 {
        let p = _mm_clmulepi64_si128(_mm_cvtsi64_si128(q as i64), _mm_set1_epi8(-1), 0);
        _mm_cvtsi128_si64(p) as u64
    }

    /// Row `m`: the indices of the set bits of `m`, in order, then zeros. A `pshufb` by row
    /// `m` packs the bytes of eight that `m` keeps to the left.
    pub(crate) static PACK: [[u8; 8]; 256] = {
        let mut t = [[0u8; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let (mut k, mut j) = (0, 0);
            while k < 8 {
                if m >> k & 1 == 1 {
                    t[m][j] = k as u8;
                    j += 1;
                }
                k += 1;
            }
            m += 1;
        }
        t
    };

    /// Appends `inner`, the inside of a quoted CSV field whose quotes come in doubled pairs
    /// (as the field split checked), with every second quote of a pair left out. Sixteen
    /// bytes at a time: the quotes to drop are the even ones by a prefix XOR of the quote
    /// mask, and each eight bytes are packed by one shuffle. The search-and-copy per quote
    /// this replaces cost two calls per doubled quote, and a jsonb document has one every
    /// ten bytes.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`available`]).
    #[target_feature(enable = "avx2,popcnt")]
    pub fn undouble(inner: &[u8], out: &mut Vec<u8>) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadl_epi64, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_set1_epi8, _mm_shuffle_epi8, _mm_srli_si128, _mm_storel_epi64, _mm_storeu_si128,
        };
        // Every store writes up to sixteen bytes at or before the next byte out, and at
        // most `inner.len()` bytes are kept.
        out.reserve(inner.len() + 16);
        let base = out.len();
        let mut j = base;
        // The number of quotes before the block is odd: its first one closes a pair.
        let mut odd = 0u32;
        let mut i = 0;
        let dst = out.as_mut_ptr();
        // SAFETY: loads read `inner[i..i + 16]`, inside `inner`; stores write
        // `dst[j..j + 16]` or `dst[j..j + 8]` with `j - base <= i`, so inside the reserved
        // `base + inner.len() + 16` bytes; the length is set to the bytes written.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            while i + 16 <= inner.len() {
                let x = _mm_loadu_si128(inner.as_ptr().add(i).cast::<__m128i>());
                let q = _mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)) as u32;
                if q == 0 {
                    _mm_storeu_si128(dst.add(j).cast::<__m128i>(), x);
                    j += 16;
                    i += 16;
                    continue;
                }
                // Bit k of `px`: the quotes up to k, with those before the block, are odd.
                let px = super::prefix_xor(u64::from(q)) as u32 ^ odd.wrapping_neg();
                let keep = !(q & !px) & 0xffff;
                odd ^= q.count_ones() & 1;
                for (half, m) in [(x, keep & 0xff), (_mm_srli_si128(x, 8), keep >> 8)] {
                    let shuf = _mm_loadl_epi64(PACK[m as usize].as_ptr().cast::<__m128i>());
                    _mm_storel_epi64(dst.add(j).cast::<__m128i>(), _mm_shuffle_epi8(half, shuf));
                    j += m.count_ones() as usize;
                }
                i += 16;
            }
            for &b in &inner[i..] {
                if b == b'"' {
                    odd ^= 1;
                    if odd == 0 {
                        continue;
                    }
                }
                *dst.add(j) = b;
                j += 1;
            }
            out.set_len(j);
        }
    }

    /// Proof that the CPU has the features ([`Wide::new`] checks): a scan generic over
    /// [`super::Blocks`] takes its blocks with the functions above.
    #[derive(Clone, Copy)]
    pub(super) struct Wide(());

    impl Wide {
        pub(super) fn new() -> Option<Wide> {
            available().then_some(Wide(()))
        }
    }

    impl super::Blocks for Wide {
        #[inline(always)]
        fn masks(self, b: &[u8]) -> [u64; 2] {
            let b = &b[..64];
            // SAFETY: a `Wide` exists only on a CPU with AVX2 (`new`), and `b` has 64 bytes.
            unsafe {
                let (lo, hi) = load(b.as_ptr());
                [
                    eq(lo, hi, _mm256_set1_epi8(b'"' as i8)),
                    eq(lo, hi, _mm256_set1_epi8(b'\n' as i8)),
                ]
            }
        }

        #[inline(always)]
        fn prefix_xor(self, x: u64) -> u64 {
            // SAFETY: a `Wide` exists only on a CPU with PCLMULQDQ (`new`).
            unsafe { prefix_xor(x) }
        }
    }

    /// The scan with these blocks, compiled for the features so that they inline.
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,lzcnt")]
    pub(super) fn scan<const COUNT: bool>(
        w: Wide,
        data: &[u8],
        pos: &mut usize,
        in_quote: &mut bool,
        until: usize,
        ends: &mut Vec<usize>,
        qn: &mut super::QuotedNewlines,
    ) {
        super::scan::<COUNT, Wide>(w, data, pos, in_quote, until, ends, qn);
    }
}

/// Bit `k` of mask `j`: byte `k` of `b[..64]` is `needles[j]`. Sixteen bytes per compare
/// with SSE2 (x86_64's baseline), a byte loop elsewhere.
#[inline(always)]
pub fn byte_masks<const N: usize>(b: &[u8], needles: [u8; N]) -> [u64; N] {
    let b = &b[..64];
    let mut m = [0u64; N];
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; the loads read `b[16 * q..16 * q + 16]`,
        // inside the 64 bytes checked above.
        unsafe {
            for q in 0..4 {
                let v = _mm_loadu_si128(b.as_ptr().add(16 * q).cast::<__m128i>());
                for (j, &n) in needles.iter().enumerate() {
                    let hit = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(n as i8)));
                    m[j] |= u64::from(hit as u16) << (16 * q);
                }
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (k, &x) in b.iter().enumerate() {
        for (j, &n) in needles.iter().enumerate() {
            m[j] |= u64::from(x == n) << k;
        }
    }
    m
}

/// Bit `k` set when an odd number of bits `0..=k` of `x` are: over a quote mask, the bytes
/// inside quotes (the opening quote in, the closing one out), as simdjson finds them.
#[inline(always)]
pub fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Bytes a scan keeps to 64-byte masks after a quote before it takes up searching again: a
/// search per quote and newline costs a call each, a block of masks the same whatever its
/// quotes, so quoted data (a quoted name per record, a jsonb document) goes by masks and
/// clean data by searches, which stride further. Searches turn to masks at a quoted field
/// that opens within this distance of the last one ([`dense_after`]): an odd quoted value
/// (one record in a hundred with `""`) kept the masks for 4 KiB each time, and cost clean
/// data 15% of a structure check.
pub const DENSE_SPAN: usize = 4096;

/// Where a scan by searches that finds a quoted field opening at `at` (the last one opened at
/// `*last`) takes masks until: `0` (keep searching) unless the two are close.
#[inline]
pub fn dense_after(last: &mut Option<usize>, at: usize) -> usize {
    let near = last.is_some_and(|l| at - l < DENSE_SPAN);
    *last = Some(at);
    if near { at + DENSE_SPAN } else { 0 }
}

/// Scans `data` from `*pos` (outside quotes unless `*in_quote`) and pushes the offset just
/// past each record's `\n`, stopping at the first record end at or past `until` (or at the
/// end of data; `usize::MAX` scans it all). The one record-boundary scanner: the chunk reader
/// and csvsplit's mapped-file paths use it, so they cut records alike. A quote toggles the
/// state; a doubled quote toggles it twice, so only parity matters.
pub fn scan_ends(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
) {
    scan_any::<false>(
        data,
        pos,
        in_quote,
        until,
        ends,
        &mut QuotedNewlines::default(),
    );
}

/// Newlines inside quoted fields met by [`scan_ends_counting`]: with the ends found, the
/// lines the records take, without a second pass over them to count their newlines (which
/// was a third of pksort's reading thread on a jsonb table).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct QuotedNewlines {
    /// Those before the last record end pushed.
    pub before_last_end: u64,
    /// Those up to where the scan stopped (the scan's state, for the next call).
    seen: u64,
}

/// [`scan_ends`] that also counts the newlines inside quoted fields into `qn`: the records
/// up to the last end pushed take `ends pushed + qn.before_last_end` lines.
pub fn scan_ends_counting(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
    qn: &mut QuotedNewlines,
) {
    scan_any::<true>(data, pos, in_quote, until, ends, qn);
}

/// The scan with the widest blocks the CPU has.
#[inline]
fn scan_any<const COUNT: bool>(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
    qn: &mut QuotedNewlines,
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(w) = wide::Wide::new() {
        // SAFETY: `w` proves the CPU has the features `wide::scan` is compiled for.
        return unsafe { wide::scan::<COUNT>(w, data, pos, in_quote, until, ends, qn) };
    }
    scan::<COUNT, Portable>(Portable, data, pos, in_quote, until, ends, qn);
}

/// Low `k` bits set (`k` < 64).
#[inline(always)]
fn below(k: u32) -> u64 {
    (1u64 << k) - 1
}

/// [`scan_ends`], counting quoted newlines when `COUNT` (one body, a compiled copy per count
/// and kind of block, so the scans that need no count pay nothing for it).
#[inline(always)]
fn scan<const COUNT: bool, B: Blocks>(
    blocks: B,
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
    qn: &mut QuotedNewlines,
) {
    let mut i = *pos;
    let mut q = *in_quote;
    // Masks up to here (see DENSE_SPAN), then searches again.
    let mut dense_until = 0usize;
    let mut last_open = None;
    while i < data.len() {
        if i < dense_until && i + 64 <= data.len() {
            let [quotes, newlines] = blocks.masks(&data[i..]);
            // Bit k: inside quotes after byte k (a newline is never a quote, so inside at
            // it exactly when inside after it).
            let inside = blocks.prefix_xor(quotes) ^ if q { !0 } else { 0 };
            if quotes != 0 {
                dense_until = i + 64 + DENSE_SPAN;
            }
            let all = newlines & !inside;
            let quoted = newlines & inside;
            let mut e = all;
            while e != 0 {
                let k = e.trailing_zeros();
                let end = i + k as usize + 1;
                ends.push(end);
                if end >= until {
                    if COUNT {
                        qn.seen += u64::from((quoted & below(k)).count_ones());
                        qn.before_last_end = qn.seen;
                    }
                    *pos = end;
                    *in_quote = false;
                    return;
                }
                e &= e - 1;
            }
            if COUNT && quoted != 0 {
                if all != 0 {
                    let k = 63 - all.leading_zeros();
                    qn.before_last_end = qn.seen + u64::from((quoted & below(k)).count_ones());
                }
                qn.seen += u64::from(quoted.count_ones());
            } else if COUNT && all != 0 {
                qn.before_last_end = qn.seen;
            }
            q = inside >> 63 != 0;
            i += 64;
            continue;
        }
        if q {
            match memchr::memchr(b'"', &data[i..]) {
                Some(j) => {
                    if COUNT {
                        qn.seen += memchr::memchr_iter(b'\n', &data[i..i + j]).count() as u64;
                    }
                    i += j + 1;
                    q = false;
                }
                None => {
                    if COUNT {
                        qn.seen += memchr::memchr_iter(b'\n', &data[i..]).count() as u64;
                    }
                    i = data.len()
                }
            }
        } else {
            match memchr::memchr2(b'"', b'\n', &data[i..]) {
                Some(j) => {
                    let at = i + j;
                    i = at + 1;
                    if data[at] == b'"' {
                        q = true;
                        dense_until = dense_after(&mut last_open, at);
                    } else {
                        ends.push(i);
                        if COUNT {
                            qn.before_last_end = qn.seen;
                        }
                        if i >= until {
                            break;
                        }
                    }
                }
                None => i = data.len(),
            }
        }
    }
    *pos = i;
    *in_quote = q;
}

/// The byte-at-a-time scanner [`scan_ends`] is tested against.
#[cfg(test)]
fn scan_ends_strict(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
) {
    while *pos < data.len() {
        let b = data[*pos];
        *pos += 1;
        if b == b'"' {
            *in_quote = !*in_quote;
        } else if b == b'\n' && !*in_quote {
            ends.push(*pos);
            if *pos >= until {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The scan by searches and by 64-byte masks against the byte-at-a-time one, on data
        /// whose quotes, newlines, CRs and 0xff bytes fall at every place in and across the
        /// blocks, stopped at any `until` and resumed (inside quotes too); the counting scan
        /// finds the same ends and as many lines as there are newlines before the last.
        #[test]
        fn scan_ends_agrees_with_the_strict_scan(
            data in proptest::collection::vec(proptest::sample::select(
                vec![b'a', b'a', b'a', b',', b'"', b'\n', b'\r', 0xff]), 0..400),
            steps in proptest::collection::vec(0usize..300, 1..6),
        ) {
            let (mut pa, mut qa, mut ea) = (0, false, Vec::new());
            let (mut pb, mut qb, mut eb) = (0, false, Vec::new());
            let (mut pc, mut qc, mut ec) = (0, false, Vec::new());
            let (mut pd, mut qd, mut ed) = (0, false, Vec::new());
            let (mut qn, mut qnd) = (QuotedNewlines::default(), QuotedNewlines::default());
            let mut k = 0;
            while pa < data.len() || pb < data.len() {
                let until = pa + steps[k % steps.len()];
                k += 1;
                scan_ends(&data, &mut pa, &mut qa, until, &mut ea);
                scan_ends_strict(&data, &mut pb, &mut qb, until, &mut eb);
                scan_ends_counting(&data, &mut pc, &mut qc, until, &mut ec, &mut qn);
                // The portable blocks, whichever the CPU would take.
                scan::<true, Portable>(Portable, &data, &mut pd, &mut qd, until, &mut ed, &mut qnd);
                proptest::prop_assert_eq!((pa, qa, &ea), (pb, qb, &eb));
                proptest::prop_assert_eq!((pc, qc, &ec), (pb, qb, &eb));
                proptest::prop_assert_eq!((pd, qd, &ed, qnd), (pb, qb, &eb, qn));
                // The lines up to the last end: every newline there, quoted or not.
                let last = eb.last().copied().unwrap_or(0);
                let lines = data[..last].iter().filter(|&&b| b == b'\n').count() as u64;
                proptest::prop_assert_eq!(ec.len() as u64 + qn.before_last_end, lines);
            }
        }
    }

    #[test]
    fn scan_ends_stops_at_until_and_resumes() {
        let data = b"a,b\n\"x\ny\",2\r\n\"\"\"q\",\n,\nlast";
        for step in [1, 3, 7, 100] {
            let (mut pos, mut q, mut ends) = (0, false, Vec::new());
            let mut until = step;
            while pos < data.len() {
                scan_ends(data, &mut pos, &mut q, until, &mut ends);
                until = pos + step;
            }
            assert_eq!(ends, [4, 13, 20, 22], "step {step}");
            assert!(!q);
        }
    }
}
