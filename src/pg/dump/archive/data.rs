//! Where an archive entry's data comes from: a custom archive's data blocks (read in one
//! forward pass, as pg_restore reads a pipe), a directory archive's `NNNN.dat[.gz|.lz4|.zst]`
//! files, or a tar archive's members; and the decompressors for them.
//!
//! The block and tar framing is read by hand (a dozen lines each; the `tar` crate's entry
//! iterator cannot be interleaved with our own reads of the same stream). Every length field
//! is checked against what really arrives; nothing is allocated from one.

use super::toc::{Compression, Counted, Prim};
use std::io::{self, BufRead, Read};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The archive's byte stream, shared between the script reader and the decompression
/// thread of the entry being read (one entry at a time).
pub struct Stream {
    /// The raw archive bytes with their offset.
    pub r: Counted<Box<dyn Read + Send>>,
    /// Int width from the header.
    pub int_size: u8,
    /// Offset width from the header.
    pub off_size: u8,
    /// Custom format: inside a data block, with this much left of the current chunk.
    in_block: bool,
    chunk_left: u64,
    /// Tar format: bytes left of the current member, then its padding.
    member_left: u64,
    member_pad: u64,
    /// What is being read, for messages (`entry 3547 (public.t)`).
    pub what: String,
}

/// A [`Stream`] shared with a decompression thread.
pub type Shared = Arc<Mutex<Stream>>;

fn bad(at: u64, msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("byte {at}: {msg}"))
}

impl Stream {
    /// A stream at offset `pos`.
    pub fn new(r: Box<dyn Read + Send>, pos: u64, int_size: u8, off_size: u8) -> Stream {
        Stream {
            r: Counted { inner: r, pos },
            int_size,
            off_size,
            in_block: false,
            chunk_left: 0,
            member_left: 0,
            member_pad: 0,
            what: String::new(),
        }
    }

    fn prim(&mut self) -> Prim<'_, Box<dyn Read + Send>> {
        Prim {
            r: &mut self.r,
            int_size: self.int_size,
            off_size: self.off_size,
        }
    }

    fn int(&mut self) -> io::Result<i64> {
        let what = format!("the data of {}", self.what);
        self.prim().int(&what).map_err(|e| e.into_io())
    }

    /// Skips `n` bytes, failing if the archive ends first.
    fn skip(&mut self, n: u64, what: &str) -> io::Result<()> {
        let at = self.r.pos;
        let got = io::copy(&mut (&mut self.r).take(n), &mut io::sink())?;
        if got != n {
            return Err(bad(
                at,
                format!(
                    "{what} runs past the end of the archive ({n} bytes claimed, {got} there): it is truncated"
                ),
            ));
        }
        Ok(())
    }

    /// Skips the chunks of one data block up to its zero-length terminator.
    fn skip_chunks(&mut self, what: &str) -> io::Result<()> {
        loop {
            let at = self.r.pos;
            let len = self.int()?;
            if len == 0 {
                return Ok(());
            }
            if len < 0 {
                return Err(bad(at, format!("{what}: negative chunk length {len}")));
            }
            self.skip(len as u64, what)?;
        }
    }

    /// Custom format: moves forward to the data block of entry `id`, skipping others.
    pub fn find_block(&mut self, id: i64, what: &str) -> io::Result<()> {
        self.find_block_of(1, id, what)
    }

    /// Custom format, in a large-object block: the next object's OID (its data chunks
    /// follow, read through [`BlockReader`]), or `None` after the last.
    pub fn next_lo(&mut self) -> io::Result<Option<u32>> {
        let at = self.r.pos;
        let oid = self.int()?;
        if oid == 0 {
            return Ok(None);
        }
        let oid = u32::try_from(oid).map_err(|_| {
            bad(
                at,
                format!("{}: large object OID {oid} out of range", self.what),
            )
        })?;
        self.in_block = true;
        self.chunk_left = 0;
        Ok(Some(oid))
    }

    /// Tar format, read forward as pg_restore's `_LoadLOs` does: the next large-object member
    /// (`blob_OID.dat`), skipping other members before the first one (`found` false), or
    /// `None` at the first other member after one (the LO TOC, consumed) or at the end.
    pub fn next_lo_member(&mut self, found: bool) -> io::Result<Option<(u32, Vec<u8>)>> {
        loop {
            let at = self.r.pos;
            let Some((name, size, pad)) = self.read_header(at)? else {
                return Ok(None);
            };
            if let Some(oid) = lo_member_oid(&name) {
                self.member_left = size;
                self.member_pad = pad;
                return Ok(Some((oid, name)));
            }
            self.skip(size + pad, "a tar member")?;
            if found {
                return Ok(None);
            }
        }
    }

    /// Custom format: moves forward to the block of `kind` (1 table data, 3 large objects)
    /// of entry `id`, skipping others.
    pub fn find_block_of(&mut self, want: u8, id: i64, what: &str) -> io::Result<()> {
        self.what = what.to_string();
        loop {
            let at = self.r.pos;
            let wording = format!("the data block header of {what}");
            let Some(kind) = self.prim().byte_or_eof(&wording).map_err(|e| e.into_io())? else {
                return Err(bad(
                    at,
                    format!("the archive ends before the data block of {what}: it is truncated"),
                ));
            };
            let bid = self.int()?;
            if kind == want && bid == id {
                // Table data: its chunks follow. Large objects: an OID comes first.
                self.in_block = kind == 1;
                self.chunk_left = 0;
                return Ok(());
            }
            self.skip_body(
                kind,
                bid,
                at,
                &format!(" while looking for the data of {what}"),
            )?;
        }
    }

    /// Custom format: skips the body of a data block of `kind` (1 table data, 3 large
    /// objects) of entry `bid`, whose header is at `at`; `context` ends the error for a kind
    /// that is neither.
    fn skip_body(&mut self, kind: u8, bid: i64, at: u64, context: &str) -> io::Result<()> {
        match kind {
            1 => self.skip_chunks(&format!("the data block of entry {bid}")),
            3 => loop {
                // Large objects: { oid, chunks }* 0.
                if self.int()? == 0 {
                    return Ok(());
                }
                self.skip_chunks(&format!("the large objects of entry {bid}"))?;
            },
            k => Err(bad(at, format!("unknown data block type {k}{context}"))),
        }
    }

    /// Tar format: reads the next member header: the member's name, data size and the
    /// padding after its data, or `None` at the end of the archive (a short or all-zero
    /// header). `at` is the header's offset, for errors.
    fn read_header(&mut self, at: u64) -> io::Result<Option<(Vec<u8>, u64, u64)>> {
        let mut h = [0u8; 512];
        let mut got = 0;
        while got < 512 {
            match self.r.read(&mut h[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if got < 512 || h.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        let name_end = h[..100].iter().position(|&b| b == 0).unwrap_or(100);
        let size = tar_number(&h[124..136])
            .ok_or_else(|| bad(at, "tar member header with a bad size field".into()))?;
        Ok(Some((
            h[..name_end].to_vec(),
            size,
            (512 - size % 512) % 512,
        )))
    }

    /// Tar format: moves forward to the member named one of `names`; returns its name.
    pub fn find_member(&mut self, names: &[Vec<u8>], what: &str) -> io::Result<Vec<u8>> {
        self.what = what.to_string();
        loop {
            let at = self.r.pos;
            let Some((name, size, pad)) = self.read_header(at)? else {
                return Err(bad(
                    at,
                    format!("the tar archive ends before the member holding the data of {what}"),
                ));
            };
            if names.contains(&name) {
                self.member_left = size;
                self.member_pad = pad;
                return Ok(name);
            }
            self.skip(size + pad, "a tar member")?;
        }
    }

    /// Custom format: reads the next data block's header and skips its body. Returns the
    /// block's entry id and the offset of its header, `None` at the end of the archive.
    pub fn skip_block(&mut self) -> io::Result<Option<(i64, u64)>> {
        let at = self.r.pos;
        self.what = "the data blocks".into();
        let Some(kind) = self
            .prim()
            .byte_or_eof("a data block header")
            .map_err(|e| e.into_io())?
        else {
            return Ok(None);
        };
        let bid = self.int()?;
        self.skip_body(kind, bid, at, "")?;
        Ok(Some((bid, at)))
    }

    /// Tar format: lists the members from here to the end: name -> (offset of the member's
    /// data, size). The first member of a name counts, as for a forward read.
    pub fn list_members(&mut self) -> io::Result<std::collections::HashMap<Vec<u8>, (u64, u64)>> {
        let mut out = std::collections::HashMap::new();
        loop {
            let at = self.r.pos;
            let Some((name, size, pad)) = self.read_header(at)? else {
                return Ok(out);
            };
            out.entry(name).or_insert((self.r.pos, size));
            if self.skip(size + pad, "a tar member").is_err() {
                // Cut short: the member's reader reports it, naming its entry.
                return Ok(out);
            }
        }
    }

    /// Reads the rest of the current block or member, so the next one can be found.
    pub fn finish_entry(&mut self) -> io::Result<()> {
        let mut scratch = [0u8; 8192];
        while self.in_block {
            self.block_read(&mut scratch)?;
        }
        let (left, pad) = (self.member_left, self.member_pad);
        self.member_left = 0;
        self.member_pad = 0;
        self.skip(left + pad, "a tar member")
    }

    fn block_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.in_block || buf.is_empty() {
            return Ok(0);
        }
        while self.chunk_left == 0 {
            let at = self.r.pos;
            let len = self.int()?;
            if len == 0 {
                self.in_block = false;
                return Ok(0);
            }
            if len < 0 {
                return Err(bad(
                    at,
                    format!("{}: negative chunk length {len}", self.what),
                ));
            }
            self.chunk_left = len as u64;
        }
        let n = self.read_within(buf, self.chunk_left, |what, left| {
            format!(
                "the data block of {what} runs past the end of the archive ({left} bytes of a chunk missing): it is truncated"
            )
        })?;
        self.chunk_left -= n as u64;
        Ok(n)
    }

    /// Reads into `buf` at most `left` bytes (at least one) of the current block or member;
    /// the archive ending first is the error `truncated(what, left)` says.
    fn read_within(
        &mut self,
        buf: &mut [u8],
        left: u64,
        truncated: impl FnOnce(&str, u64) -> String,
    ) -> io::Result<usize> {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let at = self.r.pos;
        let n = self.r.read(&mut buf[..want])?;
        if n == 0 {
            return Err(bad(at, truncated(&self.what, left)));
        }
        Ok(n)
    }

    fn member_read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.member_left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let n = self.read_within(buf, self.member_left, |what, _| {
            format!("the tar member of {what} runs past the end of the archive: it is truncated")
        })?;
        self.member_left -= n as u64;
        Ok(n)
    }
}

/// The OID of a large-object member name `blob_OID.dat...` (as `atooid` reads it), if it
/// is one.
pub fn lo_member_oid(name: &[u8]) -> Option<u32> {
    let rest = name.strip_prefix(b"blob_")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&rest[..digits])
        .ok()?
        .parse::<u32>()
        .ok()
        .filter(|&o| o != 0)
}

/// A tar header number: octal text, or base-256 when the top bit of the first byte is set.
fn tar_number(f: &[u8]) -> Option<u64> {
    if f[0] & 0x80 != 0 {
        let mut v = u64::from(f[0] & 0x7f);
        for &b in &f[1..] {
            v = v.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(v);
    }
    let t: Vec<u8> = f
        .iter()
        .copied()
        .take_while(|&b| b != 0)
        .filter(|&b| b != b' ')
        .collect();
    if t.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(std::str::from_utf8(&t).ok()?, 8).ok()
}

/// The raw bytes of the current custom-format data block.
pub struct BlockReader(pub Shared);

impl Read for BlockReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut s = self
            .0
            .lock()
            .map_err(|_| io::Error::other("archive reader poisoned"))?;
        s.block_read(buf)
    }
}

/// The raw bytes of the current tar member.
pub struct MemberReader(pub Shared);

impl Read for MemberReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut s = self
            .0
            .lock()
            .map_err(|_| io::Error::other("archive reader poisoned"))?;
        s.member_read(buf)
    }
}

/// Exactly `left` bytes of a file (a tar member read at its offset); ending early is an
/// error naming the offset.
pub struct Exact<R> {
    /// The file, at the member's data.
    pub inner: R,
    /// Bytes still to read.
    pub left: u64,
    /// Offset reached, for messages.
    pub at: u64,
    /// The entry, for messages.
    pub what: String,
}

impl<R: Read> Read for Exact<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(bad(
                self.at,
                format!(
                    "the tar member of {} runs past the end of the archive: it is truncated",
                    self.what
                ),
            ));
        }
        self.left -= n as u64;
        self.at += n as u64;
        Ok(n)
    }
}

/// How a data stream is framed once decompressed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// Custom-format blocks: gzip means a bare zlib stream (`deflateInit`).
    Block,
    /// Files and tar members: gzip means the gzip file format (`gzopen`).
    File,
}

/// Decompresses `raw`, on a thread of its own when `thread` is set (so inflating overlaps
/// conversion) else on the reading thread, naming the entry in any error, and the archive
/// offset reached when `at` is the archive stream.
pub fn decode(
    raw: Box<dyn Read + Send>,
    c: Compression,
    w: Wrapper,
    what: &str,
    at: Option<Shared>,
    thread: bool,
) -> io::Result<Box<dyn Read + Send>> {
    // The decompression thread's messages count the entry's compressed bytes read.
    let pos = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = CountInto {
        inner: raw,
        pos: Arc::clone(&pos),
    };
    let mut br = io::BufReader::with_capacity(1 << 16, counted);
    // No bytes at all are no data in every compression, as pg_restore reads them: pg_dump 17
    // writes an empty large object of `-Fd -Z zstd` as a 0-byte `blob_N.dat.zst`, which the
    // zstd decoder calls an incomplete frame (issue 34 item 8). Only the empty stream: a
    // stream cut inside its frame or header is still an error.
    let named = |e: io::Error| {
        if e.to_string().starts_with("byte ") {
            e
        } else {
            io::Error::new(e.kind(), format!("{what}: {e}"))
        }
    };
    if c != Compression::None && br.fill_buf().map_err(named)?.is_empty() {
        return Ok(Box::new(io::empty()));
    }
    let d: Box<dyn Read + Send> = match (c, w) {
        (Compression::None, _) => Box::new(br),
        (Compression::Gzip, Wrapper::Block) => Box::new(flate2::bufread::ZlibDecoder::new(br)),
        (Compression::Gzip, Wrapper::File) => Box::new(flate2::bufread::MultiGzDecoder::new(br)),
        (Compression::Lz4, _) => Box::new(lz4_flex::frame::FrameDecoder::new(br)),
        (Compression::Zstd, _) => Box::new(zstd::stream::read::Decoder::with_buffer(br)?),
    };
    let named = Named {
        inner: d,
        what: what.to_string(),
        compression: c,
        at,
    };
    Ok(crate::io::input::decoding(named, what, pos, thread))
}

/// Counts the bytes read into a shared counter.
struct CountInto {
    inner: Box<dyn Read + Send>,
    pos: Arc<std::sync::atomic::AtomicU64>,
}

impl Read for CountInto {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Prefixes decompression errors with the entry they happened in.
struct Named {
    inner: Box<dyn Read + Send>,
    what: String,
    compression: Compression,
    at: Option<Shared>,
}

impl Read for Named {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.to_string().starts_with("byte ") {
                e
            } else {
                let at = match self.at.as_ref().map(|s| s.lock().map(|s| s.r.pos)) {
                    Some(Ok(pos)) => format!("byte {pos}: "),
                    _ => String::new(),
                };
                io::Error::new(
                    e.kind(),
                    format!(
                        "{at}the {} data of {} is corrupt: {e}",
                        self.compression.name(),
                        self.what
                    ),
                )
            }
        })
    }
}

/// Opens a directory archive's data file `name`, trying the suffixes pg_restore tries
/// (`InitDiscoverCompressFileHandle`): as named, `.gz`, `.lz4`, `.zst`.
pub fn open_dir_file(
    dir: &Path,
    name: &[u8],
    what: &str,
) -> io::Result<(Box<dyn Read + Send>, Compression, String)> {
    let base = String::from_utf8_lossy(name).into_owned();
    if base.is_empty() || base.contains('/') || base == ".." {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what}: toc.dat names the data file {base:?}, which is not a plain file name"),
        ));
    }
    for (suffix, c) in [
        ("", Compression::None),
        (".gz", Compression::Gzip),
        (".lz4", Compression::Lz4),
        (".zst", Compression::Zstd),
    ] {
        let p = dir.join(format!("{base}{suffix}"));
        match open_regular(&p) {
            Ok(f) => {
                let f = crate::io::progress::Reading(f);
                return Ok((Box::new(f), c, format!("{base}{suffix}")));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
            }
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", p.display()))),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "{what}: its data file {base} (or {base}.gz, .lz4, .zst) is missing from the directory"
        ),
    ))
}

/// Opens a file of a directory archive, which must be a regular file in it: a symbolic link
/// (which could point anywhere, e.g. at /etc/passwd) is not followed, and a FIFO, device or
/// socket (which could block for ever or never end, e.g. /dev/zero) is refused before it is
/// read. The file is checked before it is opened (opening a device can act on it) and again,
/// on the open descriptor, after (it may have been swapped in between).
pub fn open_regular(p: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let refuse = |ft: std::fs::FileType| {
        let kind = if ft.is_symlink() {
            "a symbolic link"
        } else if ft.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, device or socket)"
        };
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: is {kind}; a file of a directory archive must be a regular file in it, and is never followed or read out of the archive",
                p.display()
            ),
        )
    };
    let ft = std::fs::symlink_metadata(p)?.file_type();
    if !ft.is_file() {
        return Err(refuse(ft));
    }
    // O_NOFOLLOW: a symlink put in place since is not followed (ELOOP); O_NONBLOCK: a FIFO
    // put in place since does not block the open (it is refused just below).
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(p)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                refuse(ft)
            } else {
                e
            }
        })?;
    let ft = f.metadata()?.file_type();
    if !ft.is_file() {
        return Err(refuse(ft));
    }
    Ok(f)
}

/// The compression a tar member's name implies.
pub fn member_compression(name: &[u8]) -> Compression {
    if name.ends_with(b".gz") {
        Compression::Gzip
    } else if name.ends_with(b".lz4") {
        Compression::Lz4
    } else if name.ends_with(b".zst") {
        Compression::Zstd
    } else {
        Compression::None
    }
}
