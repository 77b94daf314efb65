//! Sorted runs on disk: the spill format, its writer and a zero-copy reader.
//!
//! Run files are anonymous (`O_TMPFILE` where the file system has it, else created and
//! unlinked at once by `tempfile`), so they are private to the process (0600), vanish as soon
//! as they are closed, and cannot be left behind by an error, Ctrl-C or even SIGKILL.
//!
//! Each item is `varint key_len, key, varint rec_len, record, varint input, varint record
//! number, varint line, varint byte offset`: the key is stored so merging never re-parses
//! CSV, and the position so a duplicate found in the final merge can still be reported with
//! both records' lines.
//!
//! A writer also keeps a bounded sample of its run's keys with their offsets ([`Sample`]): the
//! final merge cuts the key space into ranges at sampled keys and starts a reader on each run
//! at a range's first key ([`RunReader::at`]), so ranges merge in parallel. Runs are read with
//! positioned reads (`pread`), so any number of readers can share one anonymous file.

use super::batch::Loc;
use crate::io::error::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A key of a run and the offset of the item that holds it.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The item's key.
    pub key: Vec<u8>,
    /// The item's offset in the run file.
    pub offset: u64,
}

/// How densely a writer samples its run: one key every `every` bytes at first, and at most
/// `cap` keys (past that every other sample is dropped and the spacing doubles), so the
/// samples of a run take `cap` keys whatever its size.
#[derive(Debug, Clone, Copy)]
pub struct Sampling {
    /// Initial spacing in bytes.
    pub every: u64,
    /// Most samples kept.
    pub cap: usize,
}

/// A run being written.
pub struct RunWriter {
    w: BufWriter<File>,
    dir: PathBuf,
    scratch: Vec<u8>,
    pos: u64,
    next_sample: u64,
    sampling: Sampling,
    samples: Vec<Sample>,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends one item in the run format to `out`.
#[inline]
pub fn encode_item(out: &mut Vec<u8>, key: &[u8], rec: &[u8], loc: Loc) {
    put_varint(out, key.len() as u64);
    out.extend_from_slice(key);
    put_varint(out, rec.len() as u64);
    out.extend_from_slice(rec);
    put_varint(out, u64::from(loc.input));
    put_varint(out, loc.record);
    put_varint(out, loc.line);
    put_varint(out, loc.byte);
}

/// Says what is wrong with a temporary directory that refused a run file: the OS's own word
/// is misleading there (creating a file in `/proc` fails with "No such file").
fn temp_dir_error(dir: &Path, e: std::io::Error) -> Error {
    let what = match std::fs::metadata(dir) {
        Err(_) => "does not exist".to_string(),
        Ok(m) if !m.is_dir() => "is not a directory".to_string(),
        Ok(_) => format!("cannot hold temporary files ({e})"),
    };
    Error::file(
        dir.display().to_string(),
        format!("{what}; choose another temporary directory with -T"),
    )
}

impl RunWriter {
    /// A new anonymous run file in `dir`, buffered with `buf` bytes, sampled as `sampling` says.
    pub fn create(dir: &Path, buf: usize, sampling: Sampling) -> Result<RunWriter> {
        let f = tempfile::tempfile_in(dir).map_err(|e| temp_dir_error(dir, e))?;
        // Only this process reads a run: keep it private whatever the umask.
        f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .map_err(|e| temp_dir_error(dir, e))?;
        Ok(RunWriter {
            w: BufWriter::with_capacity(buf, f),
            dir: dir.to_path_buf(),
            scratch: Vec::with_capacity(64),
            pos: 0,
            next_sample: 0,
            sampling: Sampling {
                every: sampling.every.max(1),
                cap: sampling.cap.max(2),
            },
            samples: Vec::new(),
        })
    }

    /// Records `key` of the item starting at `offset` when a sample is due there.
    fn sample(&mut self, key: &[u8], offset: u64) {
        if offset < self.next_sample {
            return;
        }
        self.samples.push(Sample {
            key: key.to_vec(),
            offset,
        });
        self.next_sample = offset + self.sampling.every;
        if self.samples.len() >= self.sampling.cap {
            let mut i = 0;
            self.samples.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.sampling.every *= 2;
            let last = self.samples.last().map_or(0, |s| s.offset);
            self.next_sample = last + self.sampling.every;
        }
    }

    /// Appends one item.
    #[inline]
    pub fn push(&mut self, key: &[u8], rec: &[u8], loc: Loc) -> Result<()> {
        self.sample(key, self.pos);
        let start = self.pos;
        let s = &mut self.scratch;
        s.clear();
        put_varint(s, key.len() as u64);
        s.extend_from_slice(key);
        put_varint(s, rec.len() as u64);
        let head = s.len() + rec.len();
        let r = (|| {
            self.w.write_all(&self.scratch)?;
            self.w.write_all(rec)?;
            self.scratch.clear();
            put_varint(&mut self.scratch, u64::from(loc.input));
            put_varint(&mut self.scratch, loc.record);
            put_varint(&mut self.scratch, loc.line);
            put_varint(&mut self.scratch, loc.byte);
            self.w.write_all(&self.scratch)
        })();
        r.map_err(|e| self.err(e))?;
        self.pos = start + (head + self.scratch.len()) as u64;
        Ok(())
    }

    /// Appends whole items already encoded with [`encode_item`].
    pub fn write_block(&mut self, block: &[u8]) -> Result<()> {
        // Only the block's first item is sampled: finding the items inside would mean
        // decoding every one, on the thread that the sort waits for. The caller keeps blocks
        // small for that (`spill`).
        let end = self.pos + block.len() as u64;
        if let Some((key, _)) = item_at(block) {
            self.sample(key, self.pos);
        }
        self.w.write_all(block).map_err(|e| self.err(e))?;
        self.pos = end;
        Ok(())
    }

    fn err(&self, e: std::io::Error) -> Error {
        Error::io(format!("{} (temporary run file)", self.dir.display()), e)
    }

    /// Flushes the file and hands it over for reading.
    pub fn finish(self) -> Result<Run> {
        let dir = self.dir.clone();
        let f = self.w.into_inner().map_err(|e| {
            Error::io(
                format!("{} (temporary run file)", dir.display()),
                e.into_error(),
            )
        })?;
        Ok(Run {
            file: Arc::new(f),
            samples: self.samples,
            len: self.pos,
        })
    }
}

fn get_varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let c = *b.get(*at)?;
        *at += 1;
        if shift > 63 {
            return None;
        }
        v |= u64::from(c & 0x7F) << shift;
        if c < 0x80 {
            return Some(v);
        }
        shift += 7;
    }
}

/// The key and total length of the encoded item at the start of `b`.
fn item_at(b: &[u8]) -> Option<(&[u8], usize)> {
    let mut at = 0;
    let klen = usize::try_from(get_varint(b, &mut at)?).ok()?;
    let key = b.get(at..at.checked_add(klen)?)?;
    at += klen;
    let rlen = usize::try_from(get_varint(b, &mut at)?).ok()?;
    at = at.checked_add(rlen)?;
    for _ in 0..4 {
        get_varint(b, &mut at)?;
    }
    Some((key, at))
}

/// A finished run, ready to be read.
pub struct Run {
    file: Arc<File>,
    /// Keys sampled while it was written, in key order, the first item's always among them.
    pub samples: Vec<Sample>,
    /// Bytes in the run file.
    pub len: u64,
}

/// Reads a run item by item; the current item's key and record are slices of the buffer.
pub struct RunReader {
    file: Arc<File>,
    /// Offset of the next byte to read from the file.
    off: u64,
    buf: Vec<u8>,
    lo: usize,
    hi: usize,
    eof: bool,
    key: (usize, usize),
    rec: (usize, usize),
    loc: Loc,
    has: bool,
}

impl RunReader {
    /// Starts reading `run` with a buffer of `buf` bytes, positioned on its first item.
    pub fn new(run: Run, buf: usize) -> Result<RunReader> {
        RunReader::at(&run, 0, buf)
    }

    /// Starts reading `run` at `offset`, which must be the start of an item (a
    /// [`Sample`]'s), with a buffer of `buf` bytes. Readers of one run are independent.
    pub fn at(run: &Run, offset: u64, buf: usize) -> Result<RunReader> {
        RunReader::reusing(run, offset, vec![0; buf.max(4096)])
    }

    /// [`RunReader::at`] with the buffer of an earlier reader ([`RunReader::into_buf`]):
    /// the final merge starts readers for every key range, and zeroing fresh buffers each
    /// time would cost more than the reading.
    pub fn reusing(run: &Run, offset: u64, mut buf: Vec<u8>) -> Result<RunReader> {
        if buf.len() < 4096 {
            buf.resize(4096, 0);
        }
        let mut r = RunReader {
            file: Arc::clone(&run.file),
            off: offset,
            buf,
            lo: 0,
            hi: 0,
            eof: false,
            key: (0, 0),
            rec: (0, 0),
            loc: Loc::default(),
            has: false,
        };
        r.advance()?;
        Ok(r)
    }

    /// The reader's buffer, for [`RunReader::reusing`].
    pub fn into_buf(self) -> Vec<u8> {
        self.buf
    }

    /// Makes at least `n` bytes available from `lo` (fewer only at end of file).
    fn fill(&mut self, n: usize) -> Result<()> {
        if self.hi - self.lo >= n || self.eof {
            return Ok(());
        }
        if self.lo > 0 {
            self.buf.copy_within(self.lo..self.hi, 0);
            self.hi -= self.lo;
            self.lo = 0;
        }
        if self.buf.len() < n {
            self.buf.resize(n.next_power_of_two(), 0);
        }
        while self.hi < n {
            match self.file.read_at(&mut self.buf[self.hi..], self.off) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(k) => {
                    self.hi += k;
                    self.off += k as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io("<temporary run file>", e)),
            }
        }
        Ok(())
    }

    fn varint(&mut self, at: &mut usize) -> Result<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let Some(&b) = self.buf.get(*at).filter(|_| *at < self.hi) else {
                return Err(corrupt());
            };
            *at += 1;
            if shift > 63 {
                return Err(corrupt());
            }
            v |= u64::from(b & 0x7F) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// Moves to the next item; false at the end.
    pub fn advance(&mut self) -> Result<bool> {
        // Offsets are kept relative to `lo`, because `fill` may move the data down.
        self.fill(24)?;
        if self.lo == self.hi {
            self.has = false;
            return Ok(false);
        }
        let mut at = self.lo;
        let klen = self.varint(&mut at)? as usize;
        let rel_k = at - self.lo;
        self.fill(rel_k + klen + 10)?;
        let mut at = self.lo + rel_k + klen;
        if at > self.hi {
            return Err(corrupt());
        }
        let rlen = self.varint(&mut at)? as usize;
        let rel_r = at - self.lo;
        self.fill(rel_r + rlen + 40)?;
        let mut at = self.lo + rel_r + rlen;
        if at > self.hi {
            return Err(corrupt());
        }
        let input = self.varint(&mut at)?;
        let record = self.varint(&mut at)?;
        let line = self.varint(&mut at)?;
        let byte = self.varint(&mut at)?;
        self.key = (self.lo + rel_k, self.lo + rel_k + klen);
        self.rec = (self.lo + rel_r, self.lo + rel_r + rlen);
        self.loc = Loc {
            input: input as u32,
            record,
            line,
            byte,
        };
        self.lo = at;
        self.has = true;
        Ok(true)
    }

    /// The current item, if any.
    #[inline]
    pub fn current(&self) -> Option<(&[u8], &[u8], Loc)> {
        if !self.has {
            return None;
        }
        Some((
            &self.buf[self.key.0..self.key.1],
            &self.buf[self.rec.0..self.rec.1],
            self.loc,
        ))
    }
}

fn corrupt() -> Error {
    Error::io(
        "<temporary run file>",
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "truncated or corrupt run file",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLING: Sampling = Sampling {
        every: 1000,
        cap: 16,
    };

    #[test]
    fn roundtrip() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(dir.path(), 64, SAMPLING).unwrap();
        let mut want = Vec::new();
        for i in 0..2000u64 {
            let key = vec![(i % 251) as u8; (i % 37) as usize];
            let rec = vec![b'x'; (i * 7 % 3000) as usize];
            let loc = Loc {
                input: (i % 3) as u32,
                record: i,
                line: i * 1000,
                byte: i << 40,
            };
            w.push(&key, &rec, loc).unwrap();
            want.push((key, rec, loc));
        }
        let run = w.finish().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut r = RunReader::new(run, 100).unwrap();
        for (k, rec, loc) in &want {
            let (gk, gr, gl) = r.current().unwrap();
            assert_eq!((gk, gr, gl), (&k[..], &rec[..], *loc));
            r.advance().unwrap();
        }
        assert!(r.current().is_none());
    }

    #[test]
    fn samples_point_at_items_and_readers_start_there() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(dir.path(), 64, SAMPLING).unwrap();
        let mut want = Vec::new();
        let mut block = Vec::new();
        for i in 0..3000u64 {
            let key = format!("{i:06}").into_bytes();
            let rec = vec![b'r'; (i % 50) as usize];
            let loc = Loc {
                input: 0,
                record: i,
                line: i,
                byte: i * 10,
            };
            // Half the items through push, half through blocks of encoded items.
            if (i / 100) % 2 == 0 {
                w.push(&key, &rec, loc).unwrap();
            } else {
                encode_item(&mut block, &key, &rec, loc);
                if i % 100 == 99 {
                    w.write_block(&block).unwrap();
                    block.clear();
                }
            }
            want.push((key, rec, loc));
        }
        let run = w.finish().unwrap();
        assert!(run.samples.len() < SAMPLING.cap, "samples are thinned");
        assert!(run.samples.len() > SAMPLING.cap / 4);
        assert_eq!(run.samples[0].offset, 0);
        for s in &run.samples {
            let mut r = RunReader::at(&run, s.offset, 100).unwrap();
            let i: usize = std::str::from_utf8(&s.key).unwrap().parse().unwrap();
            for (k, rec, loc) in &want[i..] {
                assert_eq!(r.current().unwrap(), (&k[..], &rec[..], *loc));
                r.advance().unwrap();
            }
            assert!(r.current().is_none());
        }
    }

    #[test]
    fn runs_are_private_and_bad_dirs_are_named() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let w = RunWriter::create(dir.path(), 64, SAMPLING).unwrap();
        let mode = w.w.get_ref().metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let err = RunWriter::create(Path::new("/proc"), 64, SAMPLING)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("/proc: cannot hold temporary files"), "{err}");
        let f = dir.path().join("file");
        std::fs::write(&f, "").unwrap();
        let err = RunWriter::create(&f, 64, SAMPLING)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("is not a directory"), "{err}");
    }
}
