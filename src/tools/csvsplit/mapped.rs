//! Reading a plain regular file through a read-only memory mapping, and finding its record
//! ends in place.
//!
//! Splitting is a copy job, and with `read` it copies every byte twice (page cache to buffer,
//! buffer to the new file's page cache). Mapped, the scan reads the page cache directly and
//! the shard writes copy once, which is what lets a CSV-aware split keep up with GNU
//! `split -C`. The usual caveat of mappings applies: another process truncating the input
//! while csvsplit runs would fault (SIGBUS) instead of returning a short read; pipes, devices
//! and compressed input take the `read` path.

use crate::csv::records::FileMap;
use std::fs::File;
use std::io;

/// A whole file mapped read-only.
pub struct Mapped {
    map: FileMap,
    /// The mapped file, kept open so that plain shards can be copied from it by the kernel
    /// (copy_file_range(2)) instead of from the mapping.
    file: Option<File>,
}

impl Mapped {
    /// Maps `file`, whose length is `len`. `None` for an empty file (nothing to map) or when
    /// the system refuses (then the caller reads instead).
    pub fn new(file: &File, len: u64) -> Option<Mapped> {
        let len = usize::try_from(len).ok()?;
        let map = FileMap::new(file, 0, len, &[libc::MADV_SEQUENTIAL, libc::MADV_WILLNEED])?;
        Some(Mapped {
            map,
            file: file.try_clone().ok(),
        })
    }
}

impl super::pipeline::Source for Mapped {
    fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }
}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        self.map.as_ref()
    }
}

/// Opens `path` and maps it when it is a non-empty regular file.
pub fn map_path(path: &std::path::Path) -> io::Result<Option<Mapped>> {
    let f = File::open(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Ok(None);
    }
    Ok(Mapped::new(&f, m.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"hello\n").unwrap();
        let m = map_path(&p).unwrap().unwrap();
        assert_eq!(m.as_ref(), b"hello\n");
        std::fs::write(&p, b"").unwrap();
        assert!(map_path(&p).unwrap().is_none());
        assert!(map_path(dir.path()).unwrap().is_none());
    }
}
