//! What every binary shares: the `main` wrapper with its one exit-code mapping, cleanup of
//! temporary files on SIGINT/SIGTERM/SIGHUP (exit 128 + the signal's number), the cap on
//! worker threads, and parsing of human sizes such as `64M`.

use crate::io::error::{Error, Result};
use crate::io::signals::{self, remove_registered};
use std::io::Write;
use std::process::ExitCode;

/// Blocks SIGINT, SIGTERM and SIGHUP in every thread (threads inherit the mask, so this runs
/// before any is started) and takes them on a thread of its own with `sigwait`, where it is
/// safe to clean up: temporaries are removed, an unfinished stdout gets its
/// [`INCOMPLETE`](crate::io::stream::INCOMPLETE) mark, and the process exits with 128 + the
/// signal's number, as a shell reports a process killed by it. A signal the process was
/// started with ignored (`nohup`, background jobs) stays ignored.
fn handle_signals() {
    // SAFETY: sigset and sigaction calls on local, zero-initialised structs; the mask is
    // changed before any other thread exists.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut sig: libc::c_int = 0;
                if libc::sigwait(&set, &mut sig) == 0 {
                    // Erase the bar, so the shell's prompt does not land on it.
                    crate::io::progress::clear();
                    signals::run_hook();
                    remove_registered();
                    crate::io::output::mark_stdout_incomplete();
                    std::process::exit(128 + sig);
                }
            });
        if spawned.is_err() {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// Runs a tool's body and turns its outcome into the process exit code. Prints errors as one
/// line, `PROG: message`, on stderr. Standard output closed early ends the program quietly
/// with 0, as filters in a pipeline to `head` should; any other output failing is exit 2.
pub fn run(prog: &str, body: impl FnOnce() -> Result<()>) -> ExitCode {
    handle_signals();
    let outcome = body();
    // The bar goes before any message, so no error is drawn over.
    crate::io::progress::clear();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            remove_registered();
            // A stream declared but never begun (output::stdout_stream_pending) is cut too.
            crate::io::output::mark_stdout_incomplete();
            let mut err = std::io::stderr().lock();
            match &e {
                // Already reported in detail by the tool; just the verdict.
                Error::Found(msg) if msg.is_empty() => {}
                Error::StoppedEarly => {}
                _ => {
                    // Names in messages come from untrusted dumps: no terminal escapes.
                    let _ = writeln!(
                        err,
                        "{prog}: {}",
                        crate::io::names::terminal_safe(&e.to_string())
                    );
                }
            }
            ExitCode::from(e.exit_code())
        }
    }
}

/// Parses the command line. `--help` and `--version` print and exit 0 as clap does; a usage
/// error becomes [`Error::Usage`], so that [`run`] prints it in GNU's two-line form and exits 2:
///
/// ```text
/// pksort: unknown option --x
/// Try 'pksort --help'.
/// ```
///
/// clap's tip, usage and "for more information" lines are folded into the first line (a
/// suggestion as `(did you mean '--nulls'?)`) or dropped: `--help` says the rest.
pub fn parse_args<A: clap::Parser>() -> Result<A> {
    use clap::error::ErrorKind;
    A::try_parse().map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        _ => {
            let cmd = A::command();
            Error::Usage(format!(
                "{}\nTry '{} --help'.",
                usage_message(&e),
                cmd.get_bin_name().unwrap_or(cmd.get_name())
            ))
        }
    })
}

/// The one line that says what is wrong with the command line, from a clap error.
fn usage_message(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |k: ContextKind| match e.get(k)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => Some(v.join("', '")),
        ContextValue::StyledStr(s) => Some(s.to_string()),
        _ => None,
    };
    let mut msg = match (e.kind(), text(ContextKind::InvalidArg)) {
        (ErrorKind::UnknownArgument, Some(a)) if a.starts_with('-') => {
            format!("unknown option {a}")
        }
        (ErrorKind::UnknownArgument, Some(a)) => format!("unexpected argument '{a}'"),
        _ => {
            // Rendered without colour: read by people and by scripts alike. The message is
            // what comes before the first blank line; its indented lines (say, the missing
            // arguments) join it, and tips are left out.
            let rendered = e.render().to_string();
            let head = rendered.split("\n\n").next().unwrap_or_default();
            let mut lines = head.lines();
            let mut m = lines
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string();
            for l in lines.map(str::trim).filter(|l| !l.starts_with("tip:")) {
                if !l.is_empty() {
                    m.push(' ');
                    m.push_str(l);
                }
            }
            m
        }
    };
    if let Some(s) = text(ContextKind::SuggestedArg) {
        msg.push_str(&format!(" (did you mean '{s}'?)"));
    }
    msg
}

/// The most worker threads a tool starts: 4 per CPU, at most 256. More only cost memory
/// (and thousands of threads exhaust the process's limits, ending in a hang or a panic).
pub fn max_threads() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cpus).min(256)
}

/// The thread count for `-j`/`--jobs` given as `n`: all CPUs by default,
/// capped at [`max_threads`]; 0 is a usage error naming `option`.
pub fn threads(option: &str, n: Option<usize>) -> Result<usize> {
    match n {
        Some(0) => Err(Error::Usage(format!("{option} must be at least 1"))),
        Some(n) => Ok(n.min(max_threads())),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Parses a size like `4096`, `64K`, `512M`, `2G`, `1T` (powers of 1024; a trailing `B` or
/// `iB` is accepted) or `50%` (of physical memory).
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let bad = || {
        Error::Usage(format!(
            "invalid size '{s}' (use e.g. 4096, 64K, 512M, 2G or 50%)"
        ))
    };
    if let Some(pct) = t.strip_suffix('%') {
        let p: f64 = pct.trim().parse().map_err(|_| bad())?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(bad());
        }
        return Ok((physical_memory() as f64 * p / 100.0) as u64);
    }
    let upper = t.to_ascii_uppercase();
    let u = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (num, mult) = match u.chars().last() {
        Some('K') => (&u[..u.len() - 1], 1u64 << 10),
        Some('M') => (&u[..u.len() - 1], 1 << 20),
        Some('G') => (&u[..u.len() - 1], 1 << 30),
        Some('T') => (&u[..u.len() - 1], 1 << 40),
        _ => (u, 1),
    };
    let n: f64 = num.trim().parse().map_err(|_| bad())?;
    if !(n.is_finite() && n >= 0.0) {
        return Err(bad());
    }
    let v = n * mult as f64;
    if v < 1.0 || v > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(v as u64)
}

/// Physical memory in bytes (falls back to 1 GiB when it cannot be read).
pub fn physical_memory() -> u64 {
    // SAFETY: sysconf has no preconditions; it returns -1 on error, which we check.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages > 0 && size > 0 {
        pages as u64 * size as u64
    } else {
        1 << 30
    }
}

/// Memory currently available for use (MemAvailable), falling back to physical memory / 2.
pub fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or_else(|| physical_memory() / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("64K").unwrap(), 64 << 10);
        assert_eq!(parse_size("512m").unwrap(), 512 << 20);
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("10").unwrap(), 10);
        assert!(parse_size("0").is_err());
        assert!(parse_size("x").is_err());
        assert!(parse_size("-5M").is_err());
        assert!(parse_size("50%").unwrap() > 0);
    }
}
