//! Issue 19's "exit 0 means complete" and "nothing is overwritten" promises, tool by tool:
//! a `csvsplit --filter` that reads only part of a shard fails the run; every tool refuses an
//! existing output it did not create unless `--force`; every input option of every tool is
//! refused as an output of the same run (the output guard's registration, table-driven).

use crate::support::cmd::Cmd;

/// A filter that exits 0 after reading only the first bytes of a shard small enough to fit
/// in the pipe's buffer: every write succeeded before it exited, so only what is left unread
/// in the pipe tells. Failed before the fix (exit 0, manifest written).
#[test]
fn filter_reading_part_of_a_small_shard_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input: String = (0..300).map(|i| format!("{i},row {i}\n")).collect();
    std::fs::write(d.join("in.csv"), &input).unwrap();
    let r = Cmd::new("csvsplit")
        .current_dir(d)
        .args([
            "-n",
            "3",
            "-o",
            "p{n}.csv",
            "--write-manifest",
            "m.json",
            "--filter",
        ])
        .arg(r#"if test "$FILE" = p1.csv; then head -c 10 > /dev/null; else cat > /dev/null; fi"#)
        .arg("in.csv")
        .expect(2);
    let e = r.stderr_str();
    assert!(e.contains("p1.csv") && e.contains("unread"), "{e}");
    assert!(!d.join("m.json").exists(), "no manifest after a failure");
    // A filter that reads everything still succeeds.
    Cmd::new("csvsplit")
        .current_dir(d)
        .args([
            "-n",
            "3",
            "-o",
            "p{n}.csv",
            "--write-manifest",
            "m.json",
            "--filter",
        ])
        .arg("cat > /dev/null")
        .arg("in.csv")
        .expect(0);
    assert!(d.join("m.json").exists());
}

/// The one overwrite rule, tool by tool: an output file that exists before the run is
/// refused (exit 2, the file untouched, the message naming the option and --force); with
/// `--force` it is replaced. Each case failed before the rule (pksort -o, --dups-out,
/// pgdump2csv's scripts, manifest and table files, csvcheck's outputs replaced, exit 0),
/// except csvsplit's shards, which were refused already (its manifest was not).
#[test]
fn every_tool_refuses_an_existing_output_unless_force() {
    const DUMP: &str = "--\n-- PostgreSQL database dump\n--\n\nCREATE TABLE public.t (a integer);\n\nCOPY public.t (a) FROM stdin;\n1\n\\.\n\n--\n-- PostgreSQL database dump complete\n--\n\n";
    // (tool, arguments, the output file that exists already)
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "pksort",
            &["-k", "1:int", "-o", "out.csv", "in.csv"],
            "out.csv",
        ),
        (
            "pksort",
            &[
                "-k",
                "1:int",
                "--on-dup",
                "first",
                "--dups-out",
                "d.csv",
                "in.csv",
            ],
            "d.csv",
        ),
        (
            "pgdump2csv",
            &["--write-manifest", "m.json", "-o", "csv", "dump.sql"],
            "m.json",
        ),
        (
            "pgdump2csv",
            &["--write-schema", "s.sql", "-o", "csv", "dump.sql"],
            "s.sql",
        ),
        (
            "pgdump2csv",
            &["--write-post-data", "p.sql", "-o", "csv", "dump.sql"],
            "p.sql",
        ),
        ("pgdump2csv", &["-o", "csv", "dump.sql"], "csv/public.t.csv"),
        (
            "csvcheck",
            &["--columns", "a:int4", "--report", "r.json", "mixed.csv"],
            "r.json",
        ),
        (
            "csvcheck",
            &["--columns", "a:int4", "--bad-rows", "b.csv", "mixed.csv"],
            "b.csv",
        ),
        (
            "csvcheck",
            &[
                "--columns",
                "a:int4",
                "--bad-rows-reasons",
                "w.csv",
                "in.csv",
            ],
            "w.csv",
        ),
        (
            "csvsplit",
            &[
                "-n",
                "2",
                "-o",
                "s{n}.csv",
                "--write-manifest",
                "m.json",
                "in.csv",
            ],
            "m.json",
        ),
        (
            "csvsplit",
            &["-n", "2", "-o", "s{n}.csv", "in.csv"],
            "s0.csv",
        ),
        (
            "csvsplit",
            &[
                "--by-range",
                "-k",
                "1:int",
                "-n",
                "2",
                "-o",
                "s{n}.csv",
                "--write-split-points",
                "sp.csv",
                "in.csv",
            ],
            "sp.csv",
        ),
    ];
    for (tool, args, existing) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("in.csv"), "2\n1\n3\n").unwrap();
        std::fs::write(d.join("mixed.csv"), "2\nx\n").unwrap();
        std::fs::write(d.join("dump.sql"), DUMP).unwrap();
        std::fs::create_dir_all(d.join("csv")).unwrap();
        let old = d.join(existing);
        std::fs::write(&old, "precious\n").unwrap();
        let r = Cmd::new(tool).current_dir(d).args(*args).expect(2);
        let e = r.stderr_str();
        r.check(
            e.contains("already")
                && e.contains("--force")
                && e.contains(existing.rsplit('/').next().unwrap()),
            "the refusal names the file and the remedy",
        );
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "precious\n",
            "{tool} {args:?}"
        );
        // --force: the run replaces it (csvcheck exits 1: the record `x` is bad).
        let r = Cmd::new(tool)
            .current_dir(d)
            .args(*args)
            .arg("--force")
            .run();
        r.check(matches!(r.code(), Some(0 | 1)), "--force replaces the file");
        assert_ne!(
            std::fs::read_to_string(&old).unwrap_or_default(),
            "precious\n",
            "{tool} {args:?}"
        );
    }
}

/// Every input option of every tool against every output option of the same tool: the
/// output guard refuses to write onto an input (exit 2, the input untouched), even with
/// `--force`, which only allows replacing files that are not this run's inputs. With
/// pksort's registration of `--manifest` removed, `pksort -m m.json -o m.json` overwrote the
/// manifest and no test noticed (issue 19, Tests (a)).
#[test]
fn no_output_option_may_name_an_input() {
    // (tool, arguments every case gets, input options, output options); "" is the
    // positional input.
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
    let tools: &[Case] = &[
        (
            "pksort",
            &["-k", "1:int"],
            &["", "--manifest"],
            &["-o", "--dups-out"],
        ),
        (
            "csvcheck",
            &["-q"],
            &["", "--manifest", "--ddl"],
            &["--report", "--bad-rows", "--bad-rows-reasons"],
        ),
        (
            "csvsplit",
            &["--by-range", "-k", "1:int", "-n", "2", "-o", "s{n}.csv"],
            &["", "--manifest", "--split-points"],
            &["--write-manifest", "--write-split-points"],
        ),
        (
            "pgdump2csv",
            &[],
            &[""],
            &["--write-schema", "--write-post-data", "--write-manifest"],
        ),
    ];
    let mut n = 0;
    for (tool, base, ins, outs) in tools {
        for i in *ins {
            for o in *outs {
                let dir = tempfile::tempdir().unwrap();
                let d = dir.path();
                std::fs::write(d.join("x.f"), "precious\n").unwrap();
                let mut c = Cmd::new(tool)
                    .current_dir(d)
                    .args(*base)
                    .args([*o, "x.f", "--force"]);
                c = if i.is_empty() {
                    c.arg("x.f")
                } else {
                    c.args([*i, "x.f"])
                };
                let r = c.expect(2);
                let e = r.stderr_str();
                let named = if i.is_empty() { "" } else { *i };
                r.check(
                    e.contains(&format!("{o} x.f would overwrite {named}")),
                    "refused, naming both options",
                );
                assert_eq!(
                    std::fs::read_to_string(d.join("x.f")).unwrap(),
                    "precious\n"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 4 + 9 + 6 + 3);
}

/// A file pgdump2csv names itself under -o (a table's CSV) that is its input: refused when
/// the table is reached, the dump untouched.
#[test]
fn a_table_file_may_not_replace_the_dump() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("csv")).unwrap();
    let dump = "CREATE TABLE public.t (a integer);\n\nCOPY public.t (a) FROM stdin;\n1\n\\.\n\n";
    std::fs::write(d.join("csv/public.t.csv"), dump).unwrap();
    let r = Cmd::new("pgdump2csv")
        .current_dir(d)
        .args([
            "--no-dump-check",
            "--force",
            "-o",
            "csv",
            "csv/public.t.csv",
        ])
        .expect(2);
    r.check(
        r.stderr_str().contains("would overwrite DUMP"),
        "names the input",
    );
    assert_eq!(
        std::fs::read_to_string(d.join("csv/public.t.csv")).unwrap(),
        dump
    );
}

/// A table name with an escape sequence and a carriage return (`\x1b[1A` moves the cursor
/// up a line: it repainted another row of csvload's verification table as "ok") is shown
/// escaped wherever a tool prints it: csvcheck's error and csvload's verification table.
/// Failed before: the bytes reached the terminal raw.
#[test]
fn control_characters_in_names_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let evil = "t\u{1b}[1A\rok";
    let dump = "CREATE TABLE public.\"t\u{1b}[1A\rok\" (id integer);\n\nCOPY public.\"t\u{1b}[1A\rok\" (id) FROM stdin;\n1\n\\.\n\n";
    std::fs::write(d.join("d.sql"), dump).unwrap();
    Cmd::new("pgdump2csv")
        .current_dir(d)
        .args([
            "--no-dump-check",
            "--write-manifest",
            "m.json",
            "-o",
            "csv",
            "d.sql",
        ])
        .expect(0);
    let raw = |b: &[u8]| b.iter().any(|&c| c == 0x1b || c == b'\r');
    let r = Cmd::new("csvcheck")
        .current_dir(d)
        .args(["-m", "m.json", "--table", &format!("public.{evil}x"), "-q"])
        .arg("csv/x.csv")
        .run();
    r.check(r.code() == Some(2), "an unknown table is an error");
    r.check(!raw(&r.output.stderr), "no raw control characters");
    r.check(r.stderr_str().contains("\\x1b[1A\\rok"), "shown escaped");
    // A newline in a name cannot start a line of its own in the message.
    let r = Cmd::new("csvcheck")
        .current_dir(d)
        .args(["-m", "m.json", "--table", "orders\ncsvcheck: all ok", "-q"])
        .arg("csv/x.csv")
        .expect(2);
    r.check(r.stderr_str().lines().count() == 1, "one line");
    r.check(
        r.stderr_str().contains("orders\\ncsvcheck"),
        "the newline shown escaped",
    );

    let Some(pg) = crate::support::pg::Pg::start() else {
        return;
    };
    pg.createdb("empty");
    let r = Cmd::new("csvload")
        .current_dir(d)
        .env("PGHOST", pg.socket_dir())
        .env("PGPORT", pg.port().to_string())
        .env("PGUSER", crate::support::pg::SUPERUSER)
        .args(["--verify-only", "-m", "m.json", "--", "dbname=empty"])
        .run();
    r.check(
        r.code() == Some(1),
        "the table is missing: verification fails",
    );
    r.check(
        !raw(&r.output.stdout),
        "no raw control characters in the table",
    );
    r.check(
        r.stdout_str().contains("public.t\\x1b[1A\\rok"),
        "the name shown escaped",
    );
    r.check(
        !raw(&r.output.stderr),
        "no raw control characters on stderr",
    );
}

/// pksort failing before it wrote anything (its temporary directory missing, found when it
/// must spill) still cuts its standard output, so `pksort | csvsplit` fails in a shell
/// without pipefail instead of splitting an empty table. Failed before: pksort wrote 0
/// bytes, csvsplit exited 0 and wrote a manifest of 0 records.
#[test]
fn pksort_failing_before_writing_cuts_its_stream() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input: String = (1..=300_000).rev().map(|i| format!("{i}\n")).collect();
    std::fs::write(d.join("in.csv"), input).unwrap();
    let r = Cmd::program("sh")
        .current_dir(d)
        .env("PKSORT", crate::support::cmd::bin("pksort"))
        .env("CSVSPLIT", crate::support::cmd::bin("csvsplit"))
        .args([
            "-c",
            "\"$PKSORT\" -k 1:int -S 1M --temporary-directory ./missing in.csv | \"$CSVSPLIT\" -n 2 -o 's{n}.csv' --write-manifest m.json",
        ])
        .run();
    r.check(r.code() == Some(2), "csvsplit refuses the cut stream");
    r.check(r.stderr_str().contains("incomplete"), "says why");
    assert!(!d.join("m.json").exists(), "no manifest");
}
