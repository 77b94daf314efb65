//! The duplicate-key set (csvcheck, csvload --check-records): 128-bit key hashes with the record each was first seen in, in open
//! addressing with bounded memory per key.

/// Memory per key in the duplicate set: 24-byte slots at most 80% full, and the old table
/// alive while it grows.
pub const BYTES_PER_KEY: u64 = 64;

/// A 128-bit hash of an encoded key (two SipHash runs with different seeds), for the set
/// when the key does not fit its 16 bytes as it is: two different keys share it with a
/// probability of about 2^-128 per pair.
pub fn hash128(k: &[u8]) -> u128 {
    use std::hash::{Hash, Hasher};
    let mut a = std::collections::hash_map::DefaultHasher::new();
    k.hash(&mut a);
    let mut b = std::collections::hash_map::DefaultHasher::new();
    0x9E37_79B9_7F4A_7C15u64.hash(&mut b);
    k.hash(&mut b);
    ((a.finish() as u128) << 64) | b.finish() as u128
}

/// The duplicate-key set: open addressing with linear probing over 24-byte slots
/// (key, key, first record). Capacity is any size (multiply-shift picks the home slot), so
/// a table sized from the file size wastes no power-of-two slack; fewer pages touched and
/// consecutive probes in one cache line keep the sequential merge short.
#[derive(Default)]
pub struct KeySet {
    /// `[key low, key high, record]`; record 0 marks an empty slot (records count from 1).
    slots: Vec<[u64; 3]>,
    len: usize,
}

impl KeySet {
    /// The keys in the set.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No key in the set.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Makes room for `n` keys without growing.
    pub fn reserve(&mut self, n: usize) {
        let want = n + n / 4 + 16;
        if want > self.slots.len() {
            self.rebuild(want);
        }
    }

    /// A table of `cap` slots holding the keys so far.
    fn rebuild(&mut self, cap: usize) {
        let mut slots = vec![[0u64; 3]; cap];
        // The zeroed table comes from calloc as untouched pages. Its first access is often a
        // read (a probe), which maps the shared zero page; the insert's write then faults
        // again and, the process having threads, flushes every CPU's TLB (5% of a 2M-key
        // check's time in `perf`, under `do_wp_page`). One write per page now faults each
        // page in writable once. The hash spreads keys evenly, so a table touches all its
        // pages anyway once it holds a key per page (170 slots); only a table sized far
        // above its keys (a skewed first chunk) gets touched earlier than it would be.
        for i in (0..cap).step_by(4096 / std::mem::size_of::<[u64; 3]>()) {
            // SAFETY: `i < cap`; volatile so the store of an unchanged zero is not removed.
            unsafe { std::ptr::write_volatile(&mut slots[i][2], 0) };
        }
        let old = std::mem::replace(&mut self.slots, slots);
        self.len = 0;
        for s in old {
            if s[2] != 0 {
                self.insert((s[1] as u128) << 64 | s[0] as u128, s[2]);
            }
        }
    }

    /// The slot where a search for `key` starts.
    #[inline]
    fn home(&self, key: u128) -> usize {
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        // Exact keys are not random: fold a 128-bit product to spread them.
        let m = (lo ^ 0x9E37_79B9_7F4A_7C15) as u128 * (hi ^ 0xC2B2_AE3D_27D4_EB4F) as u128;
        let h = (m as u64) ^ ((m >> 64) as u64);
        ((h as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Asks the CPU to fetch the cache line where `key`'s search starts. The set is far
    /// larger than the caches (tens of MB for millions of keys), so nearly every insert
    /// misses; the merge prefetches the slots of keys some inserts ahead so the misses
    /// overlap instead of stalling one after another. A hint only: it changes no result.
    #[inline]
    pub fn prefetch(&self, key: u128) {
        #[cfg(target_arch = "x86_64")]
        if !self.slots.is_empty() {
            let p = self.slots.as_ptr().wrapping_add(self.home(key));
            // SAFETY: a prefetch never faults and reads nothing the program sees, whatever
            // the address (and `p` is inside `slots`).
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    p.cast::<i8>(),
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Inserts `key` first seen in record `rec`, or returns the record that had it first.
    #[inline]
    pub fn insert(&mut self, key: u128, rec: u64) -> Option<u64> {
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            self.rebuild((self.slots.len() * 2).max(1024));
        }
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        let n = self.slots.len();
        let mut i = self.home(key);
        loop {
            let s = &mut self.slots[i];
            if s[2] == 0 {
                *s = [lo, hi, rec];
                self.len += 1;
                return None;
            }
            if s[0] == lo && s[1] == hi {
                return Some(s[2]);
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }
}

#[cfg(test)]
mod keyset_tests {
    use super::KeySet;

    #[test]
    fn finds_every_duplicate_across_growth() {
        let mut k = KeySet::default();
        for i in 0..100_000u128 {
            assert_eq!(k.insert(i * 7919, i as u64 + 1), None);
        }
        for i in 0..100_000u128 {
            assert_eq!(k.insert(i * 7919, 999_999), Some(i as u64 + 1));
        }
        assert_eq!(k.len(), 100_000);
        k.reserve(300_000);
        assert_eq!(k.insert(7919 * 5, 1), Some(6));
        assert_eq!(k.insert(u128::MAX, 1), None);
        assert_eq!(k.insert(0, 2), Some(1), "key 0 was inserted first as i = 0");
    }
}
