//! The shard writer: a pool of workers that checksum (and, for `.gz` shards, compress) blocks
//! of shard bytes while the reader keeps going, and one writer thread that puts the results
//! into the shard files in order.
//!
//! Every event (open a shard, a block of its bytes, close it) gets a sequence number from the
//! reader; workers handle blocks in any order and the writer replays events strictly by
//! sequence number, so each shard's bytes land in input order whatever the timing. Each block
//! of a `.gz` shard becomes one gzip member: a multi-member gzip file is plain gzip to every
//! reader (zcat, Go's compress/gzip in CockroachDB, PostgreSQL's `gzip -dc`), and it lets
//! blocks of the *same* shard compress in parallel, so `-b`/`-r` modes, where one shard is
//! filled at a time, use every core too.
//!
//! With `--filter` the writer pipes each shard to its own `sh -c CMD` instead of a file; at
//! most `jobs` filters run at once, and a shard opened while all are busy with shards still
//! filling (`--by-hash`, `--by-range`) waits in an unnamed temporary file.

use super::filter::{FilterProc, Filters, describe, filter_error, pipe_error};
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::AtomicFile;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Input bytes shared with the workers and the writer: a read buffer or the mapped file.
pub trait Source: AsRef<[u8]> + Send + Sync {
    /// The file these bytes are, from offset 0, when there is one: the writer then has the
    /// kernel copy plain shards from it ([`AtomicFile::copy_range`]).
    fn file(&self) -> Option<&std::fs::File> {
        None
    }
}

impl Source for Vec<u8> {}

/// Whether plain shards are copied by copy_file_range(2): only with
/// `DUMPSHARD_COPY_FILE_RANGE=1`. Measured on ext4 (issue 13, 2 cores, 600 MB into 64 MiB
/// shards), the kernel copy took about 1.7x the CPU of write(2) from the mapping (sys 0.47 s
/// against 0.27 s): without extent sharing (ext4 has none, and shard ranges are not block
/// aligned anyway) the kernel copies through an internal pipe page by page, while the mapped
/// bytes are already in the cache from the scan. It is kept for file systems where the copy
/// can happen on the server (NFS 4.2, SMB), and tests compare both paths.
fn copy_allowed() -> bool {
    std::env::var_os("DUMPSHARD_COPY_FILE_RANGE").is_some_and(|v| v == "1")
}

/// Bytes for a shard: a range of a shared input block (no copy) or an owned buffer.
pub enum Payload {
    /// `data[range]`.
    Slice(Arc<dyn Source>, Range<usize>),
    /// A buffer of its own.
    Owned(Vec<u8>),
}

impl Payload {
    fn bytes(&self) -> &[u8] {
        match self {
            Payload::Slice(d, r) => (**d).as_ref().get(r.clone()).unwrap_or_default(),
            Payload::Owned(v) => v,
        }
    }
}

/// What the reader asks for, in order.
enum Job {
    Open(usize, PathBuf),
    /// Bytes of a shard, with their `\.` lines when the reader has counted them already.
    Data(usize, Payload, Option<u64>),
    Close(usize, u64),
}

/// What a worker hands to the writer.
enum Out {
    Open(usize, PathBuf),
    Data(Piece),
    Close(usize, u64),
}

/// A block of shard `shard`'s records, ready to write: `bytes` (compressed with --gzip) and
/// what the shard's totals need of the `raw_len` bytes before compression.
struct Piece {
    shard: usize,
    bytes: Payload,
    raw_len: u64,
    /// CRC-32 of the raw bytes (0 when neither --checksum nor --gzip wants it).
    crc: u32,
    /// `\.` lines among the raw bytes (see [`copy_end_lines`]).
    end_lines: u64,
}

/// A finished shard, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    /// Shard number.
    pub shard: usize,
    /// Final path.
    pub path: PathBuf,
    /// Data records (header excluded).
    pub records: u64,
    /// Uncompressed bytes, header included.
    pub bytes: u64,
    /// Bytes of the file on disk.
    pub file_bytes: u64,
    /// CRC-32 (IEEE, as in gzip) of the uncompressed content, header included (0 for plain
    /// shards when no checksum was asked for).
    pub crc32: u32,
    /// Lines that are exactly `\.` (inside quoted values): psql 17 and older end `\copy`
    /// data at such a line, so a `--copy-sql` script cannot load this shard.
    pub copy_end_lines: u64,
}

/// Where an open shard's bytes go.
enum Sink {
    /// A file renamed into place at close.
    File(AtomicFile),
    /// A running `--filter` reading the shard on its standard input.
    Filter(FilterProc),
    /// A shard waiting for a free filter slot, kept in an unnamed temporary file.
    Spool(std::fs::File),
}

impl Sink {
    fn write(&mut self, b: &[u8], path: &Path, cmd: &str) -> Result<()> {
        match self {
            Sink::File(f) => {
                f.write_all(b).at(path)?;
                // Pass small writes straight on: a buffer filled per open shard would
                // cost `--by-hash -n 2000` half a gigabyte.
                f.flush().at(path)
            }
            Sink::Filter(p) => {
                let Some(w) = &mut p.stdin else {
                    return Ok(());
                };
                let Err(e) = w.write_all(b) else {
                    return Ok(());
                };
                // Most often the filter failed and exited: its status says more than EPIPE.
                drop(p.stdin.take());
                if let Some(c) = &p.child {
                    crate::io::signals::unregister_child(c.id());
                }
                match p.child.take().map(|mut c| c.wait()) {
                    Some(Ok(st)) if !st.success() => Err(filter_error(path, cmd, &describe(st))),
                    _ => Err(pipe_error(path, cmd, &e)),
                }
            }
            Sink::Spool(f) => f.write_all(b).map_err(|e| Error::io("<spool file>", e)),
        }
    }
}

struct OpenShard {
    file: Sink,
    path: PathBuf,
    bytes: u64,
    file_bytes: u64,
    crc: u32,
    end_lines: u64,
}

/// The running pool. Dropping it without [`Pipeline::finish`] abandons every shard still
/// open: their temporary files are removed.
pub struct Pipeline {
    tx: Option<SyncSender<(u64, Job)>>,
    seq: u64,
    workers: Vec<JoinHandle<()>>,
    writer: Option<JoinHandle<Result<Vec<Done>>>>,
    /// Buffers of written [`Payload::Owned`] blocks, handed back for reuse: fresh large
    /// allocations cost a page fault per 4 KiB.
    spare: Receiver<Vec<u8>>,
}

impl Pipeline {
    /// Starts `workers` workers (at least one) and the writer. `gzip`: compress at `level`.
    /// `checksum`: compute the CRC-32 of plain shards too (gzip shards always need it).
    /// `filter`: pipe shards to `sh -c filter` instead of writing them, at most `workers` at
    /// once.
    pub fn start(
        workers: usize,
        gzip: Option<u32>,
        checksum: bool,
        filter: Option<&str>,
    ) -> Pipeline {
        let workers = workers.max(1);
        let (tx, rx) = sync_channel::<(u64, Job)>(2 * workers + 2);
        let (out_tx, out_rx) = sync_channel::<(u64, Out)>(2 * workers + 2);
        let (spare_tx, spare) = sync_channel::<Vec<u8>>(4 * workers + 8);
        let rx = Arc::new(Mutex::new(rx));
        let handles = (0..workers)
            .filter_map(|i| {
                let rx = Arc::clone(&rx);
                let out_tx = out_tx.clone();
                let spare_tx = spare_tx.clone();
                std::thread::Builder::new()
                    .name(format!("csvsplit worker {i}"))
                    .spawn(move || work(&rx, &out_tx, &spare_tx, gzip, checksum))
                    .ok()
            })
            .collect::<Vec<_>>();
        drop(out_tx);
        let filters = filter.map(|cmd| Filters {
            cmd: cmd.to_string(),
            jobs: workers,
            open: 0,
            running: VecDeque::new(),
            waiting: VecDeque::new(),
        });
        let writer = std::thread::Builder::new()
            .name("csvsplit writer".into())
            .spawn(move || write_all(out_rx, &spare_tx, gzip, filters))
            .ok();
        Pipeline {
            tx: Some(tx),
            seq: 0,
            workers: handles,
            writer,
            spare,
        }
    }

    fn send(&mut self, job: Job) -> Result<()> {
        let sent = match &self.tx {
            Some(tx) if !self.workers.is_empty() => tx.send((self.seq, job)).is_ok(),
            _ => false,
        };
        self.seq += 1;
        if sent {
            Ok(())
        } else {
            // The writer stopped (a write failed): its error is the one to report.
            Err(self
                .stop()
                .err()
                .unwrap_or_else(|| Error::internal("could not start the shard writer threads")))
        }
    }

    /// Starts shard `shard` at `path`.
    pub fn open(&mut self, shard: usize, path: PathBuf) -> Result<()> {
        self.send(Job::Open(shard, path))
    }

    /// Appends bytes to an open shard.
    pub fn data(&mut self, shard: usize, p: Payload) -> Result<()> {
        self.send(Job::Data(shard, p, None))
    }

    /// Like [`Pipeline::data`], for bytes whose `\.` lines the reader has counted already
    /// (the `-b` cut scan does, in the pass that finds the cuts), so no worker reads them again
    /// unless a checksum is wanted.
    pub fn data_counted(&mut self, shard: usize, p: Payload, end_lines: u64) -> Result<()> {
        self.send(Job::Data(shard, p, Some(end_lines)))
    }

    /// An emptied buffer of a block already written, if one is available.
    pub fn spare(&self) -> Option<Vec<u8>> {
        let mut v = self.spare.try_recv().ok()?;
        v.clear();
        Some(v)
    }

    /// Completes shard `shard` with `records` data records: it is renamed into place.
    pub fn close(&mut self, shard: usize, records: u64) -> Result<()> {
        self.send(Job::Close(shard, records))
    }

    fn stop(&mut self) -> Result<Vec<Done>> {
        self.tx = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        match self.writer.take().map(|w| w.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(Error::internal("the shard writer thread panicked")),
            None => Err(Error::internal("could not start the shard writer thread")),
        }
    }

    /// Waits for every shard to be written; returns them ordered by shard number.
    pub fn finish(mut self) -> Result<Vec<Done>> {
        let mut done = self.stop()?;
        done.sort_by_key(|d| d.shard);
        Ok(done)
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = self.stop();
        }
    }
}

fn work(
    rx: &Mutex<Receiver<(u64, Job)>>,
    out: &SyncSender<(u64, Out)>,
    spare: &SyncSender<Vec<u8>>,
    gzip: Option<u32>,
    checksum: bool,
) {
    // One compressor per worker: its state (hash tables, some hundreds of KiB) is reused for
    // every block instead of allocated per block.
    let mut deflater = gzip.map(Deflater::new);
    loop {
        let next = match rx.lock() {
            Ok(r) => r.recv(),
            Err(_) => return,
        };
        let Ok((seq, job)) = next else { return };
        let o = match job {
            Job::Open(s, p) => Out::Open(s, p),
            Job::Close(s, r) => Out::Close(s, r),
            Job::Data(shard, p, counted) => {
                let raw = p.bytes();
                let crc = if checksum || gzip.is_some() {
                    zlib_rs::crc32::crc32(0, raw)
                } else {
                    0
                };
                let raw_len = raw.len() as u64;
                let end_lines = counted.unwrap_or_else(|| copy_end_lines(raw));
                let bytes = match &mut deflater {
                    Some(d) => {
                        let z = Payload::Owned(d.member(raw, crc));
                        if let Payload::Owned(v) = p {
                            let _ = spare.try_send(v);
                        }
                        z
                    }
                    None => p,
                };
                Out::Data(Piece {
                    shard,
                    bytes,
                    raw_len,
                    crc,
                    end_lines,
                })
            }
        };
        if out.send((seq, o)).is_err() {
            return;
        }
    }
}

/// Lines of `raw` (whole records, so starting at a line start) that are exactly `\.`.
fn copy_end_lines(raw: &[u8]) -> u64 {
    // By the backslashes, which are rare in CSV: memmem's pair prefilter for `\.` stops at
    // every `.` of the decimals (8 % of a `-b` run's samples, as much as the record scan).
    memchr::memchr_iter(b'\\', raw)
        .filter(|&k| (k == 0 || raw[k - 1] == b'\n') && end_line_at(raw, k))
        .count() as u64
}

/// Whether `raw[k..]` starts with `\.` and its line end (the line start is the caller's).
pub(super) fn end_line_at(raw: &[u8], k: usize) -> bool {
    let rest = raw.get(k..).unwrap_or_default();
    rest.starts_with(b"\\.\n") || rest.starts_with(b"\\.\r\n")
}

/// Compresses blocks into gzip members with libdeflate.
///
/// libdeflate, not zlib (flate2 with zlib-rs, which the streaming writers use): it compresses
/// a whole buffer at once, which is exactly a block here, and at the same level it is about
/// 1.3x faster than zlib-rs with output a little smaller (README, "csvsplit benchmarks").
/// Its levels 1-9 follow zlib's speed/ratio trade-off; 0 stores.
pub struct Deflater {
    c: libdeflater::Compressor,
}

impl Deflater {
    /// A compressor at gzip `level` (0-9; higher is clamped to 9, as flate2 does).
    pub fn new(level: u32) -> Deflater {
        let lvl = libdeflater::CompressionLvl::new(level.min(9) as i32)
            .unwrap_or_else(|_| libdeflater::CompressionLvl::default());
        Deflater {
            c: libdeflater::Compressor::new(lvl),
        }
    }

    /// One complete gzip member (RFC 1952) holding `raw`, whose CRC-32 is already known.
    pub fn member(&mut self, raw: &[u8], crc: u32) -> Vec<u8> {
        // Header: magic, deflate, no flags, no mtime (reproducible output), XFL 0, OS unknown.
        const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
        let bound = self.c.deflate_compress_bound(raw.len());
        let mut v = vec![0u8; HEADER.len() + bound + 8];
        v[..HEADER.len()].copy_from_slice(&HEADER);
        // The bound is libdeflate's own worst case for this input length, so compression
        // into it cannot run out of room.
        let n = self
            .c
            .deflate_compress(raw, &mut v[HEADER.len()..HEADER.len() + bound])
            .expect("libdeflate's own output bound was exceeded");
        v.truncate(HEADER.len() + n);
        v.extend_from_slice(&crc.to_le_bytes());
        // ISIZE is the length modulo 2^32 (RFC 1952); blocks are far smaller anyway.
        v.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        v
    }
}

fn refuse_special(path: &Path) -> Result<()> {
    // Renaming a temporary over /dev/full or a FIFO would replace it; refuse instead.
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => Err(Error::file(
            path.display().to_string(),
            "exists and is not a regular file; refusing to replace it",
        )),
        _ => Ok(()),
    }
}

fn write_all(
    rx: Receiver<(u64, Out)>,
    spare: &SyncSender<Vec<u8>>,
    gzip: Option<u32>,
    mut filters: Option<Filters>,
) -> Result<Vec<Done>> {
    let cmd = filters.as_ref().map(|f| f.cmd.clone()).unwrap_or_default();
    let mut copy = copy_allowed();
    let mut pending: BTreeMap<u64, Out> = BTreeMap::new();
    let mut next = 0u64;
    let mut open: HashMap<usize, OpenShard> = HashMap::new();
    let mut done = Vec::new();
    for (seq, o) in rx {
        pending.insert(seq, o);
        while let Some(o) = pending.remove(&next) {
            next += 1;
            match o {
                Out::Open(shard, path) => {
                    let file = match &mut filters {
                        Some(f) => {
                            if f.slot()? {
                                Sink::Filter(f.spawn(&path)?)
                            } else {
                                Sink::Spool(
                                    tempfile::tempfile()
                                        .map_err(|e| Error::io("<spool file>", e))?,
                                )
                            }
                        }
                        None => {
                            refuse_special(&path)?;
                            Sink::File(AtomicFile::create(&path)?)
                        }
                    };
                    open.insert(
                        shard,
                        OpenShard {
                            file,
                            path,
                            bytes: 0,
                            file_bytes: 0,
                            crc: 0,
                            end_lines: 0,
                        },
                    );
                }
                Out::Data(piece) => {
                    let (shard, bytes) = (piece.shard, &piece.bytes);
                    let s = open
                        .get_mut(&shard)
                        .ok_or_else(|| Error::internal(format!("shard {shard} is not open")))?;
                    let b = bytes.bytes();
                    // Plain shards of a file, when asked: the kernel copies the range (the worker has
                    // already read it for the CRC). What it does not copy, write(2) does,
                    // and a refusal turns the copying off for the rest of the run.
                    let mut copied = 0;
                    if copy
                        && gzip.is_none()
                        && let (Sink::File(f), Payload::Slice(src, r)) = (&mut s.file, bytes)
                        && let Some(from) = src.file()
                    {
                        let len = r.len() as u64;
                        let n = f.copy_range(from, r.start as u64, len).at(&s.path)?;
                        copy = n == len;
                        copied = usize::try_from(n).unwrap_or(0).min(b.len());
                    }
                    s.file
                        .write(b.get(copied..).unwrap_or_default(), &s.path, &cmd)?;
                    s.file_bytes += b.len() as u64;
                    s.crc = zlib_rs::crc32::crc32_combine(s.crc, piece.crc, piece.raw_len);
                    s.bytes += piece.raw_len;
                    s.end_lines += piece.end_lines;
                    if let Payload::Owned(v) = piece.bytes
                        && gzip.is_none()
                    {
                        let _ = spare.try_send(v);
                    }
                }
                Out::Close(shard, records) => {
                    let mut s = open
                        .remove(&shard)
                        .ok_or_else(|| Error::internal(format!("shard {shard} is not open")))?;
                    if let Some(level) = gzip
                        && s.file_bytes == 0
                    {
                        // An empty file is not valid gzip; an empty member is.
                        let empty = Deflater::new(level).member(&[], 0);
                        s.file.write(&empty, &s.path, &cmd)?;
                        s.file_bytes = empty.len() as u64;
                    }
                    match (s.file, &mut filters) {
                        (Sink::File(f), _) => {
                            f.commit()?;
                            // Complete, but not yet the run's result: until the run ends well
                            // (mod.rs), a failure or a signal removes it with the temporaries,
                            // so a failed run leaves no finished-looking shards behind.
                            crate::io::signals::register_temp(s.path.clone());
                        }
                        (Sink::Filter(p), Some(f)) => {
                            f.open -= 1;
                            if let Some(c) = p.finish_input() {
                                f.running.push_back((s.path.clone(), c));
                            }
                        }
                        (Sink::Spool(file), Some(f)) => f.waiting.push_back((s.path.clone(), file)),
                        _ => {}
                    }
                    done.push(Done {
                        shard,
                        path: s.path,
                        records,
                        bytes: s.bytes,
                        file_bytes: s.file_bytes,
                        crc32: s.crc,
                        copy_end_lines: s.end_lines,
                    });
                }
            }
        }
    }
    if !open.is_empty() || !pending.is_empty() {
        // The reader gave up (its error is reported, and Drop discards this one) or, if
        // finish() got here, the splitter left a shard open: a fault of the tool, not of its
        // command line. Open shards are dropped, which removes their temporary files.
        return Err(Error::internal(format!(
            "the shard writer stopped with {} shard(s) still open and {} block(s) unwritten",
            open.len(),
            pending.len()
        )));
    }
    if let Some(f) = &mut filters {
        f.drain()?;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn members_concatenate_to_valid_gzip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv.gz");
        let mut p = Pipeline::start(3, Some(6), false, None);
        p.open(0, path.clone()).unwrap();
        let data = Arc::new(b"hello,world\nsecond,line\n".repeat(1000));
        for i in 0..10 {
            let r = i * 2400..(i + 1) * 2400;
            p.data(0, Payload::Slice(data.clone(), r)).unwrap();
        }
        p.data(0, Payload::Owned(Vec::new())).unwrap();
        p.close(0, 2000).unwrap();
        let done = p.finish().unwrap();
        let mut got = Vec::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_end(&mut got)
            .unwrap();
        assert_eq!(&got, &*data);
        assert_eq!(done[0].bytes, data.len() as u64);
        assert_eq!(done[0].crc32, zlib_rs::crc32::crc32(0, &data));
        assert_eq!(done[0].file_bytes, std::fs::metadata(&path).unwrap().len());
    }

    /// A shard still open at finish() is the tool's fault (issue 11: Error::Internal for
    /// pipeline faults, not Usage), and it leaves no file behind.
    #[test]
    fn finishing_with_an_open_shard_is_an_internal_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        let mut p = Pipeline::start(2, None, false, None);
        p.open(0, path.clone()).unwrap();
        p.data(0, Payload::Owned(b"1,a\n".to_vec())).unwrap();
        let e = p.finish().unwrap_err();
        assert!(matches!(e, Error::Internal(_)), "{e:?}");
        assert!(e.to_string().contains("1 shard(s) still open"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
