//! Writing outputs safely: files appear under their final name only when complete
//! (an unnamed temp file linked into place, or a named one renamed), stdout is buffered, and
//! `.gz` outputs are compressed. [`Guard`] refuses, before anything is written, an output
//! that would replace an input or another output of the same run, and (the toolkit's one
//! overwrite rule) an output file that exists already, unless the tool was given `--force`.
//!
//! Every writer here must be finished with an explicit call (`commit`/`finish`): `Drop` cannot
//! report errors, so a writer dropped without it removes its temporary file instead of leaving
//! a silently truncated output behind, and standard output dropped unfinished ends with
//! [`INCOMPLETE`], so that the next tool of a pipeline fails instead of taking a cut stream
//! for a whole one.

mod guard;
pub use guard::{Guard, exists};

use crate::io::error::{Error, IoContext, Result};
use crate::io::signals;
use guard::check_dest;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

const BUF: usize = 256 << 10;

/// A file written under a temporary name beside its destination and renamed into place by
/// [`AtomicFile::commit`]. Dropped without commit, the temporary is removed.
pub struct AtomicFile {
    /// The temporary name: the file is there while written, or (`unnamed`) only linked there
    /// at commit.
    tmp: PathBuf,
    /// Written through an `O_TMPFILE` file that has no name until commit, so that nothing is
    /// left behind even by SIGKILL.
    unnamed: bool,
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
            return Ok(AtomicFile::with(f, dest.to_path_buf(), dest, false, true));
        }
        check_dest(dest)?;
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if fs::metadata(parent).is_ok_and(|m| !m.is_dir()) {
            return Err(Error::file(
                parent.display().to_string(),
                format!(
                    "is not a directory, so {} cannot be created in it",
                    dest.display()
                ),
            ));
        }
        fs::create_dir_all(parent).at(parent)?;
        let tmp = temp_name(dest);
        // The unnamed file is linked by its /proc/self/fd name at commit: without /proc it
        // could not be committed at all.
        let unnamed = Path::new("/proc/self/fd")
            .is_dir()
            .then(|| {
                OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_TMPFILE)
                    .mode(0o666)
                    .open(parent)
                    .ok()
            })
            .flatten();
        if let Some(f) = unnamed {
            return Ok(AtomicFile::with(f, tmp, dest, true, false));
        }
        // No O_TMPFILE on this file system: a named temporary, removed on any end but SIGKILL.
        signals::register_temp(tmp.clone());
        let f = File::create(&tmp).at(&tmp)?;
        Ok(AtomicFile::with(f, tmp, dest, false, false))
    }

    /// The file `f` written at `tmp` (an unnamed file when `unnamed`; `dest` itself when
    /// `direct`), to become `dest`.
    fn with(f: File, tmp: PathBuf, dest: &Path, unnamed: bool, direct: bool) -> AtomicFile {
        AtomicFile {
            tmp,
            unnamed,
            dest: dest.to_path_buf(),
            w: Some(BufWriter::with_capacity(BUF, f)),
            direct,
        }
    }

    /// Reopens a committed `dest` to append to it: the file is first moved back to its
    /// temporary name, so the final name never shows a half-written state.
    pub fn reopen_append(dest: &Path) -> Result<AtomicFile> {
        let tmp = temp_name(dest);
        signals::register_temp(tmp.clone());
        fs::rename(dest, &tmp).at(dest)?;
        let f = OpenOptions::new().append(true).open(&tmp).at(&tmp)?;
        Ok(AtomicFile::with(f, tmp, dest, false, false))
    }

    /// Appends `len` bytes of `src`, from its offset `off`, with copy_file_range(2): the
    /// kernel copies them page cache to page cache (or shares extents where the file system
    /// can), so they never pass through user space. Returns how many bytes it copied; fewer
    /// than `len` (possibly none) when the kernel refuses this pair of files (different file
    /// systems on old kernels, a destination that is a device or pipe, no support: EXDEV,
    /// EINVAL, ENOSYS, EOPNOTSUPP, EBADF) or `src` ended early: the caller writes the rest
    /// itself. Other errors (ENOSPC, EIO) are errors.
    pub fn copy_range(&mut self, src: &File, mut off: u64, len: u64) -> io::Result<u64> {
        use std::os::fd::AsRawFd;
        let w = self.w.as_mut().expect("not committed");
        // Buffered bytes go first: they precede the copied range in the file.
        w.flush()?;
        let out = w.get_ref().as_raw_fd();
        let mut done = 0u64;
        while done < len {
            let Ok(mut off_in) = libc::loff_t::try_from(off) else {
                break;
            };
            // Large chunks, but well under the kernel's per-call cap (about 2 GiB).
            let want = usize::try_from((len - done).min(1 << 30)).unwrap_or(1 << 30);
            // SAFETY: two open descriptors; the input offset is ours (the source's own file
            // position is untouched); the output's file position advances as write(2) would.
            let n = unsafe {
                libc::copy_file_range(
                    src.as_raw_fd(),
                    &mut off_in,
                    out,
                    std::ptr::null_mut(),
                    want,
                    0,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(
                        libc::EXDEV | libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP | libc::EBADF,
                    ) => break,
                    _ => return Err(e),
                }
            }
            if n == 0 {
                break;
            }
            done += n as u64;
            off += n as u64;
        }
        Ok(done)
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
        if self.direct {
            return Ok(());
        }
        if self.unnamed {
            // linkat() cannot replace a file, so the unnamed file gets its temporary name
            // first and is renamed over the destination as a named one would be.
            use std::os::fd::AsRawFd;
            let _ = fs::remove_file(&self.tmp);
            signals::register_temp(self.tmp.clone());
            let proc = std::ffi::CString::new(format!("/proc/self/fd/{}", f.as_raw_fd()))
                .expect("no NUL in a number");
            let to = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(
                self.tmp.as_os_str(),
            ))
            .map_err(|e| Error::io(&self.dest, io::Error::other(e)))?;
            // SAFETY: both strings are NUL-terminated and live across the call.
            let r = unsafe {
                libc::linkat(
                    libc::AT_FDCWD,
                    proc.as_ptr(),
                    libc::AT_FDCWD,
                    to.as_ptr(),
                    libc::AT_SYMLINK_FOLLOW,
                )
            };
            if r != 0 {
                signals::unregister_temp(&self.tmp);
                return Err(Error::io(&self.dest, io::Error::last_os_error()));
            }
        }
        drop(f);
        fs::rename(&self.tmp, &self.dest).at(&self.dest)?;
        signals::unregister_temp(&self.tmp);
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
        if self.w.take().is_some() && !self.direct && !self.unnamed {
            let _ = fs::remove_file(&self.tmp);
            signals::unregister_temp(&self.tmp);
        }
    }
}

// The marker is defined in `stream`, which readers (`input`, `records`) share with this
// writer; re-exported here, where callers have always found it.
use crate::io::stream::INCOMPLETE;

/// The state of standard output shared with the signal thread: whether a CSV stream is open
/// on it, whether the bytes written so far hold an odd number of `"`, and whether it is
/// compressed (a mark then goes after the compressed bytes, where it breaks the stream).
#[derive(Default)]
struct StdoutState {
    open: bool,
    odd: bool,
    compressed: bool,
}

fn stdout_state() -> &'static Mutex<StdoutState> {
    static S: OnceLock<Mutex<StdoutState>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(StdoutState::default()))
}

/// Standard output below the buffer: counts the quote parity of what was handed to it.
pub struct Counted;

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut st = stdout_state().lock().unwrap_or_else(|e| e.into_inner());
        let n = io::stdout().write(buf)?;
        let quotes = buf[..n].iter().filter(|&&b| b == b'"').count();
        st.odd ^= quotes % 2 == 1;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        io::stdout().flush()
    }
}

/// Ends standard output with [`INCOMPLETE`] if a stream is open on it and unfinished. Called
/// when a writer is dropped unfinished and on a signal; waits only briefly for a writer
/// blocked on a full pipe.
pub fn mark_stdout_incomplete() {
    let mut st = None;
    for _ in 0..50 {
        match stdout_state().try_lock() {
            Ok(g) => {
                st = Some(g);
                break;
            }
            Err(std::sync::TryLockError::Poisoned(e)) => {
                st = Some(e.into_inner());
                break;
            }
            Err(std::sync::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
        }
    }
    let Some(mut st) = st else { return };
    if !st.open {
        return;
    }
    st.open = false;
    let mut out = io::stdout().lock();
    if !st.odd || st.compressed {
        let _ = out.write_all(b"\"");
    }
    let _ = out.write_all(INCOMPLETE);
    let _ = out.flush();
}

/// Declares, before anything is written, that standard output will carry a CSV stream: a
/// tool that then fails before its writer exists (pksort's spill directory full or missing,
/// found only after reading its input) still ends standard output with [`INCOMPLETE`] (the
/// error path of `cli::run` calls [`mark_stdout_incomplete`]), so that the next tool of a pipe
/// fails instead of taking no output for an empty table.
pub fn stdout_stream_pending() {
    stdout_state()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .open = true;
}

/// Buffered standard output that knows whether it was finished: dropped unfinished (the tool
/// failed), it ends the stream with [`INCOMPLETE`].
pub struct StdoutCsv {
    w: BufWriter<Counted>,
    done: bool,
}

impl StdoutCsv {
    fn new(compressed: bool) -> StdoutCsv {
        crate::io::stream::grow_pipe(std::os::fd::AsFd::as_fd(&io::stdout()));
        let mut st = stdout_state().lock().unwrap_or_else(|e| e.into_inner());
        st.open = true;
        st.compressed = compressed;
        StdoutCsv {
            w: BufWriter::with_capacity(BUF, Counted),
            done: false,
        }
    }

    /// Flushes; the stream is complete.
    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()?;
        self.done = true;
        stdout_state()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .open = false;
        Ok(())
    }
}

impl Write for StdoutCsv {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.w.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.w.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

impl Drop for StdoutCsv {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.w.flush();
            mark_stdout_incomplete();
        }
    }
}

/// Where a tool's main output goes.
pub enum Sink {
    /// Standard output.
    Stdout(StdoutCsv),
    /// A file, written atomically.
    File(AtomicFile),
    /// A gzip-compressed file, written atomically.
    Gzip(flate2::write::GzEncoder<AtomicFile>),
    /// Gzip-compressed standard output.
    GzipStdout(flate2::write::GzEncoder<StdoutCsv>),
    /// A file of gzip members of fixed-size blocks (bytes independent of threads).
    GzipBlocks(crate::io::gzblocks::GzBlocks<AtomicFile>),
    /// Standard output as gzip members of fixed-size blocks.
    GzipBlocksStdout(crate::io::gzblocks::GzBlocks<StdoutCsv>),
}

/// True if the path asks for gzip output by its name.
pub fn wants_gzip(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "gz")
}

impl Sink {
    /// Standard output.
    pub fn stdout() -> Sink {
        Sink::Stdout(StdoutCsv::new(false))
    }

    /// `path` (`None` or `-` = stdout), gzip-compressed when `gzip` is set (at `level`, 0-9).
    pub fn create(path: Option<&Path>, gzip: bool, level: u32) -> Result<Sink> {
        let lvl = flate2::Compression::new(level.min(9));
        match path {
            Some(p) if !crate::io::stream::is_stdin(p) => {
                let f = AtomicFile::create(p)?;
                Ok(if gzip {
                    Sink::Gzip(flate2::write::GzEncoder::new(f, lvl))
                } else {
                    Sink::File(f)
                })
            }
            _ => Ok(if gzip {
                Sink::GzipStdout(flate2::write::GzEncoder::new(StdoutCsv::new(true), lvl))
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

    /// `f` (or stdout when `None`) as plain CSV, or gzip members of fixed-size blocks at
    /// `level` compressed on `pool` (see [`crate::io::gzblocks`]) when `level` is given.
    pub fn blocks(
        f: Option<AtomicFile>,
        level: Option<u32>,
        pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    ) -> Sink {
        use crate::io::gzblocks::GzBlocks;
        match (f, level) {
            (Some(f), Some(l)) => Sink::GzipBlocks(GzBlocks::new(f, l, pool)),
            (Some(f), None) => Sink::File(f),
            (None, Some(l)) => Sink::GzipBlocksStdout(GzBlocks::new(StdoutCsv::new(true), l, pool)),
            (None, None) => Sink::stdout(),
        }
    }

    /// True for standard output, compressed or not.
    pub fn is_stdout(&self) -> bool {
        matches!(
            self,
            Sink::Stdout(_) | Sink::GzipStdout(_) | Sink::GzipBlocksStdout(_)
        )
    }

    /// Name for messages.
    pub fn name(&self) -> String {
        match self {
            Sink::Stdout(_) | Sink::GzipStdout(_) | Sink::GzipBlocksStdout(_) => {
                crate::io::error::STDOUT.into()
            }
            Sink::File(f) => f.dest().display().to_string(),
            Sink::Gzip(g) => g.get_ref().dest().display().to_string(),
            Sink::GzipBlocks(g) => g.get_ref().dest().display().to_string(),
        }
    }

    /// Flushes everything and, for files, renames them into place.
    pub fn finish(self) -> Result<()> {
        let name = self.name();
        match self {
            Sink::Stdout(w) => w.finish().at(name),
            Sink::File(f) => f.commit(),
            Sink::Gzip(g) => g.finish().at(&name)?.commit(),
            Sink::GzipStdout(g) => g.finish().at(&name)?.finish().at(&name),
            Sink::GzipBlocks(g) => g.finish().at(&name)?.commit(),
            Sink::GzipBlocksStdout(g) => g.finish().at(&name)?.finish().at(&name),
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
            Sink::GzipBlocks(w) => w.write(buf),
            Sink::GzipBlocksStdout(w) => w.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::File(w) => w.write_all(buf),
            Sink::Gzip(w) => w.write_all(buf),
            Sink::GzipStdout(w) => w.write_all(buf),
            Sink::GzipBlocks(w) => w.write_all(buf),
            Sink::GzipBlocksStdout(w) => w.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
            Sink::GzipStdout(w) => w.flush(),
            Sink::GzipBlocks(w) => w.flush(),
            Sink::GzipBlocksStdout(w) => w.flush(),
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
        // Written through an unnamed file (where the file system has O_TMPFILE): nothing in
        // the directory that SIGKILL could leave.
        if has_tmpfile(dest.parent().unwrap()) {
            assert_eq!(fs::read_dir(dest.parent().unwrap()).unwrap().count(), 0);
        }
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

    fn has_tmpfile(dir: &Path) -> bool {
        OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_TMPFILE)
            .mode(0o600)
            .open(dir)
            .is_ok()
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
