//! Progress on a terminal and the one-line summary, the same in every tool.
//!
//! A run's counters live here, process-wide (each binary runs one tool): the input bytes
//! consumed (compressed bytes for compressed input; [`crate::io::input`] adds them as its readers
//! hand data over, one add per buffer, never per record), the records read (tools add a
//! chunk's count at a time) and the phase (a short text such as `reading`, `merging` or a
//! table or shard name). When stderr is a terminal and the tool was not given `-q`, a thread
//! of its own draws an indicatif bar from these counters five times a second, so the hot
//! loops only bump counters. Piped or redirected stderr never sees a bar.
//!
//! One face in a pipeline: the tools of `pksort | csvsplit` share one terminal, and two bars
//! drawn on one line overwrite each other and leave torn remains. So a tool draws only while
//! it holds an exclusive `flock` on the terminal its stderr is (opened anew through
//! `/proc/self/fd/2`, so the lock is its own and not shared through the descriptor the shell
//! handed every stage). A tool whose standard input is a pipe lets a second pass first, so the
//! stage that reads the files (and knows a total) draws; when it exits, having erased its bar,
//! the lock goes free and the next stage takes the line over. At most one bar at a time, and
//! each erases its own before it lets go.
//!
//! The ETA is the input's: shown while input is read and its size is known; once all of it
//! is read, the bar says what the tool does (merging runs, writing) without an ETA, as no
//! honest one can be given for it.
//!
//! The summary ([`Summary::print`]) is one line of one shape for every tool:
//! `TOOL: read 1.20 GB, 10,000,000 records; wrote 1 file, 10,000,000 records, 1.20 GB; 0
//! dropped; 8.1 s, 148 MB/s` (sizes in decimal units, MB/s of the bytes read; no MB/s when
//! nothing was read).

use indicatif::{DecimalBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

static READ: AtomicU64 = AtomicU64::new(0);
static RECORDS: AtomicU64 = AtomicU64::new(0);
static TOTAL: AtomicU64 = AtomicU64::new(0);
static STOP: AtomicBool = AtomicBool::new(false);
/// Whether the bar has switched to [`style_read`].
static READ_ALL: AtomicBool = AtomicBool::new(false);

struct Meter {
    tool: &'static str,
    start: Instant,
    phase: Mutex<String>,
    /// The bar, while one is drawn (the drawing thread puts it here once it holds the
    /// terminal).
    bar: Mutex<Option<ProgressBar>>,
    /// The drawing thread, while one runs.
    thread: Mutex<Option<JoinHandle<()>>>,
}

static METER: OnceLock<Meter> = OnceLock::new();

/// How often the bar is redrawn from the counters.
const TICK: Duration = Duration::from_millis(200);

/// Whether progress is drawn: stderr is a terminal and `-q` was not given.
pub fn wanted(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// Starts the clock (for the summary's seconds) and, when [`wanted`], the bar. `inputs` are
/// the files about to be read (`None` or `-` is standard input): when each is a regular file
/// (standard input too, when redirected from one) their sizes add up to the bar's total;
/// otherwise the bar shows bytes and rate without a total or ETA.
pub fn start(tool: &'static str, quiet: bool, inputs: &[Option<&Path>]) {
    let m = METER.get_or_init(|| Meter {
        tool,
        start: Instant::now(),
        phase: Mutex::new(String::new()),
        bar: Mutex::new(None),
        thread: Mutex::new(None),
    });
    STOP.store(false, Ordering::Relaxed);
    // The data is counted from here: a schema file or manifest read before (csvcheck's
    // --ddl) is not part of what the bar and the summary report as read.
    READ.store(0, Ordering::Relaxed);
    RECORDS.store(0, Ordering::Relaxed);
    let total = total_size(inputs);
    TOTAL.store(total.unwrap_or(0), Ordering::Relaxed);
    if !wanted(quiet) {
        return;
    }
    // A later stage of a pipeline gives the first one a head start on the terminal.
    let wait = if stdin_is_pipe() {
        Duration::from_secs(2)
    } else {
        Duration::ZERO
    };
    let spawned = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
            let begun = Instant::now();
            let mut held: Option<TerminalLock> = None;
            let mut bar: Option<ProgressBar> = None;
            while !STOP.load(Ordering::Relaxed) {
                if held.is_none() && begun.elapsed() >= wait {
                    held = TerminalLock::try_take();
                    if held.is_some() {
                        // Timed from the tool's start, as the bytes it counts are: a bar
                        // made after a pipeline's wait would otherwise rate them too high.
                        let b = ProgressBar::with_draw_target(
                            total,
                            ProgressDrawTarget::stderr_with_hz(5),
                        )
                        .with_elapsed(METER.get().map_or(Duration::ZERO, |m| m.start.elapsed()));
                        b.set_style(style(total.is_some()));
                        b.set_prefix(tool);
                        if let Some(m) = METER.get()
                            && let Ok(mut slot) = m.bar.lock()
                        {
                            *slot = Some(b.clone());
                        }
                        bar = Some(b);
                    }
                }
                if let Some(b) = &bar {
                    draw(b);
                }
                std::thread::sleep(TICK);
            }
            // Erased before the terminal is let go: the next stage starts on a clean line.
            if let Some(m) = METER.get()
                && let Ok(mut slot) = m.bar.lock()
            {
                *slot = None;
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            drop(held);
        });
    if let (Ok(h), Ok(mut slot)) = (spawned, m.thread.lock()) {
        *slot = Some(h);
    }
}

/// Whether standard input is a pipe (this tool is a later stage of a pipeline).
fn stdin_is_pipe() -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata("/dev/stdin").is_ok_and(|m| m.file_type().is_fifo())
}

/// An exclusive `flock` on the terminal stderr is, held while a bar is drawn on it (`None`
/// when the terminal cannot be locked at all: drawn then without coordination, as before).
struct TerminalLock {
    _held: Option<std::fs::File>,
}

impl TerminalLock {
    /// The lock, if no other process holds it now.
    fn try_take() -> Option<TerminalLock> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        // A new open file description of the terminal: flock locks belong to descriptions,
        // and the one stderr has is shared by every stage the shell started.
        let Ok(f) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open("/proc/self/fd/2")
        else {
            return Some(TerminalLock { _held: None });
        };
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Some(TerminalLock { _held: Some(f) });
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EWOULDBLOCK) => None,
            _ => Some(TerminalLock { _held: None }),
        }
    }
}

fn style(sized: bool) -> ProgressStyle {
    let t = if sized {
        "{prefix}: [{bar:12}] {decimal_bytes}/{decimal_total_bytes}{rate}{eta} {wide_msg}"
    } else {
        "{prefix}: {spinner} {decimal_bytes}{rate} {wide_msg}"
    };
    measured(t, 0, |r| format!("{}/s", DecimalBytes(r as u64)))
}

/// No rate and no ETA before this much of the run: the first frames divide what was read
/// in one go (a mapped file, a first buffer) by almost no time (csvsplit showed `3.78
/// TB/s`), and before anything is read indicatif's estimate is `ETA 0s`.
const SOUND_BASE: Duration = Duration::from_secs(1);

/// The mean rate of `done` units over `elapsed`, once there is a sound base for one: a
/// second of the run gone and something done.
fn mean_rate(done: u64, elapsed: Duration) -> Option<f64> {
    (elapsed >= SOUND_BASE && done > 0).then(|| done as f64 / elapsed.as_secs_f64())
}

/// The time left for `left` more units at the mean rate, when there is one and work is left.
fn eta(done: u64, left: u64, elapsed: Duration) -> Option<Duration> {
    let rate = mean_rate(done, elapsed)?;
    (left > 0).then(|| Duration::from_secs_f64(left as f64 / rate))
}

/// The one layout of every tool's bar: `template` with `{rate}` (` RATE`, by `rate_text`)
/// and `{eta}` (` ETA 25s`), each empty until there is a sound base ([`mean_rate`]). The rate
/// is the mean since the bar's start (its elapsed time) of the progress past `base` (what a
/// resumed run had done before it began).
fn measured(template: &str, base: u64, rate_text: fn(f64) -> String) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
        .with_key(
            "rate",
            move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                if let Some(r) = mean_rate(s.pos().saturating_sub(base), s.elapsed()) {
                    let _ = write!(w, " {}", rate_text(r));
                }
            },
        )
        .with_key(
            "eta",
            move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let left = s.len().map_or(0, |l| l.saturating_sub(s.pos()));
                if let Some(e) = eta(s.pos().saturating_sub(base), left, s.elapsed()) {
                    let _ = write!(w, " ETA {:#}", indicatif::HumanDuration(e));
                }
            },
        )
}

/// The bar of a tool that counts rows (csvload) in the layout of the others:
/// `csvload: [=====>      ] 1,000/4,000 rows 966k rows/s ETA 3s MESSAGE`. `done`: rows done
/// before this run (a resumed load), not counted in the rate.
pub fn rows_bar(tool: &'static str, total: u64, done: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(measured(
        "{prefix}: [{bar:12}] {human_pos}/{human_len} rows{rate}{eta} {wide_msg}",
        done,
        |r| format!("{} rows/s", round_rate(r)),
    ));
    bar.set_prefix(tool);
    bar.set_position(done.min(total));
    bar
}

/// The bar once all input is read: what was read, and the phase, with no ETA.
fn style_read() -> ProgressStyle {
    ProgressStyle::with_template("{prefix}: {spinner} {decimal_total_bytes} read, {wide_msg}")
        .expect("valid template")
}

/// A rate rounded for people: three significant digits at most, with k, M or G.
pub fn round_rate(r: f64) -> String {
    if !r.is_finite() || r <= 0.0 {
        return "0".into();
    }
    let (v, unit) = match r {
        r if r >= 1e9 => (r / 1e9, "G"),
        r if r >= 1e6 => (r / 1e6, "M"),
        r if r >= 1e3 => (r / 1e3, "k"),
        r => (r, ""),
    };
    let prec = if v >= 100.0 || unit.is_empty() && v >= 10.0 {
        0
    } else if v >= 10.0 || unit.is_empty() {
        1
    } else {
        2
    };
    let s = format!("{v:.prec$}");
    // Whole numbers below 10 without a unit read better without ".0".
    let s = if unit.is_empty() {
        s.trim_end_matches(".0").to_string()
    } else {
        s
    };
    format!("{s}{unit}")
}

fn draw(bar: &ProgressBar) {
    let phase = METER
        .get()
        .and_then(|m| m.phase.lock().ok().map(|p| p.clone()))
        .unwrap_or_default();
    let recs = HumanCount(RECORDS.load(Ordering::Relaxed));
    // Records first: the message is what gets cut on a narrow terminal.
    bar.set_message(if phase.is_empty() {
        format!("{recs} records")
    } else {
        format!("{recs} records, {phase}")
    });
    let total = TOTAL.load(Ordering::Relaxed);
    let read = READ.load(Ordering::Relaxed);
    if total > 0 && bar.length() != Some(total) {
        bar.set_length(total);
    }
    // All of a known input read, and the tool still at work (merging, writing): the ETA
    // was the input's, and would say 0s from here on; say what is done instead.
    if total > 0 && read >= total && !READ_ALL.swap(true, Ordering::Relaxed) {
        bar.set_style(style_read());
    }
    bar.set_position(read);
}

/// The sum of the inputs' sizes, when every one is a regular file.
fn total_size(inputs: &[Option<&Path>]) -> Option<u64> {
    let mut sum = 0u64;
    for p in inputs {
        let meta = match p {
            Some(p) if !crate::io::stream::is_stdin(p) => std::fs::metadata(p).ok()?,
            // Standard input redirected from a file: its size is known too.
            _ => std::fs::metadata("/dev/stdin").ok()?,
        };
        if meta.is_dir() {
            // A directory archive (pg_dump -Fd): its files, one level deep.
            let dir = std::fs::read_dir(p.as_ref()?).ok()?;
            sum += dir
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum::<u64>();
            continue;
        }
        if !meta.is_file() {
            return None;
        }
        sum += meta.len();
    }
    Some(sum)
}

/// Adds `n` input bytes consumed (called per buffer by [`crate::io::input`]'s readers).
#[inline]
pub fn add_read(n: u64) {
    READ.fetch_add(n, Ordering::Relaxed);
}

/// Adds `n` records read (call per chunk or batch, not per record).
#[inline]
pub fn add_records(n: u64) {
    RECORDS.fetch_add(n, Ordering::Relaxed);
}

/// Input bytes consumed so far.
pub fn read_bytes() -> u64 {
    READ.load(Ordering::Relaxed)
}

/// Records counted by [`add_records`] so far.
pub fn records() -> u64 {
    RECORDS.load(Ordering::Relaxed)
}

/// Sets the bar's total input size (for inputs whose size is known only once opened).
pub fn set_total(n: u64) {
    TOTAL.store(n, Ordering::Relaxed);
}

/// Names what the tool is doing now (shown before the counts): a phase, a table, a shard.
pub fn phase(what: impl Into<String>) {
    if let Some(m) = METER.get()
        && let Ok(mut p) = m.phase.lock()
    {
        *p = what.into();
    }
}

/// Prints `line` on stderr, above the bar when one is drawn (a warning in mid-run would
/// otherwise be drawn over, or leave a torn bar behind).
pub fn message(line: &str) {
    // Names in warnings come from untrusted dumps: no terminal escapes.
    let line = &*crate::io::names::terminal_safe(line);
    let bar = METER
        .get()
        .and_then(|m| m.bar.lock().ok()?.as_ref().cloned());
    match bar {
        Some(b) => b.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

/// Stops and erases the bar (before a summary, a report or an error is printed) and lets the
/// terminal go; harmless when there is none, and when called again.
pub fn clear() {
    let Some(m) = METER.get() else {
        return;
    };
    let taken = m.thread.lock().ok().and_then(|mut s| s.take());
    if let Some(h) = taken {
        STOP.store(true, Ordering::Relaxed);
        let _ = h.join();
    }
}

/// Seconds since [`start`].
pub fn elapsed() -> f64 {
    METER.get().map_or(0.0, |m| m.start.elapsed().as_secs_f64())
}

/// A reader that adds what it reads to the bytes read, for inputs opened other than through
/// [`crate::io::input::open`] (the data files of pg_dump archives).
pub struct Reading<R>(pub R);

impl<R: std::io::Read> std::io::Read for Reading<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        add_read(n as u64);
        Ok(n)
    }
}

/// A writer that counts the bytes handed to it (a plain add per write: it is owned by one
/// thread), for the summary's bytes written.
pub struct Counter<W> {
    /// The writer counted.
    pub inner: W,
    /// Bytes written through so far.
    pub bytes: u64,
}

impl<W> Counter<W> {
    /// Counts what goes to `inner`, starting from `bytes`.
    pub fn new(inner: W, bytes: u64) -> Counter<W> {
        Counter { inner, bytes }
    }
}

impl<W: Write> Write for Counter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(buf)?;
        self.bytes += buf.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// What a run did, for the one-line summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Input bytes read (as stored: compressed bytes for compressed input).
    pub read_bytes: u64,
    /// Records read.
    pub read_records: u64,
    /// Outputs written (files, shards, tables), and the word for one of them.
    pub wrote: u64,
    /// `file`, `shard`, `table`: made plural by the summary.
    pub unit: &'static str,
    /// Records written.
    pub wrote_records: u64,
    /// Bytes written (before any output compression).
    pub wrote_bytes: u64,
    /// Records not written or found bad, and the word for them (`dropped`, `bad`, `refused`).
    pub bad: u64,
    /// The word for [`Summary::bad`].
    pub bad_word: &'static str,
}

impl Summary {
    /// The line, for `tool`, taking `secs` seconds.
    pub fn line(&self, tool: &str, secs: f64) -> String {
        let rate = if secs > 0.0 {
            self.read_bytes as f64 / 1e6 / secs
        } else {
            0.0
        };
        let plural = if self.wrote == 1 { "" } else { "s" };
        // Whole MB/s, except below 10, where whole numbers say too little; none at all when
        // nothing was read (a rerun with nothing left to do has no speed).
        let prec = usize::from(rate < 10.0);
        let speed = if self.read_bytes == 0 {
            String::new()
        } else {
            format!(", {rate:.prec$} MB/s")
        };
        format!(
            "{tool}: read {}, {} records; wrote {} {}{plural}, {} records, {}; {} {}; {secs:.1} s{speed}",
            DecimalBytes(self.read_bytes),
            HumanCount(self.read_records),
            HumanCount(self.wrote),
            self.unit,
            HumanCount(self.wrote_records),
            DecimalBytes(self.wrote_bytes),
            HumanCount(self.bad),
            self.bad_word,
        )
    }

    /// Clears the bar and prints the line on stderr, timed from [`start`].
    pub fn print(&self) {
        clear();
        let tool = METER.get().map_or("dumpshard", |m| m.tool);
        let _ = writeln!(std::io::stderr().lock(), "{}", self.line(tool, elapsed()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shape() {
        let s = Summary {
            read_bytes: 1_200_000_000,
            read_records: 10_000_000,
            wrote: 1,
            unit: "file",
            wrote_records: 10_000_000,
            wrote_bytes: 1_200_000_000,
            bad: 0,
            bad_word: "dropped",
        };
        assert_eq!(
            s.line("pksort", 8.1),
            "pksort: read 1.20 GB, 10,000,000 records; wrote 1 file, 10,000,000 records, \
             1.20 GB; 0 dropped; 8.1 s, 148 MB/s"
        );
        let s = Summary {
            wrote: 3,
            unit: "shard",
            bad_word: "bad",
            ..Summary::default()
        };
        assert_eq!(
            s.line("csvsplit", 0.0),
            "csvsplit: read 0 B, 0 records; wrote 3 shards, 0 records, 0 B; 0 bad; 0.0 s"
        );
    }

    /// A terminal in memory: every line the bar drew.
    #[derive(Debug, Clone, Default)]
    struct Screen(std::sync::Arc<Mutex<Vec<String>>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            if !s.trim().is_empty() {
                self.0.lock().unwrap().push(s.to_string());
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The frame `bar` (with `style`) draws at `pos` of `len`, `elapsed` into the run.
    fn frame(style: ProgressStyle, len: u64, pos: u64, elapsed: Duration) -> String {
        let screen = Screen::default();
        let bar = ProgressBar::with_draw_target(
            Some(len),
            ProgressDrawTarget::term_like(Box::new(screen.clone())),
        )
        .with_elapsed(elapsed);
        bar.set_style(style);
        bar.set_prefix("tool");
        bar.set_position(pos);
        bar.set_message("m");
        bar.tick();
        let lines = screen.0.lock().unwrap();
        lines.last().cloned().unwrap_or_default()
    }

    /// No rate or ETA before a sound base (issue 34 item 9: csvsplit's first frames read
    /// `3.78 TB/s`, pksort's `ETA 0s` before reading anything); then the mean rate and the
    /// time left at it. Times are given to the bar, not measured: no test of speed.
    #[test]
    fn no_rate_or_eta_before_a_sound_base() {
        let early = Duration::from_millis(1);
        for (pos, elapsed) in [
            (0, early),
            (0, Duration::from_secs(5)),
            (3_780_000_000, early),
        ] {
            let f = frame(style(true), 10_000_000_000, pos, elapsed);
            assert!(f.starts_with("tool: ["), "{f}");
            assert!(
                !f.contains("/s") && !f.contains("ETA"),
                "{pos} at {elapsed:?}: {f}"
            );
            let f = frame(style(false), 0, pos, elapsed);
            assert!(!f.contains("/s"), "{f}");
        }
        let f = frame(
            style(true),
            100_000_000,
            50_000_000,
            Duration::from_secs(10),
        );
        assert!(f.contains(" 5.00 MB/s ETA 10s m"), "{f}");
        // csvload's bar, in rows, has the same layout; rows done before the run (a resume)
        // are not counted in its rate.
        let f = frame(
            measured(
                "{prefix}: [{bar:12}] {human_pos}/{human_len} rows{rate}{eta} {wide_msg}",
                1000,
                |r| format!("{} rows/s", round_rate(r)),
            ),
            9000,
            5000,
            Duration::from_secs(2),
        );
        assert!(f.starts_with("tool: ["), "{f}");
        assert!(f.contains("5,000/9,000 rows 2.00k rows/s ETA 2s m"), "{f}");
    }

    #[test]
    fn rates_are_rounded() {
        assert_eq!(round_rate(965_989.018_9), "966k");
        assert_eq!(round_rate(12_345.6), "12.3k");
        assert_eq!(round_rate(1_500_000.0), "1.50M");
        assert_eq!(round_rate(7.0), "7");
        assert_eq!(round_rate(42.4), "42");
        assert_eq!(round_rate(0.0), "0");
    }
}
