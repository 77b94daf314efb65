//! Quote-aware CSV record scanning that never copies or re-encodes a record.
//!
//! [`ChunkReader`] cuts a stream into large chunks of whole records and notes where each
//! record ends, so tools can sort, split or check records in parallel and write them back
//! byte for byte. [`split_fields`] finds the fields of one record when a tool needs values.
//!
//! Record boundaries are found by quote parity with `memchr2` rather than csv-core's DFA: in
//! RFC 4180 a newline ends a record exactly when an even number of `"` precede it in the
//! record, and a SIMD search for two bytes runs several times faster than a byte-at-a-time
//! state machine; where quoted fields come close together, 64-byte quote and newline masks
//! instead ([`DENSE_SPAN`]), by AVX2 where the CPU has it ([`wide`]). Quoting mistakes that
//! parity cannot see (a bare `"` inside an unquoted field) are caught by [`split_fields`]
//! when the fields are looked at.

use crate::io::error::{Error, IoContext, Pos, Result};
use std::borrow::Cow;
use std::io::Read;

/// A run of whole records, with the end offset of each: the one record-buffer type of the
/// toolkit. `D` holds the bytes: a `Vec` read by [`ChunkReader`], or a borrowed slice of a
/// larger buffer (csvsplit's mapped file), where record 0 starts at `begin`.
#[derive(Debug, Default)]
pub struct Chunk<D = Vec<u8>> {
    /// The records' bytes, exactly as read.
    pub data: D,
    /// Offset in `data` where record 0 starts (0 for [`ChunkReader`]'s chunks).
    pub begin: usize,
    /// `ends[i]` is the offset just past record `i` (past its `\n`, or the end of data for
    /// a last record without one).
    pub ends: Vec<usize>,
    /// 1-based number of the first record in the stream.
    pub first_record: u64,
    /// 1-based line number at `data[0]`.
    pub first_line: u64,
    /// Offset of `data[0]` in the (decompressed) stream.
    pub first_byte: u64,
}

impl<D> Chunk<D> {
    /// The same records over bytes held another way (`f` turns the old holder into the new).
    pub fn map_data<E>(self, f: impl FnOnce(D) -> E) -> Chunk<E> {
        Chunk {
            data: f(self.data),
            begin: self.begin,
            ends: self.ends,
            first_record: self.first_record,
            first_line: self.first_line,
            first_byte: self.first_byte,
        }
    }
}

impl<D: AsRef<[u8]>> Chunk<D> {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when the chunk holds no record.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Offset in `data` where record `i` starts.
    #[inline]
    pub fn start(&self, i: usize) -> usize {
        if i == 0 { self.begin } else { self.ends[i - 1] }
    }

    /// Byte range of record `i` within `data`.
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start(i)..self.ends[i]
    }

    /// Raw bytes of record `i`, terminator included.
    #[inline]
    pub fn record(&self, i: usize) -> &[u8] {
        &self.data.as_ref()[self.range(i)]
    }

    /// Iterates over the raw records.
    pub fn records(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.record(i))
    }

    /// The position of record `i`, for messages. Counts newlines, so it is meant for the
    /// error path, not for every record.
    pub fn pos(&self, i: usize, file: &str) -> Pos {
        let start = self.start(i);
        let lines = memchr::memchr_iter(b'\n', &self.data.as_ref()[..start]).count() as u64;
        Pos {
            file: file.to_string(),
            line: self.first_line + lines,
            byte: self.first_byte + start as u64,
            record: Some(self.first_record + i as u64),
        }
    }

    /// Number of newlines in the records (the lines they take).
    pub fn newlines(&self) -> u64 {
        let end = self.ends.last().copied().unwrap_or(self.begin);
        memchr::memchr_iter(b'\n', &self.data.as_ref()[self.begin..end]).count() as u64
    }
}

impl ChunkReader<Box<dyn Read + Send>> {
    /// Reads an opened input (named by its name), counting the bytes read for the progress
    /// bar where the input's reader does not ([`crate::io::input::open_records`]).
    pub fn for_input(inp: crate::io::input::Input, target: usize) -> Self {
        let mut r = ChunkReader::new(inp.reader, &inp.name, target);
        r.count = !inp.counted;
        r
    }
}

/// Reads a stream as chunks of whole CSV records.
pub struct ChunkReader<R> {
    r: R,
    name: String,
    target: usize,
    carry: Vec<u8>,
    record: u64,
    line: u64,
    byte: u64,
    eof: bool,
    keep_unterminated: bool,
    /// Adds the bytes it reads to the progress bar's (its reader does not).
    count: bool,
}

impl<R: Read> ChunkReader<R> {
    /// Reads `r` (named `name` in messages) in chunks of about `target` bytes.
    pub fn new(r: R, name: &str, target: usize) -> ChunkReader<R> {
        ChunkReader {
            r,
            name: name.to_string(),
            target: target.max(1),
            carry: Vec::new(),
            record: 1,
            line: 1,
            byte: 0,
            eof: false,
            keep_unterminated: false,
            count: false,
        }
    }

    /// Numbers the records from `pos` on: the reader starts there in a larger file (a part
    /// of it, see csvload's plan), so positions in messages are the file's own.
    pub fn starting_at(mut self, byte: u64, record: u64, line: u64) -> ChunkReader<R> {
        (self.byte, self.record, self.line) = (byte, record, line);
        self
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Changes the chunk size for the following chunks (e.g. a small first chunk for the
    /// header).
    pub fn set_target(&mut self, target: usize) {
        self.target = target.max(1);
    }

    /// When set, input that ends inside quotes yields its tail as a last record (which
    /// [`split_fields`] reports as [`Malformed::Unterminated`]) instead of an error, for
    /// tools that report bad records rather than stop (csvcheck).
    pub fn keep_unterminated(&mut self, yes: bool) {
        self.keep_unterminated = yes;
    }

    /// Position of the next record to be returned.
    pub fn next_pos(&self) -> Pos {
        Pos {
            file: self.name.clone(),
            line: self.line,
            byte: self.byte,
            record: Some(self.record),
        }
    }

    /// Returns the next chunk, reusing `buf`'s allocation. `None` at end of input.
    pub fn next_chunk(&mut self, buf: Vec<u8>) -> Result<Option<Chunk>> {
        self.next_chunk_into(Chunk {
            data: buf,
            ..Chunk::default()
        })
    }

    /// Like [`next_chunk`](Self::next_chunk), reusing both allocations of an old chunk.
    pub fn next_chunk_into(&mut self, mut c: Chunk) -> Result<Option<Chunk>> {
        c.data.clear();
        c.ends.clear();
        c.data.extend_from_slice(&self.carry);
        self.carry.clear();
        let mut scan = 0usize;
        let mut in_quote = false;
        let mut qn = QuotedNewlines::default();
        let mut want = self.target;
        loop {
            while c.data.len() < want && !self.eof {
                self.fill(&mut c.data, want)?;
            }
            scan_ends_counting(
                &c.data,
                &mut scan,
                &mut in_quote,
                usize::MAX,
                &mut c.ends,
                &mut qn,
            );
            if !c.ends.is_empty() || self.eof {
                break;
            }
            // One record longer than the chunk: grow until it ends.
            want = c.data.len() * 2;
        }
        let last = c.ends.last().copied().unwrap_or(0);
        let mut lines = c.ends.len() as u64 + qn.before_last_end;
        if self.eof {
            let here = self.next_pos();
            end_tail(
                &c.data,
                &mut c.ends,
                in_quote,
                self.keep_unterminated,
                &here,
            )?;
            lines += memchr::memchr_iter(b'\n', &c.data[last..]).count() as u64;
        } else if last < c.data.len() {
            self.carry.extend_from_slice(&c.data[last..]);
            c.data.truncate(last);
        }
        if c.ends.is_empty() {
            return Ok(None);
        }
        c.first_record = self.record;
        c.first_line = self.line;
        c.first_byte = self.byte;
        self.record += c.ends.len() as u64;
        debug_assert_eq!(lines, c.newlines());
        self.line += lines;
        self.byte += c.data.len() as u64;
        Ok(Some(c))
    }

    fn fill(&mut self, data: &mut Vec<u8>, want: usize) -> Result<()> {
        let grow = (want - data.len()).max(64 << 10);
        // `read_to_end` reads into the vector's spare capacity without zeroing it first (a
        // `resize(.., 0)` before each read was 2% of a typed csvcheck, all of it memset), and
        // stops at `grow` bytes or the end of the input, retrying interrupted reads. On an
        // error `data` keeps what was read before it.
        data.reserve(grow);
        match (&mut self.r).take(grow as u64).read_to_end(data) {
            Ok(n) => {
                if self.count {
                    crate::io::progress::add_read(n as u64);
                }
                if n < grow {
                    self.eof = true;
                }
                Ok(())
            }
            Err(e) => Err(e).at(&self.name),
        }
    }
}

/// At the end of the input: bytes after the last record end of `data` (whose first byte is at
/// `here`) are a last record without a terminator, unless they end inside quotes, which is
/// an error (the mark of a failed upstream tool, or a quote never closed); with `keep`, such
/// a tail is still a record (for csvcheck, which reports it), but never a failed tool's mark.
fn end_tail(
    data: &[u8],
    ends: &mut Vec<usize>,
    in_quote: bool,
    keep: bool,
    here: &Pos,
) -> Result<()> {
    let last = ends.last().copied().unwrap_or(0);
    if last == data.len() {
        return Ok(());
    }
    let tail = &data[last..];
    if in_quote && (!keep || tail.ends_with(crate::io::stream::INCOMPLETE)) {
        let at = |off: usize| Pos {
            file: here.file.clone(),
            line: here.line + memchr::memchr_iter(b'\n', &data[..off]).count() as u64,
            byte: here.byte + off as u64,
            record: Some(here.record.unwrap_or(1) + ends.len() as u64),
        };
        return Err(unterminated(tail, last, at));
    }
    ends.push(data.len());
    Ok(())
}

/// The system's page size (`None` if it will not say).
fn page_size() -> Option<usize> {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .ok()
        .filter(|&p| p > 0)
}

/// A read-only mapping of a range of a file.
///
/// Hand-written over libc rather than taken from memmap2: two calls and their checks, where
/// the crate would add a dependency for the same `unsafe` at the call sites' level.
pub struct FileMap {
    base: *mut libc::c_void,
    map_len: usize,
    /// Bytes from `base` to the requested offset (mappings start on a page boundary).
    skip: usize,
    len: usize,
}

// SAFETY: the mapping is read-only and never moves; sharing `&[u8]` views of it between
// threads is as safe as sharing any `&[u8]`.
unsafe impl Send for FileMap {}
// SAFETY: see above.
unsafe impl Sync for FileMap {}

impl FileMap {
    /// Maps `len` bytes of `file` from `offset`, read-only, with each of `advice` (`madvise`
    /// flags) given. `None` for an empty range or when the system refuses; callers then
    /// read instead. As with any mapping, a file truncated by another process meanwhile makes
    /// reads of the lost part fault (SIGBUS) instead of returning short.
    pub fn new(file: &std::fs::File, offset: u64, len: usize, advice: &[i32]) -> Option<FileMap> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return None;
        }
        let page = page_size()? as u64;
        let start = offset / page * page;
        let skip = usize::try_from(offset - start).ok()?;
        let map_len = len.checked_add(skip)?;
        let off = libc::off_t::try_from(start).ok()?;
        // SAFETY: a fresh private read-only mapping of a file we hold open; the result is
        // checked against MAP_FAILED before use.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                off,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        for &a in advice {
            // SAFETY: advice on the range just mapped; failure only loses the hint.
            unsafe {
                libc::madvise(base, map_len, a);
            }
        }
        Some(FileMap {
            base,
            map_len,
            skip,
            len,
        })
    }
}

impl std::fmt::Debug for FileMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FileMap({} bytes)", self.len)
    }
}

impl AsRef<[u8]> for FileMap {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `base + skip` starts `len` mapped, readable bytes, until `drop`.
        unsafe { std::slice::from_raw_parts((self.base as *const u8).add(self.skip), self.len) }
    }
}

impl Drop for FileMap {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `new` mapped, once.
        unsafe {
            libc::munmap(self.base, self.map_len);
        }
    }
}

impl FileMap {
    /// The page-aligned range of the mapping that covers `start..start + len` of the bytes
    /// it shows (clamped to the mapping).
    fn pages(&self, start: usize, len: usize) -> Option<(*mut libc::c_void, usize)> {
        let page = page_size()?;
        let from = (self.skip + start) / page * page;
        let to = (self.skip + start + len).min(self.map_len);
        // SAFETY: `from` is within the mapping (a page start at or before `to`).
        (from < to).then(|| {
            (
                unsafe { self.base.cast::<u8>().add(from) }.cast(),
                to - from,
            )
        })
    }

    /// Has the kernel map `start..start + len` now (reading it from disk when not cached),
    /// so that whoever reads it next takes no page faults. A hint: errors are ignored (a
    /// kernel before 5.14 lacks `MADV_POPULATE_READ`).
    pub fn populate(&self, start: usize, len: usize) {
        if let Some((at, n)) = self.pages(start, len) {
            // SAFETY: advice on pages of this live mapping.
            unsafe {
                libc::madvise(at, n, libc::MADV_POPULATE_READ);
            }
        }
    }

    /// Unmaps the pages of `start..start + len` from the process (they stay in the page
    /// cache). Safe for any range: a read-only file mapping reads an unmapped page again
    /// from the file, so a neighbour sharing a boundary page only takes a fault.
    pub fn release(&self, start: usize, len: usize) {
        if let Some((at, n)) = self.pages(start, len) {
            // SAFETY: as above; MADV_DONTNEED on a private, never-written file mapping
            // drops page-table entries only.
            unsafe {
                libc::madvise(at, n, libc::MADV_DONTNEED);
            }
        }
    }
}

/// One chunk's bytes in a mapping of the whole file: released (its pages unmapped) when
/// dropped, so the process maps about what the chunks held span.
pub struct MapView {
    map: std::sync::Arc<FileMap>,
    /// `map`'s bytes `start..start + len`, resolved once: a chunk's bytes are looked at
    /// several times per record, and going through the `Arc` and a bounds check each time
    /// cost 2% of an in-memory sort's instructions.
    ptr: *const u8,
    start: usize,
    len: usize,
}

// SAFETY: `ptr` points into the read-only mapping that `map` keeps alive; sharing views of
// it between threads is as safe as sharing the `FileMap`.
unsafe impl Send for MapView {}
// SAFETY: see above.
unsafe impl Sync for MapView {}

impl MapView {
    /// The bytes `start..start + len` of `map`.
    ///
    /// # Panics
    /// When the range is not inside the map.
    pub fn new(map: std::sync::Arc<FileMap>, start: usize, len: usize) -> MapView {
        let ptr = (*map).as_ref()[start..start + len].as_ptr();
        MapView {
            map,
            ptr,
            start,
            len,
        }
    }
}

impl std::fmt::Debug for MapView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MapView({}..{})", self.start, self.start + self.len)
    }
}

impl AsRef<[u8]> for MapView {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` starts `len` bytes of the mapping (checked in `new`), which `map`
        // keeps mapped (a released page is read again from the file) for `self`'s life.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for MapView {
    fn drop(&mut self) {
        self.map.release(self.start, self.len);
    }
}

/// Reads a regular file as chunks of whole records mapped in place: the records are the page
/// cache's own pages, so nothing is copied into, or zeroed for, a buffer of ours. Same
/// chunks, positions and errors as [`ChunkReader`] on the same file. The file is mapped once
/// and each chunk is a view of it whose pages are unmapped with it, so memory follows the
/// chunks held as with buffers. A helper thread maps the next chunk's pages while this one
/// is scanned: mapping them was a fifth of the reading thread's time on a jsonb table
/// (`perf`), and the scan is what an in-memory sort waits for.
pub struct MapChunks {
    map: std::sync::Arc<FileMap>,
    /// Ranges for the helper to map ahead (`None` without one), and how much to map.
    ahead: Option<std::sync::mpsc::SyncSender<(usize, usize)>>,
    ahead_len: usize,
    len: u64,
    name: String,
    target: usize,
    record: u64,
    line: u64,
    byte: u64,
    /// Bytes of the last chunk's span past its last record (read again with the next chunk).
    carry: usize,
}

impl MapChunks {
    /// Maps `path` when it is a non-empty regular file (else `None`: read it instead, as
    /// when the system refuses the mapping). With `ahead`, a helper thread maps each next
    /// chunk's pages (one thread per open `MapChunks`: for a reader of one input at a time,
    /// not for a merge holding many open).
    pub fn open(
        path: &std::path::Path,
        name: &str,
        target: usize,
        ahead: bool,
    ) -> Result<Option<MapChunks>> {
        // Looked at before opening: opening a FIFO again could block, or take a reader from
        // the stream already opened on it.
        let regular = |m: &std::fs::Metadata| m.is_file() && m.len() > 0;
        if !regular(&std::fs::metadata(path).at(name)?) {
            return Ok(None);
        }
        let file = std::fs::File::open(path).at(name)?;
        let m = file.metadata().at(name)?;
        if !regular(&m) {
            return Ok(None);
        }
        let Some(map) = usize::try_from(m.len())
            .ok()
            .and_then(|n| FileMap::new(&file, 0, n, &[]))
        else {
            return Ok(None);
        };
        let map = std::sync::Arc::new(map);
        let ahead = ahead
            .then(|| {
                // One range in flight: the helper maps at most one chunk ahead of the reader.
                let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, usize)>(1);
                let m = std::sync::Arc::clone(&map);
                std::thread::Builder::new()
                    .name("map ahead".into())
                    .spawn(move || {
                        for (start, len) in rx {
                            m.populate(start, len);
                        }
                    })
                    .ok()
                    .map(|_| tx)
            })
            .flatten();
        if let Some(tx) = &ahead {
            // The first chunk too: on a file not in the page cache this reads it ahead of
            // the reading thread's faults (as `MADV_WILLNEED` on each chunk did).
            let _ = tx.try_send((0, target.max(1)));
        }
        Ok(Some(MapChunks {
            map,
            ahead,
            ahead_len: target.max(1),
            len: m.len(),
            name: name.to_string(),
            target: target.max(1),
            record: 1,
            line: 1,
            byte: 0,
            carry: 0,
        }))
    }

    /// Changes the chunk size for the following chunks.
    pub fn set_target(&mut self, target: usize) {
        self.target = target.max(1);
    }

    /// The next chunk; `None` at the end of the file.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk<MapView>>> {
        let left = self.len - self.byte;
        if left == 0 {
            return Ok(None);
        }
        // Cut where ChunkReader cuts the same file (it reads at least 64 KiB after the
        // carried partial record): same chunks, same spilled runs, so the same duplicate is
        // the one reported whichever way the file came in.
        let mut want = self.target.max(self.carry + (64 << 10));
        // `byte` is below `len`, which fits a usize (the whole file is mapped).
        let at = self.byte as usize;
        loop {
            let n = usize::try_from(left).map_or(want, |l| l.min(want));
            let eof = n as u64 == left;
            if !eof && let Some(tx) = &self.ahead {
                // Where the next chunk will mostly lie; a full channel means the helper is
                // still busy, and the range is left to the reader's own faults.
                let _ = tx.try_send((at + n, self.ahead_len));
            }
            let map = MapView::new(std::sync::Arc::clone(&self.map), at, n);
            let mut ends = Vec::new();
            let (mut scan, mut in_quote) = (0, false);
            let mut qn = QuotedNewlines::default();
            scan_ends_counting(
                map.as_ref(),
                &mut scan,
                &mut in_quote,
                usize::MAX,
                &mut ends,
                &mut qn,
            );
            if ends.is_empty() && !eof {
                // One record longer than the chunk: map more until it ends.
                want = n.saturating_mul(2);
                continue;
            }
            let mut lines = ends.len() as u64 + qn.before_last_end;
            if eof {
                let here = Pos {
                    file: self.name.clone(),
                    line: self.line,
                    byte: self.byte,
                    record: Some(self.record),
                };
                let last = ends.last().copied().unwrap_or(0);
                end_tail(map.as_ref(), &mut ends, in_quote, false, &here)?;
                lines += memchr::memchr_iter(b'\n', &map.as_ref()[last..]).count() as u64;
            }
            let c = Chunk {
                data: map,
                begin: 0,
                ends,
                first_record: self.record,
                first_line: self.line,
                first_byte: self.byte,
            };
            let used = c.ends.last().copied().unwrap_or(0);
            self.carry = n - used;
            crate::io::progress::add_read(used as u64);
            self.record += c.len() as u64;
            debug_assert_eq!(lines, c.newlines());
            self.line += lines;
            self.byte += used as u64;
            return Ok(Some(c));
        }
    }
}

/// The error for a last record `tail` (at offset `base`) that ends inside quotes: the mark of
/// a failed upstream tool, a `"` inside an unquoted field, or a quoted field never closed.
pub fn unterminated(tail: &[u8], base: usize, at: impl Fn(usize) -> Pos) -> Error {
    if tail.ends_with(crate::io::stream::INCOMPLETE) {
        return Error::input(
            at(base),
            "the input is incomplete: the tool that wrote it failed (see its error)",
        );
    }
    // Find the quote that opened the field still open at the end.
    let mut open = 0;
    let mut q = false;
    for (i, &b) in tail.iter().enumerate() {
        if b == b'"' {
            q = !q;
            if q {
                open = i;
            }
        }
    }
    let field_start = open == 0 || matches!(tail[open - 1], b',' | b'\n');
    if field_start {
        Error::input(
            at(base),
            format!(
                "unterminated quoted field: the quote at byte {} is never closed",
                at(base + open).byte
            ),
        )
    } else {
        let p = at(base + open);
        Error::input(
            at(base),
            format!(
                "bare quote in unquoted field at line {}, byte {} (quote the field and double the quote)",
                p.line, p.byte
            ),
        )
    }
}

/// The names a header record `rec` gives, its fields already split into `fields` (lossy
/// UTF-8): the one header-names helper of the tools.
pub fn field_names(rec: &[u8], fields: &[Field]) -> Vec<String> {
    fields
        .iter()
        .map(|f| String::from_utf8_lossy(&f.value(rec)).into_owned())
        .collect()
}

/// The names of the header record `header` ([`field_names`] after [`split_fields`]).
pub fn header_names(header: &[u8]) -> Result<Vec<String>, Malformed> {
    let mut f = Vec::new();
    split_fields(header, &mut f)?;
    Ok(field_names(header, &f))
}

/// How a scan takes a 64-byte block: its quote and newline masks, and the prefix XOR of a
/// quote mask ([`Portable`] on any CPU, [`wide::Wide`] where AVX2 and PCLMULQDQ are).
trait Blocks: Copy {
    /// The quote and newline masks of `b[..64]`.
    fn masks(self, b: &[u8]) -> [u64; 2];
    /// [`prefix_xor`].
    fn prefix_xor(self, x: u64) -> u64;
}

/// SSE2 compares (x86_64's baseline) and a shift-and-XOR prefix.
#[derive(Clone, Copy)]
struct Portable;

impl Blocks for Portable {
    #[inline(always)]
    fn masks(self, b: &[u8]) -> [u64; 2] {
        byte_masks(b, [b'"', b'\n'])
    }

    #[inline(always)]
    fn prefix_xor(self, x: u64) -> u64 {
        prefix_xor(x)
    }
}

/// 64-byte blocks with 32-byte compares (AVX2) and the prefix XOR in one carry-less multiply
/// (PCLMULQDQ), as simdjson finds its strings: the record scanner's quote-dense path and
/// csvsplit's cut pass. Hand-written: memchr (the SIMD search used elsewhere) finds bytes but
/// gives neither masks nor the quote parity, and no crate computes CSV quote state.
#[cfg(target_arch = "x86_64")]
pub mod wide {
    use std::arch::x86_64::{
        __m256i, _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };

    /// Whether the CPU has what this module's functions are compiled for (std caches the
    /// answer; a call is a load and a test), and BMI1/BMI2, which pgdump2csv's note path
    /// is compiled for (every AVX2 CPU from Intel and AMD has them; one without takes the
    /// portable paths).
    pub fn available() -> bool {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("pclmulqdq")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
    }

    /// The 64-bit mask of two 32-byte compare results.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn mask(lo: __m256i, hi: __m256i) -> u64 {
        u64::from(_mm256_movemask_epi8(lo) as u32)
            | u64::from(_mm256_movemask_epi8(hi) as u32) << 32
    }

    /// The 64 bytes at `ptr`, in two halves.
    ///
    /// # Safety
    /// `ptr` points to 64 readable bytes, and the CPU has AVX2 ([`available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn load(ptr: *const u8) -> (__m256i, __m256i) {
        let ptr = ptr.cast::<__m256i>();
        // SAFETY: the caller's.
        unsafe { (_mm256_loadu_si256(ptr), _mm256_loadu_si256(ptr.add(1))) }
    }

    /// Bit `k`: byte `k` of the 64 in `lo` and `hi` is the byte in every lane of `v`.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`available`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub fn eq(lo: __m256i, hi: __m256i, v: __m256i) -> u64 {
        mask(_mm256_cmpeq_epi8(lo, v), _mm256_cmpeq_epi8(hi, v))
    }

    /// [`super::prefix_xor`] in one carry-less multiply by all ones.
    ///
    /// # Safety
    /// The CPU has PCLMULQDQ ([`available`]).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub fn prefix_xor(q: u64) -> u64 {
        let p = _mm_clmulepi64_si128(_mm_cvtsi64_si128(q as i64), _mm_set1_epi8(-1), 0);
        _mm_cvtsi128_si64(p) as u64
    }

    /// Row `m`: the indices of the set bits of `m`, in order, then zeros. A `pshufb` by row
    /// `m` packs the bytes of eight that `m` keeps to the left.
    pub(crate) static PACK: [[u8; 8]; 256] = {
        let mut t = [[0u8; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let (mut k, mut j) = (0, 0);
            while k < 8 {
                if m >> k & 1 == 1 {
                    t[m][j] = k as u8;
                    j += 1;
                }
                k += 1;
            }
            m += 1;
        }
        t
    };

    /// Appends `inner`, the inside of a quoted CSV field whose quotes come in doubled pairs
    /// (as the field split checked), with every second quote of a pair left out. Sixteen
    /// bytes at a time: the quotes to drop are the even ones by a prefix XOR of the quote
    /// mask, and each eight bytes are packed by one shuffle. The search-and-copy per quote
    /// this replaces cost two calls per doubled quote, and a jsonb document has one every
    /// ten bytes.
    ///
    /// # Safety
    /// The CPU has AVX2 ([`available`]).
    #[target_feature(enable = "avx2,popcnt")]
    pub fn undouble(inner: &[u8], out: &mut Vec<u8>) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadl_epi64, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_set1_epi8, _mm_shuffle_epi8, _mm_srli_si128, _mm_storel_epi64, _mm_storeu_si128,
        };
        // Every store writes up to sixteen bytes at or before the next byte out, and at
        // most `inner.len()` bytes are kept.
        out.reserve(inner.len() + 16);
        let base = out.len();
        let mut j = base;
        // The number of quotes before the block is odd: its first one closes a pair.
        let mut odd = 0u32;
        let mut i = 0;
        let dst = out.as_mut_ptr();
        // SAFETY: loads read `inner[i..i + 16]`, inside `inner`; stores write
        // `dst[j..j + 16]` or `dst[j..j + 8]` with `j - base <= i`, so inside the reserved
        // `base + inner.len() + 16` bytes; the length is set to the bytes written.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            while i + 16 <= inner.len() {
                let x = _mm_loadu_si128(inner.as_ptr().add(i).cast::<__m128i>());
                let q = _mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)) as u32;
                if q == 0 {
                    _mm_storeu_si128(dst.add(j).cast::<__m128i>(), x);
                    j += 16;
                    i += 16;
                    continue;
                }
                // Bit k of `px`: the quotes up to k, with those before the block, are odd.
                let px = super::prefix_xor(u64::from(q)) as u32 ^ odd.wrapping_neg();
                let keep = !(q & !px) & 0xffff;
                odd ^= q.count_ones() & 1;
                for (half, m) in [(x, keep & 0xff), (_mm_srli_si128(x, 8), keep >> 8)] {
                    let shuf = _mm_loadl_epi64(PACK[m as usize].as_ptr().cast::<__m128i>());
                    _mm_storel_epi64(dst.add(j).cast::<__m128i>(), _mm_shuffle_epi8(half, shuf));
                    j += m.count_ones() as usize;
                }
                i += 16;
            }
            for &b in &inner[i..] {
                if b == b'"' {
                    odd ^= 1;
                    if odd == 0 {
                        continue;
                    }
                }
                *dst.add(j) = b;
                j += 1;
            }
            out.set_len(j);
        }
    }

    /// Proof that the CPU has the features ([`Wide::new`] checks): a scan generic over
    /// [`super::Blocks`] takes its blocks with the functions above.
    #[derive(Clone, Copy)]
    pub(super) struct Wide(());

    impl Wide {
        pub(super) fn new() -> Option<Wide> {
            available().then_some(Wide(()))
        }
    }

    impl super::Blocks for Wide {
        #[inline(always)]
        fn masks(self, b: &[u8]) -> [u64; 2] {
            let b = &b[..64];
            // SAFETY: a `Wide` exists only on a CPU with AVX2 (`new`), and `b` has 64 bytes.
            unsafe {
                let (lo, hi) = load(b.as_ptr());
                [
                    eq(lo, hi, _mm256_set1_epi8(b'"' as i8)),
                    eq(lo, hi, _mm256_set1_epi8(b'\n' as i8)),
                ]
            }
        }

        #[inline(always)]
        fn prefix_xor(self, x: u64) -> u64 {
            // SAFETY: a `Wide` exists only on a CPU with PCLMULQDQ (`new`).
            unsafe { prefix_xor(x) }
        }
    }

    /// The scan with these blocks, compiled for the features so that they inline.
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,lzcnt")]
    pub(super) fn scan<const COUNT: bool>(
        w: Wide,
        data: &[u8],
        pos: &mut usize,
        in_quote: &mut bool,
        until: usize,
        ends: &mut Vec<usize>,
        qn: &mut super::QuotedNewlines,
    ) {
        super::scan::<COUNT, Wide>(w, data, pos, in_quote, until, ends, qn);
    }
}

/// Bit `k` of mask `j`: byte `k` of `b[..64]` is `needles[j]`. Sixteen bytes per compare
/// with SSE2 (x86_64's baseline), a byte loop elsewhere.
#[inline(always)]
pub fn byte_masks<const N: usize>(b: &[u8], needles: [u8; N]) -> [u64; N] {
    let b = &b[..64];
    let mut m = [0u64; N];
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; the loads read `b[16 * q..16 * q + 16]`,
        // inside the 64 bytes checked above.
        unsafe {
            for q in 0..4 {
                let v = _mm_loadu_si128(b.as_ptr().add(16 * q).cast::<__m128i>());
                for (j, &n) in needles.iter().enumerate() {
                    let hit = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(n as i8)));
                    m[j] |= u64::from(hit as u16) << (16 * q);
                }
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (k, &x) in b.iter().enumerate() {
        for (j, &n) in needles.iter().enumerate() {
            m[j] |= u64::from(x == n) << k;
        }
    }
    m
}

/// Bit `k` set when an odd number of bits `0..=k` of `x` are: over a quote mask, the bytes
/// inside quotes (the opening quote in, the closing one out), as simdjson finds them.
#[inline(always)]
pub fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Bytes a scan keeps to 64-byte masks after a quote before it takes up searching again: a
/// search per quote and newline costs a call each, a block of masks the same whatever its
/// quotes, so quoted data (a quoted name per record, a jsonb document) goes by masks and
/// clean data by searches, which stride further. Searches turn to masks at a quoted field
/// that opens within this distance of the last one ([`dense_after`]): an odd quoted value
/// (one record in a hundred with `""`) kept the masks for 4 KiB each time, and cost clean
/// data 15% of a structure check.
pub const DENSE_SPAN: usize = 4096;

/// Where a scan by searches that finds a quoted field opening at `at` (the last one opened at
/// `*last`) takes masks until: `0` (keep searching) unless the two are close.
#[inline]
pub fn dense_after(last: &mut Option<usize>, at: usize) -> usize {
    let near = last.is_some_and(|l| at - l < DENSE_SPAN);
    *last = Some(at);
    if near { at + DENSE_SPAN } else { 0 }
}

/// Scans `data` from `*pos` (outside quotes unless `*in_quote`) and pushes the offset just
/// past each record's `\n`, stopping at the first record end at or past `until` (or at the
/// end of data; `usize::MAX` scans it all). The one record-boundary scanner: the chunk reader
/// and csvsplit's mapped-file paths use it, so they cut records alike. A quote toggles the
/// state; a doubled quote toggles it twice, so only parity matters.
pub fn scan_ends(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
) {
    scan_any::<false>(
        data,
        pos,
        in_quote,
        until,
        ends,
        &mut QuotedNewlines::default(),
    );
}

/// Newlines inside quoted fields met by [`scan_ends_counting`]: with the ends found, the
/// lines the records take, without a second pass over them to count their newlines (which
/// was a third of pksort's reading thread on a jsonb table).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct QuotedNewlines {
    /// Those before the last record end pushed.
    pub before_last_end: u64,
    /// Those up to where the scan stopped (the scan's state, for the next call).
    seen: u64,
}

/// [`scan_ends`] that also counts the newlines inside quoted fields into `qn`: the records
/// up to the last end pushed take `ends pushed + qn.before_last_end` lines.
pub fn scan_ends_counting(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
    qn: &mut QuotedNewlines,
) {
    scan_any::<true>(data, pos, in_quote, until, ends, qn);
}

/// The scan with the widest blocks the CPU has.
#[inline]
fn scan_any<const COUNT: bool>(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
    qn: &mut QuotedNewlines,
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(w) = wide::Wide::new() {
        // SAFETY: `w` proves the CPU has the features `wide::scan` is compiled for.
        return unsafe { wide::scan::<COUNT>(w, data, pos, in_quote, until, ends, qn) };
    }
    scan::<COUNT, Portable>(Portable, data, pos, in_quote, until, ends, qn);
}

/// Low `k` bits set (`k` < 64).
#[inline(always)]
fn below(k: u32) -> u64 {
    (1u64 << k) - 1
}

/// [`scan_ends`], counting quoted newlines when `COUNT` (one body, a compiled copy per count
/// and kind of block, so the scans that need no count pay nothing for it).
#[inline(always)]
fn scan<const COUNT: bool, B: Blocks>(
    blocks: B,
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
    qn: &mut QuotedNewlines,
) {
    let mut i = *pos;
    let mut q = *in_quote;
    // Masks up to here (see DENSE_SPAN), then searches again.
    let mut dense_until = 0usize;
    let mut last_open = None;
    while i < data.len() {
        if i < dense_until && i + 64 <= data.len() {
            let [quotes, newlines] = blocks.masks(&data[i..]);
            // Bit k: inside quotes after byte k (a newline is never a quote, so inside at
            // it exactly when inside after it).
            let inside = blocks.prefix_xor(quotes) ^ if q { !0 } else { 0 };
            if quotes != 0 {
                dense_until = i + 64 + DENSE_SPAN;
            }
            let all = newlines & !inside;
            let quoted = newlines & inside;
            let mut e = all;
            while e != 0 {
                let k = e.trailing_zeros();
                let end = i + k as usize + 1;
                ends.push(end);
                if end >= until {
                    if COUNT {
                        qn.seen += u64::from((quoted & below(k)).count_ones());
                        qn.before_last_end = qn.seen;
                    }
                    *pos = end;
                    *in_quote = false;
                    return;
                }
                e &= e - 1;
            }
            if COUNT && quoted != 0 {
                if all != 0 {
                    let k = 63 - all.leading_zeros();
                    qn.before_last_end = qn.seen + u64::from((quoted & below(k)).count_ones());
                }
                qn.seen += u64::from(quoted.count_ones());
            } else if COUNT && all != 0 {
                qn.before_last_end = qn.seen;
            }
            q = inside >> 63 != 0;
            i += 64;
            continue;
        }
        if q {
            match memchr::memchr(b'"', &data[i..]) {
                Some(j) => {
                    if COUNT {
                        qn.seen += memchr::memchr_iter(b'\n', &data[i..i + j]).count() as u64;
                    }
                    i += j + 1;
                    q = false;
                }
                None => {
                    if COUNT {
                        qn.seen += memchr::memchr_iter(b'\n', &data[i..]).count() as u64;
                    }
                    i = data.len()
                }
            }
        } else {
            match memchr::memchr2(b'"', b'\n', &data[i..]) {
                Some(j) => {
                    let at = i + j;
                    i = at + 1;
                    if data[at] == b'"' {
                        q = true;
                        dense_until = dense_after(&mut last_open, at);
                    } else {
                        ends.push(i);
                        if COUNT {
                            qn.before_last_end = qn.seen;
                        }
                        if i >= until {
                            break;
                        }
                    }
                }
                None => i = data.len(),
            }
        }
    }
    *pos = i;
    *in_quote = q;
}

/// The byte-at-a-time scanner [`scan_ends`] is tested against.
#[cfg(test)]
fn scan_ends_strict(
    data: &[u8],
    pos: &mut usize,
    in_quote: &mut bool,
    until: usize,
    ends: &mut Vec<usize>,
) {
    while *pos < data.len() {
        let b = data[*pos];
        *pos += 1;
        if b == b'"' {
            *in_quote = !*in_quote;
        } else if b == b'\n' && !*in_quote {
            ends.push(*pos);
            if *pos >= until {
                return;
            }
        }
    }
}

/// The loop of a read-ahead thread: makes items with `next` (handing it back an item the
/// consumer returned through `back`, so buffers are recycled and memory stays flat) and sends
/// them on `tx` until the input ends, an error (which is sent on) or the consumer hangs up.
pub fn read_ahead<T, B>(
    mut next: impl FnMut(Option<B>) -> Result<Option<T>>,
    tx: &std::sync::mpsc::SyncSender<Result<T>>,
    back: &std::sync::mpsc::Receiver<B>,
) {
    loop {
        match next(back.try_recv().ok()) {
            Ok(Some(item)) => {
                if tx.send(Ok(item)).is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

/// One field of a record, as a span of the raw record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Start of the raw field (at the opening quote if quoted).
    pub start: usize,
    /// End of the raw field (past the closing quote if quoted).
    pub end: usize,
    /// Whether the field was quoted. An unquoted empty field is NULL in the contract.
    pub quoted: bool,
}

impl Field {
    /// The raw bytes, quotes included.
    #[inline]
    pub fn raw<'a>(&self, rec: &'a [u8]) -> &'a [u8] {
        &rec[self.start..self.end]
    }

    /// Whether the field is NULL by COPY's CSV rule: unquoted and equal to the NULL string
    /// `null` (a quoted field is never NULL).
    #[inline]
    pub fn is_null(&self, rec: &[u8], null: &[u8]) -> bool {
        !self.quoted && self.raw(rec) == null
    }

    /// The value: quotes removed and `""` undoubled. Borrows when nothing needs undoubling.
    pub fn value<'a>(&self, rec: &'a [u8]) -> Cow<'a, [u8]> {
        if !self.quoted {
            return Cow::Borrowed(&rec[self.start..self.end]);
        }
        let inner = &rec[self.start + 1..self.end - 1];
        if memchr::memchr(b'"', inner).is_none() {
            return Cow::Borrowed(inner);
        }
        let mut v = Vec::with_capacity(inner.len());
        let mut i = 0;
        while i < inner.len() {
            v.push(inner[i]);
            i += if inner[i] == b'"' { 2 } else { 1 };
        }
        Cow::Owned(v)
    }

    /// [`Field::value`] without an allocation per field: a value with doubled quotes is
    /// undoubled into `scratch` (reused across fields), in runs between the quotes. Content
    /// verification reads every field of every record twice, and a jsonb document or a
    /// composite always has doubled quotes (issue 35, item 8).
    #[inline]
    pub fn value_in<'a>(&self, rec: &'a [u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
        if !self.quoted {
            return &rec[self.start..self.end];
        }
        let inner = &rec[self.start + 1..self.end - 1];
        let Some(first) = memchr::memchr(b'"', inner) else {
            return inner;
        };
        scratch.clear();
        #[cfg(target_arch = "x86_64")]
        if wide::available() {
            // SAFETY: the CPU has AVX2; the split leaves quotes in pairs inside a field.
            unsafe { wide::undouble(inner, scratch) };
            return scratch;
        }
        let mut from = 0;
        let mut q = first;
        loop {
            // `inner[q]` opens a doubled pair: keep one quote, skip the other.
            scratch.extend_from_slice(&inner[from..=q]);
            from = q + 2;
            match inner.get(from..).and_then(|t| memchr::memchr(b'"', t)) {
                Some(n) => q = from + n,
                None => break,
            }
        }
        if from < inner.len() {
            scratch.extend_from_slice(&inner[from..]);
        }
        scratch
    }

    /// True for an unquoted empty field.
    #[inline]
    pub fn is_empty_unquoted(&self) -> bool {
        !self.quoted && self.start == self.end
    }
}

/// What is wrong with a record's quoting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// A `"` inside an unquoted field, at this offset in the record.
    BareQuote(usize),
    /// Something other than `,` or the record end after a closing quote.
    TextAfterQuote(usize),
    /// The record ends inside quotes.
    Unterminated,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Malformed::BareQuote(_) => write!(f, "bare '\"' in an unquoted field"),
            Malformed::TextAfterQuote(_) => write!(f, "text after the closing quote of a field"),
            Malformed::Unterminated => write!(f, "unterminated quoted field"),
        }
    }
}

/// csvcheck's words (and csvload `--check-records`'s) for a blank line in a table of more than
/// one column.
pub const BLANK_LINE_WORDS: &str =
    "blank line (CockroachDB skips it, PostgreSQL reads it as a record)";

/// csvcheck's words (and csvload `--check-records`'s) for an unquoted line `\.`.
pub const END_MARKER_WORDS: &str =
    "unquoted \\. line: PostgreSQL's COPY takes it as the end of data";

impl Malformed {
    /// What is wrong, with where in the record: csvcheck's words, and csvload
    /// `--check-records`'s.
    pub fn words(self) -> String {
        match self {
            Malformed::Unterminated => {
                "unterminated quoted field: the input ends inside quotes".to_string()
            }
            Malformed::BareQuote(at) | Malformed::TextAfterQuote(at) => {
                format!("{self} at byte {at} of the record")
            }
        }
    }
}

/// Strips the record terminator (`\n` or `\r\n`) from a raw record.
#[inline]
pub fn strip_terminator(rec: &[u8]) -> &[u8] {
    let r = rec.strip_suffix(b"\n").unwrap_or(rec);
    r.strip_suffix(b"\r").unwrap_or(r)
}

/// Splits a raw record (terminator included or not) into fields, strictly by RFC 4180.
/// `out` is cleared first; reuse it across records.
pub fn split_fields(rec: &[u8], out: &mut Vec<Field>) -> Result<(), Malformed> {
    split_fields_upto(rec, usize::MAX, out)
}

/// [`split_fields`], stopping after `n` fields: a tool that needs only the first columns
/// (a sort key) need not look at the rest, which pass through untouched anyway (in pksort a
/// third of the time went into splitting fields no key uses).
pub fn split_fields_upto(rec: &[u8], n: usize, out: &mut Vec<Field>) -> Result<(), Malformed> {
    out.clear();
    // The fields are searched for in `rec` itself, terminator and all (it holds no `,` and no
    // `"`), and the record's end is looked at only when a field runs up to it: a sort key in
    // the first columns then touches only the record's first bytes. Stripping the terminator
    // first read the record's last byte, a second cache line per record, and in pksort's key
    // pass over a mapped file most of that pass's time was spent waiting for it.
    let len = rec.len();
    let mut i = 0;
    while out.len() < n {
        if i < len && rec[i] == b'"' {
            let start = i;
            i += 1;
            loop {
                match memchr::memchr(b'"', &rec[i..]) {
                    None => return Err(Malformed::Unterminated),
                    Some(j) => {
                        i += j + 1;
                        if i < len && rec[i] == b'"' {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            out.push(Field {
                start,
                end: i,
                quoted: true,
            });
            // After a closing quote the body ends exactly where the rest is a terminator
            // (the byte before is the quote, so no `\r` of it belongs to the body).
            match &rec[i..] {
                [b',', ..] => i += 1,
                [] | b"\n" | b"\r" | b"\r\n" => return Ok(()),
                _ => return Err(Malformed::TextAfterQuote(i)),
            }
        } else {
            let start = i;
            let (end, last) = match memchr::memchr2(b',', b'"', &rec[i..]) {
                Some(j) if rec[i + j] == b'"' => return Err(Malformed::BareQuote(i + j)),
                Some(j) => (i + j, false),
                None => (strip_terminator(rec).len(), true),
            };
            out.push(Field {
                start,
                end,
                quoted: false,
            });
            if last {
                return Ok(());
            }
            i = end + 1;
        }
    }
    Ok(())
}

/// Bytes of `x` that are zero, as their high bits (exact: no borrow between bytes).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const HI7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((x & HI7).wrapping_add(HI7)) | x | HI7)
}

/// Where [`FastSplit::events`] leaves a record.
enum Step {
    /// Go on with the next block.
    Go,
    /// The record ended with a quoted field; all fields are out.
    Done,
    /// A quoting mistake: the strict split says which.
    Strict,
}

/// The state of [`split_fields_fast`] between blocks: the field being read.
struct FastSplit {
    /// Where the current field starts (at its opening quote if quoted).
    start: usize,
    /// The current field is quoted and not yet closed.
    quoted: bool,
    /// Events before this offset were taken already (the second quote of a doubled pair, the
    /// comma after a closing quote).
    skip: usize,
}

impl FastSplit {
    /// Takes the quotes and commas of a block at `base` in order: bit `k << shift` of a mask
    /// set means that byte at `base + k` (a byte mask has one bit per byte, a word trick's
    /// its high bits). RFC 4180 as [`split_fields_upto`] reads it; anything else is
    /// [`Step::Strict`], so errors are the strict split's own.
    #[inline(always)]
    fn events(
        &mut self,
        body: &[u8],
        out: &mut Vec<Field>,
        base: usize,
        quotes: u64,
        commas: u64,
        shift: u32,
    ) -> Step {
        let mut ev = quotes | commas;
        while ev != 0 {
            if self.quoted {
                // Inside a quoted field only its closing quote matters, and a jsonb document
                // has a doubled quote every ten bytes and commas between: find it by masks,
                // not event by event. The quotes left in the block, from `skip` on, alternate
                // between one that may close and the second of a pair; one that may close and
                // is not followed by a quote in the block is the first candidate.
                let lo = (self.skip.saturating_sub(base) as u32) << shift;
                let from = if lo >= 64 { 0 } else { u64::MAX << lo };
                let q = quotes & ev & from;
                let close = q & prefix_xor(q) & !(quotes >> (1u32 << shift));
                if close == 0 {
                    return Step::Go; // every quote left is paired inside the block
                }
                let bit = close & close.wrapping_neg();
                let at = base + (close.trailing_zeros() >> shift) as usize;
                ev &= !(bit | (bit - 1));
                match body.get(at + 1) {
                    // The last byte of the block, paired with the next block's first.
                    Some(b'"') => self.skip = at + 2,
                    None => {
                        out.push(Field {
                            start: self.start,
                            end: at + 1,
                            quoted: true,
                        });
                        return Step::Done;
                    }
                    Some(b',') => {
                        out.push(Field {
                            start: self.start,
                            end: at + 1,
                            quoted: true,
                        });
                        self.quoted = false;
                        self.start = at + 2;
                        self.skip = at + 2;
                    }
                    Some(_) => return Step::Strict, // text after the closing quote
                }
                continue;
            }
            let bit = ev & ev.wrapping_neg();
            let at = base + (ev.trailing_zeros() >> shift) as usize;
            ev &= ev - 1;
            if at < self.skip {
                continue;
            }
            // Outside quotes: a comma ends a field, a quote opens one where it starts.
            if quotes & bit == 0 {
                out.push(Field {
                    start: self.start,
                    end: at,
                    quoted: false,
                });
                self.start = at + 1;
            } else if at == self.start {
                self.quoted = true;
            } else {
                return Step::Strict; // a bare quote
            }
        }
        Step::Go
    }
}

/// [`split_fields`] of `rec` whose `body` is `rec` without its terminator ([`strip_terminator`]),
/// with one pass over the record sixteen (or eight) bytes at a time instead of one search per
/// field, quoted fields included: a record with a quoted name or a jsonb document costs a few
/// bit operations per quote, not the strict split's search per field (which made a quoted
/// field in every record cost 1.5-2x a clean check). Quoting mistakes take the strict path,
/// so the result, errors included, is always [`split_fields`]'s.
#[inline]
pub fn split_fields_fast(rec: &[u8], body: &[u8], out: &mut Vec<Field>) -> Result<(), Malformed> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    out.clear();
    let n = body.len();
    let mut st = FastSplit {
        start: 0,
        quoted: false,
        skip: 0,
    };
    let mut i = 0;
    macro_rules! take {
        ($base:expr, $q:expr, $c:expr, $shift:expr) => {
            match st.events(body, out, $base, $q, $c, $shift) {
                Step::Go => {}
                Step::Done => return Ok(()),
                Step::Strict => return split_fields(rec, out),
            }
        };
    }
    // Sixteen bytes at a time with SSE2, which every x86_64 CPU has (no runtime detection):
    // two compares and two byte masks per block instead of the word trick's ten operations
    // per eight bytes. A typed check splits every record, so this loop is a fifth of it.
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is in x86_64's baseline; every load reads `body[i..i + 16]`, inside
        // the slice (`i + 16 <= n`), unaligned loads being allowed.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let comma = _mm_set1_epi8(b',' as i8);
            while i + 16 <= n {
                let v = _mm_loadu_si128(body.as_ptr().add(i).cast::<__m128i>());
                let q = _mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u32;
                let c = _mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) as u32;
                take!(i, u64::from(q), u64::from(c), 0);
                i += 16;
            }
        }
    }
    while i + 8 <= n {
        let mut word = [0u8; 8];
        word.copy_from_slice(&body[i..i + 8]);
        let w = u64::from_le_bytes(word);
        let q = zero_bytes(w ^ (ONES * b'"' as u64));
        let c = zero_bytes(w ^ (ONES * b',' as u64));
        take!(i, q, c, 3);
        i += 8;
    }
    let (mut q, mut c) = (0u64, 0u64);
    for (k, &b) in body[i..].iter().enumerate() {
        q |= u64::from(b == b'"') << k;
        c |= u64::from(b == b',') << k;
    }
    take!(i, q, c, 0);
    if st.quoted {
        return split_fields(rec, out); // never closed
    }
    out.push(Field {
        start: st.start,
        end: n,
        quoted: false,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value_in` gives `value`'s bytes for quoted fields with and without doubled quotes,
    /// at the ends and in runs, and for unquoted fields.
    #[test]
    fn value_in_agrees_with_value() {
        let mut scratch = Vec::new();
        for rec in [
            &b"a,\"\",\"\"\"\",\"x\"\"\",\"\"\"y\",\"a\"\"\"\"b\",\"{\"\"k\"\": 1}\",\"plain\"\n"[..],
            b"\"\"\"\"\"\"\"\",z",
        ] {
            let mut fields = Vec::new();
            split_fields(rec, &mut fields).unwrap();
            let body = strip_terminator(rec);
            for f in &fields {
                assert_eq!(f.value_in(body, &mut scratch), &*f.value(body), "{f:?}");
            }
        }
    }

    #[test]
    fn file_maps_start_anywhere_and_map_chunks_cut_like_the_reader() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        let mut data = Vec::new();
        for i in 0..40_000u32 {
            data.extend_from_slice(
                format!("{i},\"a\nb\",{}\n", "z".repeat((i % 97) as usize)).as_bytes(),
            );
        }
        data.extend_from_slice(b"last,no newline");
        std::fs::write(&p, &data).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        for off in [0u64, 1, 4095, 4096, 4097, 100_001] {
            let m = FileMap::new(&f, off, 5000, &[]).unwrap();
            assert_eq!(m.as_ref(), &data[off as usize..off as usize + 5000]);
        }
        assert!(FileMap::new(&f, 0, 0, &[]).is_none());
        for target in [1, 4096, 100_000, 1 << 20] {
            let mut r = ChunkReader::new(&data[..], "x.csv", target);
            let mut m = MapChunks::open(&p, "x.csv", target, target > 1)
                .unwrap()
                .unwrap();
            let mut held = Vec::new();
            loop {
                let (a, b) = (r.next_chunk(Vec::new()).unwrap(), m.next_chunk().unwrap());
                let (Some(a), Some(b)) = (a, b) else {
                    break;
                };
                assert_eq!(a.len(), b.len(), "target {target}");
                assert_eq!(
                    (a.first_record, a.first_line, a.first_byte),
                    (b.first_record, b.first_line, b.first_byte)
                );
                held.push((a, b));
            }
            assert!(r.next_chunk(Vec::new()).unwrap().is_none());
            assert!(m.next_chunk().unwrap().is_none());
            // Every second chunk dropped (its pages unmapped, boundary pages shared with
            // its neighbours included): the others still read the file's bytes.
            let mut k = 0;
            held.retain(|_| {
                k += 1;
                k % 2 == 0
            });
            for (a, b) in &held {
                assert_eq!(
                    a.records().collect::<Vec<_>>(),
                    b.records().collect::<Vec<_>>(),
                    "target {target}"
                );
            }
        }
        // Not a regular file, or empty: read instead.
        assert!(MapChunks::open(dir.path(), "d", 1, true).unwrap().is_none());
        std::fs::write(&p, b"").unwrap();
        assert!(MapChunks::open(&p, "x.csv", 1, true).unwrap().is_none());
    }

    #[test]
    fn split_fields_fast_agrees_with_split_fields() {
        let recs: &[&[u8]] = &[
            b"a,b,c\n",
            b"a,,c\r\n",
            b"",
            b",",
            b"x",
            b"a,\"b,c\",d\n",
            b"a,b\"c\n",
            b"\"open\n",
            b"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21\n",
            b",,,,,,,,,,,,,,,,,\n",
            b"abcdefgh,ijklmnop,\xff\xfe,\x80\x2c\xac,qrstuvwx\n",
            b"abcdefghijklmnop,qrstuvw\"x\n",
            b"abcdefghijklmnop,\"qrst,uvw\",x,y,z\r\n",
        ];
        for rec in recs {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(rec, &mut a);
            let rb = split_fields_fast(rec, strip_terminator(rec), &mut b);
            assert_eq!(ra, rb, "{rec:?}");
            if ra.is_ok() {
                assert_eq!(a, b, "{rec:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// `value_in` (sixteen bytes at a time with AVX2) gives back any value quoted with
        /// its quotes doubled: quotes in runs, at every place in and across the blocks, and
        /// in the tail; into a scratch that held a longer value before.
        #[test]
        fn value_in_undoubles_any_value(v in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'a', b'"', b'"', b',', b'\n', 0xff]), 0..90)) {
            let mut rec = b"x,\"".to_vec();
            for &b in &v {
                rec.extend_from_slice(if b == b'"' { b"\"\"" } else { std::slice::from_ref(&b) });
            }
            rec.extend_from_slice(b"\",y\n");
            let mut fields = Vec::new();
            split_fields(&rec, &mut fields).unwrap();
            let mut scratch = vec![b'z'; 200];
            proptest::prop_assert_eq!(fields[1].value_in(&rec, &mut scratch), &v[..]);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The sixteen- and eight-byte paths of the fast split against the strict one, on
        /// records whose commas and quotes fall at every place in and across the blocks.
        #[test]
        fn split_fields_fast_agrees_on_any_record(rec in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b',', b',', b'"', b'\r', b'\n', 0xff, b' ']), 0..80)) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(&rec, &mut a);
            let rb = split_fields_fast(&rec, strip_terminator(&rec), &mut b);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", rec);
            if ra.is_ok() {
                proptest::prop_assert_eq!(a, b, "{:?}", rec);
            }
        }
    }

    /// A byte-at-a-time split of the record's body (its terminator stripped first), RFC 4180
    /// as [`split_fields_upto`] reads it, stopping after `n` fields: the reference its
    /// searches are held to.
    fn split_walk(rec: &[u8], n: usize, out: &mut Vec<Field>) -> Result<(), Malformed> {
        out.clear();
        let body = strip_terminator(rec);
        let mut i = 0;
        while out.len() < n {
            let start = i;
            if body.get(i) == Some(&b'"') {
                i += 1;
                loop {
                    match (body.get(i), body.get(i + 1)) {
                        (None, _) => return Err(Malformed::Unterminated),
                        (Some(b'"'), Some(b'"')) => i += 2,
                        (Some(b'"'), _) => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                out.push(Field {
                    start,
                    end: i,
                    quoted: true,
                });
                match body.get(i) {
                    None => return Ok(()),
                    Some(b',') => i += 1,
                    Some(_) => return Err(Malformed::TextAfterQuote(i)),
                }
            } else {
                while let Some(&b) = body.get(i) {
                    match b {
                        b',' => break,
                        b'"' => return Err(Malformed::BareQuote(i)),
                        _ => i += 1,
                    }
                }
                out.push(Field {
                    start,
                    end: i,
                    quoted: false,
                });
                if i == body.len() {
                    return Ok(());
                }
                i += 1;
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6000))]
        /// `split_fields_upto`, which looks at the record's end only when a field reaches
        /// it, splits every record, terminators and all (`\r`, `\n` and both, in and after
        /// fields), as a walk over the stripped body does, for every field count.
        #[test]
        fn split_upto_agrees_with_a_walk(
            rec in proptest::collection::vec(proptest::sample::select(
                vec![b'a', b',', b',', b'"', b'"', b'\r', b'\n', 0xff]), 0..24),
            n in 1usize..8,
        ) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields_upto(&rec, n, &mut a);
            let rb = split_walk(&rec, n, &mut b);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", rec);
            proptest::prop_assert_eq!(a, b, "{:?}", rec);
        }
    }

    /// A record of well-formed fields (quoted ones with commas, newlines and doubled quotes,
    /// of any length), then maybe one byte overwritten, so that long quoted fields put their
    /// pairs and closing quotes at every place in and across the sixteen-byte blocks, the
    /// eight-byte word and the tail.
    fn csv_record() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let field = (
            any::<bool>(),
            proptest::collection::vec(
                proptest::sample::select(vec![b'a', b'a', b'a', b'"', b',', b'\n', b' ']),
                0..40,
            ),
        );
        (
            proptest::collection::vec(field, 1..5),
            proptest::option::of((
                any::<usize>(),
                proptest::sample::select(vec![b'"', b',', b'a']),
            )),
        )
            .prop_map(|(fields, poke)| {
                let mut rec = Vec::new();
                for (k, (quoted, text)) in fields.iter().enumerate() {
                    if k > 0 {
                        rec.push(b',');
                    }
                    if *quoted {
                        rec.push(b'"');
                        for &b in text {
                            rec.extend_from_slice(if b == b'"' {
                                b"\"\""
                            } else {
                                std::slice::from_ref(&b)
                            });
                        }
                        rec.push(b'"');
                    } else {
                        rec.extend(text.iter().filter(|&&b| b == b'a' || b == b' '));
                    }
                }
                if let Some((at, b)) = poke
                    && !rec.is_empty()
                {
                    let n = rec.len();
                    rec[at % n] = b;
                }
                rec.push(b'\n');
                rec
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The fast split against the strict one on well-formed records and on records one
        /// byte away from well-formed.
        #[test]
        fn split_fields_fast_agrees_on_quoted_fields(rec in csv_record()) {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = split_fields(&rec, &mut a);
            let rb = split_fields_fast(&rec, strip_terminator(&rec), &mut b);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", String::from_utf8_lossy(&rec));
            if ra.is_ok() {
                proptest::prop_assert_eq!(a, b, "{:?}", String::from_utf8_lossy(&rec));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The scan by searches and by 64-byte masks against the byte-at-a-time one, on data
        /// whose quotes, newlines, CRs and 0xff bytes fall at every place in and across the
        /// blocks, stopped at any `until` and resumed (inside quotes too); the counting scan
        /// finds the same ends and as many lines as there are newlines before the last.
        #[test]
        fn scan_ends_agrees_with_the_strict_scan(
            data in proptest::collection::vec(proptest::sample::select(
                vec![b'a', b'a', b'a', b',', b'"', b'\n', b'\r', 0xff]), 0..400),
            steps in proptest::collection::vec(0usize..300, 1..6),
        ) {
            let (mut pa, mut qa, mut ea) = (0, false, Vec::new());
            let (mut pb, mut qb, mut eb) = (0, false, Vec::new());
            let (mut pc, mut qc, mut ec) = (0, false, Vec::new());
            let (mut pd, mut qd, mut ed) = (0, false, Vec::new());
            let (mut qn, mut qnd) = (QuotedNewlines::default(), QuotedNewlines::default());
            let mut k = 0;
            while pa < data.len() || pb < data.len() {
                let until = pa + steps[k % steps.len()];
                k += 1;
                scan_ends(&data, &mut pa, &mut qa, until, &mut ea);
                scan_ends_strict(&data, &mut pb, &mut qb, until, &mut eb);
                scan_ends_counting(&data, &mut pc, &mut qc, until, &mut ec, &mut qn);
                // The portable blocks, whichever the CPU would take.
                scan::<true, Portable>(Portable, &data, &mut pd, &mut qd, until, &mut ed, &mut qnd);
                proptest::prop_assert_eq!((pa, qa, &ea), (pb, qb, &eb));
                proptest::prop_assert_eq!((pc, qc, &ec), (pb, qb, &eb));
                proptest::prop_assert_eq!((pd, qd, &ed, qnd), (pb, qb, &eb, qn));
                // The lines up to the last end: every newline there, quoted or not.
                let last = eb.last().copied().unwrap_or(0);
                let lines = data[..last].iter().filter(|&&b| b == b'\n').count() as u64;
                proptest::prop_assert_eq!(ec.len() as u64 + qn.before_last_end, lines);
            }
        }
    }

    #[test]
    fn scan_ends_stops_at_until_and_resumes() {
        let data = b"a,b\n\"x\ny\",2\r\n\"\"\"q\",\n,\nlast";
        for step in [1, 3, 7, 100] {
            let (mut pos, mut q, mut ends) = (0, false, Vec::new());
            let mut until = step;
            while pos < data.len() {
                scan_ends(data, &mut pos, &mut q, until, &mut ends);
                until = pos + step;
            }
            assert_eq!(ends, [4, 13, 20, 22], "step {step}");
            assert!(!q);
        }
    }

    fn chunks(input: &[u8], target: usize) -> Result<Vec<Vec<u8>>> {
        let mut r = ChunkReader::new(input, "t", target);
        let mut out = Vec::new();
        while let Some(c) = r.next_chunk(Vec::new())? {
            for rec in c.records() {
                out.push(rec.to_vec());
            }
        }
        Ok(out)
    }

    /// A pipe's reader: a few bytes per read, an interruption between reads, and optionally
    /// an error after `fail_at` bytes.
    struct Trickle<'a> {
        data: &'a [u8],
        at: usize,
        step: usize,
        interrupt: bool,
        fail_at: Option<usize>,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(std::io::Error::other("device gone"));
            }
            let n = self.step.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            self.step = self.step % 7 + 1;
            Ok(n)
        }
    }

    /// Short reads and interruptions (a pipe, a signal) cut the same records as one read of
    /// everything; a read error is reported under the input's name, with nothing taken for
    /// the end of the input.
    #[test]
    fn short_and_interrupted_reads_cut_the_same_records() {
        let mut input = Vec::new();
        for i in 0..30_000u32 {
            input.extend_from_slice(
                format!("{i},\"a\nb\",{}\n", "z".repeat((i % 31) as usize)).as_bytes(),
            );
        }
        for target in [1, 100, 65_536, 1 << 20] {
            let trickle = Trickle {
                data: &input,
                at: 0,
                step: 1,
                interrupt: false,
                fail_at: None,
            };
            let mut r = ChunkReader::new(trickle, "t", target);
            let mut got = Vec::new();
            while let Some(c) = r.next_chunk(Vec::new()).unwrap() {
                got.extend(c.records().map(<[u8]>::to_vec));
            }
            assert_eq!(got, chunks(&input, target).unwrap(), "target {target}");
            assert_eq!(got.len(), 30_000);
        }
        let failing = Trickle {
            data: &input,
            at: 0,
            step: 1,
            interrupt: false,
            fail_at: Some(200_000),
        };
        let mut r = ChunkReader::new(failing, "pipe.csv", 1 << 16);
        let err = loop {
            match r.next_chunk(Vec::new()) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("a failed read ended the input"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(
            err.contains("pipe.csv") && err.contains("device gone"),
            "{err}"
        );
    }

    #[test]
    fn records_survive_any_chunk_size() {
        let input = b"a,b\n\"x\ny\",2\r\n\"\"\"q\",\n,\nlast";
        for t in [1, 2, 3, 5, 8, 1000] {
            let recs = chunks(input, t).unwrap();
            assert_eq!(
                recs,
                vec![
                    b"a,b\n".to_vec(),
                    b"\"x\ny\",2\r\n".to_vec(),
                    b"\"\"\"q\",\n".to_vec(),
                    b",\n".to_vec(),
                    b"last".to_vec()
                ],
                "target {t}"
            );
        }
        assert!(chunks(b"", 10).unwrap().is_empty());
    }

    #[test]
    fn unterminated_quote_is_reported_with_position() {
        let err = chunks(b"a\nb\n\"open,\nmore", 4).unwrap_err().to_string();
        assert!(err.contains("t:3:"), "{err}");
        assert!(err.contains("record 3"), "{err}");
        assert!(err.contains("byte 4"), "{err}");
    }

    #[test]
    fn bare_quote_and_failed_upstream_are_named() {
        let err = chunks(b"id,v\n1,ab\"c\n2,x\n", 4).unwrap_err().to_string();
        assert!(
            err.contains("bare quote in unquoted field at line 2, byte 9"),
            "{err}"
        );
        let mut s = b"1,a\n2,\"".to_vec();
        s.extend_from_slice(crate::io::stream::INCOMPLETE);
        let mut r = ChunkReader::new(&s[..], "t", 1 << 20);
        r.keep_unterminated(true);
        let err = r.next_chunk(Vec::new()).unwrap_err().to_string();
        assert!(err.contains("the tool that wrote it failed"), "{err}");
    }

    #[test]
    fn positions() {
        let mut r = ChunkReader::new(&b"a\n\"b\nc\"\nd\n"[..], "f", 1 << 20);
        let c = r.next_chunk(Vec::new()).unwrap().unwrap();
        let p = c.pos(2, "f");
        assert_eq!((p.line, p.byte, p.record), (4, 8, Some(3)));
    }

    #[test]
    fn fields() {
        let mut f = Vec::new();
        let rec = b"a,\"b,\"\"c\",,\"\"\r\n";
        split_fields(rec, &mut f).unwrap();
        assert_eq!(f.len(), 4);
        assert_eq!(&*f[0].value(rec), b"a");
        assert_eq!(&*f[1].value(rec), b"b,\"c");
        assert!(f[2].is_empty_unquoted());
        assert!(f[3].quoted && f[3].value(rec).is_empty());
        assert_eq!(
            split_fields(b"a,b\"c", &mut f),
            Err(Malformed::BareQuote(3))
        );
        assert_eq!(
            split_fields(b"\"a\"b", &mut f),
            Err(Malformed::TextAfterQuote(3))
        );
        assert_eq!(split_fields(b"\"a", &mut f), Err(Malformed::Unterminated));
        split_fields(b"", &mut f).unwrap();
        assert_eq!(f.len(), 1);
        split_fields(b"x,\n", &mut f).unwrap();
        assert_eq!(f.len(), 2);
    }
}
