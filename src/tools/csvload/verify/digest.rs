//! Records hashed and summed: [`Hasher`] (one record's 128-bit hash and key bucket, in a
//! pass's [`Mode`]), [`Digest`] (a table's multiset digest, per bucket) and the scan that
//! feeds them from either side. Apart as the part both sides share, value by value.

use super::BUCKETS;
use super::catalog::Shape;
use crate::csv::records::{
    ChunkReader, Field, split_fields_fast, split_fields_upto, strip_terminator,
};
use crate::io::error::{Error, Result};
use crate::pg::types::canon;
use std::io::Read;
use twox_hash::XxHash3_128;

/// A multiset digest: record count and the wrapping sum of the records' hashes, in all and
/// per key bucket.
pub struct Digest {
    /// Records.
    pub count: u64,
    /// Wrapping sum of their 128-bit hashes.
    pub sum: u128,
    /// The same per bucket.
    pub buckets: Vec<(u64, u128)>,
}

impl Default for Digest {
    fn default() -> Digest {
        Digest {
            count: 0,
            sum: 0,
            buckets: vec![(0, 0); BUCKETS],
        }
    }
}

impl Digest {
    pub(super) fn add(&mut self, bucket: usize, h: u128) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(h);
        let b = &mut self.buckets[bucket];
        b.0 += 1;
        b.1 = b.1.wrapping_add(h);
    }

    /// The buckets whose count or sum differ.
    pub fn differing(&self, other: &Digest) -> Vec<usize> {
        (0..BUCKETS)
            .filter(|&i| self.buckets[i] != other.buckets[i])
            .collect()
    }
}

/// One record's hash and key, computed with buffers reused across records.
pub struct Hasher {
    fields: Vec<Field>,
    buf: Vec<u8>,
    key: Vec<u8>,
    /// A field's value with its doubled quotes undoubled ([`Field::value_in`]).
    scratch: Vec<u8>,
}

/// How a pass hashes a record's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The first pass: each value's text as it is, but for the columns whose text depends
    /// on the session that printed it (a `timestamptz`'s zone offset: not [`Shape::plain`]),
    /// which are in canonical form. Equal texts are equal values, so buckets that agree
    /// here agree in canonical form too; only buckets that differ need [`Mode::Canonical`].
    /// Most values need no parsing at all (issue 35, item 8).
    Text,
    /// [`Mode::Text`] when every column is [`Shape::plain`] and both sides write NULL
    /// alike: the record's bytes as they are, its fields not even split past the key.
    Whole,
    /// Every value in its type's canonical form.
    Canonical,
}

/// A hashed record.
pub struct Hashed {
    /// The record's 128-bit hash.
    pub hash: u128,
    /// Its key bucket.
    pub bucket: usize,
}

impl Default for Hasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher {
    /// Fresh buffers.
    pub fn new() -> Hasher {
        Hasher {
            fields: Vec::new(),
            buf: Vec::new(),
            key: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Hashes the raw CSV record `rec` of a table shaped `shape`, whose NULL is an unquoted
    /// field equal to `null` (COPY's CSV rule: a quoted field is never NULL), in `mode`.
    /// `None` when `want` is given and the record's key bucket is not in it (the record is
    /// not hashed at all). The canonical key bytes are left in [`Hasher::key`].
    pub fn record(
        &mut self,
        shape: &Shape,
        rec: &[u8],
        null: &[u8],
        mode: Mode,
        want: Option<&[bool]>,
    ) -> std::result::Result<Option<Hashed>, crate::csv::records::Malformed> {
        let body = strip_terminator(rec);
        self.key.clear();
        if mode == Mode::Whole && !shape.key.is_empty() {
            // The key's fields only: the record's bytes are hashed as they are.
            let upto = shape.key.iter().max().map_or(0, |&k| k + 1);
            split_fields_upto(rec, upto, &mut self.fields)?;
            let bucket = self.key_bucket(shape, body, null);
            if want.is_some_and(|w| !w[bucket]) {
                return Ok(None);
            }
            let hash = XxHash3_128::oneshot(body);
            return Ok(Some(Hashed { hash, bucket }));
        }
        split_fields_fast(rec, body, &mut self.fields)?;
        let keyed = !shape.key.is_empty();
        let mut bucket = 0;
        if keyed {
            bucket = self.key_bucket(shape, body, null);
            if want.is_some_and(|w| !w[bucket]) {
                return Ok(None);
            }
        }
        self.buf.clear();
        // A record with too few or too many fields still hashes (and then differs).
        self.buf
            .extend_from_slice(&(self.fields.len() as u32).to_le_bytes());
        for (i, f) in self.fields.iter().enumerate() {
            if f.is_null(body, null) {
                self.buf.push(0);
                continue;
            }
            self.buf.push(1);
            let v = f.value_in(body, &mut self.scratch);
            canon::framed(&mut self.buf, |out| match shape.types.get(i) {
                // The first pass takes a column's text as it is where both sides print
                // equal values alike (equal texts are equal values for every form).
                Some(_) if mode != Mode::Canonical && shape.plain[i] => out.extend_from_slice(v),
                Some(t) => canon::canonical_form(t, v, out),
                None => out.extend_from_slice(v),
            });
        }
        let hash = XxHash3_128::oneshot(&self.buf);
        if !keyed {
            bucket = (hash >> 64) as usize % BUCKETS;
            if want.is_some_and(|w| !w[bucket]) {
                return Ok(None);
            }
        }
        Ok(Some(Hashed { hash, bucket }))
    }

    /// The key bucket of the record whose fields were just split (the key's canonical
    /// bytes, left in `self.key`).
    fn key_bucket(&mut self, shape: &Shape, body: &[u8], null: &[u8]) -> usize {
        for &k in &shape.key {
            match self.fields.get(k) {
                Some(f) if !f.is_null(body, null) => {
                    let v = f.value_in(body, &mut self.scratch);
                    self.key.push(1);
                    canon::framed(&mut self.key, |out| {
                        canon::canonical_form(&shape.types[k], v, out)
                    });
                }
                _ => self.key.push(0),
            }
        }
        (twox_hash::XxHash64::oneshot(0, &self.key) as usize) % BUCKETS
    }

    /// The canonical key bytes of the last record hashed.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// `(a, b)=(1, x)`: the key columns' values of `rec` (the last record hashed) as written.
    pub(super) fn key_text(&self, shape: &Shape, rec: &[u8]) -> String {
        let body = strip_terminator(rec);
        let names: Vec<&str> = shape
            .key_shown
            .iter()
            .map(|&k| shape.names[k].as_str())
            .collect();
        let vals: Vec<String> = shape
            .key_shown
            .iter()
            .map(|&k| match self.fields.get(k) {
                Some(f) => String::from_utf8_lossy(&f.value(body)).into_owned(),
                None => "(missing)".into(),
            })
            .collect();
        format!("({})=({})", names.join(", "), vals.join(", "))
    }
}

/// How a pass reads the records: the hash's mode, and the key buckets it looks at (all
/// when `None`).
#[derive(Clone, Copy)]
pub(super) struct How<'a> {
    pub(super) mode: Mode,
    pub(super) want: Option<&'a [bool]>,
}

/// Reads records from `r` (named `name` in messages), skipping a header, and hands each one
/// with its hash to `each` (those of the buckets `how` looks at). Returns the records read.
pub(super) fn scan<R: Read>(
    r: R,
    name: &str,
    header: bool,
    shape: &Shape,
    null: &[u8],
    how: How,
    each: &mut dyn FnMut(&Hasher, &Hashed, &[u8]),
) -> Result<u64> {
    let mut cr = ChunkReader::new(r, name, 1 << 20);
    let mut h = Hasher::new();
    let mut buf = Vec::new();
    let mut skip = header;
    let mut n = 0;
    while let Some(c) = cr.next_chunk(buf)? {
        for i in 0..c.len() {
            if skip {
                skip = false;
                continue;
            }
            let rec = c.record(i);
            let x = h
                .record(shape, rec, null, how.mode, how.want)
                .map_err(|m| Error::input(c.pos(i, name), m.to_string()))?;
            if let Some(x) = x {
                each(&h, &x, rec);
            }
            n += 1;
        }
        buf = c.data;
    }
    Ok(n)
}
