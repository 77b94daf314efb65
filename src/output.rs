//! Writing outputs safely: files appear under their final name only when complete
//! (temp file + rename), stdout is buffered, and `.gz` outputs are compressed.
//!
//! Every writer here must be finished with an explicit call (`commit`/`finish`): `Drop` cannot
//! report errors, so a writer dropped without it removes its temporary file instead of leaving
//! a silently truncated output behind.

use crate::cli;
use crate::error::{Error, IoContext, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

const BUF: usize = 256 << 10;

/// A file written under a temporary name beside its destination and renamed into place by
/// [`AtomicFile::commit`]. Dropped without commit, the temporary is removed.
pub struct AtomicFile {
    tmp: PathBuf,
    dest: PathBuf,
    w: Option<BufWriter<File>>,
    /// Writing straight into `dest`, which is a device or FIFO (`-o /dev/stdout`,
    /// `/dev/full`): renaming a temporary over it would replace the device node.
    direct: bool,
}

fn temp_name(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = format!(".{name}.{}.tmp", std::process::id());
    dest.with_file_name(tmp)
}

impl AtomicFile {
    /// Starts writing `dest` (created with its missing parent directories).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        if fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let f = OpenOptions::new().write(true).open(dest).at(dest)?;
            return Ok(AtomicFile {
                tmp: dest.to_path_buf(),
                dest: dest.to_path_buf(),
                w: Some(BufWriter::with_capacity(BUF, f)),
                direct: true,
            });
        }
        if let Some(parent) = dest.parent()
            && !parent.as_os_str().is_empty()
        {
            fs::create_dir_all(parent).at(parent)?;
        }
        let tmp = temp_name(dest);
        cli::register_temp(tmp.clone());
        let f = File::create(&tmp).at(&tmp)?;
        Ok(AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            w: Some(BufWriter::with_capacity(BUF, f)),
            direct: false,
        })
    }

    /// Reopens a committed `dest` to append to it: the file is first moved back to its
    /// temporary name, so the final name never shows a half-written state.
    pub fn reopen_append(dest: &Path) -> Result<AtomicFile> {
        let tmp = temp_name(dest);
        cli::register_temp(tmp.clone());
        fs::rename(dest, &tmp).at(dest)?;
        let f = OpenOptions::new().append(true).open(&tmp).at(&tmp)?;
        Ok(AtomicFile {
            tmp,
            dest: dest.to_path_buf(),
            w: Some(BufWriter::with_capacity(BUF, f)),
            direct: false,
        })
    }

    /// The final path.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        let w = self.w.take().expect("writer present until commit");
        let f = w
            .into_inner()
            .map_err(|e| Error::io(&self.dest, e.into_error()))?;
        drop(f);
        if self.direct {
            return Ok(());
        }
        fs::rename(&self.tmp, &self.dest).at(&self.dest)?;
        cli::unregister_temp(&self.tmp);
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.w.as_mut().expect("not committed").write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.w.as_mut().expect("not committed").write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.w.take().is_some() && !self.direct {
            let _ = fs::remove_file(&self.tmp);
            cli::unregister_temp(&self.tmp);
        }
    }
}

/// Where a tool's main output goes.
pub enum Sink {
    /// Standard output.
    Stdout(BufWriter<io::Stdout>),
    /// A file, written atomically.
    File(AtomicFile),
    /// A gzip-compressed file, written atomically.
    Gzip(flate2::write::GzEncoder<AtomicFile>),
    /// Gzip-compressed standard output.
    GzipStdout(flate2::write::GzEncoder<BufWriter<io::Stdout>>),
}

/// True if the path asks for gzip output by its name.
pub fn wants_gzip(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "gz")
}

impl Sink {
    /// Standard output.
    pub fn stdout() -> Sink {
        Sink::Stdout(BufWriter::with_capacity(BUF, io::stdout()))
    }

    /// `path` (`None` or `-` = stdout), gzip-compressed when `gzip` is set (at `level`, 0-9).
    pub fn create(path: Option<&Path>, gzip: bool, level: u32) -> Result<Sink> {
        let lvl = flate2::Compression::new(level.min(9));
        match path {
            Some(p) if !crate::input::is_stdin(p) => {
                let f = AtomicFile::create(p)?;
                Ok(if gzip {
                    Sink::Gzip(flate2::write::GzEncoder::new(f, lvl))
                } else {
                    Sink::File(f)
                })
            }
            _ => Ok(if gzip {
                Sink::GzipStdout(flate2::write::GzEncoder::new(
                    BufWriter::with_capacity(BUF, io::stdout()),
                    lvl,
                ))
            } else {
                Sink::stdout()
            }),
        }
    }

    /// Wraps an already opened atomic file.
    pub fn from_file(f: AtomicFile, gzip: bool, level: u32) -> Sink {
        if gzip {
            Sink::Gzip(flate2::write::GzEncoder::new(
                f,
                flate2::Compression::new(level.min(9)),
            ))
        } else {
            Sink::File(f)
        }
    }

    /// Name for messages.
    pub fn name(&self) -> String {
        match self {
            Sink::Stdout(_) | Sink::GzipStdout(_) => "<stdout>".into(),
            Sink::File(f) => f.dest().display().to_string(),
            Sink::Gzip(g) => g.get_ref().dest().display().to_string(),
        }
    }

    /// Flushes everything and, for files, renames them into place.
    pub fn finish(self) -> Result<()> {
        let name = self.name();
        match self {
            Sink::Stdout(mut w) => w.flush().at(name),
            Sink::File(f) => f.commit(),
            Sink::Gzip(g) => g.finish().at(&name)?.commit(),
            Sink::GzipStdout(g) => g.finish().at(&name)?.flush().at(&name),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::File(w) => w.write(buf),
            Sink::Gzip(w) => w.write(buf),
            Sink::GzipStdout(w) => w.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::File(w) => w.write_all(buf),
            Sink::Gzip(w) => w.write_all(buf),
            Sink::GzipStdout(w) => w.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
            Sink::GzipStdout(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("sub/out.csv");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"a,b\n").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"a,b\n");

        let mut f = AtomicFile::reopen_append(&dest).unwrap();
        assert!(!dest.exists());
        f.write_all(b"c,d\n").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"a,b\nc,d\n");

        let mut f = AtomicFile::create(&dir.path().join("gone.csv")).unwrap();
        f.write_all(b"x").unwrap();
        drop(f);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only sub/ and nothing else: {names:?}");
    }

    #[test]
    fn devices_are_written_in_place() {
        // Renaming a temporary over /dev/null would replace the device node (as root).
        let mut f = AtomicFile::create(Path::new("/dev/null")).unwrap();
        f.write_all(b"x").unwrap();
        f.commit().unwrap();
        let m = fs::metadata("/dev/null").unwrap();
        assert!(!m.is_file(), "/dev/null must stay a device");
        let mut f = AtomicFile::create(Path::new("/dev/full")).unwrap();
        let r = f.write_all(&[0u8; 1 << 20]).and_then(|_| f.flush());
        assert!(r.is_err(), "/dev/full must report ENOSPC");
    }
}
