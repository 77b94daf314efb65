//! Progress bars and summary lines (issue 12), through the real binaries: under a
//! pseudo-terminal (libc::openpty) each tool draws progress on stderr; with stderr a pipe, or
//! with `-q`, it draws none; with `-v` each prints one summary line of the shared shape, and
//! without `-v` nothing (csvcheck prints its summary by default).

use crate::support::cmd::{TIMEOUT, Within, wait_timeout};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin(tool: &str) -> PathBuf {
    match tool {
        "pksort" => env!("CARGO_BIN_EXE_pksort"),
        "csvsplit" => env!("CARGO_BIN_EXE_csvsplit"),
        "csvcheck" => env!("CARGO_BIN_EXE_csvcheck"),
        "pgdump2csv" => env!("CARGO_BIN_EXE_pgdump2csv"),
        other => panic!("no binary {other}"),
    }
    .into()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A CSV of 200,000 records (about 5 MB): a few chunks for every tool, so progress is drawn
/// while work is under way and not only at the start.
fn big_csv(dir: &Path) -> PathBuf {
    let p = dir.join("big.csv");
    let mut f = std::io::BufWriter::new(File::create(&p).unwrap());
    for i in 0..200_000u64 {
        let k = i.wrapping_mul(2_654_435_761) % 1_000_003;
        writeln!(f, "{i},{k},\"name {k}, quoted\",2024-01-02").unwrap();
    }
    f.flush().unwrap();
    p
}

/// The arguments that run `tool` on the test input in `dir` (its outputs go there too).
fn args(tool: &str, dir: &Path, csv: &Path) -> Vec<String> {
    let s = |p: &Path| p.display().to_string();
    match tool {
        "pksort" => vec![
            "-k".into(),
            "2:int,1:int".into(),
            "-o".into(),
            s(&dir.join("sorted.csv")),
            // Each run replaces the one before (the overwrite rule).
            "--force".into(),
            s(csv),
        ],
        "csvsplit" => vec![
            "--rows".into(),
            "50000".into(),
            "-o".into(),
            s(&dir.join("shards/part-{n}.csv")),
            "--force".into(),
            s(csv),
        ],
        "csvcheck" => vec![
            "--columns".into(),
            "a:int8,b:int4,c:text,d:date".into(),
            s(csv),
        ],
        "pgdump2csv" => vec![
            "-o".into(),
            s(&dir.join("tables")),
            "--force".into(),
            s(&fixtures().join("dumps/nasty.sql")),
        ],
        other => panic!("no tool {other}"),
    }
}

const TOOLS: [&str; 4] = ["pgdump2csv", "pksort", "csvsplit", "csvcheck"];

/// A pseudo-terminal of 40 rows and 120 columns: (master, slave).
fn pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    let ws = libc::winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the given ints; the name buffer and termios
    // are optional (null), the window size is a valid struct.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &ws,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// Everything written to the terminal until every holder of its slave side has closed it.
fn read_all(master: OwnedFd) -> String {
    let mut m = File::from(master);
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match m.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// Runs `tool` with stderr on a pseudo-terminal (stdout and stdin not); returns its exit
/// code and everything written to the terminal.
fn under_pty(tool: &str, args: &[String]) -> (Option<i32>, String) {
    let (master, slave) = pty();
    let mut child = Command::new(bin(tool))
        .args(args)
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(slave))
        .spawn()
        .expect("start the tool");
    // The parent's copy of the slave went into the Command and is closed now, so reading the
    // master ends (EIO) when the child exits.
    let seen = read_all(master);
    let status = wait_timeout(&mut child, TIMEOUT, tool);
    (status.code(), seen)
}

/// Runs `tool` with stderr a pipe; returns exit code and stderr.
fn piped(tool: &str, args: &[String]) -> (Option<i32>, String) {
    let out = Command::new(bin(tool))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output_as_set_within()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The fields of a summary line, checked against the shared shape:
/// `TOOL: read SIZE, N records; wrote N UNIT(s), N records, SIZE; N WORD; SECS s, RATE MB/s`.
#[derive(Debug)]
struct Line {
    tool: String,
    read_records: u64,
    wrote: u64,
    unit: String,
    wrote_records: u64,
    bad: u64,
    word: String,
}

fn count(s: &str) -> u64 {
    s.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("not a count: {s:?}"))
}

fn size(s: &str) -> f64 {
    let (n, unit) = s.split_once(' ').unwrap_or_else(|| panic!("size {s:?}"));
    assert!(
        ["B", "kB", "MB", "GB", "TB"].contains(&unit),
        "unit of {s:?}"
    );
    n.parse().unwrap_or_else(|_| panic!("size {s:?}"))
}

fn parse(line: &str) -> Line {
    let m = format!("not the summary shape: {line:?}");
    let (tool, rest) = line.split_once(": read ").expect(&m);
    let parts: Vec<&str> = rest.split("; ").collect();
    let [read, wrote, dropped, time] = parts[..] else {
        panic!("{m}")
    };
    let (rsize, rrecs) = read.split_once(", ").expect(&m);
    size(rsize);
    let read_records = count(rrecs.strip_suffix(" records").expect(&m));
    let w: Vec<&str> = wrote
        .strip_prefix("wrote ")
        .expect(&m)
        .split(", ")
        .collect();
    let [outs, wrecs, wsize] = w[..] else {
        panic!("{m}")
    };
    let (n, unit) = outs.split_once(' ').expect(&m);
    size(wsize);
    let (nbad, word) = dropped.split_once(' ').expect(&m);
    // No rate when nothing was read.
    let (secs, rate) = time
        .split_once(" s, ")
        .unwrap_or_else(|| (time.strip_suffix(" s").expect(&m), "0 MB/s"));
    let _: f64 = secs.parse().expect(&m);
    let _: f64 = rate.strip_suffix(" MB/s").expect(&m).parse().expect(&m);
    Line {
        tool: tool.to_string(),
        read_records,
        wrote: count(n),
        unit: unit.to_string(),
        wrote_records: count(wrecs.strip_suffix(" records").expect(&m)),
        bad: count(nbad),
        word: word.to_string(),
    }
}

#[test]
fn progress_on_a_terminal_only() {
    let d = tempfile::tempdir().unwrap();
    let csv = big_csv(d.path());
    for tool in TOOLS {
        let a = args(tool, d.path(), &csv);
        let (code, tty) = under_pty(tool, &a);
        assert_eq!(code, Some(0), "{tool}: {tty}");
        // The bar: the tool's name, then bytes read (of the total; a rate only once a second
        // has passed, which a short run may not reach: io::progress's unit tests hold that),
        // redrawn in place (\r and the erase-line sequence), and cleared at the end.
        assert!(
            tty.contains(&format!("{tool}: ")) && tty.contains("B/") && tty.contains("records"),
            "{tool} drew no progress on a terminal: {tty:?}"
        );
        assert!(tty.contains("\x1b[2K"), "{tool}: no redraw: {tty:?}");
        // The data's size is known, so the bar shows it, and an ETA beside the rate once
        // there is one (after a second: a short run may show neither).
        let frames = tty.rsplit_once("\x1b[2K").map_or(tty.as_str(), |(f, _)| f);
        // A rate (`12.3 MB/s`), not a path in the message: a temporary directory whose name
        // ends in `B` put `B/shards` in csvsplit's bar and failed this test at random.
        let rate = frames.match_indices("B/s").any(|(i, _)| {
            !frames[i + 3..].starts_with(|c: char| c.is_alphanumeric() || c == '/' || c == '.')
        });
        if tool != "pgdump2csv" && rate {
            assert!(tty.contains("ETA"), "{tool}: no ETA: {tty:?}");
        }

        let (code, err) = piped(tool, &a);
        assert_eq!(code, Some(0), "{tool}: {err}");
        assert!(
            !err.contains('\r') && !err.contains('\x1b') && !err.contains("ETA"),
            "{tool} piped: {err:?}"
        );

        let mut q = a.clone();
        q.insert(0, "-q".into());
        let (code, tty) = under_pty(tool, &q);
        assert_eq!(code, Some(0), "{tool} -q: {tty}");
        assert!(tty.is_empty(), "{tool} -q wrote to the terminal: {tty:?}");
    }
}

#[test]
fn compressed_input_counts_compressed_bytes() {
    let d = tempfile::tempdir().unwrap();
    let csv = big_csv(d.path());
    let gz = d.path().join("big.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(File::create(&gz).unwrap(), Default::default());
    enc.write_all(&std::fs::read(&csv).unwrap()).unwrap();
    enc.finish().unwrap();
    let total = std::fs::metadata(&gz).unwrap().len();
    let a = args("pksort", d.path(), &gz);
    let (code, tty) = under_pty("pksort", &a);
    assert_eq!(code, Some(0), "{tty}");
    let shown = format!("/{}", indicatif::DecimalBytes(total));
    assert!(
        tty.contains(&shown),
        "no total {shown} of the gzip file: {tty:?}"
    );
    let mut v = a.clone();
    v.insert(0, "-v".into());
    let (_, err) = piped("pksort", &v);
    let read = format!("read {}, 200,000 records", indicatif::DecimalBytes(total));
    assert!(err.contains(&read), "{err}");
}

#[test]
fn summary_with_v_and_not_without() {
    let d = tempfile::tempdir().unwrap();
    let csv = big_csv(d.path());
    let expect = [
        ("pgdump2csv", 1226, "table", 41, "dropped"),
        ("pksort", 200_000, "file", 1, "dropped"),
        ("csvsplit", 200_000, "shard", 4, "dropped"),
        ("csvcheck", 200_000, "file", 0, "bad"),
    ];
    for (tool, records, unit, outs, word) in expect {
        let a = args(tool, d.path(), &csv);
        let mut v = a.clone();
        v.insert(0, "-v".into());
        let (code, err) = piped(tool, &v);
        assert_eq!(code, Some(0), "{tool}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{tool} -v: one line: {err:?}");
        let l = parse(lines[0]);
        assert_eq!(l.tool, tool);
        assert_eq!(l.read_records, records, "{tool}: {err}");
        let plural = if outs == 1 {
            unit.to_string()
        } else {
            format!("{unit}s")
        };
        assert_eq!((l.wrote, l.unit.as_str()), (outs, plural.as_str()), "{err}");
        let written = if tool == "csvcheck" { 0 } else { records };
        assert_eq!(l.wrote_records, written, "{tool}: {err}");
        assert_eq!((l.bad, l.word.as_str()), (0, word), "{tool}: {err}");

        if tool == "csvcheck" {
            // A plain file read by its `File` (input::open_records): the chunk reader counts
            // the bytes read.
            let total = std::fs::metadata(&csv).unwrap().len();
            let read = format!("read {}, 200,000 records", indicatif::DecimalBytes(total));
            assert!(err.contains(&read), "{err}");
        }

        let (code, err) = piped(tool, &a);
        assert_eq!(code, Some(0), "{tool}: {err}");
        if tool == "csvcheck" {
            // Its summary is the default.
            assert_eq!(err.lines().count(), 1, "{err:?}");
            parse(err.trim_end());
        } else {
            assert_eq!(err, "", "{tool} without -v");
        }
    }
}

#[test]
fn summary_counts_what_was_dropped_and_bad() {
    let d = tempfile::tempdir().unwrap();
    let csv = d.path().join("dups.csv");
    std::fs::write(&csv, "1,a\n2,b\n1,c\n3,d\n1,e\n").unwrap();
    let out = d.path().join("out.csv");
    let (code, err) = piped(
        "pksort",
        &[
            "-v",
            "-k",
            "1:int",
            "--on-dup",
            "first",
            "-o",
            out.to_str().unwrap(),
            csv.to_str().unwrap(),
        ]
        .map(String::from),
    );
    assert_eq!(code, Some(0), "{err}");
    let l = parse(err.lines().last().unwrap());
    assert_eq!((l.read_records, l.wrote_records, l.bad), (5, 3, 2), "{err}");

    let (code, err) = piped(
        "csvcheck",
        &["--columns", "a:int4,b:text", csv.to_str().unwrap()].map(String::from),
    );
    assert_eq!(code, Some(0), "{err}");
    std::fs::write(&csv, "1,a\nx,b\n3,c\n").unwrap();
    let (code, err) = piped(
        "csvcheck",
        &["--columns", "a:int4,b:text", csv.to_str().unwrap()].map(String::from),
    );
    assert_eq!(code, Some(1), "{err}");
    let l = parse(err.lines().last().unwrap());
    assert_eq!(
        (l.read_records, l.bad, l.word.as_str()),
        (3, 1, "bad"),
        "{err}"
    );
}

/// The screen a terminal would show after `tty`, as far as the bars use it: `\r` goes to the
/// line's start, `ESC[2K` erases the line, `ESC[nA` moves up, `\n` goes down; other escapes
/// are skipped. Also returns, in order, the tool names that began each drawn frame (the text
/// written after an erase), so interleaved bars show.
fn screen(tty: &str) -> (Vec<String>, Vec<String>) {
    let mut lines = vec![String::new()];
    let (mut row, mut frames) = (0usize, Vec::new());
    let mut frame_start = false;
    let mut chars = tty.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => lines[row].clear(),
            '\n' => {
                row += 1;
                if row == lines.len() {
                    lines.push(String::new());
                }
            }
            '\x1b' => {
                let mut seq = String::new();
                if chars.peek() == Some(&'[') {
                    chars.next();
                    while let Some(&d) = chars.peek() {
                        chars.next();
                        seq.push(d);
                        if d.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
                if seq == "2K" {
                    lines[row].clear();
                    frame_start = true;
                } else if let Some(n) = seq.strip_suffix('A') {
                    row = row.saturating_sub(n.parse().unwrap_or(1));
                } else if seq == "J" || seq == "0J" {
                    lines.truncate(row + 1);
                    lines[row].clear();
                }
            }
            c => {
                if frame_start {
                    frame_start = false;
                    let rest: String = std::iter::once(c)
                        .chain(chars.clone().take_while(|&d| d != ':'))
                        .collect();
                    frames.push(rest);
                }
                lines[row].push(c);
            }
        }
    }
    (lines, frames)
}

/// `pksort | csvsplit` with both stderrs on one terminal (issue 23): one bar at a time (the
/// bars never interleave: all of pksort's frames come before csvsplit's), and nothing left on
/// the screen when both are done. Before, both drew on the same line at once and a stale
/// `csvsplit: 0 B 0 B/s` stayed behind.
#[test]
fn a_pipeline_shows_one_bar_and_leaves_none() {
    let d = tempfile::tempdir().unwrap();
    // Twice the usual input: pksort reads long enough for both to be drawing at once.
    let csv = big_csv(d.path());
    let twice = d.path().join("twice.csv");
    let mut all = std::fs::read(&csv).unwrap();
    all.extend_from_within(..);
    std::fs::write(&twice, all).unwrap();
    let (master, slave) = pty();
    let slave2 = slave.try_clone().unwrap();
    let mut sort = Command::new(bin("pksort"))
        .args(["-k", "2:int,1:int", "--on-dup", "first"])
        .arg(&twice)
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    let mut split = Command::new(bin("csvsplit"))
        .args(["--rows", "50000", "-o"])
        .arg(d.path().join("p/{n}.csv"))
        .env("TERM", "xterm")
        .stdin(Stdio::from(sort.stdout.take().unwrap()))
        .stdout(Stdio::null())
        .stderr(Stdio::from(slave2))
        .spawn()
        .unwrap();
    // A watchdog: a hung pipeline fails the test instead of hanging it.
    let pids = (sort.id(), split.id());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        for _ in 0..1200 {
            if flag.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        for pid in [pids.0, pids.1] {
            // SAFETY: a signal to our own child, not yet waited for.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    });
    let tty = read_all(master);
    let (a, b) = (
        wait_timeout(&mut sort, TIMEOUT, "pksort"),
        wait_timeout(&mut split, TIMEOUT, "csvsplit"),
    );
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(a.success() && b.success(), "{a:?} {b:?}: {tty:?}");
    let (lines, frames) = screen(&tty);
    assert!(
        frames.iter().any(|f| f == "pksort"),
        "no bar at all: {tty:?}"
    );
    let first_csvsplit = frames.iter().position(|f| f == "csvsplit");
    if let Some(i) = first_csvsplit {
        assert!(
            frames[i..].iter().all(|f| f != "pksort"),
            "the bars interleave: {frames:?}"
        );
    }
    assert!(
        lines.iter().all(|l| l.trim().is_empty()),
        "left on the screen: {lines:?}"
    );
}
