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

use super::batch::Loc;
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A run being written.
pub struct RunWriter {
    w: BufWriter<File>,
    dir: PathBuf,
    scratch: Vec<u8>,
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
    /// A new anonymous run file in `dir`, buffered with `buf` bytes.
    pub fn create(dir: &Path, buf: usize) -> Result<RunWriter> {
        let f = tempfile::tempfile_in(dir).map_err(|e| temp_dir_error(dir, e))?;
        // Only this process reads a run: keep it private whatever the umask.
        f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
            .map_err(|e| temp_dir_error(dir, e))?;
        Ok(RunWriter {
            w: BufWriter::with_capacity(buf, f),
            dir: dir.to_path_buf(),
            scratch: Vec::with_capacity(64),
        })
    }

    /// Appends one item.
    #[inline]
    pub fn push(&mut self, key: &[u8], rec: &[u8], loc: Loc) -> Result<()> {
        let s = &mut self.scratch;
        s.clear();
        put_varint(s, key.len() as u64);
        s.extend_from_slice(key);
        put_varint(s, rec.len() as u64);
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
        r.map_err(|e| self.err(e))
    }

    /// Appends items already encoded with [`encode_item`].
    pub fn write_block(&mut self, block: &[u8]) -> Result<()> {
        self.w.write_all(block).map_err(|e| self.err(e))
    }

    fn err(&self, e: std::io::Error) -> Error {
        Error::io(format!("{} (temporary run file)", self.dir.display()), e)
    }

    /// Flushes and rewinds the file for reading.
    pub fn finish(self) -> Result<Run> {
        let dir = self.dir.clone();
        let mut f = self.w.into_inner().map_err(|e| {
            Error::io(
                format!("{} (temporary run file)", dir.display()),
                e.into_error(),
            )
        })?;
        f.seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(format!("{} (temporary run file)", dir.display()), e))?;
        Ok(Run { file: f })
    }
}

/// A finished run, ready to be read.
pub struct Run {
    file: File,
}

/// Reads a run item by item; the current item's key and record are slices of the buffer.
pub struct RunReader {
    file: File,
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
        let mut r = RunReader {
            file: run.file,
            buf: vec![0; buf.max(4096)],
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
            match self.file.read(&mut self.buf[self.hi..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(k) => self.hi += k,
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

    #[test]
    fn roundtrip() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = RunWriter::create(dir.path(), 64).unwrap();
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
    fn runs_are_private_and_bad_dirs_are_named() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let w = RunWriter::create(dir.path(), 64).unwrap();
        let mode = w.w.get_ref().metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let err = RunWriter::create(Path::new("/proc"), 64)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("/proc: cannot hold temporary files"), "{err}");
        let f = dir.path().join("file");
        std::fs::write(&f, "").unwrap();
        let err = RunWriter::create(&f, 64).err().unwrap().to_string();
        assert!(err.contains("is not a directory"), "{err}");
    }
}
