//! Inflate of a gzip file with Intel's ISA-L (igzip), for the one input layer
//! ([`crate::io::input`]): the same stream zlib-rs inflates, about twice as fast on one core
//! (docs/benchmarks.md), so that a `.gz` dump costs little more than its plain form.
//!
//! zlib-rs stays the authority. ISA-L decodes only what both read alike: members one after
//! another, each starting with the gzip magic and no reserved header flag, up to the end of
//! the file. Anything else (bytes after a member that do not start one, zero padding, our
//! writer's mark of an incomplete file, a truncated file, any error ISA-L reports: a corrupt
//! block, a bad checksum or length) sends the read to the sequential path
//! ([`crate::io::input::sequential_gzip`]), which decodes the file again from its start, skips
//! what was handed out and goes on: so every error is zlib-rs's, word for word, with its
//! positions, and a file zlib-rs accepts is never refused.
//!
//! One difference remains, on hand-made input only: ISA-L takes a Huffman code that does not
//! fill its code space (RFC 1951 does not forbid it; zlib refuses it, and so does the sequential
//! path), so a member whose blocks use such a code, and use none of its missing codes, is
//! inflated where zlib-rs reports "invalid ... set"; the CRC-32 and length in its trailer are
//! still checked. On corrupt input, bytes handed out before the error may run further than
//! zlib-rs's (the error and its position are the same; nothing is published after an error).
//!
//! Memory: one 1 MiB input buffer and ISA-L's state (about 40 KiB), whatever the file size.

use isal_sys::igzip_lib as isal;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Compressed bytes read at a time.
const IN_BUF: usize = 1 << 20;

/// ISA-L's decoder state, on the heap (it holds 40 KiB of tables and history).
struct State(Box<isal::inflate_state>);

// SAFETY: the state's raw pointers (next_in, next_out) point into buffers of the reader that
// owns it, and only during a call of `isal_inflate` made by that reader; between calls they are
// never dereferenced, so moving the state to another thread is sound.
unsafe impl Send for State {}

/// A reader over the decompressed bytes of a gzip file (see the module comment).
pub struct IsalReader {
    state: State,
    file: File,
    inbuf: Box<[u8]>,
    /// The unread input: `inbuf[start..end]`.
    start: usize,
    end: usize,
    /// The file has no more bytes.
    eof: bool,
    /// Inside a member (its header seen by ISA-L, its trailer not yet).
    in_member: bool,
    /// Decompressed bytes handed out so far.
    out: u64,
    /// The sequential path, once ISA-L gave up.
    seq: Option<Box<dyn Read + Send>>,
    /// Compressed bytes consumed, for the message of an error reading the file.
    pos: Arc<AtomicU64>,
}

/// A reader over the gzip file `file` (positioned at its start, which holds the gzip magic);
/// `pos` counts the compressed bytes consumed.
pub fn reader(file: File, pos: Arc<AtomicU64>) -> IsalReader {
    // SAFETY: all-zero bytes are a valid `inflate_state` (integers, arrays and null pointers),
    // and `isal_inflate_init` then sets it up for a new stream. (40 KiB pass over the stack
    // once; `Box::new_zeroed` is newer than the declared minimum Rust.)
    let mut state: Box<isal::inflate_state> = Box::new(unsafe { std::mem::zeroed() });
    // SAFETY: `state` is a valid, exclusively borrowed state.
    unsafe { isal::isal_inflate_init(&mut *state) };
    IsalReader {
        state: State(state),
        file,
        inbuf: vec![0u8; IN_BUF].into_boxed_slice(),
        start: 0,
        end: 0,
        eof: false,
        in_member: false,
        out: 0,
        seq: None,
        pos,
    }
}

/// gzip's FLG bits that RFC 1952 reserves (must be zero; ISA-L does not look at them).
const FLG_RESERVED: u8 = 0xe0;

impl IsalReader {
    /// Moves the unread input to the front and reads more; sets `eof` at the file's end.
    fn refill(&mut self) -> io::Result<()> {
        self.inbuf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < self.inbuf.len() {
            match self.file.read(&mut self.inbuf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.end += n;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// ISA-L gave up: the sequential path decodes the file from its start, skips the `out`
    /// bytes already handed out and reads on (see the module comment).
    fn fall_back(&mut self) -> io::Result<()> {
        let mut f = self.file.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        self.seq = Some(super::sequential_after(f, self.out)?);
        Ok(())
    }

    /// One step of ISA-L: `Ok(Some(n))` bytes decoded into `buf` (n may be 0 at the end of
    /// the file), `Ok(None)` when the sequential path must take over.
    fn step(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            if self.start == self.end && !self.eof {
                self.refill()?;
            }
            if !self.in_member {
                // Between members: the next one's first 4 bytes decide (magic, method, flags).
                if self.end - self.start < 4 && !self.eof {
                    self.refill()?;
                    continue;
                }
                let next = &self.inbuf[self.start..self.end];
                if next.is_empty() {
                    return Ok(Some(0));
                }
                if next.len() < 4 || next[..3] != [0x1f, 0x8b, 8] || next[3] & FLG_RESERVED != 0 {
                    return Ok(None);
                }
                // SAFETY: the state was set up by `isal_inflate_init`.
                unsafe { isal::isal_inflate_reset(&mut *self.state.0) };
                self.state.0.crc_flag = isal::ISAL_GZIP;
                self.in_member = true;
            }
            let avail_in = self.end - self.start;
            let avail_out = buf.len().min(u32::MAX as usize);
            let s = &mut *self.state.0;
            s.next_in = self.inbuf[self.start..].as_mut_ptr();
            s.avail_in = avail_in as u32;
            s.next_out = buf.as_mut_ptr();
            s.avail_out = avail_out as u32;
            // SAFETY: next_in/avail_in cover initialised bytes of `inbuf`, next_out/avail_out
            // bytes of `buf`; both outlive the call, and ISA-L writes only within them.
            let ret = unsafe { isal::isal_inflate(s) };
            let used = avail_in - s.avail_in as usize;
            let made = avail_out - s.avail_out as usize;
            s.next_in = std::ptr::null_mut();
            s.next_out = std::ptr::null_mut();
            self.start += used;
            self.pos.fetch_add(used as u64, Ordering::Relaxed);
            crate::io::progress::add_read(used as u64);
            if ret < 0 {
                // What this call decoded is dropped: the sequential path gives the bytes (and
                // the error) from `out` on.
                return Ok(None);
            }
            if s.block_state == isal::isal_block_state_ISAL_BLOCK_FINISH {
                self.in_member = false;
            }
            if made > 0 {
                return Ok(Some(made));
            }
            if used == 0 && self.in_member {
                if self.eof || avail_in == self.inbuf.len() {
                    // Cut inside a member (zlib-rs says where), or (never seen) ISA-L took
                    // nothing from a full buffer.
                    return Ok(None);
                }
                self.refill()?;
            }
        }
    }
}

impl Read for IsalReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.seq.is_none() {
            match self.step(buf)? {
                Some(n) => {
                    self.out += n as u64;
                    return Ok(n);
                }
                None => self.fall_back()?,
            }
        }
        let seq = self.seq.as_mut().expect("set by fall_back");
        let n = seq.read(buf)?;
        self.out += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("{i},customer {},\"a, b\"\n", i * 7919 % 10_007))
            .collect::<String>()
            .into_bytes()
    }

    /// Bytes read, then the error that ended them.
    type Got = (Vec<u8>, Option<String>);

    /// What the ISA-L reader gave and whether zlib-rs took over, and what the sequential
    /// path gave.
    fn both(bytes: &[u8]) -> ((Vec<u8>, Option<String>, bool), Got) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("in.gz");
        std::fs::write(&p, bytes).unwrap();
        let drain = |r: &mut dyn Read| {
            let mut out = Vec::new();
            let mut buf = vec![0u8; 100_000];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => return (out, None),
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                    Err(e) => return (out, Some(e.to_string())),
                }
            }
        };
        let mut r = reader(File::open(&p).unwrap(), Arc::default());
        let (out, err) = drain(&mut r);
        let fell = r.seq.is_some();
        let s = drain(&mut *super::super::sequential_gzip(File::open(&p).unwrap()));
        ((out, err, fell), s)
    }

    #[test]
    fn members_and_header_fields_are_isal_s_alone() {
        let a = text(200_000);
        let mut multi = gz(&a[..3_000_000], 1);
        multi.extend(gz(b"", 6));
        multi.extend(gz(&a[3_000_000..], 9));
        // FEXTRA, FNAME, FCOMMENT and FHCRC (a header flate2's builder writes).
        let mut e = flate2::GzBuilder::new()
            .extra(vec![1, 2, 3])
            .filename("t.csv")
            .comment("c")
            .write(Vec::new(), flate2::Compression::new(6));
        e.write_all(&a[..1000]).unwrap();
        let fields = e.finish().unwrap();
        for (what, file) in [
            ("one stream", gz(&a, 6)),
            ("members", multi),
            ("fields", fields),
        ] {
            let ((out, err, fell), (sout, serr)) = both(&file);
            assert_eq!(err, None, "{what}");
            assert_eq!(serr, None, "{what}");
            assert!(out == sout, "{what}: bytes differ");
            assert!(!fell, "{what}: zlib-rs took over");
        }
    }

    #[test]
    fn what_zlib_rs_decides_goes_to_zlib_rs_with_its_words() {
        let a = text(50_000);
        let one = gz(&a, 6);
        let mut padded = one.clone();
        padded.extend([0u8; 512]);
        let mut garbage = one.clone();
        garbage.extend(b"xyz");
        let mut flipped = one.clone();
        let k = flipped.len() / 2;
        flipped[k] ^= 0x55;
        let mut bad_crc = one.clone();
        let n = bad_crc.len();
        bad_crc[n - 6] ^= 1;
        let mut reserved = one.clone();
        reserved[3] |= 0x20;
        let mut second_reserved = one.clone();
        second_reserved.extend(&reserved);
        for (what, file, ok) in [
            ("zero padding", padded, true),
            ("trailing bytes", garbage, false),
            ("cut", one[..one.len() * 2 / 3].to_vec(), false),
            ("cut in the trailer", one[..one.len() - 3].to_vec(), false),
            ("flipped byte", flipped, false),
            ("bad CRC", bad_crc, false),
            ("reserved flag", reserved, false),
            ("reserved flag, second member", second_reserved, false),
        ] {
            let ((out, err, fell), (sout, serr)) = both(&file);
            assert!(fell, "{what}: ISA-L decided alone");
            assert_eq!(err, serr, "{what}: messages differ");
            assert_eq!(err.is_none(), ok, "{what}: {err:?}");
            if ok {
                assert!(out == sout, "{what}: bytes differ");
            } else {
                let m = out.len().min(sout.len());
                assert!(
                    out[..m] == sout[..m],
                    "{what}: bytes before the error differ"
                );
            }
        }
    }
}
