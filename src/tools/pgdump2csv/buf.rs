//! The growable read buffer the dump is read through, which knows the line and byte of any offset
//! for error messages.

use super::READ_SIZE;
use crate::io::error::{Error, IoContext, Pos, Result};
use std::io::Read;

/// The longest line or statement held in memory at once: 1 GiB, the most PostgreSQL puts in
/// one COPY row or one statement (its allocation limit), so no real dump has a longer one.
/// Past it the input is refused with its position instead of growing the buffer until the
/// process is killed (a small compressed file can inflate to a line of gigabytes).
pub(super) const LINE_LIMIT: usize = 1 << 30;

/// The limit in force: [`LINE_LIMIT`], or a smaller one from the hidden environment
/// variable `DUMPSHARD_LINE_LIMIT` (bytes), so that tests need not build a 1 GiB line.
pub(super) fn line_limit() -> usize {
    std::env::var("DUMPSHARD_LINE_LIMIT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(LINE_LIMIT, |v| v.clamp(1, LINE_LIMIT))
}

pub(super) struct Buf {
    pub(super) r: Box<dyn Read + Send>,
    pub(super) data: Vec<u8>,
    pub(super) pos: usize,
    /// Stream offset of `data[0]`.
    pub(super) base: u64,
    /// Line number at `pos`.
    pub(super) line: u64,
    pub(super) eof: bool,
    pub(super) name: String,
    /// A read error held back until the bytes read before it are used, so the tables they
    /// finish are still written (an archive's next entry can fail while this one is buffered).
    pub(super) err: Option<std::io::Error>,
    /// The longest line or statement (unconsumed bytes) held at once.
    limit: usize,
    /// Bytes of `data`'s allocation from its start that hold values written earlier (by a
    /// read or by zeroing): at least `data.len()`. A fill reads over them without zeroing
    /// them again, which was 3% of a plain dump's CPU (a memset of 4 MiB per read). Only
    /// this type's methods may change `data`'s allocation, which keep it true.
    init: usize,
}

impl Buf {
    pub(super) fn new(r: Box<dyn Read + Send>, name: String) -> Buf {
        Buf {
            r,
            data: Vec::with_capacity(READ_SIZE * 2),
            pos: 0,
            base: 0,
            line: 1,
            eof: false,
            name,
            err: None,
            limit: line_limit(),
            init: 0,
        }
    }

    /// Reads more input, keeping `data[pos..]`. Returns false at end of input.
    pub(super) fn fill(&mut self) -> Result<bool> {
        if let Some(e) = self.err.take() {
            return Err(e).at(&self.name);
        }
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.data.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        let old = self.data.len();
        // Every caller consumes whole lines (or statements) before asking for more, so what
        // is left is one line still without its end.
        if old > self.limit {
            return Err(Error::input(
                self.pos_at(0),
                format!(
                    "a line (or statement) longer than {} bytes starts here: no pg_dump output has one that long, so the input is damaged or not a dump; refusing it rather than holding it in memory",
                    self.limit
                ),
            ));
        }
        // Grown by doubling, but never past the limit (and one byte to tell it was passed).
        let want = READ_SIZE.max(old).min(self.limit + 1 - old);
        let cap = self.data.capacity();
        self.data.reserve_exact(want);
        if self.data.capacity() != cap {
            // A new allocation: only what was moved into it is known.
            self.init = old;
        }
        let end = old + want;
        // SAFETY: the capacity covers `end` bytes (reserved above), and the first `init` were
        // initialised in this allocation before (truncating or draining a Vec<u8> leaves the
        // bytes past its length as they were); `init >= old`, the length now.
        unsafe { self.data.set_len(self.init.min(end)) };
        // Zeroes only what was never written.
        self.data.resize(end, 0);
        self.init = self.init.max(end);
        let mut filled = old;
        while filled < old + want {
            match self.r.read(&mut self.data[filled..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    filled += n;
                    if filled - old >= READ_SIZE / 2 {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.data.truncate(filled);
                    if filled > old {
                        self.err = Some(e);
                        return Ok(true);
                    }
                    return Err(e).at(&self.name);
                }
            }
        }
        self.data.truncate(filled);
        Ok(filled > old)
    }

    pub(super) fn avail(&self) -> &[u8] {
        &self.data[self.pos..]
    }

    /// Position of `data[pos + rel]`, counting newlines from `pos`.
    pub(super) fn pos_at(&self, rel: usize) -> Pos {
        let lines = memchr::memchr_iter(b'\n', &self.data[self.pos..self.pos + rel]).count();
        Pos {
            file: self.name.clone(),
            line: self.line + lines as u64,
            byte: self.base + (self.pos + rel) as u64,
            record: None,
        }
    }

    /// Hands `data[pos..pos + n]` over without copying it: returns the buffer that holds it
    /// and its start there, and goes on in `fresh` with what follows it. Lines are not
    /// counted (the caller knows them).
    pub(super) fn hand_off(&mut self, n: usize, mut fresh: Vec<u8>) -> (Vec<u8>, usize) {
        // A buffer handed back after use was filled up to its length.
        let (init, cap) = (fresh.len(), fresh.capacity());
        fresh.clear();
        fresh.extend_from_slice(&self.data[self.pos + n..]);
        self.init = if fresh.capacity() == cap {
            init.max(fresh.len())
        } else {
            fresh.len()
        };
        let start = self.pos;
        self.base += (self.pos + n) as u64;
        self.pos = 0;
        (std::mem::replace(&mut self.data, fresh), start)
    }

    /// Moves `pos` forward by `n` bytes, counting lines.
    pub(super) fn advance(&mut self, n: usize) {
        let lines = memchr::memchr_iter(b'\n', &self.data[self.pos..self.pos + n]).count();
        self.line += lines as u64;
        self.pos += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives its bytes (from offset `.1`) in reads of uneven sizes, as a pipe may.
    struct Dribble(Vec<u8>, usize, usize);

    impl Read for Dribble {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.2 += 1;
            let n = (self.2 % 7 * 100_003 + 1)
                .min(out.len())
                .min(self.0.len() - self.1);
            out[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
            self.1 += n;
            Ok(n)
        }
    }

    /// Buffers handed back dirty (and of every size) are filled again with the stream's bytes
    /// only: what is read over without zeroing never shows through.
    #[test]
    fn reused_buffers_hold_only_the_stream() {
        let input: Vec<u8> = (0..3 * READ_SIZE + 12345)
            .map(|i| (i % 251) as u8 | 1)
            .collect();
        let mut b = Buf::new(Box::new(Dribble(input.clone(), 0, 0)), "t".into());
        let mut got = Vec::new();
        let mut spare: Vec<Vec<u8>> = vec![vec![0xaa; 5], vec![0xaa; 2 * READ_SIZE + 9]];
        while b.fill().unwrap() {
            let n = b.avail().len() * 2 / 3;
            got.extend_from_slice(&b.avail()[..n]);
            let fresh = spare.pop().unwrap_or_default();
            let (data, start) = b.hand_off(n, fresh);
            assert_eq!(&data[start..start + n], &got[got.len() - n..]);
            let mut dirty = data;
            // A byte the input never has (it has only odd ones).
            dirty.iter_mut().for_each(|x| *x = 0xaa);
            spare.insert(0, dirty);
        }
        got.extend_from_slice(b.avail());
        assert_eq!(got, input);
    }
}
