//! Opening inputs: a file path or standard input (`-`), with compression recognised by its
//! magic bytes (gzip, zstd, lz4 frame), never by the file name, so `zcat`-less pipelines and
//! misnamed files both work.
//!
//! Decompression runs on its own thread and hands over large buffers, so that on a two-core
//! machine inflating and parsing overlap instead of taking turns; a tool held to one thread
//! (`pgdump2csv -j 1`) opens with [`open_with`] and inflates on the reading thread instead.

pub mod gzpar;
#[cfg(feature = "isal")]
pub mod isal;

use crate::io::error::{Error, IoContext, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// How the bytes of an input were compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`), possibly several concatenated members as pigz and bgzip write.
    Gzip,
    /// Zstandard frame (`28 b5 2f fd`).
    Zstd,
    /// LZ4 frame (`04 22 4d 18`).
    Lz4,
}

impl Compression {
    /// Recognises a compression format from the first bytes of a stream.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
            Compression::Lz4
        } else {
            Compression::None
        }
    }
}

/// An opened input: its display name, and a reader over the decompressed bytes.
pub struct Input {
    /// Name for messages: the path as given, or `<stdin>`.
    pub name: String,
    /// The path, when the input is a regular file (and not compressed), so tools can mmap,
    /// seek or stat it.
    pub path: Option<PathBuf>,
    /// What the raw stream was compressed with.
    pub compression: Compression,
    /// Decompressed bytes.
    pub reader: Box<dyn Read + Send>,
    /// Whether reading `reader` adds to the progress bar's bytes read ([`open_records`]
    /// leaves that to [`crate::csv::records::ChunkReader::for_input`]).
    pub counted: bool,
}

// Defined in `stream` (shared with `output` and `progress`); re-exported where callers
// have always found it.
use crate::io::stream::is_stdin;

/// Opens `path` (`None` or `-` = stdin) and sets up decompression by magic bytes, on a
/// thread of its own.
pub fn open(path: Option<&Path>) -> Result<Input> {
    open_with(path, true)
}

/// [`open`], decompressing on a thread of its own when `thread` is set, else on the thread
/// that reads (no overlap, but one thread in all). A gzip regular file is inflated on
/// [`crate::io::input::gzpar::threads`] threads when that is above 1 and `thread` is set.
pub fn open_with(path: Option<&Path>, thread: bool) -> Result<Input> {
    let (name, raw, file_path): (String, Box<dyn Read + Send>, Option<PathBuf>) = match path {
        Some(p) if !is_stdin(p) => {
            let f = File::open(p).at(p)?;
            if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                return Err(Error::file(
                    p.display().to_string(),
                    "is a directory, not a file",
                ));
            }
            // Opened once (a FIFO must not be opened twice), then handed to a faster inflate
            // if it is a gzip regular file.
            let f = match gzip_file(f, p, thread)? {
                Ok(inp) => return Ok(inp),
                Err(f) => f,
            };
            (p.display().to_string(), Box::new(f), Some(p.to_path_buf()))
        }
        _ => {
            crate::io::stream::grow_pipe(std::os::fd::AsFd::as_fd(&io::stdin()));
            ("<stdin>".to_string(), Box::new(io::stdin()), None)
        }
    };
    let mut raw = raw;
    let head = read_head(&mut raw, 6).at(&name)?;
    let compression = Compression::sniff(&head);
    let br = BufReader::with_capacity(1 << 20, io::Cursor::new(head).chain(raw));
    let pos = Arc::new(AtomicU64::new(0));
    let cr = Counting {
        inner: br,
        pos: pos.clone(),
    };
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(cr),
        Compression::Gzip => decoding(GzMembers::new(cr), &name, pos, thread),
        Compression::Zstd => {
            let d = zstd::stream::read::Decoder::with_buffer(cr).at(&name)?;
            decoding(d, &name, pos, thread)
        }
        Compression::Lz4 => decoding(lz4_flex::frame::FrameDecoder::new(cr), &name, pos, thread),
    };
    Ok(Input {
        path: if compression == Compression::None {
            file_path
        } else {
            None
        },
        name,
        compression,
        reader,
        counted: true,
    })
}

/// [`open`] for a reader of whole records ([`crate::csv::records::ChunkReader::for_input`]):
/// an uncompressed regular file is read by the `File` itself, sniffed by a positional read.
/// Through [`open`]'s `Counting<BufReader<Chain<..>>>` each chunk's bytes were zeroed first
/// (std zeroes a buffer before handing it to a reader that is not its own) and copied once
/// more: 4.7% and 3.7% of csvcheck's CPU on the issue-36 bench table, 2.6% and 3.2% of
/// csvload's. The bytes read are then counted by the chunk reader (`counted` false).
pub fn open_records(path: Option<&Path>) -> Result<Input> {
    // Looked at before opening: anything but a regular file goes to `open`, which opens it
    // once (a FIFO opened twice loses its writer's data, or blocks).
    if let Some(p) =
        path.filter(|p| !is_stdin(p) && std::fs::metadata(p).is_ok_and(|m| m.is_file()))
    {
        let f = File::open(p).at(p)?;
        if !f.metadata().is_ok_and(|m| m.is_file()) {
            return Err(Error::file(
                p.display().to_string(),
                "was replaced by something other than a regular file while being opened",
            ));
        }
        let mut head = [0u8; 6];
        let mut n = 0;
        while n < head.len() {
            match std::os::unix::fs::FileExt::read_at(&f, &mut head[n..], n as u64) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e).at(p),
            }
        }
        if Compression::sniff(&head[..n]) == Compression::None {
            return Ok(Input {
                name: p.display().to_string(),
                path: Some(p.to_path_buf()),
                compression: Compression::None,
                reader: Box::new(f),
                counted: false,
            });
        }
    }
    open(path)
}

/// Which inflate a gzip regular file gets (`DUMPSHARD_GZIP` overrides it, for tests and
/// bench/floors.sh: `zlib`, `isal` or `par`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GzipPath {
    /// flate2 on zlib-rs (the reference; pipes always take it).
    Zlib,
    /// ISA-L, on the reading thread or a thread of its own ([`crate::io::input::isal`]).
    Isal,
    /// rapidgzip's method on the tool's threads ([`crate::io::input::gzpar`]).
    Par,
}

/// From this many threads a gzip file is inflated in parallel (rapidgzip-core on zlib-rs)
/// rather than by ISA-L on one thread. ISA-L inflates about 1.9x as fast as zlib-rs on one
/// core (docs/benchmarks.md); the parallel inflate gains at most its thread count over zlib-rs
/// on member files and less on one stream (its marker decoding is slower, and on two cores its
/// probe kept it sequential). Two threads lose to ISA-L (measured); four is the first count
/// where it can win, an estimate: no machine with more than two cores was available.
pub const PAR_MIN_THREADS: usize = 4;

fn gzip_path(thread: bool) -> GzipPath {
    match std::env::var("DUMPSHARD_GZIP").as_deref() {
        Ok("zlib") => return GzipPath::Zlib,
        Ok("isal") if cfg!(feature = "isal") => return GzipPath::Isal,
        Ok("par") if thread && gzpar::threads() >= 2 => return GzipPath::Par,
        _ => {}
    }
    if thread && gzpar::threads() >= PAR_MIN_THREADS {
        GzipPath::Par
    } else if cfg!(feature = "isal") {
        GzipPath::Isal
    } else {
        GzipPath::Zlib
    }
}

/// The input `f` (opened from `p`) inflated by ISA-L or in parallel ([`GzipPath`]) when it is
/// a regular file that starts with the gzip magic; else `f` back, unread (positional reads
/// move no cursor). `thread` as for [`open_with`].
fn gzip_file(f: File, p: &Path, thread: bool) -> Result<std::result::Result<Input, File>> {
    if !f.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Ok(Err(f));
    }
    let mut head = [0u8; 2];
    if std::os::unix::fs::FileExt::read_exact_at(&f, &mut head, 0).is_err()
        || Compression::sniff(&head) != Compression::Gzip
    {
        return Ok(Err(f));
    }
    let name = p.display().to_string();
    let reader = match gzip_path(thread) {
        GzipPath::Zlib => return Ok(Err(f)),
        GzipPath::Par => gzpar::reader(f, gzpar::threads()).at(&name)?,
        #[cfg(feature = "isal")]
        GzipPath::Isal => {
            let pos = Arc::new(AtomicU64::new(0));
            decoding(isal::reader(f, pos.clone()), &name, pos, thread)
        }
        #[cfg(not(feature = "isal"))]
        GzipPath::Isal => unreachable!("gzip_path gives Isal only with the isal feature"),
    };
    Ok(Ok(Input {
        name,
        path: None,
        compression: Compression::Gzip,
        reader,
        counted: true,
    }))
}

/// The sequential reader of the gzip file `file` (positioned at its start) on the reading
/// thread: flate2 on zlib-rs, the reference every faster path equals (tests/gzpar.rs,
/// fuzz/fuzz_targets/gzpar.rs), and what they fall back to when they meet an error, so the
/// error is this path's.
pub fn sequential_gzip(file: File) -> Box<dyn Read + Send> {
    let pos = Arc::new(AtomicU64::new(0));
    let cr = Counting {
        inner: BufReader::with_capacity(1 << 20, file),
        pos: pos.clone(),
    };
    decoding(GzMembers::new(cr), "", pos, false)
}

/// [`sequential_gzip`] of `file` (positioned at its start) after its first `out` bytes (those a
/// faster path handed out: the same data, both inflate the same stream), for that path to
/// read on from when it meets something it leaves to zlib-rs. Costs one more sequential pass
/// up to there, on that path only. Its errors already say where ([`Placed`]).
pub(crate) fn sequential_after(file: File, out: u64) -> io::Result<Box<dyn Read + Send>> {
    let mut seq = sequential_gzip(file);
    let mut left = out;
    let mut buf = vec![0u8; 1 << 16];
    while left > 0 {
        let k = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        match seq.read(&mut buf[..k]) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    Placed(io::Error::other(format!(
                        "cannot decompress: the fast inflate gave {out} bytes, zlib-rs {} \
                         (a defect: please report it)",
                        out - left
                    ))),
                ));
            }
            Ok(n) => left -= n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(placed(e)),
        }
    }
    Ok(Box::new(PlacedErrors(seq)))
}

/// An error that already says where it is (the sequential path's): [`decompress_error`] hands
/// it on as it is instead of adding a position.
#[derive(Debug)]
pub(crate) struct Placed(io::Error);

impl std::fmt::Display for Placed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Placed {}

fn placed(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), Placed(e))
}

/// A reader whose errors are [`Placed`].
struct PlacedErrors(Box<dyn Read + Send>);

impl Read for PlacedErrors {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(placed)
    }
}

/// Reads up to `n` bytes (fewer only at end of stream): a pipe may deliver one byte at a time.
fn read_head(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// The raw stream, counting the bytes consumed, so that a decompression error can say where
/// it is and the progress bar can show how much of the input (as stored) is done.
struct Counting<B> {
    inner: B,
    pos: Arc<AtomicU64>,
}

impl<B: BufRead> Read for Counting<B> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(out)?;
        self.pos.fetch_add(n as u64, Ordering::Relaxed);
        crate::io::progress::add_read(n as u64);
        Ok(n)
    }
}

impl<B: BufRead> BufRead for Counting<B> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        self.pos.fetch_add(n as u64, Ordering::Relaxed);
        crate::io::progress::add_read(n as u64);
        self.inner.consume(n);
    }
}

/// gzip members one after another (as pigz and bgzip write them), then optionally zero bytes
/// to the end of the file (tape padding, which `gzip -dc` and `gzip -t` accept too); anything
/// else after a member is an error. Zero padding ends the members: a gzip member after it is
/// trailing garbage, as for `gzip -dc` ("trailing garbage ignored", exit 2), never inflated, so
/// a `.gz` cannot hold data that `zcat` does not show (issue 35 item 6: when the padding ended
/// where a read of the file ended, the next member was inflated). This is the one rule of
/// every gzip path: ISA-L's and the parallel inflate hand what is not a member to this one.
/// flate2's `MultiGzDecoder` takes any trailing bytes for a broken next member.
struct GzMembers<R: BufRead> {
    dec: Option<flate2::bufread::GzDecoder<R>>,
    src: Option<R>,
    /// Zero padding was seen: from here on only zeros, then the end.
    padding: bool,
}

impl<R: BufRead> GzMembers<R> {
    fn new(r: R) -> GzMembers<R> {
        GzMembers {
            dec: Some(flate2::bufread::GzDecoder::new(r)),
            src: None,
            padding: false,
        }
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(d) = self.dec.as_mut() {
                let n = d.read(out)?;
                if n > 0 || out.is_empty() {
                    return Ok(n);
                }
                self.src = self.dec.take().map(|d| d.into_inner());
            }
            let Some(src) = self.src.as_mut() else {
                return Ok(0);
            };
            let buf = src.fill_buf()?;
            match buf.first() {
                None => return Ok(0),
                // Whatever the buffer's edges: zeros, then anything, is not padding.
                Some(&b) if self.padding && b != 0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "zero padding after the last gzip member is followed by other bytes",
                    ));
                }
                Some(0x1f) => {
                    self.dec = self.src.take().map(flate2::bufread::GzDecoder::new);
                }
                Some(0) => {
                    let zeros = buf.iter().take_while(|&&b| b == 0).count();
                    if zeros < buf.len() {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "zero padding after the last gzip member is followed by other bytes",
                        ));
                    }
                    src.consume(zeros);
                    self.padding = true;
                }
                Some(b'"') if buf[1..].starts_with(&crate::io::stream::INCOMPLETE[..8]) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "the input is incomplete: the tool that wrote it failed (see its error)",
                    ));
                }
                Some(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "bytes after the last gzip member that are not a gzip member",
                    ));
                }
            }
        }
    }
}

/// A reader over what `decoder` produces: decoded on a thread of its own when `thread` is set
/// ([`threaded`]), else on the reading thread, with the same messages. `pos` counts the
/// compressed bytes consumed, for messages.
pub fn decoding<D: Read + Send + 'static>(
    decoder: D,
    name: &str,
    pos: Arc<AtomicU64>,
    thread: bool,
) -> Box<dyn Read + Send> {
    if thread {
        threaded(decoder, name, pos)
    } else {
        Box::new(Inline {
            d: decoder,
            pos,
            out: 0,
            failed: false,
        })
    }
}

/// Decompression on the reading thread (see [`decoding`]).
struct Inline<D> {
    d: D,
    pos: Arc<AtomicU64>,
    /// Decompressed bytes handed out so far, for messages.
    out: u64,
    failed: bool,
}

impl<D: Read> Read for Inline<D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.failed {
            return Ok(0);
        }
        loop {
            match self.d.read(buf) {
                Ok(n) => {
                    self.out += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // Like the thread's reader: one error, then the end.
                    self.failed = true;
                    return Err(decompress_error(e, &self.pos, self.out));
                }
            }
        }
    }
}

/// The error for a failed decompression, saying where (compressed byte `pos`, decompressed
/// byte `out`) and whether the input is cut short.
fn decompress_error(e: io::Error, pos: &AtomicU64, out: u64) -> io::Error {
    if e.get_ref().is_some_and(|i| i.is::<Placed>()) {
        let inner = e.into_inner().expect("checked above");
        return inner.downcast::<Placed>().expect("checked above").0;
    }
    let truncated = e.kind() == io::ErrorKind::UnexpectedEof;
    io::Error::new(
        e.kind(),
        format!(
            "cannot decompress{}: {e} (at compressed byte {}, decompressed byte {out})",
            if truncated {
                " (the file is truncated)"
            } else {
                ""
            },
            pos.load(Ordering::Relaxed)
        ),
    )
}

/// Runs `decoder` on a thread of its own and returns a reader over what it produces. `pos`
/// counts the compressed bytes consumed, for messages.
pub fn threaded<D: Read + Send + 'static>(
    decoder: D,
    name: &str,
    pos: Arc<AtomicU64>,
) -> Box<dyn Read + Send> {
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(4);
    let (back_tx, back_rx) = sync_channel::<Vec<u8>>(6);
    let name = name.to_string();
    let handle = std::thread::Builder::new()
        .name(format!("inflate {name}"))
        .spawn(move || pump(decoder, tx, back_rx, pos))
        .ok();
    match handle {
        Some(h) => Box::new(ThreadedReader {
            rx,
            back: back_tx,
            cur: Vec::new(),
            pos: 0,
            _handle: Some(h),
            done: false,
        }),
        // Could not start a thread (resource limits): decompress inline instead.
        None => Box::new(ErrReader),
    }
}

struct ErrReader;
impl Read for ErrReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::other("could not start the decompression thread"))
    }
}

const BLOCK: usize = 1 << 20;
/// The most [`pump`] asks of its decoder in one call.
const READ: usize = 64 << 10;

fn pump<D: Read>(
    mut d: D,
    tx: SyncSender<io::Result<Vec<u8>>>,
    back: Receiver<Vec<u8>>,
    pos: Arc<AtomicU64>,
) {
    let mut out = 0u64;
    loop {
        let mut buf = back
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BLOCK));
        buf.clear();
        buf.resize(BLOCK, 0);
        let mut filled = 0;
        let res = loop {
            if filled == BLOCK {
                break Ok(());
            }
            // At most READ per call, as a reader with a buffer of that size would ask: a
            // decoder that fails inside a call hands out nothing of that call, so the bytes
            // given before an error, and the "decompressed byte" of its message, depend on
            // the size asked for; this way the thread says what the inline path says to a
            // reader of 64 KiB (issue 22's differential test found a late corrupt byte where
            // the thread's one 1 MiB call gave 0 bytes and "decompressed byte 0", the
            // inline path 262144).
            let want = (filled + READ).min(BLOCK);
            match d.read(&mut buf[filled..want]) {
                Ok(0) => break Ok(()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        buf.truncate(filled);
        out += filled as u64;
        let end = filled == 0;
        match res {
            Err(e) => {
                let e = decompress_error(e, &pos, out);
                if filled > 0 && tx.send(Ok(buf)).is_err() {
                    return;
                }
                let _ = tx.send(Err(e));
                return;
            }
            Ok(()) => {
                if tx.send(Ok(buf)).is_err() || end {
                    return;
                }
            }
        }
    }
}

/// The consumer side of [`threaded`]: hands out the decompressed blocks and returns emptied
/// buffers to the producer so memory stays flat.
struct ThreadedReader {
    rx: Receiver<io::Result<Vec<u8>>>,
    back: SyncSender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    _handle: Option<JoinHandle<()>>,
    done: bool,
}

impl Read for ThreadedReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.cur.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(buf)) => {
                    if buf.is_empty() {
                        self.done = true;
                        return Ok(0);
                    }
                    let old = std::mem::replace(&mut self.cur, buf);
                    let _ = self.back.try_send(old);
                    self.pos = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn roundtrip(data: &[u8], compressed: Vec<u8>, want: Compression) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, &compressed).unwrap();
        let mut inp = open(Some(&p)).unwrap();
        assert_eq!(inp.compression, want);
        let mut got = Vec::new();
        inp.reader.read_to_end(&mut got).unwrap();
        assert_eq!(got, data);
    }

    #[test]
    fn sniffs_and_decodes() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        roundtrip(&data, data.clone(), Compression::None);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&data[..1000]).unwrap();
        let mut two = gz.finish().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&data[1000..]).unwrap();
        two.extend(gz.finish().unwrap());
        roundtrip(&data, two, Compression::Gzip);
        roundtrip(
            &data,
            zstd::encode_all(&data[..], 1).unwrap(),
            Compression::Zstd,
        );
        let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
        lz.write_all(&data).unwrap();
        roundtrip(&data, lz.finish().unwrap(), Compression::Lz4);
        roundtrip(b"a", b"a".to_vec(), Compression::None);
        roundtrip(b"", Vec::new(), Compression::None);
    }

    #[test]
    fn truncated_gzip_is_an_error() {
        let data = vec![7u8; 100_000];
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&data).unwrap();
        let mut c = gz.finish().unwrap();
        c.truncate(c.len() / 2);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.gz");
        std::fs::write(&p, &c).unwrap();
        let mut inp = open(Some(&p)).unwrap();
        let mut got = Vec::new();
        assert!(inp.reader.read_to_end(&mut got).is_err());
    }
}
