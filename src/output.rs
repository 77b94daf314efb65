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

use crate::error::{Error, IoContext, Result};
use crate::signals;
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
pub use crate::stream::INCOMPLETE;

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
    GzipBlocks(crate::gzblocks::GzBlocks<AtomicFile>),
    /// Standard output as gzip members of fixed-size blocks.
    GzipBlocksStdout(crate::gzblocks::GzBlocks<StdoutCsv>),
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
            Some(p) if !crate::stream::is_stdin(p) => {
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
    /// `level` compressed on `pool` (see [`crate::gzblocks`]) when `level` is given.
    pub fn blocks(
        f: Option<AtomicFile>,
        level: Option<u32>,
        pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    ) -> Sink {
        use crate::gzblocks::GzBlocks;
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
                crate::error::STDOUT.into()
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

/// One named file of a run, for [`Guard`].
#[derive(Debug, Clone)]
struct Entry {
    /// The option that names it (`-o`, `--dups-out`, `FILE`...).
    option: String,
    /// The path as given.
    path: PathBuf,
    id: Ident,
    output: bool,
    /// An output already created by this run (a second creation is a second writer).
    claimed: bool,
}

/// What makes two paths the same file: the inode of an existing file, and the canonical path
/// (for a file not created yet: its canonical directory plus its name).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ident {
    inode: Option<(u64, u64)>,
    path: PathBuf,
}

impl Ident {
    /// `None` for what cannot be overwritten by renaming: stdin/stdout (`-`), devices, FIFOs,
    /// directories.
    fn of(p: &Path) -> Option<Ident> {
        use std::os::unix::fs::MetadataExt;
        if crate::stream::is_stdin(p) {
            return None;
        }
        match fs::metadata(p) {
            Ok(m) if !m.is_file() => None,
            Ok(m) => Some(Ident {
                inode: Some((m.dev(), m.ino())),
                path: fs::canonicalize(p).unwrap_or_else(|_| absolute(p)),
            }),
            Err(_) => Some(Ident {
                inode: None,
                path: absolute(p),
            }),
        }
    }

    fn same(&self, o: &Ident) -> bool {
        self.path == o.path || (self.inode.is_some() && self.inode == o.inode)
    }
}

/// The canonical form of a path that may not exist yet: its longest existing ancestor
/// canonicalized, plus the remaining components (`.` dropped, `..` applied).
fn absolute(p: &Path) -> PathBuf {
    use std::path::Component;
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut base = p.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = fs::canonicalize(base) {
            let mut out = c;
            for comp in rest.iter().rev() {
                match comp {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c.as_os_str()),
                }
            }
            return out;
        }
        match (base.parent(), base.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                base = parent;
            }
            _ => return p.clone(),
        }
    }
}

/// The files of one run, checked for overlaps before anything is written: an output that is
/// also an input (or another output) would destroy it when renamed into place.
///
/// Built with [`Guard::input`]/[`Guard::output`] and made active with [`Guard::install`],
/// after which every [`AtomicFile::create`] of the process checks its destination against it:
/// files a tool names itself (pgdump2csv's table files, csvsplit's shards) are refused when
/// they would replace an input or an output created earlier in the run.
///
/// The one overwrite rule of the toolkit (dumpshard(7), FILES): an output file that exists
/// before the run is refused (exit 2, a usage error naming its option and the remedy) unless
/// [`Guard::force`]; declared outputs are checked at [`Guard::install`], before anything is
/// written, files the tool names itself when created. Devices, FIFOs and `-` are not files
/// anyone could lose and are written in place.
#[derive(Debug, Default)]
pub struct Guard {
    entries: Vec<Entry>,
    /// What the files created under names the tool chose are, for messages.
    created: String,
    /// Output directories, with their options.
    dirs: Vec<(String, PathBuf)>,
    /// `--force`: an existing file may be replaced. Without it, the toolkit's one overwrite
    /// rule holds: an output file that exists before the run (and so was not created by it)
    /// is refused.
    force: bool,
    /// Directories whose files with one of these name endings the run writes, with their
    /// options: refused at install when any exists (unless `force`).
    dir_files: Vec<(String, PathBuf, Vec<String>)>,
}

fn guard_state() -> &'static Mutex<Option<Guard>> {
    static G: OnceLock<Mutex<Option<Guard>>> = OnceLock::new();
    G.get_or_init(|| Mutex::new(None))
}

impl Guard {
    /// An empty set; `created` says in messages what the files are that the tool names itself
    /// (e.g. "a shard of -o").
    pub fn new(created: &str) -> Guard {
        Guard {
            entries: Vec::new(),
            created: created.to_string(),
            dirs: Vec::new(),
            force: false,
            dir_files: Vec::new(),
        }
    }

    /// `--force`: existing files may be replaced by this run's outputs (see [`Guard`]).
    pub fn force(mut self, force: bool) -> Guard {
        self.force = force;
        self
    }

    fn add(mut self, option: &str, path: Option<&Path>, output: bool) -> Guard {
        if let Some(p) = path
            && let Some(id) = Ident::of(p)
        {
            self.entries.push(Entry {
                option: option.to_string(),
                path: p.to_path_buf(),
                id,
                output,
                claimed: false,
            });
        }
        self
    }

    /// An input named by `option` (`None`, `-`, devices and FIFOs are ignored).
    pub fn input(self, option: &str, path: Option<&Path>) -> Guard {
        self.add(option, path, false)
    }

    /// Several inputs named by `option` (`FILE` arguments).
    pub fn inputs(mut self, option: &str, paths: &[PathBuf]) -> Guard {
        for p in paths {
            self = self.input(option, Some(p));
        }
        self
    }

    /// A directory the tool writes into, named by `option`: refused at [`Guard::install`]
    /// when it exists and is not a directory (`-o /dev/full`, `-o FILE`).
    pub fn output_dir(mut self, option: &str, dir: Option<&Path>) -> Guard {
        if let Some(d) = dir {
            self.dirs.push((option.to_string(), d.to_path_buf()));
        }
        self
    }

    /// Files the tool names itself in `dir` (named by `option`), whose names end in one of
    /// `endings`: refused at [`Guard::install`] when any exists, unless `--force`, so that a
    /// rerun into an earlier run's directory stops before writing anything rather than at
    /// its first table.
    pub fn output_files_in(mut self, option: &str, dir: Option<&Path>, endings: &[&str]) -> Guard {
        if let Some(d) = dir {
            let endings = endings.iter().map(|e| e.to_string()).collect();
            self.dir_files
                .push((option.to_string(), d.to_path_buf(), endings));
        }
        self
    }

    /// An output named by `option` (`None`, `-`, devices and FIFOs are ignored).
    pub fn output(self, option: &str, path: Option<&Path>) -> Guard {
        self.add(option, path, true)
    }

    /// Refuses (usage error, exit 2) any output that is an input or another output, naming
    /// both options; then makes the set active for the rest of the process.
    pub fn install(self) -> Result<()> {
        self.check()?;
        *guard_state().lock().unwrap_or_else(|e| e.into_inner()) = Some(self);
        Ok(())
    }

    /// The checks of [`Guard::install`].
    fn check(&self) -> Result<()> {
        for (option, d) in &self.dirs {
            if fs::metadata(d).is_ok_and(|m| !m.is_dir()) {
                return Err(Error::Usage(format!(
                    "{option} {}: exists and is not a directory",
                    d.display()
                )));
            }
        }
        for (i, a) in self.entries.iter().enumerate() {
            for b in &self.entries[..i] {
                if (a.output || b.output) && a.id.same(&b.id) {
                    let (o, other) = if a.output { (a, b) } else { (b, a) };
                    return Err(overlap(o, &o.path, other));
                }
            }
        }
        if self.force {
            return Ok(());
        }
        if let Some(e) = self
            .entries
            .iter()
            .find(|e| e.output && e.id.inode.is_some())
        {
            return Err(exists(&e.option, &e.path));
        }
        for (option, dir, endings) in &self.dir_files {
            let Ok(rd) = fs::read_dir(dir) else { continue };
            let mut old: Vec<String> = rd
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| endings.iter().any(|x| n.ends_with(x.as_str())))
                .collect();
            if old.is_empty() {
                continue;
            }
            old.sort();
            let more = match old.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            old.truncate(3);
            return Err(Error::Usage(format!(
                "{option} {}: files of an earlier run exist already: {}{more} (remove them, or use --force to replace them)",
                dir.display(),
                old.iter()
                    .map(|n| crate::names::Escaped(n).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(())
    }

    /// Checks a file about to be created: it may be a declared output (once), and may not be
    /// an input or an output created before.
    fn check_new(&mut self, dest: &Path) -> Result<()> {
        let Some(id) = Ident::of(dest) else {
            return Ok(());
        };
        let created = Entry {
            option: self.created.clone(),
            path: dest.to_path_buf(),
            id: id.clone(),
            output: true,
            claimed: true,
        };
        let mut own = None;
        for (i, e) in self.entries.iter().enumerate() {
            if !e.id.same(&id) {
                continue;
            }
            if e.output && !e.claimed && e.path == dest && own.is_none() {
                own = Some(i);
            } else if e.output && e.claimed && e.path == dest {
                // A declared output written late (a manifest) whose name a file the tool
                // named itself took first: that file stays, the output is not written.
                return Err(Error::Usage(format!(
                    "{} {} is also {} written earlier in this run: refusing to write it",
                    e.option,
                    dest.display(),
                    self.created
                )));
            } else {
                return Err(overlap(&created, dest, e));
            }
        }
        match own {
            Some(i) => self.entries[i].claimed = true,
            None => {
                // A file the tool names itself (a table file, a shard) that exists already:
                // left by an earlier run or by someone else, and not this run's to replace.
                if !self.force && id.inode.is_some() {
                    return Err(exists(&self.created, dest));
                }
                self.entries.push(created)
            }
        }
        Ok(())
    }
}

/// The one overwrite rule's refusal: `option`'s file `path` exists and `--force` was not given.
pub fn exists(option: &str, path: &Path) -> Error {
    Error::Usage(format!(
        "{option} {}: exists already (remove it, or use --force to replace it)",
        path.display()
    ))
}

fn overlap(out: &Entry, path: &Path, other: &Entry) -> Error {
    let what = if other.output {
        "is the same file as"
    } else {
        "would overwrite"
    };
    Error::Usage(format!(
        "{} {} {what} {} {}: refusing to write it",
        out.option,
        path.display(),
        other.option,
        other.path.display()
    ))
}

/// Checks `dest` against the installed [`Guard`], if any.
fn check_dest(dest: &Path) -> Result<()> {
    let mut g = guard_state().lock().unwrap_or_else(|e| e.into_inner());
    match g.as_mut() {
        Some(g) => g.check_new(dest),
        None => Ok(()),
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

    #[test]
    fn guard_refuses_overlaps_and_second_writers() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("in.csv"), "x").unwrap();
        fs::hard_link(d.join("in.csv"), d.join("link.csv")).unwrap();
        std::os::unix::fs::symlink(d.join("in.csv"), d.join("sym.csv")).unwrap();
        let fresh = |out: &str, other: &Path| {
            Guard::new("a file")
                .input("FILE", Some(&d.join("in.csv")))
                .output(out, Some(other))
        };
        for other in [
            d.join("in.csv"),
            d.join("link.csv"),
            d.join("sym.csv"),
            d.join("sub/../in.csv"),
        ] {
            let err = fresh("-o", &other).check().unwrap_err().to_string();
            assert!(err.contains("-o") && err.contains("FILE"), "{err}");
        }
        fresh("-o", &d.join("out.csv")).check().unwrap();
        let err = Guard::new("")
            .output_dir("-o", Some(&d.join("in.csv")))
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a directory"), "{err}");
        // Two outputs not created yet, named differently.
        let a = Ident::of(&d.join("new/x.csv")).unwrap();
        let b = Ident::of(&d.join("new/./y/../x.csv")).unwrap();
        assert!(a.same(&b));
        // Devices and stdin are not files anyone could destroy by renaming.
        assert!(Ident::of(Path::new("/dev/null")).is_none());
        assert!(Ident::of(Path::new("-")).is_none());
        // A declared output may be created once; a tool-named file may not replace it.
        let out = d.join("o.csv");
        let mut g = Guard::new("a shard").output("-o", Some(&out));
        g.check_new(&out).unwrap();
        let err = g.check_new(&out).unwrap_err().to_string();
        assert!(err.contains("-o") && err.contains("a shard"), "{err}");
        // An existing file that is not an input of this guard: refused by the overwrite
        // rule, allowed with --force.
        let err = g.check_new(&d.join("in.csv")).unwrap_err().to_string();
        assert!(
            err.contains("exists already") && err.contains("--force"),
            "{err}"
        );
        let mut g = Guard::new("a shard").force(true);
        assert!(g.check_new(&d.join("in.csv")).is_ok(), "--force");
        // A declared output that exists: refused at install, before anything is written.
        let err = Guard::new("")
            .output("-o", Some(&d.join("in.csv")))
            .check()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("-o") && err.contains("exists already"),
            "{err}"
        );
        let mut g = Guard::new("a shard").input("FILE", Some(&d.join("in.csv")));
        let err = g.check_new(&d.join("link.csv")).unwrap_err().to_string();
        assert!(err.contains("would overwrite FILE"), "{err}");
    }
}
