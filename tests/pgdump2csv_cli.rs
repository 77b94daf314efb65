//! Integration tests of the `pgdump2csv` binary on small hand-written dumps: options, output
//! files, and every kind of bad input (one-line error with position, exit 2, no partial file).

use crate::support::cmd::Cmd;

use crate::support::cmd::Within;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const HEAD: &str = "--\n-- PostgreSQL database dump\n--\n\nSET standard_conforming_strings = on;\nSELECT pg_catalog.set_config('search_path', '', false);\n\n";
const FOOT: &str = "\n--\n-- PostgreSQL database dump complete\n--\n\n";

fn dump(body: &str) -> String {
    format!("{HEAD}{body}{FOOT}")
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgdump2csv"))
}

/// Runs pgdump2csv with `stdin` as input and `args`.
fn run(stdin: &[u8], args: &[&str]) -> Output {
    Cmd::new("pgdump2csv").args(args).stdin(stdin).run().output
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Asserts a failure with exit 2 and a single error line containing every needle.
fn assert_fails(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "expected exit 2, stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one error line expected: {err}");
    assert!(err.starts_with("pgdump2csv: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

const TWO_TABLES: &str = "CREATE TABLE public.a (\n    id integer NOT NULL,\n    v text\n);\n\nCREATE TABLE public.b (\n    id integer NOT NULL\n);\n\nCOPY public.a (id, v) FROM stdin;\n1\tone\n2\t\\N\n3\t\n\\.\n\n\nCOPY public.b (id) FROM stdin;\n7\n\\.\n\n\nALTER TABLE ONLY public.a\n    ADD CONSTRAINT a_pkey PRIMARY KEY (id);\n";

#[test]
fn one_table_to_stdout() {
    let o = run(dump(TWO_TABLES).as_bytes(), &["-t", "a"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1,one\n2,\n3,\"\"\n");
    let o = run(
        dump(TWO_TABLES).as_bytes(),
        &["-t", "public.a", "--header", "--null", "\\N"],
    );
    assert_eq!(stdout(&o), "id,v\n1,one\n2,\\N\n3,\"\"\n");
}

#[test]
fn table_pattern_matching_two_tables_on_stdout_is_an_error() {
    let o = run(dump(TWO_TABLES).as_bytes(), &["-t", "*"]);
    assert_fails(&o, &["more than one table", "--output-dir"]);
}

#[test]
fn nothing_to_write_is_a_usage_error() {
    let o = run(dump(TWO_TABLES).as_bytes(), &[]);
    assert_fails(&o, &["nothing to write"]);
    let o = run(b"", &["--level", "12", "-t", "a"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn directory_schema_post_data_and_manifest() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_string_lossy().into_owned();
    let o = run(
        dump(TWO_TABLES).as_bytes(),
        &[
            "-o",
            &p("csv"),
            "--write-schema",
            &p("schema.sql"),
            "--write-post-data",
            &p("post.sql"),
            "--write-manifest",
            &p("m.json"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        files(&d.path().join("csv")),
        ["public.a.csv", "public.b.csv"]
    );
    let schema = std::fs::read_to_string(p("schema.sql")).unwrap();
    let post = std::fs::read_to_string(p("post.sql")).unwrap();
    assert!(
        schema.contains("CREATE TABLE public.a") && !schema.contains("PRIMARY KEY"),
        "{schema}"
    );
    assert!(!schema.contains("COPY") && !post.contains("COPY"));
    assert!(
        post.contains("ADD CONSTRAINT a_pkey PRIMARY KEY (id);"),
        "{post}"
    );
    assert!(
        post.contains("set_config('search_path', '', false)"),
        "post-data repeats the session settings: {post}"
    );
    let m = dumpshard::manifest::Manifest::read(Path::new(&p("m.json"))).unwrap();
    let a = m.table("a").unwrap();
    assert_eq!(a.file.as_deref(), Some("csv/public.a.csv"));
    assert_eq!(a.primary_key, ["id"]);
    assert_eq!((a.rows, a.bytes), (3, 14));
    assert_eq!(a.columns[0].type_name.as_deref(), Some("integer"));
    assert!(a.columns[0].not_null && !a.columns[1].not_null);
    assert_eq!(m.table("b").unwrap().rows, 1);
    // Without --write-post-data everything goes to --write-schema, in dump order.
    let o = run(
        dump(TWO_TABLES).as_bytes(),
        &["--write-schema", &p("all.sql")],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let all = std::fs::read_to_string(p("all.sql")).unwrap();
    assert!(all.find("CREATE TABLE public.b").unwrap() < all.find("PRIMARY KEY").unwrap());
}

#[test]
fn gzip_output_and_compressed_inputs() {
    let d = tempfile::tempdir().unwrap();
    let plain = dump(TWO_TABLES);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(plain.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(plain.as_bytes(), 3).unwrap();
    let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
    lz.write_all(plain.as_bytes()).unwrap();
    let lz = lz.finish().unwrap();
    for input in [gz, zst, lz] {
        let o = run(&input, &["-t", "a"]);
        assert_eq!(stdout(&o), "1,one\n2,\n3,\"\"\n", "{}", stderr(&o));
    }
    let out = d.path().join("csv");
    let o = run(plain.as_bytes(), &["--gzip", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(out.join("public.a.csv.gz")).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "1,one\n2,\n3,\"\"\n");
}

#[test]
fn several_blocks_for_one_table_append() {
    let body = "COPY public.t (a) FROM stdin;\n1\n\\.\n\nCOPY public.u (a) FROM stdin;\n9\n\\.\n\nCOPY public.t (a) FROM stdin;\n2\n\\.\n";
    let d = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["--gzip"][..]] {
        let mut args = vec!["-o", d.path().to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = run(dump(body).as_bytes(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(
        std::fs::read_to_string(d.path().join("public.t.csv")).unwrap(),
        "1\n2\n"
    );
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(d.path().join("public.t.csv.gz")).unwrap(),
    )
    .read_to_string(&mut s)
    .unwrap();
    assert_eq!(s, "1\n2\n");
}

#[test]
fn old_dumps_with_search_path_bom_crlf_and_nonstandard_strings() {
    let body = "SET search_path = sales, pg_catalog;\r\nSET standard_conforming_strings = off;\r\n\r\nCREATE TABLE t (\r\n    id integer NOT NULL,\r\n    s text\r\n);\r\n\r\nCOPY t (id, s) FROM stdin;\r\n1\ta\\\\b\r\n\\.\r\n\r\nINSERT INTO t2 (id, s) VALUES (2, 'it''s \\\\ \\n');\r\n";
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend_from_slice(
        dump(body)
            .replace('\n', "\r\n")
            .replace("\r\r\n", "\r\n")
            .as_bytes(),
    );
    let d = tempfile::tempdir().unwrap();
    let o = run(&input, &["-o", d.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["sales.t.csv", "sales.t2.csv"]);
    assert_eq!(
        std::fs::read_to_string(d.path().join("sales.t.csv")).unwrap(),
        "1,a\\b\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("sales.t2.csv")).unwrap(),
        "2,\"it's \\ \n\"\n"
    );
}

#[test]
fn dollar_quoted_bodies_and_meta_commands_are_not_data() {
    let body = "\\restrict abc123\n\nCREATE FUNCTION public.f() RETURNS void\n    LANGUAGE plpgsql\n    AS $_$\nBEGIN\nCOPY public.t (a) FROM stdin;\n\\.\nEND;\n$_$;\n\nCOPY public.t (a) FROM stdin;\n5\n\\.\n\n\\unrestrict abc123\n";
    let d = tempfile::tempdir().unwrap();
    let schema = d.path().join("s.sql");
    let o = run(
        dump(body).as_bytes(),
        &["-t", "t", "--write-schema", schema.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "5\n");
    let s = std::fs::read_to_string(schema).unwrap();
    assert!(
        s.contains("COPY public.t (a) FROM stdin;\n\\.\nEND;"),
        "{s}"
    );
    let key = guard_key(&s);
    assert!(!s.contains("abc123"), "the dump's key is not reused: {s}");
    assert_eq!(s.matches("restrict").count(), 2, "{s}");
    assert_ne!(key, "abc123");
}

/// Asserts that a script starts with `\restrict KEY` and ends with `\unrestrict KEY`, with a
/// fresh 32-character key; returns it.
fn guard_key(s: &str) -> String {
    let first = s.lines().next().unwrap_or_default();
    let key = first
        .strip_prefix("\\restrict ")
        .unwrap_or_else(|| panic!("no \\restrict first: {s}"));
    assert_eq!(key.len(), 32, "{s}");
    assert!(key.bytes().all(|b| b.is_ascii_alphanumeric()), "{s}");
    let last = s.lines().rfind(|l| !l.is_empty()).unwrap_or_default();
    assert_eq!(last, format!("\\unrestrict {key}"), "{s}");
    key.to_string()
}

#[test]
fn every_script_has_its_own_restrict_guard() {
    let d = tempfile::tempdir().unwrap();
    let (schema, post) = (d.path().join("s.sql"), d.path().join("p.sql"));
    let args = vec![
        "--write-schema",
        schema.to_str().unwrap(),
        "--write-post-data",
        post.to_str().unwrap(),
    ];
    let o = run(dump(TWO_TABLES).as_bytes(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let (s, p) = (
        std::fs::read_to_string(&schema).unwrap(),
        std::fs::read_to_string(&post).unwrap(),
    );
    let (ks, kp) = (guard_key(&s), guard_key(&p));
    assert_ne!(ks, kp);
    assert!(p.contains("ADD CONSTRAINT a_pkey"), "{p}");
    // A new run (replacing the first one's scripts), a new key.
    let mut args = args;
    args.push("--force");
    let o = run(dump(TWO_TABLES).as_bytes(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(guard_key(&std::fs::read_to_string(&schema).unwrap()), ks);
}

#[test]
fn connect_lines_stay_outside_restricted_mode() {
    let body = "\\restrict k1\nCREATE TABLE public.a (id integer);\n\\unrestrict k1\n\\connect -reuse-previous=on \"dbname='my \"\"db'\"\n\\restrict k1\n\nCREATE TABLE public.b (id integer);\n\\unrestrict k1\n";
    let d = tempfile::tempdir().unwrap();
    let schema = d.path().join("s.sql");
    let o = run(
        dump(body).as_bytes(),
        &["--write-schema", schema.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = std::fs::read_to_string(&schema).unwrap();
    let key = guard_key(&s);
    assert!(
        s.contains(&format!(
            "\\unrestrict {key}\n\\connect -reuse-previous=on \"dbname='my \"\"db'\"\n\\restrict {key}\n"
        )),
        "{s}"
    );
}

#[test]
fn comments_around_the_dumps_own_guard_stay() {
    // As pg_dump writes it: \restrict right after the header, \unrestrict after the footer.
    let d = format!(
        "--\n-- PostgreSQL database dump\n--\n\n\\restrict k1\n\nSET standard_conforming_strings = on;\n{TWO_TABLES}{FOOT}\\unrestrict k1\n\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("s.sql");
    let o = run(d.as_bytes(), &["--write-schema", schema.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = std::fs::read_to_string(&schema).unwrap();
    guard_key(&s);
    assert!(s.contains("-- PostgreSQL database dump\n"), "{s}");
    assert!(s.contains("-- PostgreSQL database dump complete\n"), "{s}");
}

#[test]
fn smuggled_meta_commands_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let schema = d.path().join("s.sql");
    let cases: &[(&str, &str)] = &[
        (
            "CREATE TABLE public.a (id integer);\n\\! touch /tmp/x\n",
            "\\!",
        ),
        ("\\o |sh\nSELECT 1;\n", "\\o"),
        (
            "CREATE TABLE public.a (id integer) \\! touch /tmp/x\n;\n",
            "backslash outside quotes",
        ),
        ("\\connect db \\! touch /tmp/x\n", "\\connect"),
        (
            "\\restrict k1\n\\connect db\n\\unrestrict k1\n",
            "restricted mode",
        ),
        (
            "\\restrict k1\nSELECT 1;\n\\unrestrict k2\n",
            "does not match",
        ),
    ];
    for (body, needle) in cases {
        let o = run(
            dump(body).as_bytes(),
            &["--write-schema", schema.to_str().unwrap()],
        );
        // HEAD has 7 lines; the bad line is on line 8 or 9.
        assert_fails(&o, &[needle, "<stdin>:"]);
        assert!(!schema.exists(), "no schema file after a refused dump");
    }
    let o = run(
        dump(cases[0].0).as_bytes(),
        &["--write-schema", schema.to_str().unwrap()],
    );
    assert_fails(&o, &["<stdin>:9:", "\\!"]);
}

#[test]
fn crlf_row_in_lf_copy_block_is_refused() {
    let body = "CREATE TABLE public.a (id integer, v text);\n\nCOPY public.a (id, v) FROM stdin;\n1\tx\n2\ty\r\n\\.\n";
    let o = run(dump(body).as_bytes(), &["-t", "a"]);
    assert_fails(&o, &["<stdin>:12:", "public.a row 2", "carriage return"]);
    // A block whose rows all end in CR LF is fine (a dump converted to CR LF as a whole).
    let body = "CREATE TABLE public.a (id integer, v text);\n\nCOPY public.a (id, v) FROM stdin;\n1\tx\r\n2\ty\r\n\\.\n";
    let o = run(dump(body).as_bytes(), &["-t", "a"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1,x\n2,y\n");
}

#[test]
fn dump_cut_inside_its_last_unrestrict_line_is_refused() {
    let full = format!("{HEAD}\\restrict abcdef\n\n{TWO_TABLES}{FOOT}\\unrestrict abcdef\n\n");
    let d = tempfile::tempdir().unwrap();
    let post = d.path().join("p.sql");
    let args = ["-t", "a", "--write-post-data", post.to_str().unwrap()];
    let o = run(full.as_bytes(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_file(&post).unwrap();
    let cut_at = full.rfind("\\unrestrict").unwrap();
    for cut in [cut_at, cut_at + 5, cut_at + 14, cut_at + 16] {
        let o = run(&full.as_bytes()[..cut], &args);
        assert_fails(&o, &["<stdin>:"]);
        assert!(
            !post.exists(),
            "no post-data file from a cut dump (cut {cut})"
        );
    }
}

#[test]
fn table_pattern_matching_nothing_is_an_error() {
    let o = run(dump(TWO_TABLES).as_bytes(), &["-t", "nosuch"]);
    assert_fails(&o, &["no matching tables", "nosuch"]);
    let d = tempfile::tempdir().unwrap();
    let o = run(
        dump(TWO_TABLES).as_bytes(),
        &[
            "-t",
            "a",
            "-t",
            "public.c*",
            "-o",
            d.path().to_str().unwrap(),
        ],
    );
    assert_fails(&o, &["no matching tables", "public.c*"]);
    // A table with no data still counts as found.
    let o = run(
        dump("CREATE TABLE public.e (id integer);\n").as_bytes(),
        &["-t", "e", "-o", d.path().to_str().unwrap(), "--force"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn inserts_forms() {
    let body = "CREATE TABLE public.g (\n    id integer,\n    twice integer GENERATED ALWAYS AS ((id * 2)) STORED,\n    b bit(4),\n    ok boolean\n);\n\nINSERT INTO public.g VALUES (1, DEFAULT, B'0101', true);\nINSERT INTO public.g OVERRIDING SYSTEM VALUE VALUES\n\t(-2, DEFAULT, NULL, false),\n\t(3, DEFAULT, B'1', NULL) ON CONFLICT DO NOTHING;\n\nCREATE TABLE public.e (\n    id integer\n);\n";
    let d = tempfile::tempdir().unwrap();
    let body = body.replace("CREATE TABLE public.e", "--\n-- Data for Name: e; Type: TABLE DATA; Schema: public; Owner: x\n--\n\nSELECT 1;\n\nCREATE TABLE public.e");
    let body = format!("CREATE TABLE public.e (\n    id integer\n);\n\n{body}");
    let o = run(
        dump(&body).as_bytes(),
        &["-o", d.path().to_str().unwrap(), "--header"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("public.g.csv")).unwrap(),
        "id,b,ok\n1,0101,t\n-2,,f\n3,1,\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("public.e.csv")).unwrap(),
        "id\n",
        "empty table in an INSERT dump gets an empty file"
    );
}

#[test]
fn zero_column_table() {
    let o = run(
        dump("COPY public.z  FROM stdin;\n\n\n\\.\n").as_bytes(),
        &["-t", "z"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "\n\n");
}

#[test]
fn truncated_and_malformed_dumps() {
    let cut_copy = format!("{HEAD}COPY public.t (a) FROM stdin;\n1\n2\n");
    assert_fails(
        &run(cut_copy.as_bytes(), &["-t", "t"]),
        &["<stdin>:", "no \\. end marker", "truncated"],
    );
    let cut_stmt = format!("{HEAD}CREATE TABLE public.t (\n    a int");
    assert_fails(
        &run(cut_stmt.as_bytes(), &["-t", "t"]),
        &["<stdin>:8:", "cut off"],
    );
    let no_footer = format!("{HEAD}COPY public.t (a) FROM stdin;\n1\n\\.\n");
    assert_fails(
        &run(no_footer.as_bytes(), &["-t", "t"]),
        &["footer", "truncated"],
    );
    assert!(
        run(no_footer.as_bytes(), &["-t", "t", "--no-dump-check"])
            .status
            .success()
    );
    assert_fails(
        &run(b"a,b\n1,2\n", &["-t", "t"]),
        &["<stdin>", "not a plain-format pg_dump dump"],
    );
    assert_fails(
        &run(b"PGDMP\x01\x10\x00\x04\x08", &["-t", "t"]),
        // Archives are read now (tests/archive.rs); this one is cut off in its header.
        &["<stdin>: byte 10: the archive ends inside the header: it is truncated"],
    );
    let extra = dump("COPY public.t (a, b) FROM stdin;\n1\t2\n1\t2\t3\n\\.\n");
    assert_fails(
        &run(extra.as_bytes(), &["-t", "t"]),
        &["<stdin>:10:", "public.t row 2", "extra data"],
    );
    let missing = dump("COPY public.t (a, b) FROM stdin;\n1\n\\.\n");
    assert_fails(
        &run(missing.as_bytes(), &["-t", "t"]),
        &["<stdin>:9:", "missing data"],
    );
    let marker = dump("COPY public.t (a) FROM stdin;\n1\n\\.x\n\\.\n");
    assert_fails(
        &run(marker.as_bytes(), &["-t", "t"]),
        &["<stdin>:10:", "end-of-copy marker corrupt"],
    );
    let eol = dump("COPY public.t (a) FROM stdin;\nab\\\n\\.\n");
    assert_fails(
        &run(eol.as_bytes(), &["-t", "t"]),
        &["<stdin>:9:", "backslash at the end of a line"],
    );
    let latin = dump("SET client_encoding = 'LATIN1';\n");
    assert_fails(
        &run(latin.as_bytes(), &["--write-schema", "/dev/null"]),
        &["LATIN1", "-E UTF8"],
    );
    let bad_insert = dump("INSERT INTO public.t (a) VALUES (now());\n");
    assert_fails(
        &run(bad_insert.as_bytes(), &["-t", "t"]),
        &["<stdin>:8:", "VALUES"],
    );
}

#[test]
fn an_error_keeps_finished_tables_and_leaves_no_partial_file() {
    let d = tempfile::tempdir().unwrap();
    let body = format!(
        "{HEAD}COPY public.done (a) FROM stdin;\n1\n\\.\n\nCOPY public.cut (a) FROM stdin;\n1\n2\n"
    );
    let o = run(
        body.as_bytes(),
        &[
            "-o",
            d.path().to_str().unwrap(),
            "--write-manifest",
            d.path().join("m.json").to_str().unwrap(),
        ],
    );
    assert_fails(&o, &["public.cut"]);
    assert_eq!(
        files(d.path()),
        ["public.done.csv"],
        "no temp file, no partial table, no manifest"
    );
}

#[test]
fn unwritable_outputs() {
    let o = run(dump(TWO_TABLES).as_bytes(), &["-o", "/dev/full/x"]);
    assert_fails(&o, &["/dev/full/x"]);
    if Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut child = bin()
            .args([
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("fixtures/dumps/nasty.sql")
                    .to_str()
                    .unwrap(),
                "-t",
                "customer",
            ])
            .stdout(full)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let st = crate::support::cmd::wait_timeout(
            &mut child,
            crate::support::cmd::TIMEOUT,
            "pgdump2csv",
        );
        assert_eq!(st.code(), Some(2), "{err}");
        assert!(err.contains("No space left on device"), "{err}");
    }
}

#[test]
fn a_long_multi_row_insert_is_read_row_by_row() {
    // About 12 MB in one statement: several read buffers, rows cut at every kind of place.
    let mut body = String::from(
        "CREATE TABLE public.t (\n    id integer,\n    v text,\n    w text\n);\n\nINSERT INTO public.t VALUES\n",
    );
    let mut want = String::new();
    let n = 120_000;
    for i in 0..n {
        let v = format!("it''s (row) {i}, {}", "z".repeat(i % 97));
        body.push_str(&format!(
            "\t({i}, '{v}', {}){}\n",
            if i % 3 == 0 { "NULL" } else { "E'a\\\\b\\n'" },
            if i + 1 < n {
                ","
            } else {
                " ON CONFLICT DO NOTHING;"
            }
        ));
        want.push_str(&format!(
            "{i},\"{}\",{}\n",
            v.replace("''", "'"),
            if i % 3 == 0 { "" } else { "\"a\\b\n\"" }
        ));
    }
    // With its heap limited to 64 MiB: memory does not grow with the statement (reading the
    // statement whole took about 11 times its size).
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("d.sql");
    std::fs::write(&path, dump(&body)).unwrap();
    let mut c = bin();
    c.args(["-t", "t"]).arg(&path);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 64 << 20,
                rlim_max: 64 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = c
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o) == want, "output differs");
    // A broken row deep inside is reported at its line.
    let broken = body.replacen("(100000, ", "(100000, now(), ", 1);
    let o = run(dump(&broken).as_bytes(), &["-t", "t"]);
    assert_fails(&o, &["<stdin>:100015:", "unexpected 'now'"]);
}

#[test]
fn excluded_tables_are_skipped_before_their_inserts_are_read() {
    let body = "CREATE TABLE public.a (id integer);\n\nCREATE TABLE public.odd (id integer);\n\nINSERT INTO public.odd VALUES (now());\nINSERT INTO public.odd VALUES ('x'), (1 + 2);\nINSERT INTO public.a VALUES (1);\n";
    let o = run(dump(body).as_bytes(), &["-t", "a"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1\n");
    let d = tempfile::tempdir().unwrap();
    let o = run(
        dump(body).as_bytes(),
        &["-T", "odd", "-o", d.path().to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files(d.path()), ["public.a.csv"]);
    let o = run(
        dump(body).as_bytes(),
        &["-o", d.path().to_str().unwrap(), "--force"],
    );
    assert_fails(&o, &["<stdin>:12:", "unexpected 'now'"]);
}
