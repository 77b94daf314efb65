//! The toolkit's one option vocabulary (issue 11), checked over every binary: the shared flags
//! have one spelling and one meaning, `--manifest` only ever reads, old spellings still work
//! (the two that changed meaning warn), and clap's usage errors take GNU's
//! two-line form (`TOOL: unknown option --x`, `Try 'TOOL --help'.`) with exit 2.

use crate::support::cmd::Cmd;
use std::fs;
use std::path::Path;
use std::process::Output;

const TOOLS: [&str; 5] = ["pgdump2csv", "pksort", "csvsplit", "csvcheck", "csvload"];

/// Runs `tool args` in `dir`, stdin empty; what it did goes to the test's log.
fn run(tool: &str, args: &[&str], dir: &Path) -> Output {
    let r = Cmd::new(tool).args(args).current_dir(dir).run();
    eprintln!("{}", r.describe());
    r.output
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The option lines of `--help`, e.g. `  -t, --table <NAME>`.
fn options(tool: &str) -> Vec<String> {
    let o = run(tool, &["--help"], Path::new("."));
    assert_eq!(o.status.code(), Some(0));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .map(str::to_string)
        .collect()
}

fn has(opts: &[String], prefix: &str) -> bool {
    opts.iter().any(|l| l.starts_with(prefix))
}

fn mentions(opts: &[String], long: &str) -> bool {
    opts.iter()
        .any(|l| l.split([' ', ',', '=']).any(|w| w == long))
}

#[test]
fn every_tool_spells_the_shared_flags_alike() {
    for tool in TOOLS {
        let opts = options(tool);
        if mentions(&opts, "--table") {
            assert!(has(&opts, "-t, --table <"), "{tool}: {opts:#?}");
        }
        // Every tool has threads or connections.
        assert!(has(&opts, "-j, --jobs <N>"), "{tool}: {opts:#?}");
        for old in ["--parallel", "--threads", "--manifest-in"] {
            assert!(!mentions(&opts, old), "{tool} shows {old}: {opts:#?}");
        }
        if mentions(&opts, "--manifest") {
            assert!(has(&opts, "-m, --manifest <FILE>"), "{tool}: {opts:#?}");
        }
        if mentions(&opts, "--exclude-table") {
            assert!(has(&opts, "-T, --exclude-table <"), "{tool}: {opts:#?}");
        } else {
            assert!(
                !has(&opts, "-T"),
                "{tool}: -T is --exclude-table: {opts:#?}"
            );
        }
        if mentions(&opts, "--null") {
            assert!(has(&opts, "--null <STRING>"), "{tool}: {opts:#?}");
        }
    }
    for tool in ["pksort", "csvsplit", "csvcheck", "csvload"] {
        assert!(has(&options(tool), "-m, --manifest <FILE>"), "{tool}");
    }
    for tool in ["pgdump2csv", "csvsplit"] {
        assert!(
            has(&options(tool), "--write-manifest <FILE>"),
            "{tool} writes its manifest with --write-manifest"
        );
    }
    assert!(has(&options("pksort"), "--null <STRING>"));
}

/// A one-table pgdump2csv manifest and its CSV, made by pgdump2csv itself.
fn one_table(d: &Path) -> Vec<u8> {
    fs::write(
        d.join("d.sql"),
        "CREATE TABLE public.t (id integer NOT NULL, v text);\n\
         COPY public.t (id, v) FROM stdin;\n2\tb\n1\ta\n3\t\\N\n\\.\n\
         ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n",
    )
    .unwrap();
    let o = run(
        "pgdump2csv",
        &[
            "--no-dump-check",
            "d.sql",
            "-o",
            "csv",
            "--write-manifest",
            "m.json",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0));
    fs::read(d.join("m.json")).unwrap()
}

/// The defect issue 11 names: `csvsplit --manifest m.json --table T` overwrote a pgdump2csv
/// manifest and exited 0. `--manifest` now reads it in every tool, never writes it.
#[test]
fn manifest_only_reads_in_every_tool() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let m = one_table(d);
    let csv = "csv/public.t.csv";
    let cases: [(&str, Vec<&str>); 3] = [
        (
            "csvsplit",
            vec![
                "--manifest",
                "m.json",
                "--table",
                "t",
                "-r",
                "10",
                "-o",
                "s/{n}.csv",
                csv,
            ],
        ),
        ("pksort", vec!["--manifest", "m.json", "--table", "t", csv]),
        (
            "csvcheck",
            vec!["--manifest", "m.json", "--table", "t", csv],
        ),
    ];
    for (tool, args) in &cases {
        let o = run(tool, args, d);
        assert_eq!(o.status.code(), Some(0), "{tool}");
        assert_eq!(
            fs::read(d.join("m.json")).unwrap(),
            m,
            "{tool} changed m.json"
        );
    }
    // csvsplit used the manifest: the key range of the table's primary key was checked
    // against its types, and the shard manifest went where --write-manifest said.
    let o = run(
        "csvsplit",
        &[
            "-m",
            "m.json",
            "-r",
            "2",
            "-o",
            "k/{n}.csv",
            "--write-manifest",
            "k.json",
            csv,
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0));
    let k = fs::read_to_string(d.join("k.json")).unwrap();
    assert!(
        k.contains("dumpshard-csvsplit") && k.contains("first_key"),
        "{k}"
    );
    assert_eq!(fs::read(d.join("m.json")).unwrap(), m);
    // A csvsplit user who still means "write" is told.
    let o = run(
        "csvsplit",
        &["--manifest", "new.json", "-r", "2", "-o", "n/{n}.csv", csv],
        d,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--write-manifest writes one"));
    assert!(!d.join("new.json").exists() && !d.join("n").exists());
}

/// One `Manifest::select` rule: with no -t, the manifest's only table; with several, a usage
/// error listing them.
#[test]
fn without_table_the_only_table_is_chosen() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    one_table(d);
    let csv = "csv/public.t.csv";
    let o = run("pksort", &["-m", "m.json", csv], d);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "1,a\n2,b\n3,\n");
    let o = run("csvcheck", &["-m", "m.json", csv], d);
    assert_eq!(
        o.status.code(),
        Some(0),
        "csvcheck no longer insists on --table"
    );
    let o = run(
        "csvsplit",
        &[
            "-m",
            "m.json",
            "-r",
            "5",
            "-o",
            "s/{n}.csv",
            "--copy-sql",
            csv,
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains(r#"\copy "public"."t" ("id", "v") FROM"#));

    let mut two =
        serde_json::from_slice::<serde_json::Value>(&fs::read(d.join("m.json")).unwrap()).unwrap();
    let mut u = two["tables"][0].clone();
    u["name"] = "u".into();
    two["tables"].as_array_mut().unwrap().push(u);
    fs::write(d.join("two.json"), serde_json::to_vec(&two).unwrap()).unwrap();
    for (tool, args) in [
        ("pksort", vec!["-m", "two.json", csv]),
        ("csvcheck", vec!["-m", "two.json", csv]),
        (
            "csvsplit",
            vec!["-m", "two.json", "-r", "5", "-o", "t/{n}.csv", csv],
        ),
    ] {
        let o = run(tool, &args, d);
        assert_eq!(o.status.code(), Some(2), "{tool}");
        assert!(
            stderr(&o).contains(
                "the manifest has 2 tables; choose one with -t/--table (public.t, public.u)"
            ),
            "{tool}"
        );
        let mut with_t = args.clone();
        with_t.extend(["-t", "public.u"]);
        if tool == "csvsplit" {
            with_t[5] = "u/{n}.csv";
        }
        assert_eq!(run(tool, &with_t, d).status.code(), Some(0), "{tool} -t");
    }
}

#[test]
fn old_spellings_still_work() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let m = one_table(d);
    let csv = "csv/public.t.csv";
    let ok = |tool: &str, args: &[&str]| {
        let o = run(tool, args, d);
        assert_eq!(o.status.code(), Some(0), "{tool} {args:?}");
        o
    };
    ok("pksort", &["--parallel", "2", "-k", "1:int", csv]);
    ok(
        "csvsplit",
        &["--parallel", "2", "-r", "1", "-o", "a/{n}.csv", csv],
    );
    ok("csvcheck", &["--threads", "2", "-m", "m.json", csv]);
    ok(
        "pgdump2csv",
        &["--parallel", "2", "--no-dump-check", "d.sql", "-t", "t"],
    );
    ok(
        "csvsplit",
        &[
            "--manifest-in",
            "m.json",
            "--table",
            "t",
            "-r",
            "1",
            "-o",
            "b/{n}.csv",
            csv,
        ],
    );
    assert_eq!(fs::read(d.join("m.json")).unwrap(), m);

    // pksort -T DIR (GNU sort's temporary directory) for one more release, with a warning;
    // -T is --exclude-table in the toolkit.
    let o = ok("pksort", &["-T", ".", "-S", "4K", "-k", "1:int", csv]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "1,a\n2,b\n3,\n");
    assert_eq!(
        stderr(&o),
        "pksort: -T is deprecated, use --temporary-directory\n"
    );
    let o = ok(
        "pksort",
        &["--temporary-directory", ".", "-k", "1:int", csv],
    );
    assert!(o.stderr.is_empty());

    // pgdump2csv --manifest FILE still writes, for one more release, with a warning.
    let o = ok(
        "pgdump2csv",
        &[
            "--no-dump-check",
            "d.sql",
            "-o",
            "old",
            "--manifest",
            "old.json",
        ],
    );
    assert_eq!(
        stderr(&o),
        "pgdump2csv: --manifest is deprecated, use --write-manifest\n"
    );
    assert!(
        fs::read_to_string(d.join("old.json"))
            .unwrap()
            .contains("dumpshard-manifest")
    );

    // pgdump2csv --schema FILE / --post-data FILE (issue 23): the DDL outputs are
    // --write-schema / --write-post-data; the old spellings work for one more release, with a
    // warning, when the value looks like a file (ends in .sql or holds a /).
    let o = ok(
        "pgdump2csv",
        &[
            "--no-dump-check",
            "d.sql",
            "-o",
            "old2",
            "--schema",
            "old-s.sql",
            "--post-data",
            "./old-p.sql",
        ],
    );
    assert_eq!(
        stderr(&o),
        "pgdump2csv: --post-data is deprecated, use --write-post-data\n\
         pgdump2csv: --schema FILE is deprecated, use --write-schema FILE (--schema/-n PATTERN \
         selects schemas, as in pg_dump)\n"
    );
    assert!(
        fs::read_to_string(d.join("old-s.sql"))
            .unwrap()
            .contains("CREATE TABLE")
    );
    assert!(
        fs::read_to_string(d.join("old-p.sql"))
            .unwrap()
            .contains("PRIMARY KEY")
    );

    // pksort -m is --manifest now; GNU sort's merge is --merge. A CSV given to -m says so.
    for first in [csv, "no-such.csv"] {
        let o = run("pksort", &["-m", first, "-k", "1:int", csv], d);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("to merge sorted inputs use --merge"));
    }
}

/// pksort's `--null STRING` means what it means in csvsplit and csvcheck: the NULL token
/// (clap used to suggest `--nulls`, a different option).
#[test]
fn pksort_null_is_the_null_token() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let input = "2,x\n\\N,y\n,z\n";
    fs::write(d.join("in.csv"), input).unwrap();
    // Default: the unquoted empty field is NULL, `\N` is a value (and not an int).
    let o = run("pksort", &["-k", "1", "--nulls", "first", "in.csv"], d);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout), ",z\n2,x\n\\N,y\n");
    // --null '\N': now `\N` is NULL and the empty field is a (text) value.
    let o = run(
        "pksort",
        &["-k", "1", "--null", "\\N", "--nulls", "first", "in.csv"],
        d,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "\\N,y\n,z\n2,x\n");
    // Without --nulls a NULL key is an error naming the record.
    let o = run("pksort", &["-k", "1", "--null", "\\N", "in.csv"], d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("NULL in key column"), "{}", stderr(&o));
}

/// pg_dump's words mean pg_dump's things in pgdump2csv (issue 23): `-n/--schema PATTERN` is
/// "only tables in these schemas", `-N/--exclude-schema PATTERN` "not these"; a bare
/// `--schema public` wrote the DDL into a file named `public` before. A pattern that selects
/// nothing is refused with a hint at --write-schema (an old `--schema FILE` without `.sql`).
#[test]
fn pgdump2csv_schema_is_pg_dumps_schema_pattern() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    fs::write(
        d.join("two.sql"),
        "CREATE SCHEMA sales;\n\
         CREATE TABLE public.t (id integer);\nCREATE TABLE sales.o (id integer);\n\
         COPY public.t (id) FROM stdin;\n1\n\\.\n\
         COPY sales.o (id) FROM stdin;\n2\n\\.\n",
    )
    .unwrap();
    let files = |dir: &str| {
        let mut v: Vec<String> = fs::read_dir(d.join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let base = ["--no-dump-check", "two.sql", "-o"];
    let o = run(
        "pgdump2csv",
        &[&base[..], &["a", "--schema", "public"]].concat(),
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files("a"), ["public.t.csv"]);
    assert!(!d.join("public").exists(), "no DDL file named public");
    let o = run("pgdump2csv", &[&base[..], &["b", "-n", "sal*"]].concat(), d);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files("b"), ["sales.o.csv"]);
    let o = run(
        "pgdump2csv",
        &[&base[..], &["c", "-N", "sales"]].concat(),
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files("c"), ["public.t.csv"]);
    // As pg_dump: with --table, -n has no effect.
    let o = run(
        "pgdump2csv",
        &[&base[..], &["e", "-t", "sales.o", "-n", "public"]].concat(),
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files("e"), ["sales.o.csv"]);
    let o = run(
        "pgdump2csv",
        &[&base[..], &["f", "--schema", "schema"]].concat(),
        d,
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "pgdump2csv: no matching tables were found for --schema 'schema' (to write the DDL to a \
         file, use --write-schema FILE)\n"
    );
    assert!(!d.join("schema").exists());
}
