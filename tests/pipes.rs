//! The pipes of a pipeline (`pgdump2csv -t | pksort | csvsplit`): each tool grows the pipe it
//! reads or writes from the kernel's 64 KiB to 1 MiB (issue 62, src/io/stream.rs
//! `grow_pipe`), and what passes through is unchanged.

use crate::support::cli;
use crate::support::cmd::{bin, wait_until};
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::process::{Command, Stdio};

/// The pipe's buffer, as the kernel says (`F_GETPIPE_SZ`).
fn pipe_size(fd: BorrowedFd<'_>) -> i32 {
    // SAFETY: fcntl on a descriptor this test holds open.
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) }
}

/// What a tool may set: 1 MiB, or less where this machine's limit is lower (root may always
/// set 1 MiB).
fn grown() -> i32 {
    let max = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
        .unwrap_or(1 << 20);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        1 << 20
    } else {
        max.min(1 << 20)
    }
}

#[test]
fn each_tool_grows_the_pipes_of_its_standard_streams() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = std::fs::read(cli::dump_path("sample.sql.gz")).unwrap();
    let csv = Command::new(bin("pgdump2csv"))
        .args(["-q", "-t", "shop.orders"])
        .arg(cli::dump_path("sample.sql.gz"))
        .output()
        .unwrap();
    assert!(
        csv.status.success(),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
    let csv = csv.stdout;
    let file = tmp.path().join("orders.csv");
    std::fs::write(&file, &csv).unwrap();
    let sorted = Command::new(bin("pksort"))
        .args(["-q", "-k", "1:int"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(sorted.status.success());
    let parts = tmp.path().join("p-{n:04}.csv");
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // (tool, arguments, its input, what it writes on standard output: None when it writes
    // files)
    type Case<'a> = (&'a str, Vec<String>, &'a [u8], Option<&'a [u8]>);
    let cases: Vec<Case> = vec![
        (
            "pgdump2csv",
            words(&["-q", "-t", "shop.orders", "-"]),
            &dump,
            Some(&csv),
        ),
        (
            "pksort",
            words(&["-q", "-k", "1:int"]),
            &csv,
            Some(&sorted.stdout),
        ),
        ("csvcheck", words(&["-q", "-"]), &csv, None),
        (
            "csvsplit",
            words(&["-q", "-n", "2", "-o", parts.to_str().unwrap()]),
            &csv,
            None,
        ),
    ];
    for (tool, args, input, want) in cases {
        let (r, mut w) = std::io::pipe().unwrap();
        assert!(
            pipe_size(w.as_fd()) < grown(),
            "a new pipe is smaller (64 KiB)"
        );
        let mut child = Command::new(bin(tool))
            .args(&args)
            .stdin(r)
            .stdout(if want.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The tool grows its standard input as it opens it, before it reads.
        wait_until(
            &format!("{tool} growing its standard input to {} bytes", grown()),
            &|| pipe_size(w.as_fd()) == grown(),
        );
        // Written from a thread while the tool's output is read.
        let feed = {
            let input = input.to_vec();
            std::thread::spawn(move || w.write_all(&input).unwrap())
        };
        let mut out = Vec::new();
        if let Some(o) = child.stdout.as_mut() {
            o.read_to_end(&mut out).unwrap();
            assert_eq!(pipe_size(o.as_fd()), grown(), "{tool}: its standard output");
        }
        feed.join().unwrap();
        let st = child.wait_with_output().unwrap();
        assert!(
            st.status.success(),
            "{tool}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        // Through the pipes, the bytes are those read from and written to files.
        if let Some(want) = want {
            assert!(out == want, "{tool}: through pipes, its output differs");
        }
    }
}
