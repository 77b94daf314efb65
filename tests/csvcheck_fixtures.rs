//! csvcheck never calls good data bad (issue 14): every table of the fixture database,
//! converted by pgdump2csv, passes csvcheck with its manifest, with the whole dump (plain,
//! gzip, `--column-inserts`) as `--ddl`, and with pgdump2csv's schema file or the
//! `--inserts` dump as `--ddl` wherever that file can tell the column order. Real bad rows added to the same tables are still caught.

use crate::support::cli;

use crate::support::cmd::Within;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_csvcheck");

/// INHERITS children whose column order CREATE TABLE alone cannot show: `dogs` inherits
/// columns and declares its own (typical, and indistinguishable from `late_child`, whose
/// parent gained a column after it was created).
const ORDER_UNKNOWN: &[&str] = &["public.dogs", "public.late_child"];

struct Run {
    code: Option<i32>,
    stderr: String,
}

fn csvcheck(args: &[&std::ffi::OsStr]) -> Run {
    let o = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    Run {
        code: o.status.code(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

fn label(t: &cli::Table) -> String {
    format!("{}.{}", t.schema, t.name)
}

#[test]
fn every_fixture_table_passes_with_manifest_and_ddl() {
    let conv = cli::convert(&cli::dump_path("nasty.sql"), cli::Input::Path, &[]);
    let tables = cli::read_manifest(&conv.manifest_path);
    assert!(tables.len() >= 40, "only {} tables", tables.len());
    let dump = cli::dump_path("nasty.sql");
    let dump_gz = cli::dump_path("nasty.sql.gz");
    let colinserts = cli::dump_path("nasty-colinserts.sql");
    let inserts = cli::dump_path("nasty-inserts.sql");
    let mut failures = Vec::new();
    for t in &tables {
        let name = label(t);
        let csv = cli::resolve_csv(&t.file, &conv.csv_dir, &conv.manifest_path);
        let modes: [(&str, &Path); 6] = [
            ("--manifest", &conv.manifest_path),
            ("--ddl", &dump),
            ("--ddl", &dump_gz),
            ("--ddl", &colinserts),
            // No column names: as little as a schema file can tell.
            ("--ddl", &inserts),
            ("--ddl", &conv.schema),
        ];
        for (opt, file) in modes {
            let r = csvcheck(&[
                os(opt),
                file.as_os_str(),
                os("--table"),
                os(&name),
                csv.as_os_str(),
            ]);
            let schema_only = file == conv.schema.as_path() || file == inserts.as_path();
            if schema_only && ORDER_UNKNOWN.contains(&name.as_str()) {
                if r.code != Some(2)
                    || !r.stderr.contains("cannot be determined")
                    || !r.stderr.contains("--manifest")
                    || !r.stderr.contains("--header")
                {
                    failures.push(format!(
                        "{name} {opt} {}: want exit 2 saying the order cannot be determined, got {:?}: {}",
                        file.display(),
                        r.code,
                        r.stderr
                    ));
                }
                continue;
            }
            if r.code != Some(0) {
                failures.push(format!(
                    "{name} {opt} {}: exit {:?}: {}",
                    file.display(),
                    r.code,
                    r.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With a header, the schema file is enough: the header gives the column order.
#[test]
fn order_from_the_header_when_the_schema_cannot_tell() {
    let conv = cli::convert(
        &cli::dump_path("nasty.sql"),
        cli::Input::Path,
        &["--header"],
    );
    let tables = cli::read_manifest(&conv.manifest_path);
    for name in ORDER_UNKNOWN {
        let t = tables.iter().find(|t| &label(t) == name).unwrap();
        let csv = cli::resolve_csv(&t.file, &conv.csv_dir, &conv.manifest_path);
        let r = csvcheck(&[
            os("--ddl"),
            conv.schema.as_os_str(),
            os("--table"),
            os(name),
            os("--header"),
            csv.as_os_str(),
        ]);
        assert_eq!(r.code, Some(0), "{name}: {}", r.stderr);
    }
    // The header's order is the one checked: late_child's extra (integer) is last.
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("late.csv");
    std::fs::write(
        &bad,
        "id,name,note,extra\n1,one,text,7\n2,two,3,not a number\n",
    )
    .unwrap();
    let r = csvcheck(&[
        os("--ddl"),
        conv.schema.as_os_str(),
        os("--table"),
        os("public.late_child"),
        os("--header"),
        bad.as_os_str(),
    ]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("1 bad"), "{}", r.stderr);
    assert!(r.stderr.contains("column extra"), "{}", r.stderr);
    // A header that does not name the table's columns is refused.
    std::fs::write(&bad, "id,name,note,nope\n1,one,text,7\n").unwrap();
    let r = csvcheck(&[
        os("--ddl"),
        conv.schema.as_os_str(),
        os("--table"),
        os("public.late_child"),
        os("--header"),
        bad.as_os_str(),
    ]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("not a column of the table"),
        "{}",
        r.stderr
    );
}

/// The referee side of the same tables: rows PostgreSQL would refuse are still caught.
#[test]
fn real_bad_rows_in_the_new_shapes_are_caught() {
    let conv = cli::convert(&cli::dump_path("nasty.sql"), cli::Input::Path, &[]);
    let d = tempfile::tempdir().unwrap();
    let dump = cli::dump_path("nasty.sql");
    let cases: &[(&str, &[u8], &str)] = &[
        // A blank line is NULL, but "abc" is no integer.
        ("public.onecol_int", b"1\n\nabc\n", "type"),
        // The generated key column is not in the data; NOT NULL of the other still holds.
        ("public.gen_pk", b"1,x\n,yy\n", "not-null"),
        ("public.gen_parted_low", b"1\n", "field-count"),
        // gen_child's data has one field: its b is generated.
        ("public.gen_child", b"1,2\n", "field-count"),
        // late_child's data order is (id, name, note, extra).
        ("public.late_child", b"1,one,note,x\n", "type"),
    ];
    for (name, data, check) in cases {
        let f = d.path().join("in.csv");
        std::fs::write(&f, data).unwrap();
        for (opt, schema) in [("--manifest", &conv.manifest_path), ("--ddl", &dump)] {
            let r = csvcheck(&[
                os(opt),
                schema.as_os_str(),
                os("--table"),
                os(name),
                f.as_os_str(),
            ]);
            assert_eq!(r.code, Some(1), "{name} {opt}: {}", r.stderr);
            assert!(
                r.stderr.contains(&format!("  {check}: ")),
                "{name} {opt}: want {check}: {}",
                r.stderr
            );
        }
    }
}

/// What the good runs say: the blank lines are NULL rows (with the CockroachDB caveat), and
/// a key that includes a generated column is reported once, not refused.
#[test]
fn notes_for_null_rows_and_generated_keys() {
    let conv = cli::convert(&cli::dump_path("nasty.sql"), cli::Input::Path, &[]);
    let tables = cli::read_manifest(&conv.manifest_path);
    let run = |name: &str| {
        let t = tables.iter().find(|t| label(t) == name).unwrap();
        let csv = cli::resolve_csv(&t.file, &conv.csv_dir, &conv.manifest_path);
        csvcheck(&[
            os("--manifest"),
            conv.manifest_path.as_os_str(),
            os("--table"),
            os(name),
            csv.as_os_str(),
        ])
    };
    let r = run("public.onecol_point");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "2 blank line(s): PostgreSQL reads each as a row whose one column is NULL; CockroachDB"
        ),
        "{}",
        r.stderr
    );
    let r = run("public.gen_pk");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stderr.matches("includes generated column b").count(),
        1,
        "{}",
        r.stderr
    );
}
