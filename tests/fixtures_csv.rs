//! pgdump2csv on the committed fixture dumps vs. the server's own CSV in
//! fixtures/expected*/ (written by fixtures/make.sh). Needs no PostgreSQL server.
//!
//! The comparison is semantic: both sides are parsed with tests/support/csvparse.rs
//! (NULL = unquoted empty field, or the manifest's `null` token; quoted = never NULL),
//! because bytes may legitimately differ (e.g. pgdump2csv quotes a value that is
//! exactly `\.` in every table, the server only in one-column tables).

use crate::support::cli;
use crate::support::csvparse;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use cli::{Input, Table};
use csvparse::Record;

/// What a run was asked to produce.
#[derive(Clone, Copy, Default)]
struct Opts {
    header: bool,
    null_token: Option<&'static str>,
    gzip: bool,
    /// Tables whose column order this dump cannot show (an `INHERITS` child whose parent
    /// gained columns after it was created, in an `--inserts` dump without column names):
    /// only their column names and row count are compared.
    order_unknowable: &'static [&'static str],
}

fn extra_args(o: Opts) -> Vec<&'static str> {
    let mut v = Vec::new();
    if o.header {
        v.push("--header");
    }
    if let Some(n) = o.null_token {
        v.push("--null");
        v.push(n);
    }
    if o.gzip {
        v.push("--gzip");
    }
    v
}

/// Converts `dump` and compares every output CSV and the manifest with
/// fixtures/<expected_dir>/. Panics with a list of all problems found.
fn check_dump(dump_name: &str, expected_dir: &str, input: Input, o: Opts) {
    let dump = cli::dump_path(dump_name);
    let exp_dir = cli::fixtures().join(expected_dir);
    let conv = cli::convert(&dump, input, &extra_args(o));
    let manifest = cli::read_manifest(&conv.manifest_path);
    let expected = cli::read_expected_tables(&exp_dir);

    let mut errors: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut referenced: BTreeSet<String> = BTreeSet::new();

    // Every manifest entry must be an expected table, once.
    let mut seen = BTreeSet::new();
    for t in &manifest {
        if !seen.insert((t.schema.clone(), t.name.clone())) {
            errors.push(format!("manifest lists {}.{} twice", t.schema, t.name));
        }
        if !expected
            .iter()
            .any(|e| e.schema == t.schema && e.name == t.name)
        {
            errors.push(format!(
                "manifest lists unexpected table {}.{} (file {})",
                t.schema, t.name, t.file
            ));
        }
    }

    for e in &expected {
        let label = format!("{}.{}", e.schema, e.name);
        let Some(m) = manifest
            .iter()
            .find(|m| m.schema == e.schema && m.name == e.name)
        else {
            if e.rows == 0 {
                notes.push(format!(
                    "{label}: no rows and not in the manifest (tolerated)"
                ));
            } else {
                errors.push(format!(
                    "{label}: missing from the manifest ({} rows expected)",
                    e.rows
                ));
            }
            continue;
        };
        let path = cli::resolve_csv(&m.file, &conv.csv_dir, &conv.manifest_path);
        if let Ok(rel) = path.strip_prefix(&conv.csv_dir) {
            referenced.insert(rel.to_string_lossy().into_owned());
        }
        check_table(e, m, &exp_dir, &path, o, &mut errors, &mut notes);
    }

    // No stray output files.
    for f in cli::list_files(&conv.csv_dir) {
        if !referenced.contains(&f) {
            errors.push(format!("output file {f} is not referenced by the manifest"));
        }
    }

    for n in &notes {
        eprintln!("note [{dump_name}]: {n}");
    }
    if !errors.is_empty() {
        panic!(
            "pgdump2csv on fixtures/dumps/{dump_name} ({input:?}, args {:?}) vs fixtures/{expected_dir}: {} problem(s):\n{}\n--- pgdump2csv stderr ---\n{}",
            extra_args(o),
            errors.len(),
            errors.join("\n"),
            conv.stderr
        );
    }
}

fn check_table(
    e: &Table,
    m: &Table,
    exp_dir: &Path,
    path: &Path,
    o: Opts,
    errors: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    let label = format!("{}.{}", e.schema, e.name);
    if o.order_unknowable.contains(&label.as_str()) {
        let (mut got, mut want) = (m.column_names(), e.column_names());
        got.sort();
        want.sort();
        if got != want || m.rows != e.rows {
            errors.push(format!(
                "{label}: columns {got:?} and {} rows, expected {want:?} and {} rows",
                m.rows, e.rows
            ));
        }
        notes.push(format!(
            "{label}: column order not compared (the dump cannot show it)"
        ));
        return;
    }
    let want_file = if o.gzip {
        format!("{}.gz", e.file)
    } else {
        e.file.clone()
    };
    // The naming rule applies to the file name; `file` may carry a directory part
    // (it is relative to the manifest's directory, see cli::resolve_csv).
    let base = Path::new(&m.file)
        .file_name()
        .map(|b| b.to_string_lossy().into_owned());
    if base.as_deref() != Some(want_file.as_str()) && base.as_deref() != Some(e.file.as_str()) {
        errors.push(format!(
            "{label}: manifest file {:?}, naming rule says {:?}",
            m.file, want_file
        ));
    }
    if m.column_names() != e.column_names() {
        errors.push(format!(
            "{label}: columns {:?}, expected {:?}",
            m.column_names(),
            e.column_names()
        ));
    } else {
        for (mc, ec) in m.columns.iter().zip(&e.columns) {
            if norm_type(&mc.ty) != norm_type(&ec.ty) {
                notes.push(format!(
                    "{label}.{}: manifest type {:?}, catalog says {:?}",
                    ec.name, mc.ty, ec.ty
                ));
            }
            if mc.not_null != ec.not_null {
                notes.push(format!(
                    "{label}.{}: manifest not_null {}, catalog says {} (inherited NOT NULL is not spelled out in dumps)",
                    ec.name, mc.not_null, ec.not_null
                ));
            }
        }
    }
    if m.primary_key != e.primary_key {
        errors.push(format!(
            "{label}: primary_key {:?}, expected {:?}",
            m.primary_key, e.primary_key
        ));
    }
    if m.rows != e.rows {
        errors.push(format!(
            "{label}: manifest rows {}, expected {}",
            m.rows, e.rows
        ));
    }
    if m.header != o.header {
        errors.push(format!(
            "{label}: manifest header {}, asked for {}",
            m.header, o.header
        ));
    }
    let want_null = o.null_token.unwrap_or("");
    if m.null != want_null {
        errors.push(format!(
            "{label}: manifest null {:?}, asked for {:?}",
            m.null, want_null
        ));
    }

    if !path.is_file() {
        errors.push(format!(
            "{label}: manifest file {} does not exist",
            path.display()
        ));
        return;
    }
    let raw = fs::read(path).unwrap();
    if o.gzip && !raw.starts_with(&[0x1f, 0x8b]) {
        errors.push(format!("{label}: --gzip given but {} is not gzip", m.file));
    }
    if !o.gzip
        && let Some(b) = m.bytes
        && b != raw.len() as u64
    {
        errors.push(format!(
            "{label}: manifest bytes {b}, file has {}",
            raw.len()
        ));
    }
    let data = cli::read_maybe_gz(path);
    let markers = csvparse::unquoted_end_markers(&data);
    if !markers.is_empty() {
        errors.push(format!(
            "{label}: unquoted line `\\.` (a COPY end-of-data marker) at record(s) {markers:?} of {}",
            m.file
        ));
    }
    let mut got = match csvparse::parse_with(&data, m.null.as_bytes()) {
        Ok(r) => r,
        Err(err) => {
            errors.push(format!(
                "{label}: output {} is not valid CSV: {err}",
                m.file
            ));
            return;
        }
    };
    if m.header {
        if got.is_empty() {
            errors.push(format!("{label}: --header but the file is empty"));
            return;
        }
        let h = got.remove(0);
        let want: Record = e
            .columns
            .iter()
            .map(|c| Some(c.name.as_bytes().to_vec()))
            .collect();
        if h != want {
            errors.push(format!(
                "{label}: header {}, expected {}",
                csvparse::show_record(&h),
                csvparse::show_record(&want)
            ));
        }
    }
    let exp_bytes = fs::read(exp_dir.join(&e.file)).unwrap();
    let want = csvparse::parse(&exp_bytes)
        .unwrap_or_else(|err| panic!("fixture {} unparsable: {err}", e.file));
    if let Some(d) = csvparse::diff(&want, &got, 5) {
        errors.push(format!("{label} ({}): data differs:\n{d}", m.file));
    }
    if got.len() as u64 != m.rows {
        errors.push(format!(
            "{label}: manifest rows {} but the file has {} records",
            m.rows,
            got.len()
        ));
    }
}

fn norm_type(t: &str) -> String {
    t.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

// --- the fixtures themselves -----------------------------------------------------------

/// The committed expected CSVs parse, and agree with tables.json.
#[test]
fn expected_fixtures_are_consistent() {
    for dir in ["expected", "expected-partroot"] {
        let d = cli::fixtures().join(dir);
        let tables = cli::read_expected_tables(&d);
        assert!(tables.len() >= 25, "{dir}: only {} tables", tables.len());
        let mut files: Vec<String> = tables.iter().map(|t| t.file.clone()).collect();
        files.push("tables.json".into());
        files.sort();
        assert_eq!(cli::list_files(&d), files, "{dir}: files vs tables.json");
        for t in &tables {
            assert_eq!(
                t.file,
                cli::csv_file_name(&t.schema, &t.name),
                "{dir}: naming rule"
            );
            let recs = csvparse::parse(&fs::read(d.join(&t.file)).unwrap())
                .unwrap_or_else(|e| panic!("{dir}/{}: {e}", t.file));
            assert_eq!(recs.len() as u64, t.rows, "{dir}/{}: rows", t.file);
            for r in &recs {
                assert_eq!(r.len(), t.columns.len(), "{dir}/{}: record width", t.file);
            }
        }
    }
    assert_eq!(
        cli::csv_file_name("public", "my.table name"),
        "public.my%2Etable%20name.csv"
    );
    assert_eq!(
        cli::csv_file_name("public", "größe"),
        "public.gr%C3%B6%C3%9Fe.csv"
    );
    for (dump, _) in cli::NASTY_DUMPS {
        assert!(
            cli::dump_path(dump).is_file(),
            "missing fixtures/dumps/{dump}"
        );
    }
}

// --- one test per dump variant -----------------------------------------------------------

#[test]
fn plain_dump_matches_expected() {
    check_dump("nasty.sql", "expected", Input::Path, Opts::default());
}

#[test]
fn gzip_dump_matches_expected() {
    check_dump("nasty.sql.gz", "expected", Input::Path, Opts::default());
}

#[test]
fn gzip_dump_on_stdin_matches_expected() {
    check_dump("nasty.sql.gz", "expected", Input::Stdin, Opts::default());
}

#[test]
fn plain_dump_on_stdin_matches_expected() {
    check_dump("nasty.sql", "expected", Input::Stdin, Opts::default());
}

/// Also covers `public.gen_child`, whose own generated column hides the parent's stored
/// one: before the shared DDL fix its `DEFAULT` was "a column that is not generated".
#[test]
fn inserts_dump_matches_expected() {
    check_dump(
        "nasty-inserts.sql",
        "expected",
        Input::Path,
        Opts {
            order_unknowable: &["public.late_child"],
            ..Opts::default()
        },
    );
}

#[test]
fn column_inserts_dump_matches_expected() {
    check_dump(
        "nasty-colinserts.sql",
        "expected",
        Input::Path,
        Opts::default(),
    );
}

#[test]
fn partition_root_dump_matches_expected() {
    check_dump(
        "nasty-partroot.sql",
        "expected-partroot",
        Input::Path,
        Opts::default(),
    );
}

#[test]
fn crlf_dump_matches_expected() {
    check_dump("nasty-crlf.sql", "expected", Input::Path, Opts::default());
}

// --- output options ------------------------------------------------------------------------

#[test]
fn null_token_matches_expected() {
    check_dump(
        "nasty.sql",
        "expected",
        Input::Path,
        Opts {
            null_token: Some("\\N"),
            ..Opts::default()
        },
    );
}

#[test]
fn header_matches_expected() {
    check_dump(
        "nasty.sql",
        "expected",
        Input::Path,
        Opts {
            header: true,
            ..Opts::default()
        },
    );
}

#[test]
fn gzip_output_matches_expected() {
    check_dump(
        "nasty.sql",
        "expected",
        Input::Path,
        Opts {
            gzip: true,
            ..Opts::default()
        },
    );
}

#[test]
fn inserts_with_header_and_null_token_match_expected() {
    check_dump(
        "nasty-colinserts.sql",
        "expected",
        Input::Path,
        Opts {
            header: true,
            null_token: Some("\\N"),
            gzip: false,
            order_unknowable: &[],
        },
    );
}

/// With `--null '\N'` a literal `\N` value must come out quoted, NULL unquoted.
#[test]
fn null_token_quotes_literal_token() {
    let conv = cli::convert(
        &cli::dump_path("nasty.sql"),
        Input::Path,
        &["--null", "\\N"],
    );
    let m = cli::read_manifest(&conv.manifest_path);
    let t = m
        .iter()
        .find(|t| t.schema == "public" && t.name == "onecol_marks")
        .expect("onecol_marks in manifest");
    let data = cli::read_maybe_gz(&cli::resolve_csv(
        &t.file,
        &conv.csv_dir,
        &conv.manifest_path,
    ));
    let recs = csvparse::parse_with(&data, b"\\N").unwrap();
    assert_eq!(
        recs[0],
        vec![Some(b"\\N".to_vec())],
        "first row is the literal string \\N"
    );
    assert!(
        data.starts_with(b"\"\\N\"\n"),
        "literal \\N must be quoted: {:?}",
        String::from_utf8_lossy(&data)
    );
    let t = m
        .iter()
        .find(|t| t.schema == "public" && t.name == "onecol_nulls")
        .expect("onecol_nulls in manifest");
    let data = cli::read_maybe_gz(&cli::resolve_csv(
        &t.file,
        &conv.csv_dir,
        &conv.manifest_path,
    ));
    assert!(
        data.starts_with(b"\\N\n"),
        "NULL must be unquoted \\N: {:?}",
        String::from_utf8_lossy(&data)
    );
}

#[test]
fn table_filter_selects_one_table() {
    let conv = cli::convert(
        &cli::dump_path("nasty.sql"),
        Input::Path,
        &["-t", "public.customer"],
    );
    let m = cli::read_manifest(&conv.manifest_path);
    let names: Vec<String> = m
        .iter()
        .map(|t| format!("{}.{}", t.schema, t.name))
        .collect();
    assert_eq!(
        names,
        vec!["public.customer".to_string()],
        "tables in the manifest with -t public.customer"
    );
    assert_eq!(
        cli::list_files(&conv.csv_dir),
        vec!["public.customer.csv".to_string()]
    );
    let recs =
        csvparse::parse(&fs::read(conv.csv_dir.join("public.customer.csv")).unwrap()).unwrap();
    assert_eq!(recs.len(), 1000);
}

/// schema.sql has the DDL (including function bodies and comments that look like
/// COPY data), post.sql the constraints/indexes/setval, and neither has table data.
#[test]
fn schema_and_post_data_split() {
    for (dump, _) in cli::NASTY_DUMPS {
        let conv = cli::convert(&cli::dump_path(dump), Input::Path, &[]);
        let schema = String::from_utf8_lossy(&fs::read(&conv.schema).unwrap()).replace('\r', "");
        let post = String::from_utf8_lossy(&fs::read(&conv.post).unwrap()).replace('\r', "");
        let must = |text: &str, what: &str, needle: &str| {
            assert!(text.contains(needle), "{dump}: {what} lacks {needle:?}");
        };
        let must_not = |text: &str, what: &str, needle: &str| {
            assert!(!text.contains(needle), "{dump}: {what} contains {needle:?}");
        };
        must(&schema, "schema.sql", "CREATE TABLE public.texts (");
        must(
            &schema,
            "schema.sql",
            "CREATE TABLE public.\"my.table name\" (",
        );
        must(&schema, "schema.sql", "CREATE TYPE public.mood AS ENUM");
        must(&schema, "schema.sql", "PARTITION BY RANGE (happened)");
        // Function body and comment text that look like a COPY block survive verbatim.
        must(
            &schema,
            "schema.sql",
            "RETURN '\nCOPY public.x (a) FROM stdin;\n1\n\\.\n';",
        );
        must(
            &schema,
            "schema.sql",
            "IS 'A comment that looks like data:\nCOPY public.texts (id) FROM stdin;\n1\n\\.\n';",
        );
        must(
            &post,
            "post.sql",
            "ADD CONSTRAINT texts_pkey PRIMARY KEY (id);",
        );
        must(
            &post,
            "post.sql",
            "ADD CONSTRAINT pairs_pkey PRIMARY KEY (b, a);",
        );
        must(
            &post,
            "post.sql",
            "FOREIGN KEY (customer_id) REFERENCES public.customer(id)",
        );
        must(
            &post,
            "post.sql",
            "CREATE INDEX customer_name_idx ON public.customer",
        );
        must(
            &post,
            "post.sql",
            "pg_catalog.setval('public.items_id_seq', 4, true)",
        );
        must_not(&schema, "schema.sql", "ADD CONSTRAINT texts_pkey");
        for text in [(&schema, "schema.sql"), (&post, "post.sql")] {
            must_not(text.0, text.1, "Customer 679");
            must_not(text.0, text.1, "INSERT INTO public.customer");
            must_not(text.0, text.1, "COPY public.customer ");
        }
    }
}
