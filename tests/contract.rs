//! The contract every tool keeps, checked table-driven over all five binaries (issue 11): a
//! closed stdout ends quietly with 0, a full disk (/dev/full) is a one-line `TOOL: ...` error
//! with exit 2, a missing input file exits 2 naming it, garbage input gets the tool's
//! documented answer, `--help`/`--version` exit 0, a usage error is two lines (`TOOL: message`,
//! `Try 'TOOL --help'.`) with exit 2, and the man page and completions are current (`DUMPSHARD_BLESS=1 cargo test
//! man_page` rewrites them). csvload needs a server for everything else, so it is in the rows
//! it can answer without one. Tool-specific variants (pksort's spill files on a full disk,
//! csvcheck's exit 3 when stopped early, csvsplit's partial shards) stay in the tool's module.

use crate::support::cmd::{Cmd, bin};
use crate::support::man;

/// One tool's contract: how it is run on a small valid input, and what it says of garbage.
struct Tool {
    name: &'static str,
    /// Arguments that make it read stdin and write records to stdout (None: it has no such
    /// mode without a server).
    to_stdout: Option<&'static [&'static str]>,
    /// A valid input for `to_stdout`, of which `line(i)` is record `i`.
    line: fn(usize) -> String,
    /// Wraps records into the input the tool reads (a dump for pgdump2csv).
    wrap: fn(String) -> String,
    /// Arguments before a missing input file.
    missing: &'static [&'static str],
    /// Garbage on stdin with `to_stdout`: the exit code the contract gives it.
    garbage: Option<i32>,
    /// The clap command, for the man page.
    command: fn() -> clap::Command,
}

fn plain(s: String) -> String {
    s
}

fn csv_line(i: usize) -> String {
    format!("{i},some text to fill a pipe quickly\n")
}

fn tsv_line(i: usize) -> String {
    format!("{i}\tsome text to fill a pipe quickly\n")
}

fn dump(rows: String) -> String {
    format!(
        "--\n-- PostgreSQL database dump\n--\n\nSET standard_conforming_strings = on;\n\
         CREATE TABLE public.t (\n    a integer NOT NULL,\n    b text\n);\n\n\
         COPY public.t (a, b) FROM stdin;\n{rows}\\.\n\n\
         --\n-- PostgreSQL database dump complete\n--\n\n"
    )
}

fn tools() -> [Tool; 5] {
    use clap::CommandFactory;
    [
        Tool {
            name: "pgdump2csv",
            to_stdout: Some(&["-t", "t"]),
            line: tsv_line,
            wrap: dump,
            missing: &["-t", "t"],
            // Not a dump at all: malformed input.
            garbage: Some(2),
            command: dumpshard::tools::pgdump2csv::Args::command,
        },
        Tool {
            name: "pksort",
            to_stdout: Some(&["-k", "1:int"]),
            line: csv_line,
            wrap: plain,
            missing: &["-k", "1:int"],
            // A key that is not an int: the input cannot be sorted as asked.
            garbage: Some(2),
            command: dumpshard::tools::pksort::Args::command,
        },
        Tool {
            name: "csvsplit",
            to_stdout: None,
            line: csv_line,
            wrap: plain,
            missing: &["-r", "10", "-o", "out/p{n}.csv"],
            garbage: None,
            command: dumpshard::tools::csvsplit::Args::command,
        },
        Tool {
            name: "csvcheck",
            to_stdout: Some(&["--filter", "--columns", "a:int4,b:text"]),
            line: csv_line,
            wrap: plain,
            missing: &["--columns", "a:int4,b:text"],
            // Bad records are data problems: exit 1.
            garbage: Some(1),
            command: dumpshard::tools::csvcheck::Args::command,
        },
        Tool {
            name: "csvload",
            to_stdout: None,
            line: csv_line,
            wrap: plain,
            missing: &["-m"],
            garbage: None,
            command: dumpshard::tools::csvload::Args::command,
        },
    ]
}

/// The first line of `err` starts with `TOOL: ` and there is only that line.
fn one_tool_line(tool: &str, err: &str) -> bool {
    err.lines().count() == 1 && err.starts_with(&format!("{tool}: "))
}

#[test]
fn man_page_is_current() {
    for t in tools() {
        man::check_man_page((t.command)());
    }
}

#[test]
fn help_and_version_exit_0_on_stdout() {
    for t in tools() {
        for a in ["--help", "--version"] {
            let r = Cmd::new(t.name).arg(a).expect(0);
            r.check(!r.stdout().is_empty(), "prints to stdout");
            r.check(r.output.stderr.is_empty(), "nothing on stderr");
        }
        let r = Cmd::new(t.name).arg("--version").run();
        r.check(
            r.stdout_str()
                .starts_with(&format!("{} {}", t.name, env!("CARGO_PKG_VERSION"))),
            "--version names the tool and the version",
        );
    }
}

#[test]
fn usage_errors_are_two_gnu_lines_and_exit_2() {
    let d = tempfile::tempdir().unwrap();
    for t in tools() {
        let r = Cmd::new(t.name)
            .arg("--no-such-option")
            .current_dir(d.path())
            .expect(2);
        r.check(
            r.stderr_str()
                == format!(
                    "{0}: unknown option --no-such-option\nTry '{0} --help'.\n",
                    t.name
                ),
            "`TOOL: unknown option --x` and `Try 'TOOL --help'.`, nothing else",
        );
        r.check(r.stdout().is_empty(), "nothing on stdout");
        // A bad value and a near miss: still two lines, the suggestion folded into the first.
        for (args, first) in [
            (
                &["-j", "x"][..],
                format!(
                    "{}: invalid value 'x' for '--jobs <N>': invalid digit found in string",
                    t.name
                ),
            ),
            (
                &["--jbos", "2"][..],
                format!("{}: unknown option --jbos (did you mean '--jobs'?)", t.name),
            ),
        ] {
            let r = Cmd::new(t.name).args(args).current_dir(d.path()).expect(2);
            r.check(
                r.stderr_str() == format!("{first}\nTry '{} --help'.\n", t.name),
                "two lines",
            );
        }
    }
}

#[test]
fn a_missing_input_file_exits_2_naming_it() {
    let d = tempfile::tempdir().unwrap();
    for t in tools() {
        let r = Cmd::new(t.name)
            .args(t.missing)
            .arg("no-such-input.file")
            .current_dir(d.path())
            .expect(2);
        let err = r.stderr_str();
        r.check(
            err.starts_with(&format!("{}: ", t.name)) && err.contains("no-such-input.file"),
            "a `TOOL: ` error naming the file",
        );
        r.check(
            std::fs::read_dir(d.path()).unwrap().next().is_none(),
            "no output left behind",
        );
    }
}

#[test]
fn garbage_input_gets_the_documented_exit_code() {
    // Not text, no record structure, no dump header: every reader must refuse it cleanly.
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for t in tools() {
        let (Some(args), Some(code)) = (t.to_stdout, t.garbage) else {
            continue;
        };
        let r = Cmd::new(t.name)
            .args(args)
            .stdin(garbage.clone())
            .expect(code);
        let err = r.stderr_str();
        r.check(
            err.starts_with(&format!("{}: ", t.name)),
            "a `TOOL: ` message",
        );
        r.check(!err.contains("panicked"), "no panic");
    }
}

#[test]
fn writing_to_dev_full_is_a_one_line_error_exit_2() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    for t in tools() {
        let Some(args) = t.to_stdout else { continue };
        let data = (t.wrap)((0..1000).map(t.line).collect());
        let r = Cmd::new(t.name)
            .args(args)
            .stdin(data)
            .stdout_file("/dev/full")
            .expect(2);
        let err = r.stderr_str();
        r.check(
            one_tool_line(t.name, &err) && err.contains("No space left on device"),
            &format!("one line `{}: ...: No space left on device`", t.name),
        );
    }
    assert!(
        !std::fs::metadata("/dev/full").unwrap().is_file(),
        "/dev/full must still be a device"
    );
}

#[test]
fn a_closed_stdout_ends_quietly_with_0() {
    for t in tools() {
        let Some(args) = t.to_stdout else { continue };
        // csvcheck --filter that stops early cannot claim every record was checked: its
        // contract is exit 3, quietly (csvcheck::closed_stdout_is_never_a_clean_exit).
        let want = if t.name == "csvcheck" { 3 } else { 0 };
        // Far more than a pipe buffer, so the tool is still writing when the reader goes.
        let input = (t.wrap)((0..200_000).map(t.line).collect());
        let r = Cmd::new(t.name)
            .args(args)
            .stdin(input)
            .stdout_head(10)
            .expect(want);
        r.check(r.stderr_str().is_empty(), "quietly");
        r.check(
            r.output.stdout == b"0,some tex",
            "the first bytes of the output",
        );
    }
}

#[test]
fn every_tool_is_in_the_table() {
    let names: Vec<&str> = tools().iter().map(|t| t.name).collect();
    let mut want = man::TOOLS.to_vec();
    want.sort();
    let mut have = names.clone();
    have.sort();
    assert_eq!(have, want);
    for n in names {
        assert!(std::path::Path::new(bin(n)).exists(), "{n}");
    }
}
