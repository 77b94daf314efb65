//! What must be undone if a signal ends the process: the temporary files and directories and
//! the child process groups still alive, and the one hook a tool sets to say what it had done.
//! The signal thread itself (in `cli`) runs these; `output` registers its temporaries here. This
//! module sits at the bottom of the plumbing (it imports nothing of the crate), so that both can.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

fn cleanup_registry() -> &'static Mutex<HashSet<PathBuf>> {
    static REG: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(HashSet::new()))
}

/// Remembers a temporary file or directory to delete if the process is interrupted.
/// Normal paths delete their own temporaries (on commit or drop); this covers SIGINT/SIGTERM,
/// where no destructor runs.
pub fn register_temp(path: PathBuf) {
    if let Ok(mut reg) = cleanup_registry().lock() {
        reg.insert(path);
    }
}

/// Forgets a path given to [`register_temp`] (it was renamed into place or removed).
pub fn unregister_temp(path: &std::path::Path) {
    if let Ok(mut reg) = cleanup_registry().lock() {
        reg.remove(path);
    }
}

fn children() -> &'static Mutex<HashSet<u32>> {
    static CHILDREN: OnceLock<Mutex<HashSet<u32>>> = OnceLock::new();
    CHILDREN.get_or_init(|| Mutex::new(HashSet::new()))
}

/// Starts `cmd`, the leader of its own process group, and remembers it, so that its group is
/// terminated if the process is interrupted: a child still being fed (csvsplit's `--filter`),
/// which, left running, would take the end of its input for the end of a whole shard. One
/// step: the registry stays locked from before the spawn until the pid is in it, so a signal
/// taken meanwhile waits, then stops this child too. Registered after the spawn, a child could
/// start (and, say, write its pid file) before it was known, and outlive an interrupted run.
pub fn spawn_registered(cmd: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    let mut c = children().lock().unwrap_or_else(|e| e.into_inner());
    let child = cmd.spawn()?;
    c.insert(child.id());
    Ok(child)
}

/// Forgets a child started by [`spawn_registered`].
pub fn unregister_child(pid: u32) {
    if let Ok(mut c) = children().lock() {
        c.remove(&pid);
    }
}

/// Stops the registered children's process groups and deletes the registered temporaries:
/// run by the signal thread and by `cli::run` when a tool fails.
pub fn remove_registered() {
    if let Ok(c) = children().lock() {
        for &pid in c.iter() {
            if let Ok(pid) = libc::pid_t::try_from(pid) {
                // SAFETY: a signal to the process group of a child of ours that has not been
                // waited for, so the id cannot have been reused.
                unsafe {
                    libc::kill(-pid, libc::SIGTERM);
                }
            }
        }
    }
    if let Ok(reg) = cleanup_registry().lock() {
        for p in reg.iter() {
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(p);
            } else {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

static ON_SIGNAL: OnceLock<fn()> = OnceLock::new();

/// Runs the hook set with [`on_signal`], if any (the signal thread in `cli` calls it).
pub fn run_hook() {
    if let Some(f) = ON_SIGNAL.get() {
        f();
    }
}

/// Sets what a tool says when SIGINT/SIGTERM/SIGHUP ends it (e.g. csvload: what was
/// committed), run on the signal thread before cleanup; the first call wins.
pub fn on_signal(f: fn()) {
    let _ = ON_SIGNAL.set(f);
}
