//! Spooling: input that is not a mapped regular file (a pipe, compressed input) is copied
//! into an unnamed temporary file when the split must know the total size first (`-n`,
//! `--by-range` sampling).

use crate::io::error::{Error, IoContext, Result};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Copies a stream (decompressed) into an unnamed temporary file beside the first shard, so
/// `-n` can know the total size before it cuts: the quote state at an arbitrary offset is
/// unknowable without reading everything before it, so cut points are decided during one
/// sequential pass over input of known size.
pub(super) fn spool(
    mut r: Box<dyn Read + Send>,
    name: &str,
    dir: &Path,
) -> Result<(std::fs::File, u64)> {
    std::fs::create_dir_all(dir).at(dir)?;
    let mut f = tempfile::tempfile_in(dir).at(dir)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(name, e)),
        };
        f.write_all(buf.get(..n).unwrap_or_default())
            .map_err(|e| Error::io(dir.join("<spool file>"), e))?;
        total += n as u64;
    }
    f.rewind().at(dir)?;
    Ok((f, total))
}

/// The directory of a shard path (`.` for a bare name).
pub(super) fn shard_dir(shard: &Path) -> PathBuf {
    match shard.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
