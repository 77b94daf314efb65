//! `-k/--key`: the first and last key of every shard, and whether the shards are sorted and
//! non-overlapping, found while streaming in O(1) memory per shard.
//!
//! Each record's key is encoded once with the shared memcomparable encoder
//! ([`crate::keys`]), so the order checks are byte comparisons: a shard is sorted when no
//! record's encoded key is less than the previous record's in the same shard, and the shards
//! are non-overlapping when every non-empty shard's last key is strictly less than the next
//! non-empty shard's first key.

use crate::csv::records::Field;
use crate::keys::KeySpec;

/// One shard's key state.
#[derive(Debug, Default)]
struct ShardKeys {
    /// Encoded key and values of the first record; `None` while the shard is empty.
    first: Option<(Vec<u8>, Vec<Option<String>>)>,
    /// Encoded key of the last record so far.
    last_key: Vec<u8>,
    /// The last record so far (its values are extracted once, at the end).
    last_rec: Vec<u8>,
    /// No record so far had a smaller key than the one before it.
    sorted: bool,
}

/// Tracks the key ranges of all shards.
#[derive(Debug)]
pub struct KeyTracker {
    spec: KeySpec,
    fields: Vec<Field>,
    cur: Vec<u8>,
    shards: Vec<ShardKeys>,
}

/// One shard's range, as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// Key values of the first record (None for NULL); `None` for an empty shard.
    pub first: Option<Vec<Option<String>>>,
    /// Key values of the last record.
    pub last: Option<Vec<Option<String>>>,
}

/// What the tracker found.
#[derive(Debug, Clone)]
pub struct KeyRanges {
    /// The key they are ranges of.
    pub spec: KeySpec,
    /// Per shard, in shard order.
    pub shards: Vec<Range>,
    /// Every shard's records are in key order (equal keys allowed).
    pub sorted_within_shards: bool,
    /// Every non-empty shard's last key is less than the next non-empty shard's first key.
    pub non_overlapping: bool,
}

impl KeyTracker {
    /// A tracker for `spec`.
    pub fn new(spec: KeySpec) -> KeyTracker {
        KeyTracker {
            spec,
            fields: Vec::new(),
            cur: Vec::new(),
            shards: Vec::new(),
        }
    }

    /// The key spec.
    pub fn spec(&self) -> &KeySpec {
        &self.spec
    }

    /// Records that `rec` went to `shard`. The error is a message for
    /// [`crate::Error::input`] (a malformed record, a missing key column, a NULL or a value
    /// that does not parse as its type).
    pub fn record(&mut self, shard: usize, rec: &[u8]) -> Result<(), String> {
        self.record_with(rec, |_| shard).map(|_| ())
    }

    /// Like [`KeyTracker::record`], with the shard chosen from the encoded key by `pick`
    /// (`--by-range`); returns the shard.
    pub fn record_with(
        &mut self,
        rec: &[u8],
        pick: impl FnOnce(&[u8]) -> usize,
    ) -> Result<usize, String> {
        self.cur.clear();
        self.spec
            .encode_record(rec, &mut self.fields, &mut self.cur)?;
        let shard = pick(&self.cur);
        if self.shards.len() <= shard {
            self.shards.resize_with(shard + 1, ShardKeys::default);
        }
        let Some(s) = self.shards.get_mut(shard) else {
            return Ok(shard);
        };
        if s.first.is_none() {
            s.first = Some((self.cur.clone(), self.spec.values(rec)));
            s.sorted = true;
        } else if self.cur < s.last_key {
            s.sorted = false;
        }
        std::mem::swap(&mut s.last_key, &mut self.cur);
        s.last_rec.clear();
        s.last_rec.extend_from_slice(rec);
        Ok(shard)
    }

    /// The ranges of shards `0..n` (shards never given a record are empty).
    pub fn finish(&self, n: usize) -> KeyRanges {
        let mut shards = Vec::with_capacity(n);
        let mut sorted = true;
        let mut non_overlapping = true;
        let mut prev_last: Option<&[u8]> = None;
        for i in 0..n {
            match self.shards.get(i) {
                Some(ShardKeys {
                    first: Some((first_key, first)),
                    last_key,
                    last_rec,
                    sorted: s,
                }) => {
                    sorted &= *s;
                    if prev_last.is_some_and(|p| p >= first_key.as_slice()) {
                        non_overlapping = false;
                    }
                    prev_last = Some(last_key);
                    shards.push(Range {
                        first: Some(first.clone()),
                        last: Some(self.spec.values(last_rec)),
                    });
                }
                _ => shards.push(Range {
                    first: None,
                    last: None,
                }),
            }
        }
        KeyRanges {
            spec: self.spec.clone(),
            shards,
            sorted_within_shards: sorted,
            non_overlapping,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyArg;

    fn tracker(spec: &str) -> KeyTracker {
        let args: Vec<KeyArg> = spec.split(',').map(|s| KeyArg::parse(s).unwrap()).collect();
        KeyTracker::new(KeySpec::resolve("csvsplit", &args, &[], None, None, Vec::new()).unwrap())
    }

    fn v(s: &[&str]) -> Option<Vec<Option<String>>> {
        Some(s.iter().map(|x| Some(x.to_string())).collect())
    }

    #[test]
    fn ranges_and_flags() {
        let mut t = tracker("1:int");
        for (s, r) in [(0, "9\n"), (0, "10\n"), (2, "11\n"), (2, "\"12\"\n")] {
            t.record(s, r.as_bytes()).unwrap();
        }
        let r = t.finish(3);
        assert_eq!(r.shards[0].first, v(&["9"]));
        assert_eq!(r.shards[0].last, v(&["10"]));
        assert_eq!(r.shards[1].first, None);
        assert_eq!(r.shards[2].last, v(&["12"]));
        assert!(r.sorted_within_shards && r.non_overlapping);

        // Equal keys are sorted but overlap across shards.
        let mut t = tracker("1:int");
        for (s, r) in [(0, "1\n"), (0, "2\n"), (1, "2\n"), (1, "2\n")] {
            t.record(s, r.as_bytes()).unwrap();
        }
        let r = t.finish(2);
        assert!(r.sorted_within_shards && !r.non_overlapping);

        // Text order: "10" < "9".
        let mut t = tracker("1");
        for r in ["9\n", "10\n"] {
            t.record(0, r.as_bytes()).unwrap();
        }
        assert!(!t.finish(1).sorted_within_shards);
    }

    #[test]
    fn errors() {
        let mut t = tracker("2:int");
        assert!(t.record(0, b"a,x\n").unwrap_err().contains("'x'"));
        assert!(t.record(0, b"a,\n").unwrap_err().contains("NULL"));
    }
}
