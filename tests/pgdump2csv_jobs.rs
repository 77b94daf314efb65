//! `pgdump2csv -j N`: the outputs (CSV and `--gzip` bytes alike) do not depend on N for plain
//! and compressed input, and `-j 1` really works on one thread (no decompression thread, no
//! conversion pool), as a user capping the CPU expects.

use crate::support::cmd::Cmd;
use crate::support::cmd::{TIMEOUT, Within, wait_output_timeout};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const HEAD: &str = "--\n-- PostgreSQL database dump\n--\n\nSET standard_conforming_strings = on;\nSELECT pg_catalog.set_config('search_path', '', false);\n\n";
const FOOT: &str = "\n--\n-- PostgreSQL database dump complete\n--\n\n";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgdump2csv"))
}

/// CREATE TABLE and the start of its COPY block.
fn table_head(name: &str) -> String {
    format!(
        "CREATE TABLE public.{name} (id integer NOT NULL, s text, n numeric);\n\n\
         COPY public.{name} (id, s, n) FROM stdin;\n"
    )
}

/// `n` COPY rows with escapes, NULLs, quotes and commas, so the CSV needs quoting.
fn rows(n: usize, seed: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let k = i * 7 + seed;
        match k % 5 {
            0 => s.push_str(&format!("{i}\t\\N\t{k}.5\n")),
            1 => s.push_str(&format!("{i}\tsay \"hi\", {k}\t\\N\n")),
            2 => s.push_str(&format!("{i}\ttab\\there\\nnewline {k}\t-{k}\n")),
            _ => s.push_str(&format!("{i}\tplain text number {k} of many\t{k}\n")),
        }
    }
    s
}

/// A dump of three tables: one of several MB (several read blocks, converted in pieces), two
/// small.
fn dump() -> String {
    let mut d = String::from(HEAD);
    for (name, n) in [("big", 200_000), ("small", 100), ("mid", 20_000)] {
        d.push_str(&table_head(name));
        d.push_str(&rows(n, n));
        d.push_str("\\.\n\n\n");
    }
    d.push_str(FOOT);
    d
}

/// Every file of `dir` by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

fn convert(input: &Path, out: &Path, extra: &[&str]) {
    Cmd::new("pgdump2csv")
        .arg(input)
        .args(["-q", "-o"])
        .arg(out)
        .args(extra)
        .ok();
}

fn inputs(tmp: &Path) -> Vec<PathBuf> {
    let d = dump();
    let plain = tmp.join("dump.sql");
    fs::write(&plain, &d).unwrap();
    let gz = tmp.join("dump.sql.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(d.as_bytes()).unwrap();
    fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = tmp.join("dump.sql.zst");
    fs::write(&zst, zstd::encode_all(d.as_bytes(), 1).unwrap()).unwrap();
    vec![plain, gz, zst]
}

#[test]
fn outputs_do_not_depend_on_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    for input in inputs(tmp.path()) {
        let mut want = None;
        for j in ["1", "2", "3", "4"] {
            let out = tmp.path().join(format!("out-{j}"));
            convert(&input, &out, &["-j", j]);
            let got = files(&out);
            assert_eq!(got.len(), 3);
            match &want {
                None => want = Some(got),
                Some(w) => assert!(w == &got, "{}: -j {j} differs from -j 1", input.display()),
            }
            fs::remove_dir_all(&out).unwrap();
        }
    }
}

#[test]
fn gzip_output_bytes_do_not_depend_on_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    let inputs = inputs(tmp.path());
    convert(&inputs[0], &plain, &["-j", "1"]);
    for input in &inputs {
        let mut want = None;
        for j in ["1", "2", "4"] {
            let out = tmp.path().join(format!("gz-{j}"));
            convert(input, &out, &["-j", j, "--gzip"]);
            let got = files(&out);
            for (name, bytes) in &got {
                let p = out.join(name);
                let t = Command::new("gzip")
                    .arg("-t")
                    .arg(&p)
                    .status_within()
                    .unwrap();
                assert!(t.success(), "gzip -t {}", p.display());
                // The same CSV as without --gzip.
                let mut csv = Vec::new();
                std::io::Read::read_to_end(
                    &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
                    &mut csv,
                )
                .unwrap();
                let plain_name = name.strip_suffix(".gz").unwrap();
                assert!(
                    csv == fs::read(plain.join(plain_name)).unwrap(),
                    "{name}: not the CSV"
                );
            }
            match &want {
                None => want = Some(got),
                Some(w) => assert!(
                    w == &got,
                    "{}: --gzip bytes of -j {j} differ from -j 1",
                    input.display()
                ),
            }
            fs::remove_dir_all(&out).unwrap();
        }
    }
}

/// Names of the threads of process `pid` (as in /proc/PID/task/*/comm).
fn thread_names(pid: u32) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|t| fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|s| s.trim_end().to_string())
        .collect();
    v.sort();
    v
}

/// True if process `pid` has a file under `dir` open.
fn writes_under(pid: u32, dir: &Path) -> bool {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(|f| fs::read_link(f.ok()?.path()).ok())
        .any(|t| t.starts_with(dir))
}

/// Starts pgdump2csv `-j j` on a gzip dump from a FIFO, feeds it the head of the dump and
/// part of a table's COPY data, and returns the names of its threads while it waits for the
/// rest (which it then gets; the run must succeed).
fn threads_while_blocked(j: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("dump.gz");
    crate::support::mkfifo(&fifo);
    let out = tmp.path().join("out");
    let mut child = bin()
        .arg(&fifo)
        .args(["-q", "-j", j, "-o"])
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Opening for writing waits for the reader, which has started then.
    let mut w = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(HEAD.as_bytes()).unwrap();
    gz.write_all(table_head("t").as_bytes()).unwrap();
    gz.write_all(rows(200_000, 0).as_bytes()).unwrap();
    gz.flush().unwrap();
    w.write_all(&std::mem::take(gz.get_mut())).unwrap();
    w.flush().unwrap();
    // More than a read block (4 MB), so the converter is at work on it. The table's file
    // is begun (a file under `out` is open; it may have no name yet) once the converter is
    // in the COPY data. The deadline only stops a hung run; it measures nothing.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !writes_under(child.id(), &out) {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("pgdump2csv did not begin the table");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let names = thread_names(child.id());
    gz.write_all(rows(10, 1).as_bytes()).unwrap();
    gz.write_all(b"\\.\n\n\n").unwrap();
    gz.write_all(FOOT.as_bytes()).unwrap();
    w.write_all(&gz.finish().unwrap()).unwrap();
    drop(w);
    let o = wait_output_timeout(child, TIMEOUT, "pgdump2csv");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    names
}

#[test]
fn one_job_is_one_working_thread() {
    // Besides the main thread only the signal watcher (which only waits) may exist: no
    // decompression thread, no conversion pool.
    let names = threads_while_blocked("1");
    let working: Vec<_> = names.iter().filter(|n| *n != "signals").collect();
    assert_eq!(working.len(), 1, "threads of -j 1: {names:?}");
    // With two jobs, inflating overlaps converting: a decompression thread beside the
    // converter, and no pool (it would be a third thread working).
    let names = threads_while_blocked("2");
    let working: Vec<_> = names.iter().filter(|n| *n != "signals").collect();
    assert_eq!(working.len(), 2, "threads of -j 2: {names:?}");
    assert!(
        working.iter().any(|n| n.starts_with("inflate")),
        "threads of -j 2: {names:?}"
    );
}

/// A dump that exercises how blocks are converted and written: 30 tables of 0 to about
/// 1.5 MB (below, around and above one conversion block), one table whose data comes in two
/// COPY blocks far apart (the file is reopened and appended to), and an INSERT table.
fn mixed_dump() -> String {
    let mut d = String::from(HEAD);
    for t in 0..30 {
        let name = format!("t{t}");
        d.push_str(&table_head(&name));
        d.push_str(&rows(t * t * 60, t));
        d.push_str("\\.\n\n\n");
        if t == 5 {
            d.push_str("CREATE TABLE public.ins (id integer, s text);\n\n");
            for i in 0..3000 {
                d.push_str(&format!(
                    "INSERT INTO public.ins VALUES ({i}, 'row ''{i}'', \"q\"');\n"
                ));
            }
            d.push('\n');
        }
    }
    // t20's data again, as --load-via-partition-root writes a partition's.
    d.push_str("COPY public.t20 (id, s, n) FROM stdin;\n");
    d.push_str(&rows(50_000, 99));
    d.push_str("\\.\n\n\n");
    d.push_str(FOOT);
    d
}

#[test]
fn every_job_count_writes_what_one_thread_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("mixed.sql");
    fs::write(&input, mixed_dump()).unwrap();
    let run = |j: &str, extra: &[&str]| {
        let out = tmp.path().join(format!("out-{j}"));
        let _ = fs::remove_dir_all(&out);
        let mut args = vec!["-j", j, "--header", "--write-manifest"];
        let manifest = out.join("manifest.json");
        let manifest = manifest.to_str().unwrap().to_owned();
        args.push(&manifest);
        args.extend_from_slice(extra);
        convert(&input, &out, &args);
        files(&out)
    };
    let want = run("1", &[]);
    assert_eq!(want.len(), 32, "31 tables and the manifest");
    for j in ["2", "3", "4"] {
        let got = run(j, &[]);
        assert_eq!(want.len(), got.len(), "-j {j}");
        for (w, g) in want.iter().zip(&got) {
            assert!(w == g, "-j {j}: {} differs from -j 1", g.0);
        }
    }
    // One table to stdout (written in place): the same bytes as its file.
    let t20 = &want.iter().find(|(n, _)| n == "public.t20.csv").unwrap().1;
    for j in ["1", "2"] {
        let stdout = Cmd::new("pgdump2csv")
            .arg(&input)
            .args(["-q", "--header", "-t", "t20", "-j", j])
            .ok();
        assert!(&stdout == t20, "-j {j}: stdout differs from the file");
    }
}

/// Runs pgdump2csv `-j j` on `input` into `out` with files limited to `limit` bytes: a write
/// past it fails with EFBIG (SIGXFSZ ignored, as it stays across exec).
fn convert_limited(input: &Path, out: &Path, j: &str, limit: u64) -> std::process::Output {
    limited(input, out, j, limit)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap()
}

/// The command of [`convert_limited`].
fn limited(input: &Path, out: &Path, j: &str, limit: u64) -> Command {
    use std::os::unix::process::CommandExt;
    let mut c = bin();
    c.arg(input).args(["-q", "-j", j, "-o"]).arg(out);
    // SAFETY: signal and setrlimit are async-signal-safe; nothing else runs between fork
    // and exec.
    unsafe {
        c.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c
}

#[test]
fn a_write_error_is_reported_alike_at_every_job_count() {
    // A table file stops growing at 1 MiB; a bad row follows, a few MB further. The write
    // fails first, before the block with the bad row is written; with a pool of converters
    // the bad row's block may be converted first, but the write error, which came first in
    // the output, is the one reported, in the same words, exit 2, and no table file but the
    // one finished before is left.
    let tmp = tempfile::tempdir().unwrap();
    let mut d = String::from(HEAD);
    d.push_str(&table_head("small"));
    d.push_str(&rows(100, 3));
    d.push_str("\\.\n\n\n");
    d.push_str(&table_head("big"));
    d.push_str(&rows(150_000, 0));
    d.push_str("1\ttoo\tmany\tcolumns\n");
    d.push_str(&rows(150_000, 1));
    d.push_str("\\.\n\n\n");
    d.push_str(FOOT);
    let input = tmp.path().join("dump.sql");
    fs::write(&input, &d).unwrap();
    let mut first = None;
    for j in ["1", "2", "3"] {
        let out = tmp.path().join(format!("out-{j}"));
        let o = convert_limited(&input, &out, j, 1 << 20);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "-j {j}: {err}");
        assert!(
            err.lines().count() == 1
                && err.contains("public.big.csv: File too large")
                && err.starts_with("pgdump2csv: "),
            "-j {j}: {err}"
        );
        let names: Vec<_> = files(&out).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["public.small.csv"], "-j {j}");
        let err = err.replace(&format!("out-{j}"), "out");
        match &first {
            None => first = Some(err),
            Some(f) => assert_eq!(f, &err, "-j {j} reports otherwise than -j 1"),
        }
    }
    // Without the limit, the bad row is the error.
    let r = Cmd::new("pgdump2csv")
        .arg(&input)
        .args(["-q", "-j", "2", "-o"])
        .arg(tmp.path().join("out"))
        .expect(2);
    r.check(
        r.stderr_str().contains("public.big row 150001"),
        "the bad row is the error",
    );
    let names: Vec<_> = files(&tmp.path().join("out"))
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["public.small.csv"]);
}

#[test]
fn a_write_error_stops_the_run_before_the_input_ends() {
    // The dump comes from a FIFO that is never closed: the run can only end because the
    // table's file hit its size limit (EFBIG); it must stop within a few blocks, not
    // wait for the rest of the input. The deadline only stops a hung run; it measures nothing.
    let tmp = tempfile::tempdir().unwrap();
    let mut d = String::from(HEAD);
    d.push_str(&table_head("big"));
    // About 18 MB of rows: the CSV passes 1 MiB in the first block.
    d.push_str(&rows(600_000, 0));
    for j in ["1", "2", "3"] {
        let fifo = tmp.path().join(format!("dump-{j}"));
        crate::support::mkfifo(&fifo);
        let out = tmp.path().join(format!("out-{j}"));
        let mut c = limited(&fifo, &out, j, 1 << 20);
        let mut child = c.stderr(Stdio::piped()).spawn().unwrap();
        let mut w = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        // Fails (EPIPE) once pgdump2csv has stopped reading: it is done then.
        let _ = w.write_all(d.as_bytes());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("-j {j}: still running with the input open");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        drop(w);
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(2), "-j {j}: {err}");
        assert!(
            err.contains("public.big.csv: File too large"),
            "-j {j}: {err}"
        );
        assert!(files(&out).is_empty(), "-j {j}: a file left");
    }
}

/// COPY rows of 3 columns whose values are the hard cases of COPY text: escapes of every
/// kind, `\N` and `\.` as data (escaped: `\\N`, `\\.`, never a NULL or an end marker), NULL,
/// '' beside NULL, commas, quotes, CR and LF inside values, non-ASCII; lines of 1 to a few
/// hundred bytes, so pieces are cut at every kind of line.
fn nasty_rows(n: usize, seed: usize) -> String {
    const V: [&str; 14] = [
        "\\\\.",
        "\\\\N",
        "\\N",
        "",
        "a,b",
        "say \"x\"",
        "cr\\rlf\\nend",
        "tab\\tin",
        "\\101\\x42\\q\\\\",
        "é🦀",
        ".",
        "\\\\",
        "x",
        "long long long long long long long long long long long long long long long",
    ];
    let mut s = String::new();
    for i in 0..n {
        let k = i.wrapping_mul(2_654_435_761).wrapping_add(seed);
        let v = |j: usize| V[(k >> (j * 4)) % V.len()];
        let rep = 1 + (k >> 13) % 5;
        s.push_str(&format!("{i}\t{}\t{}\n", v(1).repeat(rep), v(2)));
    }
    s
}

/// A dump of a big table of [`nasty_rows`], a small one, one in CR LF lines and a second
/// block of the big table.
fn nasty_dump() -> String {
    let mut d = String::from(HEAD);
    d.push_str(&table_head("big"));
    d.push_str(&nasty_rows(30_000, 1));
    d.push_str("\\.\n\n\n");
    d.push_str(&table_head("small"));
    d.push_str(&nasty_rows(10, 2));
    d.push_str("\\.\n\n\n");
    d.push_str(&table_head("crlf"));
    d.push_str(&nasty_rows(3_000, 3).replace('\n', "\r\n"));
    d.push_str("\\.\r\n\n\n");
    d.push_str("COPY public.big (id, s, n) FROM stdin;\n");
    d.push_str(&nasty_rows(5_000, 4));
    d.push_str("\\.\n\n\n");
    d.push_str(FOOT);
    d
}

#[test]
fn pieces_cut_anywhere_write_what_one_thread_writes() {
    // DUMPSHARD_COPY_CHUNK (hidden) sets the size of the pieces a COPY block is cut into for
    // the pool: cut after every line (1), at odd places (777) and rarely (64 KiB), with file
    // and standard input, at 2 and 4 jobs, the bytes are -j 1's, manifest included.
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("nasty.sql");
    let d = nasty_dump();
    fs::write(&input, &d).unwrap();
    let run = |j: &str, chunk: Option<&str>| {
        let out = tmp.path().join("out");
        let _ = fs::remove_dir_all(&out);
        let m = tmp.path().join("m.json");
        let _ = fs::remove_file(&m);
        let mut c = Cmd::new("pgdump2csv")
            .arg(&input)
            .args(["-q", "-j", j, "--write-manifest"])
            .arg(&m)
            .arg("-o")
            .arg(&out);
        if let Some(k) = chunk {
            c = c.env("DUMPSHARD_COPY_CHUNK", k);
        }
        c.ok();
        let mut f = files(&out);
        let m = String::from_utf8(fs::read(&m).unwrap()).unwrap();
        // The manifest names its source and files by path: the same in every run here.
        f.push(("manifest".into(), m.into_bytes()));
        f
    };
    let want = run("1", None);
    assert_eq!(want.len(), 4, "3 tables and the manifest");
    for chunk in [Some("1"), Some("777"), Some("65536"), None] {
        for j in ["2", "4"] {
            let got = run(j, chunk);
            for (w, g) in want.iter().zip(&got) {
                assert!(w == g, "-j {j}, pieces of {chunk:?}: {} differs", g.0);
            }
        }
    }
    let big = &want.iter().find(|(n, _)| n == "public.big.csv").unwrap().1;
    for j in ["1", "2"] {
        let got = Cmd::new("pgdump2csv")
            .args(["-q", "-t", "big", "-j", j])
            .env("DUMPSHARD_COPY_CHUNK", "333")
            .stdin(d.clone())
            .ok();
        assert!(&got == big, "standard input, -j {j}: differs");
    }
}

/// Line (1-based) and byte offset of `needle`'s first occurrence in `d` after `from`.
fn line_byte(d: &str, needle: &str, from: usize) -> (usize, usize) {
    let at = from + d[from..].find(needle).unwrap();
    (d[..at].matches('\n').count() + 1, at)
}

#[test]
fn a_bad_row_far_into_a_big_table_is_placed_alike_at_every_job_count() {
    // Two bad rows far into a table of several read buffers (the first is reported, with
    // its line and byte in the dump), a row with a literal CR, a corrupt end marker and a
    // block cut off: the same message at -j 1, 2 and 4, whatever the pieces.
    let tmp = tempfile::tempdir().unwrap();
    let big = rows(150_000, 0);
    let cases: Vec<(&str, String, String)> = vec![
        (
            "too many fields",
            format!(
                "{big}7\ttoo\tmany\tfields\n{}8\ttoo\tmany\tagain\n",
                rows(1000, 1)
            ),
            "7\ttoo\tmany\tfields\n".into(),
        ),
        (
            "literal CR",
            format!("{big}7\tcr\rhere\t1\n{}", rows(1000, 1)),
            "7\tcr\rhere\t1\n".into(),
        ),
        ("corrupt marker", format!("{big}\\.x\n"), "\\.x\n".into()),
    ];
    for (what, body, needle) in cases {
        let mut d = String::from(HEAD);
        d.push_str(&table_head("t"));
        d.push_str(&body);
        if what != "corrupt marker" {
            d.push_str("\\.\n\n\n");
        }
        d.push_str(FOOT);
        let input = tmp.path().join("bad.sql");
        fs::write(&input, &d).unwrap();
        let (line, byte) = line_byte(&d, &needle, HEAD.len());
        let want = format!("{}:{line}: (byte {byte}) ", input.display());
        let mut first: Option<String> = None;
        for (j, chunk) in [("1", None), ("2", None), ("4", None), ("4", Some("1000"))] {
            let out = tmp.path().join("out");
            let _ = fs::remove_dir_all(&out);
            let mut c = Cmd::new("pgdump2csv")
                .arg(&input)
                .args(["-q", "-j", j, "-o"])
                .arg(&out);
            if let Some(k) = chunk {
                c = c.env("DUMPSHARD_COPY_CHUNK", k);
            }
            let err = c.expect(2).stderr_str();
            assert!(err.contains(&want), "{what}, -j {j}: {err}\nwanted {want}");
            assert!(!out.join("public.t.csv").exists(), "{what}, -j {j}");
            match &first {
                None => first = Some(err),
                Some(f) => assert_eq!(f, &err, "{what}, -j {j}"),
            }
        }
    }
    // Cut off inside the block: at the end of the input, after the last whole line.
    let mut d = String::from(HEAD);
    d.push_str(&table_head("t"));
    d.push_str(&big);
    let input = tmp.path().join("cut.sql");
    fs::write(&input, &d).unwrap();
    let want = format!(
        "{}:{}: (byte {}) ",
        input.display(),
        d.matches('\n').count() + 1,
        d.len()
    );
    for j in ["1", "4"] {
        let err = Cmd::new("pgdump2csv")
            .arg(&input)
            .args(["-q", "-j", j, "-o"])
            .arg(tmp.path().join("cut"))
            .expect(2)
            .stderr_str();
        assert!(
            err.contains(&want) && err.contains("truncated"),
            "-j {j}: {err}\nwanted {want}"
        );
    }
}
