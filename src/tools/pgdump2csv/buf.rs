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
        self.data.reserve_exact(want);
        self.data.resize(old + want, 0);
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
        fresh.clear();
        fresh.extend_from_slice(&self.data[self.pos + n..]);
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
