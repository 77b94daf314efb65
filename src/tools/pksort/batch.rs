//! Reading the inputs as chunks of whole records with their keys: [`Inputs`] walks the input
//! files in order and sets their header records aside, [`Batch::new`] encodes the key of
//! every record of a chunk once, in parallel.

use super::spec::KeySpec;
use crate::csv::records::{Chunk, ChunkReader, MapChunks, MapView};
use crate::io::error::{Error, Pos, Result};
use crate::io::input;
use rayon::prelude::*;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

type Reader = ChunkReader<Box<dyn Read + Send>>;

/// The bytes of a chunk: read into a buffer of ours (pipes, compressed input), or a regular
/// file's page-cache pages mapped in place. Mapped, the input is neither copied nor zeroed
/// first: on the 2M-row bench file (`perf`), the kernel clearing fresh buffer pages was the
/// largest single cost of an in-memory sort, and mapping halved its system time.
#[derive(Debug)]
pub enum Data {
    /// Read into a buffer.
    Read(Vec<u8>),
    /// Mapped from the file.
    Mapped(MapView),
}

impl Default for Data {
    fn default() -> Data {
        Data::Read(Vec::new())
    }
}

impl AsRef<[u8]> for Data {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        match self {
            Data::Read(v) => v,
            Data::Mapped(m) => m.as_ref(),
        }
    }
}

impl Data {
    /// Bytes it holds, for the memory budget (a mapping counts as much as a buffer would:
    /// its pages stay resident while the chunk lives).
    fn mem(&self) -> usize {
        match self {
            Data::Read(v) => v.capacity(),
            Data::Mapped(m) => m.as_ref().len(),
        }
    }
}

/// The records of one chunk of input.
pub type Records = Chunk<Data>;

/// Where an input's chunks come from.
enum Source {
    Read(Reader),
    Mapped(MapChunks),
}

impl Source {
    fn set_target(&mut self, t: usize) {
        match self {
            Source::Read(r) => r.set_target(t),
            Source::Mapped(m) => m.set_target(t),
        }
    }

    /// The next chunk, reusing `recycled`'s allocations when reading.
    fn next(&mut self, recycled: Option<Records>) -> Result<Option<Records>> {
        match self {
            Source::Read(r) => {
                let old = match recycled {
                    Some(Chunk {
                        data: Data::Read(v),
                        ends,
                        ..
                    }) => Chunk {
                        data: v,
                        ends,
                        ..Chunk::default()
                    },
                    _ => Chunk::default(),
                };
                Ok(r.next_chunk_into(old)?.map(|c| c.map_data(Data::Read)))
            }
            Source::Mapped(m) => Ok(m.next_chunk()?.map(|c| c.map_data(Data::Mapped))),
        }
    }
}

/// The input files, read one after the other as chunks.
pub struct Inputs {
    paths: Arc<[Option<PathBuf>]>,
    /// Display names, by input index (shared: `--merge` has one `Inputs` per input).
    pub names: Arc<[String]>,
    next: usize,
    end: usize,
    cur: Option<(u32, Source)>,
    header: bool,
    /// The first input's header record (terminator included), once read.
    pub header_rec: Option<Vec<u8>>,
    pending: Option<(u32, Records)>,
    target: usize,
    /// Regular files mapped ahead by a helper thread ([`MapChunks::open`]).
    ahead: bool,
}

impl Inputs {
    /// The inputs (`None` = stdin), read in chunks of about `target` bytes; with `header`
    /// the first record of each input is a header.
    pub fn new(paths: Vec<Option<PathBuf>>, header: bool, target: usize) -> Inputs {
        let names: Arc<[String]> = paths
            .iter()
            .map(|p| match p {
                Some(p) if !crate::io::stream::is_stdin(p) => p.display().to_string(),
                _ => "<stdin>".to_string(),
            })
            .collect();
        Inputs {
            end: paths.len(),
            paths: paths.into(),
            names,
            next: 0,
            cur: None,
            header,
            header_rec: None,
            pending: None,
            target,
            ahead: true,
        }
    }

    /// One `Inputs` per input, each reading only its own (input indexes stay those of the
    /// whole list), with no helper thread each.
    pub fn each(paths: Vec<Option<PathBuf>>, header: bool, target: usize) -> Vec<Inputs> {
        let all = Inputs::new(paths, header, target);
        (0..all.paths.len())
            .map(|i| Inputs {
                paths: all.paths.clone(),
                names: all.names.clone(),
                next: i,
                end: i + 1,
                cur: None,
                header,
                header_rec: None,
                pending: None,
                target,
                ahead: false,
            })
            .collect()
    }

    /// Reads ahead to the first header (when there is one) so names can be resolved.
    pub fn peek_header(&mut self) -> Result<Option<&[u8]>> {
        if self.header && self.header_rec.is_none() && self.pending.is_none() {
            self.pending = self.next_chunk(None)?;
        }
        Ok(self.header_rec.as_deref())
    }

    /// The next chunk and the index of its input; `None` after the last input.
    /// `recycled` donates an old chunk's allocations.
    pub fn next_chunk(&mut self, recycled: Option<Records>) -> Result<Option<(u32, Records)>> {
        if let Some(p) = self.pending.take() {
            return Ok(Some(p));
        }
        let mut recycled = recycled;
        loop {
            if self.cur.is_none() {
                if self.next >= self.end {
                    return Ok(None);
                }
                let i = self.next;
                self.next += 1;
                let inp = input::open(self.paths[i].as_deref())?;
                let mapped = match &inp.path {
                    Some(p) => MapChunks::open(p, &self.names[i], self.target, self.ahead)?,
                    _ => None,
                };
                let mut r = match mapped {
                    Some(m) => Source::Mapped(m),
                    None => Source::Read(ChunkReader::new(inp.reader, &self.names[i], self.target)),
                };
                if self.header {
                    self.take_header(i, &mut r)?;
                }
                // A small first chunk: many small inputs must not each cost a full chunk
                // (the reader zero-fills the whole target before reading).
                r.set_target(self.target.min(FIRST_CHUNK));
                self.cur = Some((i as u32, r));
                if let Some(p) = self.pending.take() {
                    return Ok(Some(p));
                }
            }
            let Some((i, r)) = self.cur.as_mut() else {
                continue;
            };
            let c = r.next(recycled.take())?;
            r.set_target(self.target);
            match c {
                Some(mut c) => {
                    crate::io::progress::add_records(c.len() as u64);
                    if let Data::Read(v) = &mut c.data
                        && v.len() * 2 < v.capacity()
                        && v.capacity() <= 2 * FIRST_CHUNK
                    {
                        v.shrink_to_fit();
                    }
                    return Ok(Some((*i, c)));
                }
                None => self.cur = None,
            }
        }
    }

    /// Reads the header record of input `i` (a small first chunk), keeps the first input's
    /// and checks later ones against it.
    fn take_header(&mut self, i: usize, r: &mut Source) -> Result<()> {
        r.set_target(FIRST_CHUNK);
        let first = r.next(None)?;
        r.set_target(self.target);
        let Some(mut c) = first else {
            return Ok(());
        };
        let head = c.record(0).to_vec();
        match &self.header_rec {
            None => self.header_rec = Some(head.clone()),
            Some(h) => {
                if crate::csv::records::strip_terminator(h)
                    != crate::csv::records::strip_terminator(&head)
                {
                    return Err(Error::input(
                        c.pos(0, &self.names[i]),
                        "header differs from the first input's header",
                    ));
                }
            }
        }
        // The rest of this small chunk is ordinary records: hand them out first.
        drop_first(&mut c);
        if !c.is_empty() {
            self.pending = Some((i as u32, c));
        }
        Ok(())
    }
}

/// Bytes of the first chunk of each input.
const FIRST_CHUNK: usize = 64 << 10;

/// Removes record 0 from a chunk, keeping positions right (the bytes stay; the chunk's
/// records begin after it).
fn drop_first(c: &mut Records) {
    c.begin = c.ends.remove(0);
    c.first_record += 1;
}

/// A chunk with the encoded key of each record.
pub struct Batch {
    /// The records.
    pub chunk: Records,
    /// Index of the input they came from.
    pub input: u32,
    /// All keys, back to back.
    pub keys: Vec<u8>,
    /// `key_ends[i]` is the end of record i's key in `keys`.
    pub key_ends: Vec<u32>,
    /// (key prefix, record index) in key order, filled by [`Batch::sort`].
    pub order: Vec<(u64, u32)>,
}

/// The first 8 key bytes as a number, so most comparisons need no memcmp.
#[inline]
pub fn prefix(k: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = k.len().min(8);
    b[..n].copy_from_slice(&k[..n]);
    u64::from_be_bytes(b)
}

/// Sorts `v` by its first element, stably: a least-significant-digit radix sort, one byte a
/// pass, that skips the bytes every element shares (an integer key's high bytes). Written
/// here rather than taken from a crate: the pairs and the skip are all it needs, a dozen
/// lines.
pub(super) fn radix_sort(v: &mut Vec<(u64, u32)>) {
    let n = v.len();
    if n <= 64 {
        v.sort_by_key(|e| e.0);
        return;
    }
    let mut counts = [[0usize; 256]; 8];
    for &(p, _) in v.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[(p >> (8 * b)) as u8 as usize] += 1;
        }
    }
    let mut tmp = vec![(0u64, 0u32); n];
    for (b, c) in counts.iter().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (a, &k) in at.iter_mut().zip(c) {
            *a = sum;
            sum += k;
        }
        for &e in v.iter() {
            let d = (e.0 >> (8 * b)) as u8 as usize;
            tmp[at[d]] = e;
            at[d] += 1;
        }
        std::mem::swap(v, &mut tmp);
    }
}

/// Records per parallel task when encoding keys.
const PART: usize = 2048;

/// How many records ahead the key pass asks for a record's first line.
const KEY_AHEAD: usize = 8;

impl Batch {
    /// Encodes every record's key (in parallel). A record whose key cannot be encoded is an
    /// error naming it; the first such record in input order is reported.
    pub fn new(chunk: Records, input: u32, spec: &KeySpec, name: &str) -> Result<Batch> {
        let n = chunk.len();
        type Part = std::result::Result<(Vec<u8>, Vec<u32>), (usize, String)>;
        let parts: Vec<Part> = (0..n)
            .step_by(PART)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|lo| {
                let hi = (lo + PART).min(n);
                let mut keys = Vec::with_capacity((hi - lo) * 16);
                let mut ends = Vec::with_capacity(hi - lo);
                let mut fields = Vec::new();
                for i in lo..hi {
                    // The records' first bytes are out of the caches by now (the reader
                    // scanned them a chunk ago, on the other core), and where a record
                    // starts is not a stride the hardware follows: ask for the line of a
                    // record a few ahead, so that its key's wait overlaps this one's work.
                    if i + KEY_AHEAD < hi {
                        super::sort::prefetch(chunk.record(i + KEY_AHEAD).as_ptr());
                    }
                    spec.encode_record(chunk.record(i), &mut fields, &mut keys)
                        .map_err(|m| (i, m))?;
                    ends.push(keys.len() as u32);
                }
                Ok((keys, ends))
            })
            .collect();
        let mut total = 0usize;
        for p in &parts {
            match p {
                Ok((k, _)) => total += k.len(),
                Err((i, m)) => return Err(Error::input(chunk.pos(*i, name), m.clone())),
            }
        }
        if u32::try_from(total).is_err() {
            return Err(Error::input(
                chunk.pos(0, name),
                "keys of one chunk exceed 4 GiB",
            ));
        }
        let mut keys = Vec::with_capacity(total);
        let mut key_ends = Vec::with_capacity(n);
        for (k, e) in parts.into_iter().flatten() {
            let base = keys.len() as u32;
            keys.extend_from_slice(&k);
            key_ends.extend(e.iter().map(|x| x + base));
        }
        Ok(Batch {
            chunk,
            input,
            keys,
            key_ends,
            order: Vec::new(),
        })
    }

    /// Sorts this batch's records by key (stably), while the reader thread reads on: the
    /// final sort then only merges presorted runs. By the keys' first eight bytes first
    /// (a radix sort), which for the usual keys (integers below 2^56, up to three small
    /// ones) are the whole key, then each run of equal first bytes by the whole keys. A
    /// comparison sort here was 29% of pksort's instructions on a table keyed by one
    /// integer (callgrind), most of them comparisons of those eight bytes.
    pub fn sort(&mut self) {
        let mut order: Vec<(u64, u32)> = (0..self.chunk.len())
            .map(|i| (prefix(self.key(i)), i as u32))
            .collect();
        radix_sort(&mut order);
        let mut i = 0;
        while i < order.len() {
            let p = order[i].0;
            let run = order[i..].iter().take_while(|e| e.0 == p).count();
            if run > 1 {
                // Longer keys, or shorter ones padded alike (`prefix`), or equal keys: the
                // whole keys decide, stably.
                order[i..i + run]
                    .sort_by(|a, b| self.key(a.1 as usize).cmp(self.key(b.1 as usize)));
            }
            i += run;
        }
        self.order = order;
    }

    /// The key of record `i`.
    #[inline]
    pub fn key(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.key_ends[i - 1] as usize
        };
        &self.keys[start..self.key_ends[i] as usize]
    }

    /// Bytes held (capacities), for the memory budget.
    pub fn mem(&self) -> usize {
        self.chunk.data.mem()
            + self.chunk.ends.capacity() * 8
            + self.keys.capacity()
            + self.key_ends.capacity() * 4
            + self.chunk.len() * 16
    }

    /// The line number of every record. Newlines inside a record can only be quoted ones, so
    /// records without a `"` are counted without a scan.
    pub fn lines(&self) -> Vec<u64> {
        let before = &self.chunk.data.as_ref()[..self.chunk.begin];
        let mut line = self.chunk.first_line + memchr::memchr_iter(b'\n', before).count() as u64;
        let mut out = Vec::with_capacity(self.chunk.len());
        for rec in self.chunk.records() {
            out.push(line);
            line += if memchr::memchr(b'"', rec).is_none() {
                u64::from(rec.last() == Some(&b'\n'))
            } else {
                memchr::memchr_iter(b'\n', rec).count() as u64
            };
        }
        out
    }

    /// Where record `i` is, with its line number given.
    pub fn loc(&self, i: usize, line: u64) -> Loc {
        Loc {
            input: self.input,
            record: self.chunk.first_record + i as u64,
            line,
            byte: self.chunk.first_byte + self.chunk.range(i).start as u64,
        }
    }
}

/// A record's position, compact enough to store with every spilled record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Loc {
    /// Input index.
    pub input: u32,
    /// 1-based record number in its input.
    pub record: u64,
    /// 1-based line.
    pub line: u64,
    /// Byte offset.
    pub byte: u64,
}

impl Loc {
    /// As a [`Pos`] for messages.
    pub fn pos(&self, names: &[String]) -> Pos {
        Pos {
            file: names
                .get(self.input as usize)
                .cloned()
                .unwrap_or_else(|| "?".into()),
            line: self.line,
            byte: self.byte,
            record: Some(self.record),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::radix_sort;
    use proptest::prelude::*;

    /// Vectors whose values share bytes, differ in all, or both: few distinct values (equal
    /// ones keep their order), small integers (high bytes all zero), any bits, or a high
    /// byte alone; one kind per vector, or all mixed.
    fn values() -> impl Strategy<Value = Vec<u64>> {
        let n = 0..600usize;
        prop_oneof![
            prop::collection::vec(0u64..4, n.clone()),
            prop::collection::vec(0u64..70_000, n.clone()),
            prop::collection::vec(any::<u64>(), n.clone()),
            prop::collection::vec((0u64..3).prop_map(|x| x << 56 | 7), n.clone()),
            prop::collection::vec(prop_oneof![0u64..4, any::<u64>()], n),
        ]
    }

    proptest! {
        /// The radix sort is the standard library's stable sort by the first element, on
        /// either side of its small-input cut.
        #[test]
        fn radix_sort_is_a_stable_sort(vals in values()) {
            let mut v: Vec<(u64, u32)> = vals.into_iter().zip(0..).collect();
            let mut want = v.clone();
            want.sort_by_key(|e| e.0);
            radix_sort(&mut v);
            prop_assert_eq!(v, want);
        }
    }
}
