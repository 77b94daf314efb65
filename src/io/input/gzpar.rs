//! Parallel inflate of one gzip file (a regular file, not a pipe) on several threads, for the
//! one input layer ([`crate::io::input`]): rapidgzip's method (speculative decoding from guessed
//! DEFLATE block starts, with markers for the unknown window resolved afterwards; direct
//! member-parallel paths for BGZF and pigz-style multi-member files) as implemented by the
//! `rapidgzip-core` crate on zlib-rs.
//!
//! The bytes are those of the sequential path (flate2 on zlib-rs, `GzMembers` in
//! [`crate::io::input`]); tests/gzpar.rs and fuzz/fuzz_targets/gzpar.rs compare the two. The
//! errors are the sequential path's too: when the crate reports one, the sequential path
//! takes over where it stopped (`ParReader::fall_back`), because the crate's classes
//! differ in corners (one byte after the last member is "truncated" for it, garbage for
//! zlib-rs; zero padding, which we accept, is an error for it).
//!
//! Memory, per open input with `n` threads: at most `n + 2` decoded chunks of
//! [`CHUNK`] bytes wait for the reader, and each busy worker holds one chunk being decoded
//! (speculatively decoded chunks hold 16-bit markers until their window is known, so up to
//! twice the chunk), plus 1 MiB input pages and 32 KiB windows: about `(3n + 2) * 4 MiB`
//! (docs/benchmarks.md has the measured figures). [`MAX_THREADS`] caps `n`.

use rapidgzip_core::{DecodeError, Decoder, DecoderPool, ReadAt};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Decoded bytes per chunk handed from a worker to the reader (the crate's default).
pub const CHUNK: usize = 4 << 20;

/// Most inflate threads for one input, whatever `-j` says: bounds memory (see the module
/// comment) on machines with many cores.
pub const MAX_THREADS: usize = 32;

/// Threads the process inflates a seekable gzip input with; 1 = sequential.
static THREADS: AtomicUsize = AtomicUsize::new(1);

/// One execution budget for every parallel inflate of the process (csvload opens several
/// files at once): at most [`threads`] decode tasks run at any time, across all inputs.
static POOL: OnceLock<Option<DecoderPool>> = OnceLock::new();

/// Sets how many threads a regular-file gzip input is inflated with (each tool's `-j`);
/// 1 (the default) keeps the sequential path. Call once, before opening inputs.
pub fn set_threads(n: usize) {
    THREADS.store(n.clamp(1, MAX_THREADS), Ordering::Relaxed);
}

/// The thread count set by [`set_threads`].
pub fn threads() -> usize {
    THREADS.load(Ordering::Relaxed)
}

fn pool() -> Option<DecoderPool> {
    POOL.get_or_init(|| DecoderPool::builder().workers(threads()).build().ok())
        .clone()
}

/// The compressed file, read by position from several threads; remembers the highest byte
/// read, for the progress bar.
struct Source {
    file: File,
    len: u64,
    seen: AtomicU64,
}

impl ReadAt for Source {
    fn len(&self) -> io::Result<u64> {
        Ok(self.len)
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(&self.file, buffer, offset)?;
        let end = offset + n as u64;
        let before = self.seen.fetch_max(end, Ordering::Relaxed);
        if end > before {
            crate::io::progress::add_read(end - before);
        }
        Ok(n)
    }
}

/// A reader over the decompressed bytes of the gzip file `file` (already known to start
/// with the gzip magic), inflated on `threads` threads.
pub fn reader(file: File, threads: usize) -> io::Result<Box<dyn Read + Send>> {
    let len = file.metadata()?.len();
    let src = Arc::new(Source {
        file,
        len,
        seen: AtomicU64::new(0),
    });
    let mut b = Decoder::builder()
        .decoder_threads(threads)
        .decoded_chunk_size(CHUNK)
        .in_flight_chunks(threads + 2);
    // The process's budget when inflating with its own thread count (a caller asking for
    // another count, as the tests do, gets its own workers).
    if threads == self::threads()
        && let Some(p) = pool()
    {
        b = b.decoder_pool(p);
    }
    let dec = b.build().map_err(io::Error::other)?;
    Ok(match dec.reader(src.clone()) {
        Ok(r) => Box::new(ParReader {
            inner: Some(r),
            src,
            out: 0,
            early: None,
            seq: None,
        }),
        // A header error: reported by the first read, as on the sequential path.
        Err(e) => Box::new(ParReader {
            inner: None,
            src,
            out: 0,
            early: Some(e),
            seq: None,
        }),
    })
}

/// The decompressed bytes: the crate's, until it reports an error; then the sequential
/// path's from where it stopped (see [`ParReader::fall_back`]).
struct ParReader {
    inner: Option<rapidgzip_core::DecoderReader>,
    src: Arc<Source>,
    /// Decompressed bytes handed out so far.
    out: u64,
    /// An error found before decoding started.
    early: Option<DecodeError>,
    /// The sequential path, once the crate failed.
    seq: Option<Box<dyn Read + Send>>,
}

impl ParReader {
    /// The crate failed: the sequential path (flate2 on zlib-rs, as without `-j`) decodes the
    /// file again from its start, its first `out` bytes (those already handed out, the same
    /// data: both inflate the same stream) are skipped, and the rest is its own: so every
    /// error is the sequential path's, word for word, position for position (zero padding
    /// accepted, trailing bytes, our writer's mark of an incomplete file, truncation), and a
    /// defect of the crate on a valid file cannot fail the read. Costs one more sequential
    /// pass up to the error, on the error path only.
    fn fall_back(&mut self) -> io::Result<()> {
        let mut f = self.src.file.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        self.seq = Some(super::sequential_after(f, self.out)?);
        Ok(())
    }
}

impl Read for ParReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(seq) = self.seq.as_mut() {
                let n = seq.read(buf)?;
                self.out += n as u64;
                return Ok(n);
            }
            if self.early.take().is_some() {
                self.fall_back()?;
                continue;
            }
            let Some(r) = self.inner.as_mut() else {
                return Ok(0);
            };
            match r.read(buf) {
                Ok(n) => {
                    self.out += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.inner = None;
                    self.fall_back()?;
                }
            }
        }
    }
}
