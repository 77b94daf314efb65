//! Progress on a terminal and the one-line summary, the same in every tool.
//!
//! A run's counters live here, process-wide (each binary runs one tool): the input bytes
//! consumed (compressed bytes for compressed input; [`crate::input`] adds them as its readers
//! hand data over, one add per buffer, never per record), the records read (tools add a
//! chunk's count at a time) and the phase (a short text such as `reading`, `merging` or a
//! table or shard name). When stderr is a terminal and the tool was not given `-q`, a thread
//! of its own draws an indicatif bar from these counters five times a second, so the hot
//! loops only bump counters. Piped or redirected stderr never sees a bar.
//!
//! The summary ([`Summary::print`]) is one line of one shape for every tool:
//! `TOOL: read 1.20 GB, 10,000,000 records; wrote 1 file, 10,000,000 records, 1.20 GB; 0
//! dropped; 8.1 s, 148 MB/s` (sizes in decimal units, MB/s of the bytes read).

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

struct Meter {
    tool: &'static str,
    start: Instant,
    phase: Mutex<String>,
    /// The drawing thread and its bar, while one runs.
    bar: Mutex<Option<(ProgressBar, JoinHandle<()>)>>,
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
    });
    STOP.store(false, Ordering::Relaxed);
    let total = total_size(inputs);
    TOTAL.store(total.unwrap_or(0), Ordering::Relaxed);
    if !wanted(quiet) {
        return;
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr_with_hz(5));
    bar.set_style(style(total.is_some()));
    bar.set_prefix(tool);
    let b = bar.clone();
    let spawned = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
            while !STOP.load(Ordering::Relaxed) {
                draw(&b);
                std::thread::sleep(TICK);
            }
        });
    if let (Ok(h), Ok(mut slot)) = (spawned, m.bar.lock()) {
        draw(&bar);
        *slot = Some((bar, h));
    }
}

fn style(sized: bool) -> ProgressStyle {
    let t = if sized {
        "{prefix}: [{bar:12}] {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec} \
         ETA {eta} {wide_msg}"
    } else {
        "{prefix}: {spinner} {decimal_bytes} {decimal_bytes_per_sec} {wide_msg}"
    };
    ProgressStyle::with_template(t)
        .expect("valid template")
        .progress_chars("=> ")
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
    if total > 0 && bar.length() != Some(total) {
        bar.set_length(total);
    }
    bar.set_position(READ.load(Ordering::Relaxed));
}

/// The sum of the inputs' sizes, when every one is a regular file.
fn total_size(inputs: &[Option<&Path>]) -> Option<u64> {
    let mut sum = 0u64;
    for p in inputs {
        let meta = match p {
            Some(p) if !crate::input::is_stdin(p) => std::fs::metadata(p).ok()?,
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

/// Adds `n` input bytes consumed (called per buffer by [`crate::input`]'s readers).
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
    let line = &*crate::names::terminal_safe(line);
    let bar = METER
        .get()
        .and_then(|m| m.bar.lock().ok()?.as_ref().map(|(b, _)| b.clone()));
    match bar {
        Some(b) => b.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

/// Stops and erases the bar (before a summary, a report or an error is printed); harmless
/// when there is none, and when called again.
pub fn clear() {
    let Some(m) = METER.get() else {
        return;
    };
    let taken = m.bar.lock().ok().and_then(|mut s| s.take());
    if let Some((bar, h)) = taken {
        STOP.store(true, Ordering::Relaxed);
        let _ = h.join();
        bar.finish_and_clear();
    }
}

/// Seconds since [`start`].
pub fn elapsed() -> f64 {
    METER.get().map_or(0.0, |m| m.start.elapsed().as_secs_f64())
}

/// A reader that adds what it reads to the bytes read, for inputs opened other than through
/// [`crate::input::open`] (the data files of pg_dump archives).
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
        // Whole MB/s, except below 10, where whole numbers say too little.
        let prec = usize::from(rate < 10.0);
        format!(
            "{tool}: read {}, {} records; wrote {} {}{plural}, {} records, {}; {} {}; {secs:.1} s, {rate:.prec$} MB/s",
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
            "csvsplit: read 0 B, 0 records; wrote 3 shards, 0 records, 0 B; 0 bad; 0.0 s, 0.0 MB/s"
        );
    }
}
