//! `--filter`: each shard piped to its own `sh -c CMD` (with `$FILE` set to the shard's
//! name) instead of written to a file. At most `jobs` filters run at once; a filter is killed
//! (with its process group) when csvsplit fails before the shard's input was complete, and a
//! filter that exits early, fails or leaves part of its input unread fails the run.

use crate::io::error::{Error, Result};
use std::collections::VecDeque;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// A `--filter` process. Dropped before its input was complete (an error elsewhere), it is
/// killed: closing its input instead would make a partial shard look whole to an uploader.
pub(super) struct FilterProc {
    pub(super) child: Option<Child>,
    pub(super) stdin: Option<ChildStdin>,
}

/// A filter whose input is complete: the process, and a read end of its input pipe kept
/// open by csvsplit, so that what the filter did not read before it exited stays countable.
pub(super) struct Finished {
    child: Child,
    /// `None` where the pipe could not be reopened (no /proc): the check is then skipped,
    /// as only a shard larger than the pipe's buffer is caught by the write failing.
    leftover: Option<std::fs::File>,
}

impl FilterProc {
    /// Closes the input; the process runs on. A second read end of the pipe is opened first
    /// (through /proc/self/fd, as for a FIFO): a filter that exits 0 after reading only part
    /// of a shard that fitted in the pipe's buffer would otherwise look like one that read
    /// it all, since the writes succeeded before it exited.
    pub(super) fn finish_input(mut self) -> Option<Finished> {
        let leftover = self.stdin.as_ref().and_then(|w| {
            use std::os::fd::AsRawFd;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(format!("/proc/self/fd/{}", w.as_raw_fd()))
                .ok()
        });
        drop(self.stdin.take());
        let c = self.child.take();
        if let Some(c) = &c {
            crate::io::signals::unregister_child(c.id());
        }
        c.map(|child| Finished { child, leftover })
    }
}

/// Bytes still in the pipe `f` (FIONREAD), 0 when they cannot be counted.
fn unread(f: &std::fs::File) -> usize {
    use std::os::fd::AsRawFd;
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which lives across the call.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), libc::FIONREAD, &mut n) };
    if r == 0 {
        usize::try_from(n).unwrap_or(0)
    } else {
        0
    }
}

impl Drop for FilterProc {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            if let Ok(pid) = libc::pid_t::try_from(c.id()) {
                // SAFETY: a signal to the process group of our child, not yet waited for.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
            let _ = c.wait();
            crate::io::signals::unregister_child(c.id());
        }
    }
}

/// The `--filter` processes: the command, the bound, and the shards whose input is complete.
pub(super) struct Filters {
    pub(super) cmd: String,
    pub(super) jobs: usize,
    /// Filter sinks of open shards.
    pub(super) open: usize,
    /// Filters whose input is complete, oldest first.
    pub(super) running: VecDeque<(PathBuf, Finished)>,
    /// Complete shards spooled while every slot was taken.
    pub(super) waiting: VecDeque<(PathBuf, std::fs::File)>,
}

impl Filters {
    pub(super) fn spawn(&mut self, name: &Path) -> Result<FilterProc> {
        // Its own process group, so that an abort can stop the shell and whatever it started
        // (a plain kill would stop only `sh`, and the uploader it runs would finish a cut shard).
        let mut child = crate::io::signals::spawn_registered(
            Command::new("sh")
                .arg("-c")
                .arg(&self.cmd)
                .env("FILE", name)
                .process_group(0)
                .stdin(Stdio::piped()),
        )
        .map_err(|e| filter_error(name, &self.cmd, &format!("cannot start sh: {e}")))?;
        let stdin = child.stdin.take();
        self.open += 1;
        Ok(FilterProc {
            child: Some(child),
            stdin,
        })
    }

    /// Waits for the oldest filter whose input is complete; an error names its shard.
    fn reap_one(&mut self) -> Result<()> {
        let Some((name, mut f)) = self.running.pop_front() else {
            return Ok(());
        };
        let st = f.child.wait().map_err(|e| Error::io(&name, e))?;
        if !st.success() {
            return Err(filter_error(&name, &self.cmd, &describe(st)));
        }
        match f.leftover.as_ref().map(unread) {
            Some(n) if n > 0 => Err(filter_error(
                &name,
                &self.cmd,
                &format!(
                    "it exited (status 0) before reading the end of the shard ({n} bytes unread)"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Whether a new filter may start now, after waiting for finished ones if needed.
    pub(super) fn slot(&mut self) -> Result<bool> {
        while self.open + self.running.len() >= self.jobs && !self.running.is_empty() {
            self.reap_one()?;
        }
        Ok(self.open + self.running.len() < self.jobs)
    }

    /// Pipes the spooled shards, then waits for every filter.
    pub(super) fn drain(&mut self) -> Result<()> {
        while let Some((name, mut f)) = self.waiting.pop_front() {
            self.slot()?;
            let mut p = self.spawn(&name)?;
            std::io::Seek::rewind(&mut f).map_err(|e| Error::io("<spool file>", e))?;
            if let Some(stdin) = &mut p.stdin {
                std::io::copy(&mut f, stdin).map_err(|e| pipe_error(&name, &self.cmd, &e))?;
            }
            self.open -= 1;
            if let Some(c) = p.finish_input() {
                self.running.push_back((name, c));
            }
        }
        while !self.running.is_empty() {
            self.reap_one()?;
        }
        Ok(())
    }
}

impl Drop for Filters {
    fn drop(&mut self) {
        // An error elsewhere: filters with complete input may finish; none is left behind.
        for (_, f) in &mut self.running {
            let _ = f.child.wait();
        }
    }
}

pub(super) fn describe(st: std::process::ExitStatus) -> String {
    match (
        st.code(),
        std::os::unix::process::ExitStatusExt::signal(&st),
    ) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => st.to_string(),
    }
}

pub(super) fn filter_error(name: &Path, cmd: &str, why: &str) -> Error {
    Error::file(
        name.display().to_string(),
        format!("--filter '{cmd}' failed for this shard: {why}"),
    )
}

pub(super) fn pipe_error(name: &Path, cmd: &str, e: &std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        filter_error(name, cmd, "it stopped reading before the end of the shard")
    } else {
        filter_error(name, cmd, &format!("writing to it: {e}"))
    }
}
