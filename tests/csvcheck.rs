//! Integration tests of the `csvcheck` binary: every check with and without its error,
//! schema sources, outputs (filter, bad rows, reasons, JSON), limits, exit codes, closed
//! stdout and a full disk.

use crate::support::cmd::Cmd;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_csvcheck");

struct Out {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Out {
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Out {
    let o = Cmd::new("csvcheck")
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .run()
        .output;
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Runs with `data` on stdin and returns the output; asserts the exit code.
fn check(args: &[&str], data: &[u8], code: i32) -> Out {
    let d = tmp();
    let o = run_in(d.path(), args, data);
    assert_eq!(
        o.code,
        code,
        "csvcheck {args:?} on {:?}\nstderr:\n{}",
        String::from_utf8_lossy(data),
        o.stderr
    );
    o
}

/// The JSON report of a run on `data`.
fn report(args: &[&str], data: &[u8]) -> (i32, serde_json::Value) {
    let d = tmp();
    let mut a = args.to_vec();
    a.push("--json");
    a.push("-q");
    let o = run_in(d.path(), &a, data);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("bad JSON ({e}): {}\n{}", o.out(), o.stderr));
    (o.code, v)
}

/// Problems per check name in a report.
fn checks(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["checks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, s)| (k.clone(), s["problems"].as_u64().unwrap()))
        .collect()
}

/// (check, record) of every example.
fn bad_records(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["examples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["check"].as_str().unwrap().to_string(),
                e["record"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// (name, clean input, broken input, check, bad record number)
type StructureCase = (
    &'static str,
    &'static [u8],
    &'static [u8],
    &'static str,
    u64,
);

#[test]
fn structure_checks_each_with_and_without_the_error() {
    let cases: &[StructureCase] = &[
        (
            "unterminated quote",
            b"a,b\n\"x\ny\",2\n",
            b"a,b\n\"x\ny,2\n",
            "unterminated-quote",
            2,
        ),
        (
            "bare quote",
            b"a,b\n\"c\"\"d\",e\n",
            b"a,b\nc\"d,e\n\"x\",y\n",
            "bare-quote",
            2,
        ),
        (
            "text after quote",
            b"a,\"b\"\n",
            b"a,\"b\"c\n",
            "text-after-quote",
            1,
        ),
        (
            "field count",
            b"a,b\nc,d\n",
            b"a,b\nc,d,e\nf\n",
            "field-count",
            2,
        ),
        (
            "invalid utf-8",
            "a,é\n".as_bytes(),
            b"a,b\n\xff\xfe,c\n",
            "invalid-utf8",
            2,
        ),
        ("nul byte", b"a,b\n", b"a,b\nc\0,d\n", "nul-byte", 2),
        ("blank line", b"a,b\n,\n", b"a,b\n\nc,d\n", "blank-line", 2),
        (
            "mixed line endings",
            b"a,b\r\nc,d\r\n",
            b"a,b\nc,d\r\ne,f\n",
            "line-ending",
            2,
        ),
        ("bare CR", b"a,\"b\rc\"\n", b"a,b\rc\n", "line-ending", 1),
        (
            "end-of-data marker",
            b"a\n\"\\.\"\n",
            b"a\n\\.\nb\n",
            "end-of-data-marker",
            2,
        ),
    ];
    for (name, good, bad, check_name, rec) in cases {
        let (code, v) = report(&[], good);
        assert_eq!(code, 0, "{name}: clean input flagged: {v}");
        assert_eq!(v["bad"], 0, "{name}: {v}");
        let (code, v) = report(&[], bad);
        assert_eq!(code, 1, "{name}: broken input passed: {v}");
        let recs = bad_records(&v);
        assert!(
            recs.contains(&(check_name.to_string(), *rec)),
            "{name}: expected {check_name} at record {rec}, got {recs:?}\n{v}"
        );
    }
}

#[test]
fn problems_name_file_line_byte_column_and_excerpt() {
    let d = tmp();
    let f = d.path().join("in.csv");
    std::fs::write(&f, "id,n\n1,2\n\"multi\nline\",3\nN/A,4\n").unwrap();
    let o = run_in(
        d.path(),
        &["--columns", "id:text,n:int4", "in.csv", "--header"],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = run_in(
        d.path(),
        &["--columns", "id:int4,n:int4", "in.csv", "--header"],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    // Record 3 starts on line 3 at byte 9; record 4 on line 5 at byte 25.
    assert!(
        o.stderr
            .contains("in.csv:3: (record 3, byte 9) type: column id: invalid input syntax for type integer: \"multi?line\""),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("in.csv:5: (record 4, byte 24) type: column id"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("type: 2 values their column's type does not accept (by column: id 2)"),
        "{}",
        o.stderr
    );
}

#[test]
fn types_and_not_null() {
    let cols = "i:int2,n:numeric(5,2),b:bool,d:date,t:timestamptz,u:uuid,j:jsonb,x:bytea,v:varchar(3),a:int4[],k:int8!";
    let good = "1,123.454,yes,2024-02-29,2024-01-05 10:00:00+02,{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11},\"{\"\"a\"\": 1}\",\\x0aff,äöü  ,\"{1,NULL}\",9223372036854775807\n\
                ,,,,,,,,,,0\n";
    let (code, v) = report(&["--columns", cols], good.as_bytes());
    assert_eq!(code, 0, "{v}");
    let bad = [
        ("32768,,,,,,,,,,0\n", "i"),
        (",999.995,,,,,,,,,0\n", "n"),
        (",,maybe,,,,,,,,0\n", "b"),
        (",,,2023-02-29,,,,,,,0\n", "d"),
        (",,,,2024-01-05 25:00,,,,,,0\n", "t"),
        (",,,,,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1,,,,,0\n", "u"),
        (",,,,,,\"{\"\"a\"\": }\",,,,0\n", "j"),
        (",,,,,,,\\x0,,,0\n", "x"),
        (",,,,,,,,abcd,,0\n", "v"),
        (",,,,,,,,,\"{1,{2}}\",0\n", "a"),
        (",,,,,,,,,,\n", "k"),
        (",,,,,,,,,,9223372036854775808\n", "k"),
    ];
    for (rec, col) in bad {
        let (code, v) = report(&["--columns", cols], rec.as_bytes());
        assert_eq!(code, 1, "{rec:?} should fail: {v}");
        let ex = &v["examples"][0];
        assert_eq!(ex["column"], col, "{rec:?}: {v}");
    }
    // NOT NULL: unquoted empty is NULL, quoted empty is an empty string.
    let (code, v) = report(&["--columns", "a:text!"], b"\"\"\n");
    assert_eq!(code, 0, "{v}");
    let (_, v) = report(&["--columns", "a:text!,b:text"], b",x\n");
    assert_eq!(checks(&v), [("not-null".to_string(), 1)]);
    // With --null '\N', an unquoted empty field is '' (a type error for integers) and \N is
    // NULL, but a quoted "\N" is the string.
    let (_, v) = report(
        &["--columns", "a:int4!,b:text", "--null", "\\N"],
        b",x\n\\N,y\n",
    );
    assert_eq!(
        checks(&v),
        [("not-null".to_string(), 1), ("type".to_string(), 1)]
    );
    let (code, _) = report(&["--columns", "a:text!", "--null", "\\N"], b"\"\\N\"\n");
    assert_eq!(code, 0);
}

#[test]
fn schema_from_manifest_and_ddl() {
    let d = tmp();
    std::fs::write(
        d.path().join("schema.sql"),
        "CREATE TYPE public.mood AS ENUM ('sad', 'ok');\n\
         CREATE DOMAIN public.pos AS integer NOT NULL CHECK (VALUE > 0);\n\
         CREATE TABLE public.t (\n  id bigint NOT NULL,\n  m public.mood,\n  p public.pos,\n  g point\n);\n\
         ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n",
    )
    .unwrap();
    std::fs::write(d.path().join("t.csv"), "1,ok,5,\"(1,2)\"\n2,sad,7,\n").unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "schema.sql", "--table", "t", "t.csv"],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("type point is not checked"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("CHECK constraints of domain public.pos"),
        "{}",
        o.stderr
    );
    std::fs::write(d.path().join("t.csv"), "1,ok,5,\n1,happy,,\n").unwrap();
    let o = run_in(
        d.path(),
        &[
            "--ddl",
            "schema.sql",
            "--table",
            "public.t",
            "t.csv",
            "--json",
        ],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["checks"]["type"]["columns"]["m"], 1, "{v}");
    assert_eq!(v["checks"]["not-null"]["columns"]["p"], 1, "{v}");
    assert_eq!(v["key"]["columns"][0], "id");

    let manifest = r#"{"format":"dumpshard-manifest","version":1,"tables":[{"schema":"public","name":"t",
        "file":"t.csv","columns":[{"name":"id","type":"integer","not_null":true},
        {"name":"price","type":"numeric(4,2)","not_null":false}],"primary_key":["id"],
        "rows":2,"bytes":0,"header":true,"null":"\\N"}]}"#;
    std::fs::write(d.path().join("m.json"), manifest).unwrap();
    std::fs::write(d.path().join("t.csv"), "id,price\n1,\\N\n2,99.99\n2,1\n").unwrap();
    let o = run_in(
        d.path(),
        &["--manifest", "m.json", "--table", "t", "t.csv", "--json"],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(checks(&v), [("duplicate-key".to_string(), 1)], "{v}");
    assert_eq!(v["examples"][0]["record"], 4, "header is record 1: {v}");
    let o = run_in(
        d.path(),
        &["--manifest", "m.json", "--table", "nope", "t.csv"],
        b"",
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("not in the manifest"), "{}", o.stderr);
}

#[test]
fn unreadable_schema_statement_is_an_error_with_its_line() {
    let d = tmp();
    std::fs::write(
        d.path().join("schema.sql"),
        "CREATE TABLE public.t (a integer);\nCREATE TABLE public.u (a integer, \"b);\n",
    )
    .unwrap();
    std::fs::write(d.path().join("t.csv"), "1\n").unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "schema.sql", "--table", "t", "t.csv"],
        b"",
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("schema.sql:2: (byte 69) unterminated quoted identifier"),
        "{}",
        o.stderr
    );
}

#[test]
fn primary_key_hash_and_sorted() {
    let data = b"3,a\n1,b\n2,c\n1,d\n+3,e\n";
    let (code, v) = report(&["--columns", "id:int4,v:text", "--key", "id"], data);
    assert_eq!(code, 1);
    assert_eq!(
        bad_records(&v),
        [
            ("duplicate-key".to_string(), 4),
            ("duplicate-key".to_string(), 5)
        ],
        "integer keys compare by value (+3 = 3): {v}"
    );
    assert!(
        v["examples"][0]["message"]
            .as_str()
            .unwrap()
            .contains("first seen in record 2"),
        "{v}"
    );
    let (_, v) = report(
        &["--columns", "id:int4,v:text", "--key", "id", "--sorted"],
        data,
    );
    assert_eq!(
        bad_records(&v),
        [("key-order".to_string(), 2), ("key-order".to_string(), 4),],
        "{v}"
    );
    let (code, _) = report(
        &["--columns", "id:int4,v:text", "--key", "id", "--sorted"],
        b"1,a\n2,a\n10,a\n",
    );
    assert_eq!(code, 0, "10 > 2 as integers");
    // Structure-only checks with a key by column number; composite keys.
    let (code, v) = report(&["--key", "1,2"], b"a,1\na,2\nb,1\na,1\n");
    assert_eq!(code, 1);
    assert_eq!(bad_records(&v), [("duplicate-key".to_string(), 4)]);
    let (_, v) = report(&["--key", "2", "--no-key-check"], b"a,1\na,1\n");
    assert_eq!(v["bad"], 0);
}

/// Many chunks: keys compared across chunk boundaries, outputs in order.
#[test]
fn large_input_across_chunks() {
    let d = tmp();
    let mut data = Vec::new();
    let n = 400_000u64;
    for i in 0..n {
        let k = if i == 350_000 { 17 } else { i };
        writeln!(data, "{k},{},\"value {i}\"", i * 7).unwrap();
    }
    std::fs::write(d.path().join("big.csv"), &data).unwrap();
    for sorted in [false, true] {
        let mut args = vec![
            "--columns",
            "k:int8,x:int8,s:text",
            "--key",
            "k",
            "big.csv",
            "--filter",
            "--bad-rows",
            "bad.csv",
            "-q",
            // The second pass replaces the first one's bad rows.
            "--force",
        ];
        if sorted {
            args.push("--sorted");
        }
        let o = run_in(d.path(), &args, b"");
        assert_eq!(o.code, 1, "{}", o.stderr);
        let bad = std::fs::read(d.path().join("bad.csv")).unwrap();
        assert_eq!(bad, b"17,2450000,\"value 350000\"\n", "sorted={sorted}");
        let mut expect = data.clone();
        let at = memfind(&expect, &bad);
        expect.drain(at..at + bad.len());
        assert!(
            o.stdout == expect,
            "filter output differs (sorted={sorted})"
        );
        assert!(
            o.stderr
                .contains(if sorted { "key-order" } else { "duplicate-key" }),
            "{}",
            o.stderr
        );
    }
    // A key set too small: the check stops and says what to use instead.
    let o = run_in(
        d.path(),
        &[
            "--columns",
            "k:int8,x:int8,s:text",
            "--key",
            "k",
            "big.csv",
            "--max-memory",
            "1M",
        ],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("pksort --check"), "{}", o.stderr);
}

fn memfind(h: &[u8], n: &[u8]) -> usize {
    h.windows(n.len()).position(|w| w == n).unwrap()
}

#[test]
fn filter_and_bad_rows_are_byte_for_byte() {
    let d = tmp();
    let input: &[u8] = b"id,v\r\n1,\"a\"\"b\"\r\nx,\"keep\r\nme\"\r\n2,\r\n3,\"\"\r\n";
    std::fs::write(d.path().join("in.csv"), input).unwrap();
    let o = run_in(
        d.path(),
        &[
            "--columns",
            "id:int4,v:text",
            "--header",
            "in.csv",
            "--filter",
            "--bad-rows",
            "bad.csv.gz",
            "--bad-rows-reasons",
            "why.csv",
        ],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "id,v\r\n1,\"a\"\"b\"\r\n2,\r\n3,\"\"\r\n"
    );
    let mut bad = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(d.path().join("bad.csv.gz")).unwrap())
        .read_to_end(&mut bad)
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&bad),
        "id,v\r\nx,\"keep\r\nme\"\r\n"
    );
    let why = std::fs::read_to_string(d.path().join("why.csv")).unwrap();
    assert_eq!(
        why,
        "file,record,line,byte,column,check,message\n\
         in.csv,3,3,16,id,type,\"invalid input syntax for type integer: \"\"x\"\"\"\n"
    );
}

#[test]
fn several_files_are_one_table() {
    let d = tmp();
    std::fs::write(d.path().join("a.csv"), "h\n1\n2").unwrap();
    std::fs::write(d.path().join("b.csv.gz"), gzip(b"h\n3\n2\n")).unwrap();
    let o = run_in(
        d.path(),
        &[
            "--columns",
            "h:int4",
            "--key",
            "h",
            "--header",
            "a.csv",
            "b.csv.gz",
            "--filter",
            "--json",
            "--report",
            "r.json",
        ],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert_eq!(
        o.out(),
        "h\n1\n2\n3\n",
        "one header, newline added between files"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(v["files"][1]["file"], "b.csv.gz");
    assert_eq!(v["files"][1]["bad"], 1);
    assert_eq!(v["examples"][0]["file"], "b.csv.gz");
    assert_eq!(v["records"], 4);
    // Line endings are per file: an LF file after a CRLF file is fine.
    std::fs::write(d.path().join("crlf.csv"), "1\r\n2\r\n").unwrap();
    std::fs::write(d.path().join("lf.csv"), "3\n4\n").unwrap();
    let o = run_in(d.path(), &["crlf.csv", "lf.csv"], b"");
    assert_eq!(o.code, 0, "{}", o.stderr);
}

fn gzip(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

#[test]
fn limits_and_tolerance() {
    let mut data = String::new();
    for i in 0..1000 {
        if i % 100 == 7 {
            data.push_str("bad\n");
        } else {
            data.push_str(&format!("{i}\n"));
        }
    }
    let (code, v) = report(
        &["--columns", "a:int4", "--max-errors", "3"],
        data.as_bytes(),
    );
    assert_eq!(code, 1);
    assert_eq!(v["bad"], 3, "{v}");
    assert_eq!(
        v["records"], 208,
        "stops right after the third bad record: {v}"
    );
    assert!(v["stopped"].as_str().unwrap().contains("--max-errors"));
    let (code, v) = report(
        &["--columns", "a:int4", "--max-error-rate", "1%"],
        data.as_bytes(),
    );
    assert_eq!(code, 0, "10 of 1000 is within 1%: {v}");
    assert_eq!(v["verdict"], "within tolerance");
    let (code, _) = report(
        &["--columns", "a:int4", "--max-error-rate", "0.009"],
        data.as_bytes(),
    );
    assert_eq!(code, 1);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["--table", "t"],
        vec!["--manifest", "m.json"],
        vec!["--filter", "--json"],
        vec!["--columns", "a:int4", "--key", "b"],
        vec!["--sorted"],
        vec!["--max-error-rate", "2"],
        vec!["--max-memory", "lots"],
        vec!["--columns", ":int4"],
        vec!["--nonsense"],
        vec!["missing-file.csv"],
    ] {
        let o = check(&args, b"", 2);
        assert!(
            o.stderr.lines().count() >= 1 && o.stderr.len() < 2000,
            "{args:?}: {}",
            o.stderr
        );
    }
    let o = check(&["--help"], b"", 0);
    assert!(o.out().contains("--bad-rows"));
    let o = check(&["-"], b"a\n", 0);
    assert!(
        o.stderr
            .contains("csvcheck: read 2 B, 1 records; wrote 0 files, 0 records, 0 B; 0 bad; "),
        "{}",
        o.stderr
    );
}

/// Runs csvcheck --filter on `data` (a file), reads a little of its stdout and closes it.
fn close_stdout_early(data: &[u8], extra: &[&str]) -> (Option<i32>, String, tempfile::TempDir) {
    let d = tmp();
    std::fs::write(d.path().join("big.csv"), data).unwrap();
    let mut child = Command::new(BIN)
        .args(["big.csv", "--filter", "--columns", "a:int4,b:text"])
        .args(extra)
        .current_dir(d.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = [0u8; 100];
    out.read_exact(&mut buf).unwrap();
    drop(out);
    let o =
        crate::support::cmd::wait_output_timeout(child, crate::support::cmd::TIMEOUT, "the tool");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.code(), err, d)
}

/// `csvcheck --filter | head`: exit 0 would claim every record was checked and clean.
/// Before the fix both runs below ended with 0.
#[test]
fn closed_stdout_is_never_a_clean_exit() {
    let mut data = Vec::new();
    for i in 0..300_000 {
        writeln!(data, "{i},some text to make the output large").unwrap();
    }
    // Clean so far: 3, quietly.
    let (code, err, _d) = close_stdout_early(&data, &[]);
    assert_eq!(code, Some(3), "{err}");
    assert_eq!(err, "", "quietly");
    // A bad record seen before the reader went away: 1, quietly; the unfinished
    // --bad-rows file is not left behind looking complete.
    data.splice(0..0, b"x,bad first\n".iter().copied());
    let (code, err, d) = close_stdout_early(&data, &["--bad-rows", "bad.csv"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err, "", "quietly");
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["big.csv"], "unfinished outputs removed");
    // The exit code is documented.
    let o = check(&["--help"], b"", 0);
    assert!(o.out().contains("3 stopped early"), "{}", o.out());
}

/// A blank line in a one-column table is PostgreSQL's NULL row (pg_dump writes them);
/// in a wider table it is still a bad record. Before the fix every blank line was bad.
#[test]
fn blank_line_in_a_one_column_table_is_a_null_row() {
    let o = check(&["--columns", "v:int4"], b"1\n\n2\n\n", 0);
    assert!(
        o.stderr.contains("2 blank line(s)") && o.stderr.contains("CockroachDB"),
        "{}",
        o.stderr
    );
    check(&["--columns", "v:int4!"], b"1\n\n", 1);
    // With a NULL token, PostgreSQL reads the empty line as an empty string.
    check(&["--columns", "v:text", "--null", "\\N"], b"1\n\n", 0);
    let o = check(&["--columns", "v:int4", "--null", "\\N"], b"1\n\n", 1);
    assert!(o.stderr.contains("type: 1"), "{}", o.stderr);
    let o = check(&["--columns", "a:int4,b:text"], b"1,x\n\n", 1);
    assert!(o.stderr.contains("blank-line: 1"), "{}", o.stderr);
    // Structure only: the first record sets the width.
    check(&[], b"a\n\nb\n", 0);
}

/// A primary key with a generated column (not in the data): NOT NULL of the rest is
/// checked, uniqueness is not, and that is said once. Before the fix: exit 2, "key column
/// 'b' is not a column of the table".
#[test]
fn primary_key_with_a_generated_column() {
    let d = tmp();
    std::fs::write(
        d.path().join("s.sql"),
        "CREATE TABLE public.g (\n    a integer NOT NULL,\n    c text NOT NULL,\n    \
         b integer GENERATED ALWAYS AS (length(c)) STORED NOT NULL\n);\n\
         ALTER TABLE ONLY public.g ADD CONSTRAINT g_pkey PRIMARY KEY (a, b);\n",
    )
    .unwrap();
    std::fs::write(d.path().join("g.csv"), "1,x\n1,yy\n").unwrap();
    let o = run_in(d.path(), &["--ddl", "s.sql", "--table", "g", "g.csv"], b"");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stderr.matches("includes generated column b").count(),
        1,
        "{}",
        o.stderr
    );
    std::fs::write(d.path().join("g.csv"), "1,x\n,yy\n").unwrap();
    let o = run_in(d.path(), &["--ddl", "s.sql", "--table", "g", "g.csv"], b"");
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("not-null: 1"), "{}", o.stderr);
    let o = run_in(
        d.path(),
        &["--ddl", "s.sql", "--table", "g", "--sorted", "g.csv"],
        b"",
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("generated column"), "{}", o.stderr);
    // An explicit --key still means what it says.
    let o = run_in(
        d.path(),
        &["--ddl", "s.sql", "--table", "g", "--key", "b", "g.csv"],
        b"",
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
}

/// `--ddl` and INHERITS: the child's own generated column is not in its data; where the
/// schema file cannot tell the column order the run is refused, not guessed (before the
/// fix: 2 fields expected, and values checked against the wrong columns).
#[test]
fn ddl_inherits_generated_child_and_unknown_order() {
    let d = tmp();
    std::fs::write(
        d.path().join("s.sql"),
        "CREATE TABLE public.p (a integer, b integer);\n\
         CREATE TABLE public.c (\n    a integer,\n    b integer GENERATED ALWAYS AS ((a * 2)) STORED\n)\n\
         INHERITS (public.p);\n\
         CREATE TABLE public.lp (id integer, pos smallint);\n\
         CREATE TABLE public.lc (\n    pt point\n)\nINHERITS (public.lp);\n",
    )
    .unwrap();
    std::fs::write(d.path().join("c.csv"), "2\n3\n").unwrap();
    let o = run_in(d.path(), &["--ddl", "s.sql", "--table", "c", "c.csv"], b"");
    assert_eq!(o.code, 0, "{}", o.stderr);
    // lc's data is (id, pt, pos) if lp gained pos after lc was created: a point where
    // CREATE TABLE suggests a smallint.
    std::fs::write(d.path().join("lc.csv"), "1,\"(1,2)\",5\n").unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "s.sql", "--table", "lc", "lc.csv"],
        b"",
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("cannot be determined") && o.stderr.contains("--manifest"),
        "{}",
        o.stderr
    );
    std::fs::write(d.path().join("lc.csv"), "id,pt,pos\n1,\"(1,2)\",5\n").unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "s.sql", "--table", "lc", "--header", "lc.csv"],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    // A later file whose header has another order is refused.
    std::fs::write(d.path().join("lc2.csv"), "id,pos,pt\n1,5,\"(1,2)\"\n").unwrap();
    let o = run_in(
        d.path(),
        &[
            "--ddl", "s.sql", "--table", "lc", "--header", "lc.csv", "lc2.csv",
        ],
        b"",
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    // A whole dump shows the order in its COPY column list.
    std::fs::write(
        d.path().join("dump.sql"),
        "CREATE TABLE public.lp (id integer, pos smallint);\n\
         CREATE TABLE public.lc (pt point) INHERITS (public.lp);\n\
         COPY public.lc (id, pt, pos) FROM stdin;\n1\t(1,2)\t5\n\\.\n",
    )
    .unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "dump.sql", "--table", "lc", "lc.csv", "--header"],
        b"",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    std::fs::write(d.path().join("lc.csv"), "1,\"(1,2)\",x\n").unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "dump.sql", "--table", "lc", "lc.csv"],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("column pos"), "{}", o.stderr);
}

/// Issue 10: slips in a schema are refused with exit 2, not noted and half-checked.
#[test]
fn impossible_schemas_are_refused() {
    for spec in [
        "id:int9,v:txt",
        "v:varchar(-1)",
        "v:varchar(0)",
        "v:numeric(0)",
        "v:varchar(x)",
        "a:int4,a:text",
    ] {
        let o = check(&["--columns", spec], b"1\n", 2);
        assert!(o.stderr.starts_with("csvcheck: "), "{spec}: {}", o.stderr);
    }
    // Types PostgreSQL has but csvcheck does not check stay a note.
    let o = check(
        &["--columns", "a:point,b:inet,c:int4range[]"],
        b"\"(1,2)\",::1,{}\n",
        0,
    );
    assert!(
        o.stderr.contains("type point is not checked"),
        "{}",
        o.stderr
    );
    let d = tmp();
    std::fs::write(d.path().join("t.csv"), "1\n").unwrap();
    for (sql, says) in [
        (
            "CREATE TABLE t (a int, a text);\n",
            "declares column a twice",
        ),
        (
            "CREATE TABLE t (a varchar(-1));\n",
            "length -1 must be between",
        ),
        (
            "CREATE TABLE u (x int);\nCREATE TABLE t (\n    a integer,\n    b text\n",
            "s.sql:2: (byte 24) CREATE TABLE never closes",
        ),
    ] {
        std::fs::write(d.path().join("s.sql"), sql).unwrap();
        let o = run_in(d.path(), &["--ddl", "s.sql", "--table", "t", "t.csv"], b"");
        assert_eq!(o.code, 2, "{sql}: {}", o.stderr);
        assert!(o.stderr.contains(says), "{sql}: {}", o.stderr);
    }
}

/// A compressed schema file or dump is read as such (before: "table 't' is not in the
/// schema file (it has: )").
#[test]
fn compressed_ddl_is_read() {
    let d = tmp();
    let sql = "CREATE TABLE public.t (a integer NOT NULL, b date);\n\
               COPY public.t (a, b) FROM stdin;\n1\t2024-01-01\n\\.\n";
    std::fs::write(d.path().join("s.sql.gz"), gzip(sql.as_bytes())).unwrap();
    std::fs::write(d.path().join("t.csv"), "1,2024-01-01\n,x\n").unwrap();
    let o = run_in(
        d.path(),
        &["--ddl", "s.sql.gz", "--table", "t", "t.csv", "--json"],
        b"",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        checks(&v),
        [("not-null".to_string(), 1), ("type".to_string(), 1)],
        "{v}"
    );
}

#[test]
fn full_disk_is_an_error() {
    if !Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    // --filter is in contract::writing_to_dev_full_is_a_one_line_error_exit_2.
    let r = crate::support::cmd::Cmd::new("csvcheck")
        .arg("--json")
        .stdin(&b"1,2\n3,4\n"[..])
        .stdout_file("/dev/full")
        .expect(2);
    r.check(
        r.stderr_str()
            .contains("csvcheck: <stdout>: No space left on device"),
        "the report on a full disk is an I/O error",
    );
    // A bad-rows file on a full disk too.
    let o = check(
        &["--bad-rows", "/dev/full/x.csv", "--columns", "a:int4"],
        b"x\n",
        2,
    );
    assert!(o.stderr.contains("/dev/full"), "{}", o.stderr);
}

#[test]
fn unterminated_quote_in_the_middle_swallows_until_the_next_quote() {
    // Quote parity decides record ends, exactly as PostgreSQL's COPY does, so a stray quote
    // makes one long bad record; nothing after it is lost or silently accepted.
    let (code, v) = report(
        &["--columns", "a:int4,b:text"],
        b"1,x\n2,a\"b\n3,c\n4,\"d\n5,e\n",
    );
    assert_eq!(code, 1);
    assert_eq!(v["records"], 3, "{v}");
    assert_eq!(bad_records(&v), [("bare-quote".to_string(), 2)]);
}

/// With 32-byte records, the first 4 MiB chunk holds exactly 131072 records, so record
/// 131073 is the first of the second chunk: its key is compared with the previous chunk's
/// last key by the merge, not inside a worker.
#[test]
fn sorted_check_at_a_chunk_boundary() {
    let d = tmp();
    for (k_first_of_chunk2, want) in [
        (131_072u64, "duplicate-key"),
        (5, "key-order"),
        (131_073, ""),
    ] {
        let mut data = Vec::new();
        for i in 1..=140_000u64 {
            let k = if i == 131_073 { k_first_of_chunk2 } else { i };
            writeln!(data, "{k:010},{i:020}").unwrap();
        }
        assert_eq!(data.len(), 140_000 * 32);
        std::fs::write(d.path().join("s.csv"), &data).unwrap();
        let o = run_in(
            d.path(),
            &["--key", "1", "--sorted", "--json", "-q", "s.csv"],
            b"",
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        if want.is_empty() {
            assert_eq!(o.code, 0, "{v}");
        } else {
            assert_eq!(bad_records(&v), [(want.to_string(), 131_073)], "{v}");
        }
    }
}

/// Issue 23: each summary count says what it counts, and an enum known from --ddl beside a
/// manifest is checked (before, -m and --ddl conflicted, and the manifest alone left enum
/// columns unchecked, so `payed` passed).
#[test]
fn manifest_with_ddl_checks_enums_and_the_summary_explains() {
    let d = tmp();
    let d = d.path();
    std::fs::write(
        d.join("d.sql"),
        "CREATE TYPE public.st AS ENUM ('paid', 'open');\n\
         CREATE TABLE public.o (id integer NOT NULL, s public.st);\n\
         COPY public.o (id, s) FROM stdin;\n1\tpaid\n\\.\n\
         ALTER TABLE ONLY public.o ADD CONSTRAINT o_pkey PRIMARY KEY (id);\n",
    )
    .unwrap();
    Cmd::new("pgdump2csv")
        .args([
            "--no-dump-check",
            "d.sql",
            "-o",
            "out",
            "--write-manifest",
            "m.json",
        ])
        .args(["--write-schema", "s.sql"])
        .current_dir(d)
        .expect(0);
    std::fs::write(d.join("x.csv"), "1,paid\n2,payed\n1,open\n").unwrap();
    let o = run_in(d, &["-m", "m.json", "--ddl", "s.sql", "x.csv"], b"");
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("invalid input value for enum public.st: \"payed\""),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains(
            "csvcheck:   type: 1 values their column's type does not accept (by column: s 1)"
        ),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("duplicate-key: 1 records with the primary key of an earlier record"),
        "{}",
        o.stderr
    );
    // The summary counts the data, not the schema file read before it.
    assert!(
        o.stderr.contains("csvcheck: read 22 B, 3 records;"),
        "{}",
        o.stderr
    );
}

/// Every duplicate key named with the record its key was first seen in, across chunks and
/// the key set's growth: inputs that ascend all through, with duplicates of the last key,
/// that turn at some record (early, late, past the 4 MiB chunk), and that repeat early keys
/// after the turn. Exact int8 keys and hashed text keys alike. (Written for an ascending-key
/// fast path that was measured and not kept: see docs/benchmarks.md, csvcheck.)
#[test]
fn duplicate_keys_in_and_out_of_ascending_order() {
    // (keys, as records 1..)
    let mut cases: Vec<Vec<i64>> = vec![
        (1..=50).collect(),
        vec![1, 2, 2, 3, 3, 3, 4],
        vec![1, 2, 3, 2, 1, 4, 5, 5],
        vec![5, 4, 3, 3, 2, 1, 5],
        vec![-3, -1, 0, 7, 7, -1, 100, -3],
    ];
    // A long ascending run (past one 4 MiB chunk) with duplicates of its last key, then a
    // turn and repeats of keys from the start and the middle.
    let mut long: Vec<i64> = (0..400_000).map(|k| k * 3).collect();
    long.insert(200_000, long[199_999]);
    long.extend([0, 3, 599_997, 5, 1_199_997, 1_199_998]);
    cases.push(long);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20 {
        let n = 1 + (seed % 300) as usize;
        let turn = (seed >> 20) as usize % (n + 1);
        let v: Vec<i64> = (0..n)
            .map(|i| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if i < turn {
                    i as i64 / 2 // ascending, with some keys twice
                } else {
                    (seed % 40) as i64
                }
            })
            .collect();
        cases.push(v);
    }
    let d = tmp();
    for (ci, keys) in cases.iter().enumerate() {
        let mut first: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
        let mut want: Vec<(usize, usize)> = Vec::new();
        let mut csv = String::new();
        for (r, k) in keys.iter().enumerate() {
            csv.push_str(&format!("{k},v\n"));
            match first.get(k) {
                Some(&f) => want.push((r + 1, f)),
                None => {
                    first.insert(*k, r + 1);
                }
            }
        }
        std::fs::write(d.path().join("in.csv"), &csv).unwrap();
        for cols in ["id:int8,v:text", "id:text,v:text"] {
            let o = run_in(
                d.path(),
                &[
                    "--columns",
                    cols,
                    "--key",
                    "id",
                    "-q",
                    "--force",
                    "--bad-rows-reasons",
                    "why.csv",
                    "in.csv",
                ],
                b"",
            );
            assert_eq!(
                o.code,
                if want.is_empty() { 0 } else { 1 },
                "case {ci} {cols}: {}",
                o.stderr
            );
            let why = std::fs::read_to_string(d.path().join("why.csv")).unwrap();
            let got: Vec<(usize, usize)> = why
                .lines()
                .skip(1)
                .map(|l| {
                    let f: Vec<&str> = l.splitn(7, ',').collect();
                    assert_eq!(f[5], "duplicate-key", "case {ci} {cols}: {l}");
                    let at = f[6].find("first seen in record ").expect(l) + 21;
                    let first: String = f[6][at..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    (f[1].parse().unwrap(), first.parse().unwrap())
                })
                .collect();
            assert_eq!(got, want, "case {ci} {cols}");
        }
    }
}

/// A FIFO (a process substitution, a named pipe) is read whole: input::open_records reads a
/// regular file by its `File` (sniffed by a positional read, which a FIFO refuses) and hands
/// anything else, unopened, to input::open, which opens it once (opened twice, the writer
/// can meet a moment without a reader: EPIPE; a race this test does not force).
#[test]
fn a_fifo_is_opened_once_and_read_whole() {
    let d = tmp();
    let fifo = d.path().join("t.csv");
    crate::support::mkfifo(&fifo);
    let data: String = (0..200_000).map(|i| format!("{i},\"v, {i}\"\n")).collect();
    let w = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(data.as_bytes()).is_ok()
        })
    };
    let o = run_in(d.path(), &["--columns", "a:int8,b:text", "t.csv"], b"");
    assert!(w.join().unwrap(), "the writer's pipe broke");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("200,000 records"), "{}", o.stderr);
}
