//! The safety promises every tool keeps, tried on the real binaries as a careless user would:
//! no output replaces an input or another output, a rerun leaves no stale shards, exit 0
//! means complete success (a named output whose reader went away is an error), a failed
//! producer makes every consumer downstream fail and remove its outputs, signals exit with
//! 128 + N and SIGKILL leaves no temporary file, `-j` is capped, and messages say what is
//! wrong.

use crate::support::cmd::wait_timeout;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const PGDUMP2CSV: &str = env!("CARGO_BIN_EXE_pgdump2csv");
const PKSORT: &str = env!("CARGO_BIN_EXE_pksort");
const CSVSPLIT: &str = env!("CARGO_BIN_EXE_csvsplit");
const CSVCHECK: &str = env!("CARGO_BIN_EXE_csvcheck");

fn nasty_dump() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/dumps/nasty.sql")
}

/// Runs a bash script in `dir` with the binaries as $PGDUMP2CSV, $PKSORT, $CSVSPLIT,
/// $CSVCHECK and the nasty dump as $DUMP.
fn bash(dir: &Path, script: &str) -> Output {
    crate::support::cmd::Cmd::program("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PGDUMP2CSV", PGDUMP2CSV)
        .env("PKSORT", PKSORT)
        .env("CSVSPLIT", CSVSPLIT)
        .env("CSVCHECK", CSVCHECK)
        .env("DUMP", nasty_dump())
        .run()
        .output
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `n` records `id,v` with header, ids 1..=n.
fn write_csv(path: &Path, n: usize) {
    let mut s = String::from("id,v\n");
    for i in 1..=n {
        s.push_str(&format!("{i},value {i}\n"));
    }
    fs::write(path, s).unwrap();
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn outputs_never_overwrite_inputs_or_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_csv(&d.join("in.csv"), 50);
    fs::copy(nasty_dump(), d.join("d.sql")).unwrap();
    fs::hard_link(d.join("in.csv"), d.join("link.csv")).unwrap();
    let before = entries(d);
    let cols = "--columns id:int,v:text --header";
    // (command, the two options the message must name)
    let cases: Vec<(String, [&str; 2])> = vec![
        ("$PGDUMP2CSV d.sql -o out --write-schema d.sql".into(), ["--write-schema", "DUMP"]),
        ("$PGDUMP2CSV d.sql -o out --write-post-data ./d.sql".into(), ["--write-post-data", "DUMP"]),
        ("$PGDUMP2CSV d.sql -o out --write-schema s.sql --write-manifest s.sql".into(), ["--write-manifest", "--write-schema"]),
        ("$PGDUMP2CSV < d.sql -o out --write-manifest out/public.customer.csv".into(), ["--write-manifest", "is also a table file under -o"]),
        (format!("$CSVCHECK {cols} in.csv --bad-rows in.csv"), ["--bad-rows", "FILE"]),
        (format!("$CSVCHECK {cols} in.csv --bad-rows-reasons link.csv"), ["--bad-rows-reasons", "FILE"]),
        (format!("$CSVCHECK {cols} in.csv --report in.csv"), ["--report", "FILE"]),
        (format!("$CSVCHECK {cols} in.csv --bad-rows x.csv --report x.csv"), ["--report", "--bad-rows"]),
        ("$PKSORT --header -k id in.csv --dups-out in.csv --on-dup first".into(), ["--dups-out", "FILE"]),
        ("$PKSORT --header -k id in.csv --dups-out o.csv -o ./o.csv".into(), ["--dups-out", "-o"]),
        ("$PKSORT --header -k id in.csv -o link.csv".into(), ["-o", "FILE"]),
        ("$CSVSPLIT -n 2 -o 'p-{n}.csv' --write-manifest p-1.csv in.csv".into(), ["--write-manifest", "shard 1"]),
        ("$CSVSPLIT -n 2 -o 'p-{n}.csv' --write-manifest in.csv in.csv".into(), ["--write-manifest", "FILE"]),
        ("$CSVSPLIT -n 2 -o 'q-{n}.csv' --manifest in.csv --table t --write-manifest ./in.csv in.csv".into(), ["--write-manifest", "FILE"]),
    ];
    for (cmd, names) in &cases {
        let out = bash(d, cmd);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        for n in names {
            assert!(err.contains(n), "{cmd}: message must name {n}: {err}");
        }
        assert!(err.contains("refusing"), "{cmd}: {err}");
        let now: Vec<String> = entries(d).into_iter().filter(|e| e != "out").collect();
        assert_eq!(now, before, "{cmd} wrote or removed files");
        assert_eq!(
            fs::read(d.join("d.sql")).unwrap(),
            fs::read(nasty_dump()).unwrap()
        );
        assert!(
            fs::read_to_string(d.join("in.csv"))
                .unwrap()
                .starts_with("id,v\n1,")
        );
    }
    // The table file whose name the manifest was given stays a CSV: the manifest, written
    // last, is refused instead of replacing it.
    assert!(
        fs::read_to_string(d.join("out/public.customer.csv"))
            .unwrap()
            .contains("Customer 1000")
    );
}

#[test]
fn csvsplit_refuses_stale_shards_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_csv(&d.join("in.csv"), 100);
    let out = bash(d, "$CSVSPLIT -n 16 -o 'sh/p-{n:02}.csv' in.csv");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(entries(&d.join("sh")).len(), 16);
    let out = bash(d, "$CSVSPLIT -n 4 -o 'sh/p-{n:02}.csv' in.csv");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("sh/p-00.csv") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(entries(&d.join("sh")).len(), 16, "refused before writing");
    fs::write(d.join("sh/other.csv"), "not mine").unwrap();
    let out = bash(d, "$CSVSPLIT -n 4 -o 'sh/p-{n:02}.csv' --force in.csv");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        entries(&d.join("sh")),
        ["other.csv", "p-00.csv", "p-01.csv", "p-02.csv", "p-03.csv"]
    );
    let all: String = (0..4)
        .map(|i| fs::read_to_string(d.join(format!("sh/p-{i:02}.csv"))).unwrap())
        .collect();
    assert_eq!(all, fs::read_to_string(d.join("in.csv")).unwrap());
}

#[test]
fn a_named_output_whose_reader_goes_away_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Outputs of megabytes, far more than a pipe holds, so the reader is gone before the end.
    // Every record twice: --dups-out gets all of them.
    let mut s = String::from("id,v\n");
    for i in 1..=100_000 {
        s.push_str(&format!("{i},a\n{i},b\n"));
    }
    fs::write(d.join("dups.csv"), &s).unwrap();
    fs::write(d.join("bad.csv"), s.replace(",a\n", ",a,extra\n")).unwrap();
    let cases = [
        "$PKSORT --header -k id:int --on-dup first dups.csv -o out.csv --dups-out >(head -c 10 >/dev/null)",
        "$CSVCHECK --columns id:int,v:text --header bad.csv --bad-rows >(head -c 10 >/dev/null)",
    ];
    for cmd in cases {
        let out = bash(d, cmd);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("Broken pipe"), "{cmd}");
    }
    assert!(!d.join("out.csv").exists(), "a failed run leaves no output");
    // Standard output closing early is the one quiet end.
    let out = bash(
        d,
        "$PKSORT --header -k id:int --on-dup keep dups.csv | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// Every producer of CSV on stdout that fails mid-stream makes every consumer fail (exit 2)
/// without leaving outputs. csvsplit writes its CSV only to shard files, so it is a consumer
/// only.
#[test]
fn a_failed_producer_fails_every_consumer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // pksort: a duplicate found while writing the sorted output.
    let mut s = String::from("id,v\n");
    for i in 1..=200_000 {
        s.push_str(&format!("{i},x\n"));
    }
    s.push_str("5,dup\n");
    fs::write(d.join("dup.csv"), &s).unwrap();
    // csvcheck --filter: a gzip input cut in the middle.
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(s.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    fs::write(d.join("cut.csv.gz"), &gz[..gz.len() / 2]).unwrap();
    let producers = [
        // The dump cut inside the customer table's COPY data.
        "head -c 60000 $DUMP | $PGDUMP2CSV -t public.customer --header",
        // Compressed stdout: the mark follows the gzip stream.
        "head -c 60000 $DUMP | $PGDUMP2CSV -t public.customer --header --gzip",
        "$PKSORT --header -k id:int -S 1M dup.csv",
        "$CSVCHECK --columns id:int,v:text --header --filter cut.csv.gz",
    ];
    let consumers = [
        ("$PKSORT --header -k 1 -o sorted.csv", vec!["sorted.csv"]),
        (
            "$CSVSPLIT --header -n 2 -o 'sh/p-{n}.csv' --write-manifest m.json",
            vec!["sh/p-0.csv", "m.json"],
        ),
        (
            "$CSVCHECK --header --report r.json --bad-rows b.csv",
            vec!["r.json", "b.csv"],
        ),
    ];
    for p in producers {
        for (c, outputs) in &consumers {
            let cmd = format!("{p} | {c}; echo \"${{PIPESTATUS[*]}}\"");
            let out = bash(d, &cmd);
            let codes = text(&out.stdout);
            let err = text(&out.stderr);
            let codes: Vec<&str> = codes.split_whitespace().collect();
            assert_eq!(codes.last(), Some(&"2"), "consumer of {cmd}: {err}");
            assert_ne!(codes[codes.len() - 2], "0", "producer of {cmd}: {err}");
            assert!(
                err.contains("the tool that wrote it failed"),
                "{cmd}: {err}"
            );
            for o in outputs {
                assert!(!d.join(o).exists(), "{cmd} left {o}");
            }
        }
    }
    // The producers' stdout ends inside quotes, with the mark.
    let out = bash(d, "$PKSORT --header -k id:int -S 1M dup.csv");
    assert!(out.stdout.ends_with(dumpshard::io::stream::INCOMPLETE));
}

/// Waits until `pid` has a thread named `name` (the signal thread is up), at most 60 s.
fn wait_for_thread(pid: u32, name: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) {
            for t in tasks.flatten() {
                if fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == name) {
                    return;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no thread {name} in {pid}");
}

#[test]
fn signals_exit_128_plus_their_number() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let mut c = Command::new(PKSORT);
        c.args(["-k", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Default dispositions in the child: under nohup SIGHUP is ignored, the tool keeps
        // ignoring what it inherited ignored (as nohup asks), and the test waited forever.
        crate::support::cmd::default_signals(&mut c);
        let mut child = c.spawn().unwrap();
        // Held open until the child is gone: `wait` would otherwise close it first, and
        // pksort, seeing the end of an empty input, could finish with 0 before its signal
        // thread got the CPU (a flaky failure on a loaded machine).
        let stdin = child.stdin.take();
        wait_for_thread(child.id(), "signals");
        // SAFETY: kill on our own child's pid.
        unsafe { libc::kill(child.id() as i32, sig) };
        let st = wait_timeout(
            &mut child,
            Duration::from_secs(120),
            &format!("pksort after signal {sig}"),
        );
        drop(stdin);
        assert_eq!(st.code(), Some(code), "signal {sig}");
    }
}

/// The file descriptors of `pid` that point into `dir` (its output files being written).
fn fds_into(pid: u32, dir: &Path) -> usize {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    fds.flatten()
        .filter(|f| fs::read_link(f.path()).is_ok_and(|l| l.starts_with(dir)))
        .count()
}

#[test]
fn sigkill_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = fs::canonicalize(dir.path()).unwrap();
    let out = d.join("out");
    fs::create_dir(&out).unwrap();
    let tmpfile = {
        use std::os::unix::fs::OpenOptionsExt;
        fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_TMPFILE)
            .mode(0o600)
            .open(&out)
            .is_ok()
    };
    if !tmpfile {
        eprintln!("skipped: no O_TMPFILE on this file system (the named fallback is used)");
        return;
    }
    let mut child = Command::new(CSVSPLIT)
        .args(["-r", "1000000", "-o"])
        .arg(out.join("p-{n}.csv"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut sin = child.stdin.take().unwrap();
    let start = Instant::now();
    // Feed records (keeping stdin open) until the first shard is being written.
    while fds_into(child.id(), &out) == 0 {
        assert!(start.elapsed() < Duration::from_secs(60), "no shard opened");
        sin.write_all(&b"1,some record\n".repeat(100_000)).unwrap();
    }
    child.kill().unwrap();
    wait_timeout(
        &mut child,
        Duration::from_secs(120),
        "csvsplit after SIGKILL",
    );
    assert_eq!(entries(&out), Vec::<String>::new(), "SIGKILL left files");
}

#[test]
fn thread_counts_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_csv(&d.join("in.csv"), 1000);
    for cmd in [
        "$PKSORT -j 100000 --header -k id:int in.csv -o s.csv",
        "$CSVCHECK -j 100000 --columns id:int,v:text --header in.csv",
    ] {
        let out = bash(d, &format!("timeout 120 {cmd}"));
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", text(&out.stderr));
    }
    let out = bash(d, "$PKSORT --help");
    assert!(text(&out.stdout).contains("at most 4 per CPU"));
}

#[test]
fn messages_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_csv(&d.join("in.csv"), 20_000);
    fs::write(d.join("empty.csv"), "").unwrap();
    fs::write(d.join("bare.csv"), "1,x\n1,ab\"c\n2,y\n").unwrap();
    let data = "id,v\n".to_string() + &"1,x\n".repeat(50_000);
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    fs::write(d.join("cut.gz"), &gz[..gz.len() - 100]).unwrap();
    fs::write(d.join("junk.gz"), [&gz[..], b"junk"].concat()).unwrap();
    fs::write(d.join("padded.gz"), [&gz[..], &[0u8; 1000][..]].concat()).unwrap();
    let cases = [
        (
            "$PGDUMP2CSV $DUMP -o /dev/full",
            "-o /dev/full: exists and is not a directory",
        ),
        (
            "$PGDUMP2CSV $DUMP -o in.csv",
            "-o in.csv: exists and is not a directory",
        ),
        (
            "$PKSORT -k 1 -S 64K --temporary-directory /proc in.csv -o o.csv",
            "/proc: cannot hold temporary files",
        ),
        (
            "$PKSORT --header -k id empty.csv",
            "empty.csv: is empty, but --header",
        ),
        (
            "$PKSORT -k 1 bare.csv",
            "bare quote in unquoted field at line 2, byte 8",
        ),
        (
            "$PKSORT --header -k 1 cut.gz",
            "cut.gz: cannot decompress (the file is truncated)",
        ),
        (
            "$PKSORT --header -k 1 junk.gz",
            "bytes after the last gzip member",
        ),
    ];
    for (cmd, want) in cases {
        let out = bash(d, cmd);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains(want), "{cmd}: want {want:?} in {err}");
    }
    let out = bash(d, "$PKSORT --header -k 1 cut.gz");
    let err = text(&out.stderr);
    assert!(
        err.contains("compressed byte") && err.contains("decompressed byte"),
        "{err}"
    );
    let out = bash(
        d,
        "$PKSORT --header -k id:int --on-dup keep padded.gz | wc -l",
    );
    assert_eq!(text(&out.stdout).trim(), "50001", "{}", text(&out.stderr));
}
