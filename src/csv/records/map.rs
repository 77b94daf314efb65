//! Memory-mapped input: [`FileMap`] (a read-only mapping of part of a file), [`MapView`] (one
//! chunk's bytes in it) and [`MapChunks`] (a regular file read as chunks of whole records in
//! place). Apart from the stream reader because this is the part that talks to the kernel
//! (`mmap`, `madvise`) and holds the raw pointers of mappings; it cuts records with the same
//! scan, so its chunks are the reader's.

use super::*;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
