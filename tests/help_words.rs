//! Words a new user reads (issue 34 item 9): help text as written (clap turns a literal `{n}`
//! into a line break), csvcheck's summary saying what the files it wrote are, and csvload
//! saying that its journal stays in the target and how to drop it.

use crate::support::cmd::Cmd;

/// Every tool's --help keeps each `code span` on one line. Before, csvsplit's -o help read
/// "Shard file names: `" and, on the next line, "` is the 0-based shard number": clap
/// renders a literal `{n}` as a line break.
#[test]
fn help_code_spans_are_not_broken() {
    for tool in ["pgdump2csv", "pksort", "csvsplit", "csvcheck", "csvload"] {
        let help = Cmd::new(tool).arg("--help").env("COLUMNS", "1000").ok();
        let help = String::from_utf8(help).unwrap();
        for line in help.lines() {
            assert!(
                line.matches('`').count() % 2 == 0,
                "{tool} --help: a code span broken across lines at: {line}"
            );
        }
    }
    let help = String::from_utf8(Cmd::new("csvsplit").arg("--help").ok()).unwrap();
    assert!(
        help.contains("`{n:04}` is the 0-based shard number"),
        "{help}"
    );
}

/// csvcheck without --filter but with --bad-rows and --bad-rows-reasons: the summary line
/// says `wrote 2 files, 0 records`, which read as output lost; a line before it says what
/// the two files hold and that no good record was to be copied.
#[test]
fn csvcheck_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("in.csv");
    std::fs::write(&csv, "1,a\nx,b\n3,c\n").unwrap();
    let bad = dir.path().join("bad.csv");
    let why = dir.path().join("why.csv");
    let r = Cmd::new("csvcheck")
        .args(["--columns", "id:int4,name:text", "--bad-rows"])
        .arg(&bad)
        .arg("--bad-rows-reasons")
        .arg(&why)
        .arg(&csv)
        .expect(1);
    let e = r.stderr_str();
    assert!(
        e.contains("bad.csv (the 1 bad records, as read)")
            && e.contains("why.csv (why each bad record is bad)")
            && e.contains("no good records were copied (not asked: --filter"),
        "{e}"
    );
    let r = Cmd::new("csvcheck")
        .args(["--columns", "id:int4,name:text", "--filter"])
        .arg(&csv)
        .expect(1);
    let e = r.stderr_str();
    assert!(
        e.contains("wrote standard output (the 2 good records)") && !e.contains("no good records"),
        "{e}"
    );
}

/// The journal stays in the target after a load; csvload's --help says so and how to drop
/// it (before, nothing said whether or how), as docs/csvload.md does.
#[test]
fn csvload_says_how_to_drop_its_journal() {
    let help = String::from_utf8(Cmd::new("csvload").arg("--help").ok()).unwrap();
    assert!(
        help.contains("It stays in the target") && help.contains("DROP SCHEMA dumpshard"),
        "{help}"
    );
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/csvload.md")).unwrap();
    assert!(
        doc.contains("**The journal after the load.**") && doc.contains("DROP SCHEMA dumpshard;")
    );
}
