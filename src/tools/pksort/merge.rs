//! k-way merging of sorted sources (run files, or already sorted CSV inputs for `--merge`),
//! and the streaming reader that `--merge` and `--check` use on CSV inputs.
//!
//! Ties between sources go to the lower source index, and sources are always numbered in
//! input order, so equal keys keep their input order through every merge level.

use super::batch::{Batch, Inputs, Loc};
use super::run::RunReader;
use super::spec::KeySpec;
use crate::io::error::{Error, Result};
use std::cmp::Ordering;

/// A sorted stream of (key, record, position).
pub trait Source {
    /// The current item, `None` when exhausted.
    fn current(&self) -> Option<(&[u8], &[u8], Loc)>;
    /// Moves to the next item.
    fn advance(&mut self) -> Result<()>;
}

impl Source for RunReader {
    fn current(&self) -> Option<(&[u8], &[u8], Loc)> {
        RunReader::current(self)
    }
    fn advance(&mut self) -> Result<()> {
        RunReader::advance(self).map(|_| ())
    }
}

/// One CSV input read as a stream of keyed records.
pub struct CsvSource<'a> {
    inputs: Inputs,
    spec: &'a KeySpec,
    batch: Option<Batch>,
    lines: Vec<u64>,
    i: usize,
    verify: bool,
    prev: Vec<u8>,
    prev_loc: Loc,
}

impl<'a> CsvSource<'a> {
    /// Streams `inputs` (usually one file), positioned on the first record. With `verify`,
    /// a record whose key is less than the one before it is an error (`--merge` relies on
    /// sorted inputs, and merging unsorted ones would give wrong output silently).
    pub fn new(inputs: Inputs, spec: &'a KeySpec, verify: bool) -> Result<CsvSource<'a>> {
        let mut s = CsvSource {
            inputs,
            spec,
            batch: None,
            lines: Vec::new(),
            i: 0,
            verify,
            prev: Vec::new(),
            prev_loc: Loc::default(),
        };
        s.load()?;
        Ok(s)
    }

    fn load(&mut self) -> Result<()> {
        let old = self.batch.take().map(|b| b.chunk);
        self.batch = None;
        if let Some((input, chunk)) = self.inputs.next_chunk(old)? {
            let name = self.inputs.names[input as usize].clone();
            let b = Batch::new(chunk, input, self.spec, &name)?;
            self.lines = b.lines();
            self.batch = Some(b);
        }
        self.i = 0;
        Ok(())
    }

    /// This input's header record, when it has one.
    pub fn header(&self) -> Option<&[u8]> {
        self.inputs.header_rec.as_deref()
    }

    /// Input names, for messages.
    pub fn names(&self) -> &[String] {
        &self.inputs.names
    }
}

impl Source for CsvSource<'_> {
    fn current(&self) -> Option<(&[u8], &[u8], Loc)> {
        let b = self.batch.as_ref()?;
        Some((
            b.key(self.i),
            b.chunk.record(self.i),
            b.loc(self.i, self.lines[self.i]),
        ))
    }

    fn advance(&mut self) -> Result<()> {
        if let Some(b) = &self.batch {
            if self.verify {
                self.prev.clear();
                self.prev.extend_from_slice(b.key(self.i));
                self.prev_loc = b.loc(self.i, self.lines[self.i]);
            }
            self.i += 1;
            if self.i >= b.chunk.len() {
                self.load()?;
            }
        }
        if self.verify
            && let Some((k, _, loc)) = self.current()
            && k < self.prev.as_slice()
        {
            return Err(Error::input(
                loc.pos(&self.inputs.names),
                format!(
                    "input is not sorted: this key sorts before the one at line {}; --merge \
                     needs sorted inputs (sort them first, or drop -m)",
                    self.prev_loc.line
                ),
            ));
        }
        Ok(())
    }
}

/// Merges `sources` in key order, calling `sink` with each item. Ties go to the source with
/// the lower index.
pub fn merge<S: Source>(
    sources: &mut [S],
    mut sink: impl FnMut(&[u8], &[u8], Loc) -> Result<()>,
) -> Result<()> {
    // A binary min-heap of source indices, ordered by (current key, index).
    let less = |srcs: &[S], a: usize, b: usize| -> bool {
        match (srcs[a].current(), srcs[b].current()) {
            (Some((ka, _, _)), Some((kb, _, _))) => match ka.cmp(kb) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => a < b,
            },
            (Some(_), None) => true,
            _ => false,
        }
    };
    let mut heap: Vec<usize> = (0..sources.len())
        .filter(|&i| sources[i].current().is_some())
        .collect();
    let sift_down = |srcs: &[S], heap: &mut [usize], mut i: usize| {
        loop {
            let l = 2 * i + 1;
            if l >= heap.len() {
                break;
            }
            let r = l + 1;
            let m = if r < heap.len() && less(srcs, heap[r], heap[l]) {
                r
            } else {
                l
            };
            if less(srcs, heap[m], heap[i]) {
                heap.swap(m, i);
                i = m;
            } else {
                break;
            }
        }
    };
    for i in (0..heap.len() / 2).rev() {
        sift_down(sources, &mut heap, i);
    }
    while let Some(&top) = heap.first() {
        match sources[top].current() {
            Some((k, r, l)) => sink(k, r, l)?,
            None => break,
        }
        sources[top].advance()?;
        if sources[top].current().is_none() {
            let last = heap.len() - 1;
            heap.swap(0, last);
            heap.pop();
        }
        sift_down(sources, &mut heap, 0);
    }
    Ok(())
}
