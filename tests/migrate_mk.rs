//! examples/migrate.mk run by GNU make on the fixture dumps into a real PostgreSQL
//! (tests/support/pg.rs; skipped loudly without one, a failure with DUMPSHARD_REQUIRE_PG=1;
//! skipped when there is no GNU make): every table equal to a psql restore of the same dump,
//! runs that fail at the target (no database; one table refused midway) resume without
//! redoing the conversion or loading anything twice, a rerun after lost stamps loads nothing
//! twice, a custom archive in YugabyteDB mode (batches), the PostgreSQL mode's load without
//! any sort or cut (a large table in parts of its CSV, a gzip one in chunks), and the CockroachDB
//! mode's IMPORT INTO statements and sorted, disjoint shards. Issue 34's ways a migration
//! stops, each followed by the remedy it prints to a verified target: bad records in two
//! tables (fixed in OUT/csv), a missing owner role (NO_OWNER=1), a target that holds the
//! tables (an empty database), an interrupted load (the rerun resumes).

use crate::support::cli;
use crate::support::cmd::Cmd;
use crate::support::pg;

use crate::support::cmd::Within;
use pg::{Pg, fingerprints};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_csvload"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// True when `make` is GNU make (the Makefile uses define/eval/call and re-reads an
/// included file it made); prints a loud SKIPPED line otherwise.
pub(crate) fn have_gnu_make() -> bool {
    let ok = Command::new("make")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output_within()
        .is_ok_and(|o| o.status.success() && text(&o.stdout).contains("GNU Make"));
    if !ok {
        eprintln!("SKIPPED: no GNU make on PATH");
    }
    ok
}

/// `make -f examples/migrate.mk -j4 VARS...` from the repository root, with the server's
/// libpq environment (or none) and no make or PG* variables inherited from the caller.
pub(crate) fn make(pg: Option<&Pg>, vars: &[String]) -> Output {
    make_with(pg, &bin_dir(), vars)
}

/// The caller's make and libpq variables, which a test's make must not inherit.
pub(crate) fn inherited_make_and_pg_vars() -> Vec<String> {
    std::env::vars_os()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .filter(|k| k.starts_with("PG") || k.starts_with("MAKE") || k == "MFLAGS")
        .collect()
}

/// [`make`] with the tools taken from `bin` (a directory of wrappers, e.g. a failing
/// pksort), through the one test harness (which bounds the wait).
pub(crate) fn make_with(pg: Option<&Pg>, bin: &Path, vars: &[String]) -> Output {
    let mut c = Cmd::program("make");
    for k in inherited_make_and_pg_vars() {
        c = c.env_remove(k);
    }
    if let Some(pg) = pg {
        c = c
            .env("PGHOST", pg.socket_dir())
            .env("PGPORT", pg.port().to_string())
            .env("PGUSER", pg::SUPERUSER);
    }
    c.current_dir(root())
        .args(["-f", "examples/migrate.mk", "-j4"])
        .arg(format!("BIN={}", bin.display()))
        .args(vars)
        .run()
        .output
}

pub(crate) fn must(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Indexes, constraints and sequence values: what post-data adds.
fn post_data_objects(pg: &Pg, db: &str) -> String {
    pg.psql(
        db,
        "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (
           SELECT conrelid::regclass::text || ' ' || conname || ' ' || contype::text AS x FROM pg_constraint
             WHERE connamespace::regnamespace::text IN ('public', 'sales')
           UNION ALL SELECT indexrelid::regclass::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE c.relnamespace::regnamespace::text IN ('public', 'sales')
           UNION ALL SELECT schemaname || '.' || sequencename || ' ' || coalesce(last_value, 0)
             FROM pg_sequences WHERE schemaname IN ('public', 'sales')) s",
    )
}

pub(crate) fn var(k: &str, v: impl AsRef<str>) -> String {
    format!("{k}={}", v.as_ref())
}

/// The shard files of `dir` in name order, put together (gzip ones decompressed).
fn concat_shards(dir: &Path) -> Vec<u8> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        let raw = std::fs::read(&f).unwrap();
        if f.extension().is_some_and(|e| e == "gz") {
            use std::io::Read;
            flate2::read::MultiGzDecoder::new(&raw[..])
                .read_to_end(&mut all)
                .unwrap();
        } else {
            all.extend_from_slice(&raw);
        }
    }
    all
}

/// A csvsplit manifest, parsed.
fn shard_manifest(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn fixture_migrates_exactly_and_resumes() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path("nasty.sql");
    pg.createdb("source");
    pg.psql_file("source", &dump);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let vars = |target: &str| {
        vec![
            var("DUMP", dump.to_str().unwrap()),
            var("OUT", o),
            var("TARGET", target),
            var("SHARD_SIZE", "2K"),
            // csvload loads a CSV of this size or more in parts (--parts-from).
            var("SPLIT_MIN", "1K"),
        ]
    };

    // First run: the target database does not exist yet. The schema phase fails, so no
    // table is loaded; with -k (keep going) everything up to the split is done.
    let mut first_vars = vars("dbname=target");
    first_vars.push("-k".into());
    let first = make(Some(&pg), &first_vars);
    assert!(!first.status.success(), "a missing database must fail");
    assert!(
        text(&first.stderr).contains(
            "migrate.mk: creating the tables: the target cannot be reached (above): fix TARGET"
        ),
        "{}",
        text(&first.stderr)
    );
    let stamps = out.join(".stamps");
    let converted = std::fs::metadata(stamps.join("converted"))
        .expect("conversion stamp")
        .modified()
        .unwrap();
    assert!(stamps.join("public.customer.split").exists());
    assert!(!stamps.join("public.customer.loaded").exists());
    assert!(!stamps.join("schema").exists());
    // PostgreSQL: the 1000-row customer table, past SHARD_SIZE, gets LOAD_JOBS connections
    // for its load, and is neither sorted nor cut (csvload reads a large CSV in parts).
    assert_eq!(
        std::fs::read_to_string(stamps.join("public.customer.jobs"))
            .unwrap()
            .trim(),
        "2"
    );
    assert!(!out.join("shards/public.customer").exists());

    // Second run, the database created, but midway one table cannot load: someone wrote a
    // row into public.customer after the schema phase, which csvload refuses (rows its
    // journal does not account for). With -k the other tables load; the run fails.
    pg.createdb("target");
    let schema_stamp = stamps.join("schema");
    let mut schema_only = vars("dbname=target");
    schema_only.push(schema_stamp.to_str().unwrap().into());
    must(make(Some(&pg), &schema_only), "make (schema only)");
    pg.psql(
        "target",
        "INSERT INTO public.customer (id, name) VALUES (-1, 'intruder')",
    );
    let mut keep_going = vars("dbname=target");
    keep_going.push("-k".into());
    let midway = make(Some(&pg), &keep_going);
    assert!(
        !midway.status.success(),
        "a refused table must fail the run"
    );
    assert!(
        text(&midway.stderr).contains("public.customer"),
        "{}",
        text(&midway.stderr)
    );
    assert!(!stamps.join("public.customer.loaded").exists());
    assert!(stamps.join("public.texts.loaded").exists());
    assert!(!stamps.join("post-data").exists());

    // Third run, the intruder removed: the conversion is not redone, the tables already
    // loaded are not loaded again, the rest loads, then post-data and verification.
    pg.psql(
        "target",
        "DELETE FROM public.customer WHERE id = -1; \
         ALTER DATABASE target SET log_statement = 'all'",
    );
    let counts = |from: usize, t: &str| {
        pg.server_log()[from..]
            .matches(&format!("SELECT count(*) FROM ONLY \"public\".\"{t}\""))
            .count()
    };
    let before = pg.server_log().len();
    let stdout = must(make(Some(&pg), &vars("dbname=target")), "make (resumed)");
    // Counted once before its load (against csvload's journal) and once by the verification
    // after the post-data: the load leaves its own count to that one (issue 36).
    assert_eq!(counts(before, "customer"), 2);
    assert_eq!(counts(before, "texts"), 1);
    assert!(stdout.contains("public.customer"), "{stdout}");
    assert!(!stdout.contains("DIFFERENT"), "{stdout}");
    assert_eq!(
        std::fs::metadata(stamps.join("converted"))
            .unwrap()
            .modified()
            .unwrap(),
        converted,
        "the resumed run converted the dump again"
    );
    let source = fingerprints(&pg, "source");
    assert_eq!(
        fingerprints(&pg, "target"),
        source,
        "the migrated database differs from a psql restore"
    );
    assert!(source.len() > 30, "{source:?}");
    assert_eq!(
        post_data_objects(&pg, "target"),
        post_data_objects(&pg, "source"),
        "indexes, constraints or sequences differ"
    );

    // Nothing left to do: nothing is loaded, and the run says that the target it reached
    // holds the loads (issue 61: it printed nothing, whatever the target).
    let again = must(make(Some(&pg), &vars("dbname=target")), "make (done)");
    assert!(
        again.starts_with("migrate.mk: done: database \"target\"") && again.lines().count() == 1,
        "{again}"
    );

    // Stamps lost (a crash between csvload's commit and `touch`): the rerun loads the
    // table again, and csvload's journal makes that load nothing twice.
    for s in [
        "public.customer.loaded",
        "public.texts.loaded",
        "post-data",
        "verified",
    ] {
        std::fs::remove_file(stamps.join(s)).unwrap();
    }
    // With LOAD_FLAGS='--verify content' (the user's flag after the makefile's own
    // `--verify none`: the last one counts).
    let mut lost = vars("dbname=target");
    lost.push(var("LOAD_FLAGS", "--verify content"));
    must(make(Some(&pg), &lost), "make (stamps lost)");
    assert_eq!(
        fingerprints(&pg, "target"),
        source,
        "a rerun duplicated rows"
    );

    // `make load` alone has no verification after it: the load counts.
    std::fs::remove_file(stamps.join("public.texts.loaded")).unwrap();
    let before = pg.server_log().len();
    let mut load = vars("dbname=target");
    load.push("load".into());
    must(make(Some(&pg), &load), "make load");
    assert_eq!(counts(before, "texts"), 2);
}

/// A pg_dump custom archive, read directly by pgdump2csv, in YugabyteDB mode (csvload
/// commits every BATCH_ROWS records), into PostgreSQL, which speaks the same COPY.
#[test]
fn custom_archive_in_batches() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("source");
    pg.psql_file("source", &cli::dump_path("nasty.sql"));
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("nasty.dump");
    let dumped = pg
        .client("pg_dump")
        .args(["-Fc", "-d", "source", "-f"])
        .arg(&archive)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(dumped.status.success(), "{}", text(&dumped.stderr));
    pg.createdb("target");
    let out = tmp.path().join("out");
    must(
        make(
            Some(&pg),
            &[
                var("DUMP", archive.to_str().unwrap()),
                var("OUT", out.to_str().unwrap()),
                var("TARGET", "dbname=target"),
                var("TARGET_KIND", "yugabytedb"),
                // The PostgreSQL 15 server stands in for a YugabyteDB release on PostgreSQL 15:
                // for the default 2024.2 (PostgreSQL 11) the nasty dump's generated columns
                // are created plain, a blocker (issue 33), and their NOT NULL keys refuse rows.
                var("CONVERT_FLAGS", "--target-version yugabytedb:2025.1"),
                // PostgreSQL has no HASH/ASC in a primary key: YugabyteDB's default sharding.
                var("YB_SHARDING", "keep"),
                var("BATCH_ROWS", "7"),
            ],
        ),
        "make (archive)",
    );
    assert_eq!(fingerprints(&pg, "target"), fingerprints(&pg, "source"));
    // 1000 customer rows committed 7 at a time.
    let batches = pg.psql(
        "target",
        "SELECT count(*) FROM dumpshard.load_journal WHERE table_name = 'public.customer'",
    );
    assert_eq!(batches.trim(), "143", "journal batches of public.customer");
}

/// CockroachDB mode loads nothing: gzip shards per table and one file of IMPORT INTO
/// statements pointing below IMPORT_URL, with file names made safe for a URL.
#[test]
fn cockroachdb_import_statements() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let said = must(
        make(
            None,
            &[
                var("DUMP", cli::dump_path("nasty.sql.gz").to_str().unwrap()),
                var("OUT", out.to_str().unwrap()),
                var("TARGET_KIND", "cockroachdb"),
                var("IMPORT_URL", "s3://bkt/mig?AUTH=implicit"),
                // Make passes the flags through the shell: quoted as a user would.
                var("CONVERT_FLAGS", "--null '\\N'"),
            ],
        ),
        "make (cockroachdb)",
    );
    let sql = std::fs::read_to_string(out.join("import.sql")).unwrap();
    assert!(
        sql.contains(
            "IMPORT INTO \"public\".\"customer\" (\"id\", \"name\", \"note\", \"email\", \"score\", \"signed_up\", \"active\") CSV DATA (\n    's3://bkt/mig/public.customer/0000.csv.gz?AUTH=implicit'\n)"
        ),
        "{sql}"
    );
    assert!(sql.contains("nullif = '\\N'"), "{sql}");
    assert!(sql.contains("decompress = 'gzip'"), "{sql}");
    // `%` of the file name is `%25` in the URL, so the uploaded directory's name is what
    // the storage decodes.
    assert!(
        sql.contains("'s3://bkt/mig/public.my%252Etable%2520name/0000.csv.gz?AUTH=implicit'"),
        "{sql}"
    );
    // One statement per table with rows (public.empty_table and public.late_parent
    // have none).
    let statements = sql.matches("IMPORT INTO").count();
    let tables = std::fs::read_dir(out.join("csv")).unwrap().count();
    assert_eq!(statements, tables - 2, "{sql}");
    assert!(out.join("shards/public.customer/0000.csv.gz").exists());
    assert!(!out.join(".stamps/schema").exists(), "nothing is loaded");
    // The schema is CockroachDB's (issue 21): every primary key inline, none in post-data,
    // and the report names each change.
    let schema = std::fs::read_to_string(out.join("schema.sql")).unwrap();
    let post = std::fs::read_to_string(out.join("post.sql")).unwrap();
    assert!(
        schema.contains("CONSTRAINT customer_pkey PRIMARY KEY (id)"),
        "{schema}"
    );
    assert!(!post.contains("PRIMARY KEY"), "{post}");
    let report = std::fs::read_to_string(out.join("schema-report.html")).unwrap();
    assert!(report.contains("crdb-pk-moved") && report.contains("crdb-domain"));
    // It ends by saying what to run next, in order, with the exact commands (issue 33), the
    // report first, every path absolute (issue 61).
    let o = out.to_str().unwrap();
    let b = bin_dir();
    let b = b.to_str().unwrap();
    let mk = root().join("examples/migrate.mk");
    let mk = mk.to_str().unwrap();
    let steps = [
        format!("1. read the report:    {o}/schema-report.html"),
        format!(
            "2. upload the shards:  aws s3 cp --recursive '{o}/shards/' 's3://bkt/mig/' --exclude '*.json'"
        ),
        format!(
            "3. create the schema:  '{b}/csvload' --schema '{o}/schema.sql' --same-target '{o}/.stamps/target.identity' \"$TARGET\""
        ),
        format!("4. import the shards:  cockroach sql --url \"$TARGET\" -f '{o}/import.sql'"),
        format!(
            "5. run the post-data:  '{b}/csvload' --post-data '{o}/post.sql' --same-target '{o}/.stamps/target.identity' \"$TARGET\""
        ),
        format!(
            "6. verify:             make -f '{mk}' verify TARGET_KIND=cockroachdb OUT='{o}' BIN='{b}' TARGET=\"$TARGET\""
        ),
    ];
    let at: Vec<usize> = steps
        .iter()
        .map(|s| {
            said.find(s.as_str())
                .unwrap_or_else(|| panic!("{s:?} not in:\n{said}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{said}");
}

/// CockroachDB's IMPORT gets sorted, non-overlapping shards (what the sort and split are
/// for, and what TARGET_KIND=postgresql skips): the 1000-row customer table, out of key
/// order in the dump, in 2 KiB shards, each sorted by the primary key (an int, not the
/// unsorted split's text fallback), each shard's keys above the previous one's, and every
/// record there.
#[test]
fn cockroachdb_shards_are_sorted_and_disjoint() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut vars = crdb_vars(&cli::dump_path("nasty.sql"), &out);
    vars.push(var("SHARD_SIZE", "2K"));
    must(make(None, &vars), "make (cockroachdb, 2K shards)");
    let m = shard_manifest(&out.join("shards/public.customer.json"));
    assert_eq!(m["key"]["columns"][0]["column"], "id", "{m}");
    assert_eq!(m["key"]["columns"][0]["type"], "int", "{m}");
    assert_eq!(m["sorted_within_shards"], true, "{m}");
    assert_eq!(m["non_overlapping"], true, "{m}");
    let shards = m["shards"].as_array().unwrap();
    assert!(shards.len() > 10, "{} shards", shards.len());
    let key =
        |s: &serde_json::Value, k: &str| -> i64 { s[k][0].as_str().unwrap().parse().unwrap() };
    for w in shards.windows(2) {
        assert!(key(&w[0], "first_key") <= key(&w[0], "last_key"), "{m}");
        assert!(key(&w[0], "last_key") < key(&w[1], "first_key"), "{m}");
    }
    let lines = |b: Vec<u8>| {
        let mut v: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
        v.sort();
        v
    };
    let csv = std::fs::read(out.join("csv/public.customer.csv")).unwrap();
    assert_ne!(
        concat_shards(&out.join("shards/public.customer")),
        csv,
        "the dump's order is not the key's: the shards must differ from the CSV"
    );
    assert_eq!(
        lines(concat_shards(&out.join("shards/public.customer"))),
        lines(csv),
        "the shards do not hold the CSV's records"
    );
}

/// A directory of the toolkit's binaries (symlinks) in which pksort is replaced by a script
/// that fails before writing anything, as pksort does when its TMPDIR is full or unwritable
/// (`pksort --check` still answers, so tables are sorted, not split unsorted).
fn bin_with_failing_pksort(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for t in ["pgdump2csv", "csvcheck", "csvsplit", "csvload"] {
        std::os::unix::fs::symlink(bin_dir().join(t), bin.join(t)).unwrap();
    }
    let script = format!(
        "#!/bin/sh\ncase \" $* \" in *\" --check \"*) exec '{}' \"$@\";; esac\necho 'pksort: /nonexistent/tmp: No space left on device' >&2\nexit 2\n",
        bin_dir().join("pksort").display()
    );
    std::fs::write(bin.join("pksort"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("pksort"), std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn crdb_vars(dump: &Path, out: &Path) -> Vec<String> {
    vec![
        var("DUMP", dump.to_str().unwrap()),
        var("OUT", out.to_str().unwrap()),
        var("TARGET_KIND", "cockroachdb"),
    ]
}

/// A directory of the toolkit's binaries (symlinks) without a working pksort: every call
/// (even `--check`) fails and leaves a mark in `called`.
fn bin_without_pksort(dir: &Path) -> (PathBuf, PathBuf) {
    let bin = dir.join("bin-nosort");
    let called = dir.join("pksort-called");
    std::fs::create_dir_all(&bin).unwrap();
    for t in ["pgdump2csv", "csvcheck", "csvsplit", "csvload"] {
        std::os::unix::fs::symlink(bin_dir().join(t), bin.join(t)).unwrap();
    }
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\necho 'pksort: not here' >&2\nexit 2\n",
        called.display()
    );
    std::fs::write(bin.join("pksort"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("pksort"), std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, called)
}

/// Issue 22: TARGET_KIND=postgresql runs no sort (a COPY target gains nothing from one):
/// with a pksort that fails whatever it is asked, every table loads exactly, then post-data
/// and the content verification. The OUT then refuses another TARGET_KIND. Failed before:
/// the split ran `pksort --check` and `pksort | csvsplit`. Issue 36: nothing is cut; a
/// table that would load alone gets LOAD_JOBS connections and loads in parts of its CSV
/// (failed before: csvsplit -n wrote it again as chunks), a gzip CSV is still cut.
#[test]
fn postgresql_loads_parts_without_sorting_or_cutting() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path("nasty.sql");
    pg.createdb("source");
    pg.psql_file("source", &dump);
    pg.createdb("target");
    let tmp = tempfile::tempdir().unwrap();
    let (bin, called) = bin_without_pksort(tmp.path());
    let out = tmp.path().join("out");
    let vars = |kind: &str| {
        vec![
            var("DUMP", dump.to_str().unwrap()),
            var("OUT", out.to_str().unwrap()),
            var("TARGET", "dbname=target"),
            var("TARGET_KIND", kind),
            var("SHARD_SIZE", "16K"),
            var("SPLIT_MIN", "1K"),
            var("LOAD_JOBS", "3"),
            var("VERIFY", "content"),
        ]
    };
    let stdout = must(make_with(Some(&pg), &bin, &vars("postgresql")), "make");
    assert!(
        !called.exists(),
        "pksort was run: {}",
        std::fs::read_to_string(&called).unwrap_or_default()
    );
    assert!(stdout.contains("public.customer"), "{stdout}");
    assert!(out.join(".stamps/verified").exists());
    // Every table, loaded in parts or whole, was checked by its own load (csvload
    // --check-records: no csvcheck, no report) and says so: the parts of a CSV commit
    // together and share one set of keys. Failed before issue 62: a table loaded in parts
    // had csvcheck beside its load, reading and parsing its CSV a second time.
    let tables_mk = std::fs::read_to_string(out.join("tables.mk")).unwrap();
    let by_size: Vec<&str> = tables_mk
        .lines()
        .find_map(|l| l.strip_prefix("TABLES_BY_SIZE :="))
        .expect("TABLES_BY_SIZE in tables.mk")
        .split_whitespace()
        .collect();
    assert_eq!(by_size.first(), Some(&"public.texts"), "{tables_mk}");
    let jobs = |out: &Path, t: &str| {
        std::fs::read_to_string(out.join(format!(".stamps/{t}.jobs")))
            .unwrap()
            .trim()
            .to_string()
    };
    let in_parts: Vec<&&str> = by_size.iter().filter(|t| jobs(&out, t) != "1").collect();
    assert_eq!(in_parts.len(), 2, "{by_size:?}");
    // (The lines name a table by its name, the stamps by its CSV's file name.)
    let said = |w: &str| stdout.matches(&format!(": {w}\n")).count();
    assert_eq!(
        said("checking and loading (nothing is committed unless the check passes)"),
        0,
        "{stdout}"
    );
    assert_eq!(
        said("loading, its records checked as they load (nothing is committed unless all pass)"),
        by_size.len(),
        "{stdout}"
    );
    for t in &by_size {
        assert!(out.join(format!(".stamps/{t}.checked")).exists(), "{t}");
        assert!(!out.join(format!(".stamps/{t}.check.json")).exists(), "{t}");
        assert!(!out.join(format!(".stamps/{t}.gate")).exists(), "{t}");
    }
    let source = fingerprints(&pg, "source");
    assert_eq!(fingerprints(&pg, "target"), source, "the target differs");
    assert!(source.len() > 30, "{source:?}");
    assert_eq!(
        post_data_objects(&pg, "target"),
        post_data_objects(&pg, "source"),
        "indexes, constraints or sequences differ"
    );
    // Nothing is cut (issue 36: a cut wrote every byte again; csvload loads one CSV in parts
    // side by side). The tables that would load on several connections get LOAD_JOBS:
    // public.texts (95 KiB) and public.customer (63 KiB), past SHARD_SIZE; not
    // public.events_2024 (1.4 KiB, past SPLIT_MIN), as make -j4 loads other tables beside it
    // (below: LOAD_JOBS under -j1), nor public.Order (71 bytes). csvload reads each in as
    // many parts (--parts-from SPLIT_MIN: parts of at least SPLIT_MIN / 2), from pgdump2csv's
    // CSV (issue 61: migrate.mk said "in parts" of CSVs csvload loaded whole, below 16 MiB).
    for (t, j) in [
        ("public.texts", "3"),
        ("public.customer", "3"),
        ("public.events_2024", "1"),
        ("public.Order", "1"),
    ] {
        assert_eq!(jobs(&out, t), j, "{t}");
        assert!(
            !out.join(format!("shards/{t}.json")).exists(),
            "{t} was cut"
        );
    }
    let files = pg.psql(
        "target",
        "SELECT string_agg(DISTINCT file, ' ') FROM dumpshard.load_journal WHERE table_name = 'public.Order'",
    );
    assert!(files.trim().ends_with("/csv/public.Order.csv"), "{files}");

    // Under make -j1 (one step at a time) every table of SPLIT_MIN or more would load alone:
    // public.events_2024 gets LOAD_JOBS there (a split only: no target).
    let out_j1 = tmp.path().join("out-j1");
    let mut j1 = vars("postgresql");
    j1[1] = var("OUT", out_j1.to_str().unwrap());
    j1.extend(["-j1".to_string(), "split".to_string()]);
    must(make_with(Some(&pg), &bin, &j1), "make -j1 split");
    // Two parts: each at least SPLIT_MIN / 2 (csvload --parts-from).
    assert_eq!(jobs(&out_j1, "public.events_2024"), "2");
    assert_eq!(jobs(&out_j1, "public.Order"), "1");
    // A gzip CSV (CONVERT_FLAGS=--gzip) cannot be read in parts: it is cut into chunks (by
    // its size on disk: public.customer's 3 of at most SHARD_SIZE), the CSV in its order.
    let out_gz = tmp.path().join("out-gz");
    let mut gz = vars("postgresql");
    gz[1] = var("OUT", out_gz.to_str().unwrap());
    gz.extend([var("CONVERT_FLAGS", "--gzip"), "split".to_string()]);
    let stdout = must(make_with(Some(&pg), &bin, &gz), "make split (gzip)");
    assert!(
        stdout.contains("public.customer: cutting into 3 chunks"),
        "{stdout}"
    );
    let m = shard_manifest(&out_gz.join("shards/public.customer.json"));
    assert_eq!(m["shards"].as_array().unwrap().len(), 3, "{m}");
    let mut csv = Vec::new();
    use std::io::Read;
    flate2::read::MultiGzDecoder::new(
        &std::fs::read(out_gz.join("csv/public.customer.csv.gz")).unwrap()[..],
    )
    .read_to_end(&mut csv)
    .unwrap();
    assert_eq!(
        concat_shards(&out_gz.join("shards/public.customer")),
        csv,
        "the chunks are not the CSV in its order"
    );
    // Under -j4, a table larger than all the others together loads alone at the end: it
    // loads in LOAD_JOBS parts even so (its CSV is past csvload's two smallest parts),
    // checked by its load, each part's COMMIT waiting for the others'; the small one beside
    // it loads whole.
    let lone = tmp.path().join("lone.sql");
    let mut sql = String::from(
        "--\n-- PostgreSQL database dump\n--\n\n\
         CREATE TABLE public.big (id integer NOT NULL, v text);\n\
         CREATE TABLE public.small (id integer NOT NULL, v text);\n\
         COPY public.big (id, v) FROM stdin;\n",
    );
    let big_rows = 300_000;
    for i in 1..=big_rows {
        sql.push_str(&format!(
            "{i}\tvalue {i}, with a comma, \\\"quotes\\\" and a\\nnewline: ünïcödé {}\n",
            "x".repeat(i % 31)
        ));
    }
    sql.push_str("\\.\nCOPY public.small (id, v) FROM stdin;\n");
    for i in 1..=120 {
        sql.push_str(&format!("{i}\tv{i}\n"));
    }
    sql.push_str("\\.\n\n--\n-- PostgreSQL database dump complete\n--\n");
    std::fs::write(&lone, sql).unwrap();
    pg.createdb("lone");
    let out_lone = tmp.path().join("out-lone");
    let lone_vars = vec![
        var("DUMP", lone.to_str().unwrap()),
        var("OUT", out_lone.to_str().unwrap()),
        var("TARGET", "dbname=lone"),
        var("SPLIT_MIN", "1K"),
        var("LOAD_JOBS", "3"),
        var("VERIFY", "content"),
    ];
    let stdout = must(make_with(Some(&pg), &bin, &lone_vars), "make (lone)");
    assert!(
        stdout.contains(
            "public.big: its load gets 3 connections (csvload -j 3 --parts-from 1K: each reads a part of its CSV)"
        ),
        "{stdout}"
    );
    let big = std::fs::metadata(out_lone.join("csv/public.big.csv"))
        .unwrap()
        .len();
    assert!(
        big > 24 << 20,
        "public.big's CSV is too small for 3 parts: {big}"
    );
    assert_eq!(jobs(&out_lone, "public.big"), "3");
    assert_eq!(jobs(&out_lone, "public.small"), "1");
    assert!(!out_lone.join("shards/public.big.json").exists());
    assert_eq!(
        pg.psql(
            "lone",
            "SELECT count(*) FROM dumpshard.load_journal WHERE table_name = 'public.big' \
             AND file LIKE '%/csv/public.big.csv#bytes=%'"
        )
        .trim(),
        "3"
    );
    assert_eq!(
        pg.psql(
            "lone",
            "SELECT count(*), count(DISTINCT id) FROM public.big"
        )
        .trim(),
        format!("{big_rows}|{big_rows}")
    );

    // The same OUT with another TARGET_KIND (another schema, sorted shards) is refused.
    let other = make_with(Some(&pg), &bin, &vars("yugabytedb"));
    assert!(!other.status.success(), "{}", text(&other.stdout));
    assert!(
        text(&other.stderr).contains("TARGET_KIND=postgresql, not yugabytedb"),
        "{}",
        text(&other.stderr)
    );
    assert!(!called.exists(), "pksort was run");

    // One connection per table: each table's load builds its keys (--build-indexes), then
    // post-data on one connection runs the rest without building them again. Failed before
    // the journaled builds were left out: "multiple primary keys for table".
    pg.createdb("target1");
    let out1 = tmp.path().join("out1");
    let one = vec![
        var("DUMP", dump.to_str().unwrap()),
        var("OUT", out1.to_str().unwrap()),
        var("TARGET", "dbname=target1"),
        var("LOAD_JOBS", "1"),
    ];
    must(make_with(Some(&pg), &bin, &one), "make LOAD_JOBS=1");
    assert!(out1.join(".stamps/verified").exists());
    assert_eq!(
        fingerprints(&pg, "target1"),
        source,
        "LOAD_JOBS=1: the target differs"
    );
    assert_eq!(
        post_data_objects(&pg, "target1"),
        post_data_objects(&pg, "source"),
        "LOAD_JOBS=1: indexes, constraints or sequences differ"
    );
}

/// Issue 19 item 8: a pksort that fails before writing anything in `pksort | csvsplit`
/// fails the table's split (no stamp, no shard manifest), and once "the disk is fixed" the
/// same command completes with every row. Failed before: the splits were stamped with 0
/// rows and every rerun said there was nothing to do.
#[test]
fn failing_pksort_fails_the_split_and_the_rerun_recovers() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let vars = crdb_vars(&cli::dump_path("nasty.sql"), &out);
    let bad = make_with(None, &bin_with_failing_pksort(tmp.path()), &vars);
    assert!(!bad.status.success(), "a failing pksort must fail the run");
    assert!(
        text(&bad.stderr).contains("pksort | csvsplit failed"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!out.join(".stamps/public.customer.split").exists());
    assert!(!out.join("shards/public.customer.json").exists());
    assert!(!out.join("import.sql").exists());
    must(make(None, &vars), "make (rerun, pksort fixed)");
    let m = std::fs::read_to_string(out.join("shards/public.customer.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&m).unwrap();
    let rows: u64 = v["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["records"].as_u64().unwrap())
        .sum();
    assert_eq!(rows, 1000, "public.customer's rows after the rerun");
}

/// Issue 19 item 8: an unset TARGET is refused before anything is done (it loaded into
/// whatever PG* pointed at, exit 0).
#[test]
fn unset_target_is_refused() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = make(
        None,
        &[
            var("DUMP", cli::dump_path("nasty.sql").to_str().unwrap()),
            var("OUT", out.to_str().unwrap()),
        ],
    );
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("set TARGET"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        !out.join(".stamps/converted").exists(),
        "nothing is converted"
    );
}

/// The postgresql path computes its chunk counts from SHARD_SIZE, SPLIT_MIN and LOAD_JOBS:
/// a value that is not a size or a number is refused before anything is converted (a shell
/// quote in one cannot reach a command line).
#[test]
fn postgresql_sizes_and_jobs_are_checked() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    for (k, v) in [
        ("SHARD_SIZE", "lots"),
        ("SPLIT_MIN", "1'M"),
        ("LOAD_JOBS", "0"),
        ("LOAD_JOBS", "2 -x"),
    ] {
        let o = make(
            None,
            &[
                var("DUMP", cli::dump_path("nasty.sql").to_str().unwrap()),
                var("OUT", out.to_str().unwrap()),
                var("TARGET", "dbname=nowhere"),
                var(k, v),
            ],
        );
        assert!(!o.status.success(), "{k}={v}");
        assert!(
            text(&o.stderr).contains(&format!("{k} must be")),
            "{k}={v}: {}",
            text(&o.stderr)
        );
        assert!(!out.exists(), "{k}={v}: OUT was made");
    }
}

/// Issue 19 item 8: a reused OUT with another DUMP is refused, doing nothing (it printed
/// "Nothing to be done" and exited 0).
#[test]
fn reused_out_with_another_dump_is_refused() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    must(
        make(None, &crdb_vars(&cli::dump_path("nasty.sql"), &out)),
        "make (first dump)",
    );
    let again = make(None, &crdb_vars(&cli::dump_path("nasty.sql.gz"), &out));
    assert!(!again.status.success(), "{}", text(&again.stdout));
    assert!(
        text(&again.stderr).contains("another dump"),
        "{}",
        text(&again.stderr)
    );
    // The same dump again: nothing to do, exit 0.
    must(
        make(None, &crdb_vars(&cli::dump_path("nasty.sql"), &out)),
        "make (same dump)",
    );
}

/// Issue 19 item 8: a table named `orders` + newline is refused, never loaded into
/// `orders`; the other tables go on (-k).
#[test]
fn table_name_with_a_control_character_is_refused() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("d.sql");
    std::fs::write(
        &dump,
        "CREATE TABLE public.orders (id integer PRIMARY KEY);\n\nCREATE TABLE public.\"orders\n\" (id integer PRIMARY KEY);\n\nCOPY public.orders (id) FROM stdin;\n1\n\\.\n\nCOPY public.\"orders\n\" (id) FROM stdin;\n2\n\\.\n\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let mut vars = crdb_vars(&dump, &out);
    vars.push(var("CONVERT_FLAGS", "--no-dump-check"));
    vars.push("-k".into());
    let o = make(None, &vars);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("control character"),
        "{}",
        text(&o.stderr)
    );
    assert!(out.join(".stamps/public.orders.split").exists());
    let stamps: Vec<String> = std::fs::read_dir(out.join(".stamps"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("%0A"))
        .collect();
    assert!(stamps.is_empty(), "{stamps:?}");
}

/// Issue 19 item 8: a reused OUT with another TARGET is refused once the schema was loaded
/// (it printed "Nothing to be done" with the new target empty); `forget-target` loads the
/// same conversion into the new one.
#[test]
fn reused_out_with_another_target_is_refused() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("t1");
    pg.createdb("t2");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let vars = |t: &str| {
        vec![
            var("DUMP", cli::dump_path("nasty.sql").to_str().unwrap()),
            var("OUT", out.to_str().unwrap()),
            var("TARGET", t),
        ]
    };
    must(make(Some(&pg), &vars("dbname=t1")), "make (t1)");
    let o = make(Some(&pg), &vars("dbname=t2"));
    assert!(!o.status.success(), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("another server or database"),
        "{}",
        text(&o.stderr)
    );
    let n = pg.psql(
        "t2",
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
    );
    assert_eq!(n.trim(), "0", "nothing loaded into t2");
    let mut forget = vars("dbname=t2");
    forget.push("forget-target".into());
    must(make(Some(&pg), &forget), "make forget-target");
    must(make(Some(&pg), &vars("dbname=t2")), "make (t2)");
    assert_eq!(fingerprints(&pg, "t2"), fingerprints(&pg, "t1"));
}

/// The variables of a migration of fixtures/dumps/sample.sql.gz into OUT `out`.
pub(crate) fn sample_vars(out: &Path, target: &str) -> Vec<String> {
    vec![
        var("DUMP", cli::dump_path("sample.sql.gz").to_str().unwrap()),
        var("OUT", out.to_str().unwrap()),
        var("TARGET", target),
    ]
}

/// Replaces the CSV file's lines for which `edit` returns Some (None keeps the line).
pub(crate) fn edit_lines(path: &Path, edit: impl Fn(usize, &str) -> Option<Option<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        match edit(i, l) {
            None => {
                out.push_str(l);
                out.push('\n');
            }
            Some(Some(new)) => {
                out.push_str(&new);
                out.push('\n');
            }
            Some(None) => {}
        }
    }
    std::fs::write(path, out).unwrap();
}

/// A directory of the toolkit's binaries (symlinks) in which csvcheck, for shop.order_lines
/// only, waits until `release` exists and then checks with column 2 as the key (3746
/// duplicates: exit 1, bad records written), as a check that finds bad records late.
fn bin_with_late_failing_check(dir: &Path, release: &Path) -> PathBuf {
    let bin = dir.join("bin-latecheck");
    std::fs::create_dir_all(&bin).unwrap();
    for t in ["pgdump2csv", "pksort", "csvsplit", "csvload"] {
        std::os::unix::fs::symlink(bin_dir().join(t), bin.join(t)).unwrap();
    }
    let script = format!(
        "#!/bin/sh\ncase \" $* \" in *' \"shop\".\"order_lines\" '*)\n  \
         while [ ! -e '{}' ]; do sleep 0.05; done\n  set -- --key 2:int \"$@\";;\nesac\nexec '{}' \"$@\"\n",
        release.display(),
        bin_dir().join("csvcheck").display()
    );
    std::fs::write(bin.join("csvcheck"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("csvcheck"), std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Reruns the same command: it must succeed, say `says` (stdout or stderr) and end verified.
pub(crate) fn rerun_ends_verified(pg: &Pg, vars: &[String], out: &Path, says: &str) {
    let again = make(Some(pg), vars);
    let said = format!("{}{}", text(&again.stdout), text(&again.stderr));
    assert!(again.status.success(), "{said}");
    assert!(said.contains(says), "{said}");
    assert!(out.join(".stamps/verified").exists());
}

/// A server with an empty `shop` database, the temporary directory, `release`, a `bin` whose
/// csvcheck holds shop.order_lines's check until `release` exists
/// ([`bin_with_late_failing_check`]), OUT in the directory and the sample dump's variables.
/// None (the test skipped) without GNU make or a server.
type LateCheck = (
    Pg,
    tempfile::TempDir,
    PathBuf,
    PathBuf,
    PathBuf,
    Vec<String>,
);

fn late_check() -> Option<LateCheck> {
    if !have_gnu_make() {
        return None;
    }
    let pg = Pg::start()?;
    pg.createdb("shop");
    let tmp = tempfile::tempdir().unwrap();
    let release = tmp.path().join("release-the-check");
    let bin = bin_with_late_failing_check(tmp.path(), &release);
    let out = tmp.path().join("out");
    let mut vars = sample_vars(&out, "dbname=shop");
    // csvcheck beside every load, not the load's own check of a table in one transaction.
    vars.push(var("CHECK_IN_LOAD", ""));
    Some((pg, tmp, release, bin, out, vars))
}

/// The rerun with the real csvcheck: shop.order_lines's load (said as `says`) with its check
/// beside it again, all of its 3750 rows loaded, the run verified.
fn rerun_loads_order_lines(pg: &Pg, vars: &[String], out: &Path, says: &str) {
    rerun_ends_verified(pg, vars, out, says);
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.order_lines")
            .trim(),
        "3750"
    );
}

/// True when the load of shop.order_lines has sent its rows and is held at its COMMIT: a
/// session of database `shop` idle in a transaction that wrote into the table.
fn order_lines_held(pg: &Pg) -> bool {
    pg.psql(
        "shop",
        "SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid \
         WHERE a.datname = 'shop' AND a.state = 'idle in transaction' \
         AND l.mode = 'RowExclusiveLock' \
         AND l.relation = to_regclass('shop.order_lines')",
    )
    .trim()
        != "0"
}

/// Issue 36: in PostgreSQL mode a table is checked beside its load and the load's commits
/// wait for the check (csvload --commit-gate). Here the check of shop.order_lines fails
/// only once its whole load has reached the server (held at its COMMIT: the test releases
/// the check then): nothing of it is committed (no row, no journal row), its bad records
/// are in bad/ with the usual words, the other tables load, and no post-data runs. The
/// rerun with the real csvcheck (CSV unchanged) checks it again, loads and verifies.
#[test]
fn check_beside_the_load_commits_nothing_when_it_fails() {
    let Some((pg, _tmp, release, bin, out, vars)) = late_check() else {
        return;
    };
    let run = std::thread::scope(|s| {
        let run = s.spawn(|| make_with(Some(&pg), &bin, &vars));
        let held = || order_lines_held(&pg);
        let mut ok = false;
        for _ in 0..6000 {
            if held() || run.is_finished() {
                ok = held();
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::fs::write(&release, "").unwrap();
        let r = run.join().unwrap();
        assert!(
            ok,
            "the load was never held at its COMMIT: {}",
            text(&r.stderr)
        );
        r
    });
    let err = text(&run.stderr);
    assert!(!run.status.success(), "{err}");
    assert!(
        err.contains("migrate.mk: shop.order_lines: the check failed (csvcheck exit 1); its load was rolled back: nothing of it is in the target"),
        "{err}"
    );
    assert!(
        err.contains("migrate.mk: shop.order_lines: bad records: they are in"),
        "{err}"
    );
    assert!(
        !err.contains("not committed (rolled back)"),
        "csvload's words shown: {err}"
    );
    assert!(out.join("bad/shop.order_lines.csv").exists());
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.order_lines")
            .trim(),
        "0"
    );
    assert_eq!(
        pg.psql(
            "shop",
            "SELECT count(*) FROM dumpshard.load_journal WHERE table_name = 'shop.order_lines'"
        )
        .trim(),
        "0"
    );
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.orders").trim(),
        "1500"
    );
    assert!(!out.join(".stamps/post-data").exists());
    assert!(!out.join(".stamps/shop.order_lines.checked").exists());

    rerun_loads_order_lines(
        &pg,
        &vars,
        &out,
        "migrate.mk: shop.order_lines: checking and loading",
    );
}

/// Processes whose command line holds `word`, each as its command line with spaces.
fn processes_with(word: &str) -> Vec<String> {
    processes()
        .into_iter()
        .map(|(_, args)| args.join(" "))
        .filter(|line| line.contains(word))
        .collect()
}

/// Issue 36: Ctrl-C (SIGINT to make's process group, as a terminal sends it) while a
/// table's check runs beside its held load. The check is started with `&`, and a shell's
/// `&` commands ignore SIGINT: without the recipe's trap it went on after make had ended
/// (here it would wait for ever). Now it is killed with the rest, nothing of the table is
/// committed, and the rerun checks, loads and verifies.
#[test]
fn interrupt_while_checking_beside_the_load_leaves_no_check_running() {
    let Some((pg, tmp, release, bin, out, vars)) = late_check() else {
        return;
    };
    let mut c = Command::new("make");
    crate::support::cmd::default_signals(&mut c);
    for k in inherited_make_and_pg_vars() {
        c.env_remove(k);
    }
    use std::os::unix::process::CommandExt;
    c.env("PGHOST", pg.socket_dir())
        .env("PGPORT", pg.port().to_string())
        .env("PGUSER", pg::SUPERUSER)
        .current_dir(root())
        .args(["-f", "examples/migrate.mk", "-j4"])
        .arg(format!("BIN={}", bin.display()))
        .args(&vars)
        .stdin(std::process::Stdio::null())
        // Files, not pipes: a recipe that outlived make (the fault this test is for) would
        // hold a pipe open and the wait for make's output with it.
        .stdout(std::fs::File::create(tmp.path().join("make.out")).unwrap())
        .stderr(std::fs::File::create(tmp.path().join("make.err")).unwrap())
        .process_group(0);
    let mut child = c.spawn().unwrap();
    let pgid = child.id() as i32;
    let held = || order_lines_held(&pg);
    let mut ok = false;
    for _ in 0..6000 {
        if held() {
            ok = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: a signal to the process group of this test's own make.
    unsafe {
        libc::kill(-pgid, libc::SIGINT);
    }
    let status =
        crate::support::cmd::wait_timeout(&mut child, std::time::Duration::from_secs(60), "make");
    let first_err = std::fs::read_to_string(tmp.path().join("make.err")).unwrap();
    let wrapper = bin.join("csvcheck").display().to_string();
    let mut left = processes_with(&wrapper);
    for _ in 0..500 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = processes_with(&wrapper);
    }
    std::fs::write(&release, "").unwrap();
    assert!(ok, "the load was never held at its COMMIT: {first_err}");
    assert!(!status.success(), "{first_err}");
    assert!(left.is_empty(), "the check outlived the run: {left:?}");
    // What outlived make (the fault) ends once the check is released; the rerun must not
    // meet it.
    for _ in 0..500 {
        if processes_with(&out.to_string_lossy()).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.order_lines")
            .trim(),
        "0"
    );

    // Interrupted after its load began: the rerun resumes it (the journal holds nothing).
    rerun_loads_order_lines(
        &pg,
        &vars,
        &out,
        "migrate.mk: shop.order_lines: resuming its load",
    );
}

/// Issue 34 items 2 and 4: a bad value in one table and a duplicate key in another are both
/// named in one run (every table is checked before the run stops; the checks took turns and
/// the first failure stopped the rest), with where the bad records are and what to do; fixing
/// them in OUT/csv (the duplicate's table losing two records) and rerunning the same command
/// checks again, makes the manifest follow the edited CSV (and says so), loads and verifies
/// (the load refused the edited file: "it holds 3749 records but its manifest says 3750").
#[test]
fn bad_records_in_every_table_named_then_fixed_in_the_csv() {
    let Some((pg, _tmp, out, vars)) = shop_converted() else {
        return;
    };
    let orders = out.join("csv/shop.orders.csv");
    let lines = out.join("csv/shop.order_lines.csv");
    edit_lines(&orders, |_, l| {
        l.starts_with("100002,")
            .then(|| Some(l.replacen("100002,", "x100002,", 1)))
    });
    let first_line = std::fs::read_to_string(&lines)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let mut dup = std::fs::read_to_string(&lines).unwrap();
    dup.push_str(&first_line);
    dup.push('\n');
    std::fs::write(&lines, dup).unwrap();

    let bad = make(Some(&pg), &vars);
    let err = text(&bad.stderr);
    assert!(!bad.status.success(), "{err}");
    for t in ["shop.orders", "shop.order_lines"] {
        assert!(
            err.contains(&format!("migrate.mk: {t}: bad records: they are in")),
            "{t} not named: {err}"
        );
        assert!(out.join(format!("bad/{t}.csv")).exists(), "{t}: no bad/");
    }
    assert!(
        err.contains("fix or delete those records in") && err.contains("rerun the same command"),
        "{err}"
    );
    assert!(!out.join(".stamps/post-data").exists());

    // The fix, in the user's terms: the bad id corrected; the duplicate and its original
    // deleted (3751 records with the duplicate, 3749 after: one fewer than the manifest's).
    edit_lines(&orders, |_, l| {
        l.starts_with("x100002,")
            .then(|| Some(l.replacen("x100002,", "100002,", 1)))
    });
    let n = std::fs::read_to_string(&lines).unwrap().lines().count();
    edit_lines(&lines, |i, _| (i == 0 || i == n - 1).then_some(None));
    let want = n - 2;
    let fixed = make(Some(&pg), &vars);
    let err = text(&fixed.stderr);
    assert!(fixed.status.success(), "{err}\n{}", text(&fixed.stdout));
    let said = format!("{}{err}", text(&fixed.stdout));
    assert!(
        said.contains(&format!(
            "shop.order_lines: csv/shop.order_lines.csv changed since the conversion: the manifest now says {want} records"
        )),
        "{said}"
    );
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.order_lines")
            .trim(),
        want.to_string()
    );
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.orders WHERE id = 100002")
            .trim(),
        "1"
    );
    assert!(out.join(".stamps/verified").exists());
    // Issue 61 item 4: the closing verification compares with the manifest, which follows
    // the edited CSV ("3749 3749 ok"); under it, each table edited by hand against the dump.
    let o = out.display();
    for line in [
        format!(
            "migrate.mk: shop.order_lines: {want} of the dump's {} rows: 1 record(s) removed from {o}/csv/shop.order_lines.csv by hand since the conversion",
            want + 1
        ),
        format!(
            "migrate.mk: shop.orders: 1500 of the dump's 1500 rows: records changed in {o}/csv/shop.orders.csv by hand since the conversion"
        ),
    ] {
        assert!(said.contains(&line), "{line:?} not in:\n{said}");
    }
}

/// The fixtures' sample converted (`make convert`) into a fresh OUT for database `shop`: the
/// server, the scratch directory (removed when dropped), OUT and the run's variables; `None`
/// without GNU make or PostgreSQL.
fn shop_converted() -> Option<(Pg, tempfile::TempDir, PathBuf, Vec<String>)> {
    if !have_gnu_make() {
        return None;
    }
    let pg = Pg::start()?;
    pg.createdb("shop");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let vars = sample_vars(&out, "dbname=shop");
    let mut convert = vars.clone();
    convert.push("convert".into());
    must(make(Some(&pg), &convert), "make convert");
    Some((pg, tmp, out, vars))
}

/// Sets `csv`'s time back to OUT's conversion, as if the dump held what an edit put there: a
/// CSV newer than the conversion is checked before its load instead of by it.
fn as_converted(out: &Path, csv: &Path) {
    let converted = std::fs::metadata(out.join(".stamps/converted"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::File::options()
        .write(true)
        .open(csv)
        .unwrap()
        .set_modified(converted)
        .unwrap();
}

/// Runs the migration, which must stop at `table`'s load refusing its records (checked by
/// the load, rolled back, then listed in bad/ by csvcheck); returns its stdout and stderr,
/// and its stderr.
fn refused_by_its_load(pg: &Pg, vars: &[String], table: &str) -> (String, String) {
    let bad = make(Some(pg), vars);
    let err = text(&bad.stderr);
    let said = format!("{}{err}", text(&bad.stdout));
    assert!(!bad.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "migrate.mk: {table}: loading, its records checked as they load"
        )),
        "{said}"
    );
    assert!(
        err.contains(&format!(
            "migrate.mk: {table}: records refused (its load rolled back: nothing of it is in \
             the target); checking it to list them in"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("migrate.mk: {table}: bad records: they are in")),
        "{err}"
    );
    (said, err)
}

/// Issue 36 (the check where the load reads): a table loaded in one transaction is checked
/// by its load (csvload --check-records). A duplicate key in a CSV as converted (not edited
/// since, so not checked first) is refused by the load, nothing of the table committed, and
/// csvcheck then lists it in bad/ as the check beside the load did; fixed in the CSV, the
/// same command loads and verifies it.
#[test]
fn bad_record_refused_by_the_load_is_listed_in_bad_then_fixed() {
    let Some((pg, _tmp, out, vars)) = shop_converted() else {
        return;
    };
    let lines = out.join("csv/shop.order_lines.csv");
    // (100001, 2) becomes a second (100001, 1): same length, same record count, and the
    // file's time left at the conversion's, as if the dump held it.
    edit_lines(&lines, |_, l| {
        l.starts_with("100001,2,")
            .then(|| Some(l.replacen("100001,2,", "100001,1,", 1)))
    });
    as_converted(&out, &lines);
    refused_by_its_load(&pg, &vars, "shop.order_lines");
    let listed = std::fs::read_to_string(out.join("bad/shop.order_lines.csv")).unwrap();
    assert!(listed.starts_with("100001,1,SKU-0066,"), "{listed}");
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.order_lines")
            .trim(),
        "0"
    );
    assert!(!out.join(".stamps/post-data").exists());

    edit_lines(&lines, |_, l| {
        l.starts_with("100001,1,SKU-0066,")
            .then(|| Some(l.replacen("100001,1,", "100001,2,", 1)))
    });
    let fixed = make(Some(&pg), &vars);
    assert!(fixed.status.success(), "{}", text(&fixed.stderr));
    assert_eq!(
        pg.psql("shop", "SELECT count(*) FROM shop.order_lines")
            .trim(),
        "3750"
    );
    assert!(out.join(".stamps/verified").exists());
}

/// Issue 62 (the migration's CPU on one large table): a table loaded in parts of its CSV
/// (csvload -j N --parts-from, the parts committed together) is checked by its load too,
/// not by csvcheck beside it. A duplicate key across two parts (the last record given the
/// second record's key, in a CSV as converted) is refused before any part commits: nothing
/// of the table is in the target, csvcheck lists the record in bad/, and once it is fixed
/// the same command loads and verifies the table equal to the source. Failed before: the
/// table was checked by csvcheck beside its load ("checking and loading").
#[test]
fn a_table_loaded_in_parts_is_checked_by_its_load() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path("nasty.sql");
    pg.createdb("source");
    pg.psql_file("source", &dump);
    pg.createdb("target");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let vars = vec![
        var("DUMP", dump.to_str().unwrap()),
        var("OUT", out.to_str().unwrap()),
        var("TARGET", "dbname=target"),
        var("SHARD_SIZE", "16K"),
        var("SPLIT_MIN", "1K"),
        var("LOAD_JOBS", "3"),
    ];
    let mut convert = vars.clone();
    convert.push("convert".into());
    must(make(Some(&pg), &convert), "make convert");
    let csv = out.join("csv/public.customer.csv");
    // Edited byte for byte (lines() would drop the carriage returns of other records).
    let original = std::fs::read(&csv).unwrap();
    let second = original.split(|&b| b == b'\n').nth(1).unwrap();
    let key = second.split(|&b| b == b',').next().unwrap().to_vec();
    let body = &original[..original.len() - 1];
    let last_at = body.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let last_key_len = original[last_at..].iter().position(|&b| b == b',').unwrap();
    // Same length, same record count: the keys are both three digits.
    assert_eq!(
        (key.len(), last_key_len),
        (3, 3),
        "{}",
        text(&original[last_at..])
    );
    let mut edited = original.clone();
    edited[last_at..last_at + 3].copy_from_slice(&key);
    let dup = text(&edited[last_at..]).trim_end().to_string();
    let key = text(&key);
    std::fs::write(&csv, &edited).unwrap();
    as_converted(&out, &csv);

    let (said, err) = refused_by_its_load(&pg, &vars, "public.customer");
    assert!(
        said.contains("public.customer: its load gets 3 connections"),
        "{said}"
    );
    assert!(
        err.contains(&format!("duplicate key, first seen in record 2: \"{key}\"")),
        "{err}"
    );
    let listed = std::fs::read_to_string(out.join("bad/public.customer.csv")).unwrap();
    assert!(listed.contains(&dup), "{listed}");
    assert_eq!(
        pg.psql("target", "SELECT count(*) FROM public.customer")
            .trim(),
        "0",
        "a part committed"
    );

    std::fs::write(&csv, &original).unwrap();
    let fixed = make(Some(&pg), &vars);
    assert!(fixed.status.success(), "{}", text(&fixed.stderr));
    assert!(out.join(".stamps/verified").exists());
    assert_eq!(fingerprints(&pg, "target"), fingerprints(&pg, "source"));
}

/// A table loaded in batches commits batch by batch, so its load cannot be its check
/// (`--check-records` would refuse a record after earlier batches committed): with
/// BATCH_ROWS, or --batch-rows in LOAD_FLAGS, every table keeps csvcheck beside its load.
#[test]
fn loads_in_batches_keep_the_check_beside_the_load() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (db, batches) in [
        ("b1", var("BATCH_ROWS", "500")),
        ("b2", var("LOAD_FLAGS", "--batch-rows=500")),
    ] {
        pg.createdb(db);
        let mut vars = sample_vars(&tmp.path().join(db), &format!("dbname={db}"));
        vars.push(batches);
        let said = must(make(Some(&pg), &vars), db);
        assert!(
            !said.contains("records checked as they load"),
            "{db}: {said}"
        );
        assert_eq!(
            said.matches(": checking and loading (nothing is committed unless the check passes)")
                .count(),
            4,
            "{db}: {said}"
        );
        assert_eq!(
            pg.psql(db, "SELECT count(*) FROM shop.order_lines").trim(),
            "3750"
        );
    }
}

/// Issue 34 item 3: a dump whose owner role the target lacks stops at the schema with a line
/// naming NO_OWNER=1; rerunning with it converts again (the conversion stamp ignored
/// NO_OWNER, so the rerun failed the same way) and says why, and the target is verified.
#[test]
fn missing_role_names_no_owner_and_the_option_redoes_the_conversion() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("r");
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("d.sql");
    std::fs::write(
        &dump,
        "CREATE TABLE public.t (id integer PRIMARY KEY, v text);\n\n\
         ALTER TABLE public.t OWNER TO ds_no_such_role;\n\n\
         COPY public.t (id, v) FROM stdin;\n1\ta\n2\tb\n\\.\n\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let vars = vec![
        var("DUMP", dump.to_str().unwrap()),
        var("OUT", out.to_str().unwrap()),
        var("TARGET", "dbname=r"),
        var("CONVERT_FLAGS", "--no-dump-check"),
    ];
    let o = make(Some(&pg), &vars);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("role \"ds_no_such_role\" does not exist") && err.contains("NO_OWNER=1"),
        "{err}"
    );
    let mut no_owner = vars.clone();
    no_owner.push(var("NO_OWNER", "1"));
    let o = make(Some(&pg), &no_owner);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("NO_OWNER changed since the last run (now '1'): the convert step is redone"),
        "{err}"
    );
    assert_eq!(pg.psql("r", "SELECT count(*) FROM t").trim(), "2");
    // The same options again: nothing is redone.
    let again = must(make(Some(&pg), &no_owner), "make (same options)");
    assert!(!again.contains("converting"), "{again}");
}

/// Issue 34 items 5 and 9: a target that already holds the dump's tables names the way out
/// (an empty database and forget-target; csvload named only its --truncate), which works; the run prints one short line per step, not the
/// commands (600-character lines drowned the errors).
#[test]
fn loaded_target_names_an_empty_database_and_lines_are_short() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("a");
    let tmp = tempfile::tempdir().unwrap();
    let first = make(Some(&pg), &sample_vars(&tmp.path().join("o1"), "dbname=a"));
    let printed = format!("{}{}", text(&first.stdout), text(&first.stderr));
    assert!(first.status.success(), "{printed}");
    for l in printed.lines() {
        assert!(l.chars().count() <= 200, "a long line: {l}");
    }
    assert!(
        printed.contains("migrate.mk: shop.orders: loading, its records checked as they load"),
        "{printed}"
    );

    let o2 = tmp.path().join("o2");
    let again = make(Some(&pg), &sample_vars(&o2, "dbname=a"));
    let err = text(&again.stderr);
    assert!(!again.status.success(), "{err}");
    // The schema's statements are journaled as run, so the tables' loads are where it stops.
    assert!(
        err.contains("the target's table holds rows this conversion did not load there")
            && err.contains("load into an empty database: createdb a new one, run `make -f examples/migrate.mk forget-target"),
        "{err}"
    );
    // The remedy as printed: a new database, forget-target, the same command with it.
    pg.createdb("b");
    let mut forget = sample_vars(&o2, "dbname=b");
    forget.push("forget-target".into());
    must(make(Some(&pg), &forget), "make forget-target");
    must(make(Some(&pg), &sample_vars(&o2, "dbname=b")), "make (b)");
    assert_eq!(fingerprints(&pg, "b"), fingerprints(&pg, "a"));
}

/// The pid of a running csvload whose command line holds every one of `words`.
pub(crate) fn csvload_pid(words: &[&str]) -> Option<i32> {
    processes().into_iter().find_map(|(pid, args)| {
        (args.first().is_some_and(|a| a.ends_with("/csvload"))
            && words.iter().all(|w| args.iter().any(|a| a.contains(w))))
        .then_some(pid)
    })
}

/// Every process this test can see, with its arguments (from /proc).
pub(crate) fn processes() -> Vec<(i32, Vec<String>)> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args = cmdline
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        found.push((pid, args));
    }
    found
}

/// The sample migrated into database `i` of `pg` (BATCH_ROWS=100), its tables created, with
/// shop.orders's load to be held at row 100750: a trigger there waits for advisory lock
/// `key`, which a psql session of the test holds until [`HeldLoad::release`]. So a test can
/// stop a load at a known row without depending on speed.
pub(crate) struct HeldLoad {
    pub(crate) tmp: tempfile::TempDir,
    pub(crate) out: PathBuf,
    /// The make variables of the run.
    pub(crate) vars: Vec<String>,
    key: u32,
    gate: std::process::Child,
}

impl HeldLoad {
    pub(crate) fn start(pg: &Pg, key: u32) -> HeldLoad {
        pg.createdb("i");
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let mut vars = sample_vars(&out, "dbname=i");
        vars.push(var("BATCH_ROWS", "100"));
        let mut schema = vars.clone();
        schema.push(out.join(".stamps/schema").to_str().unwrap().into());
        must(make(Some(pg), &schema), "make (schema)");
        pg.psql(
            "i",
            &format!(
                "CREATE FUNCTION public.hold_row() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN
                   IF NEW.id = 100750 THEN
                     PERFORM pg_advisory_lock({key}, {key}); PERFORM pg_advisory_unlock({key}, {key});
                   END IF;
                   RETURN NEW;
                 END $$;
                 CREATE TRIGGER hold_row BEFORE INSERT ON shop.orders
                   FOR EACH ROW EXECUTE FUNCTION public.hold_row();"
            ),
        );
        let mut gate = pg.client("psql");
        gate.args(["-X", "-q", "-d", "i"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null());
        let mut gate = gate.spawn().unwrap();
        {
            use std::io::Write;
            let stdin = gate.stdin.as_mut().unwrap();
            stdin
                .write_all(format!("SELECT pg_advisory_lock({key}, {key});\n").as_bytes())
                .unwrap();
            stdin.flush().unwrap();
        }
        let held = HeldLoad {
            tmp,
            out,
            vars,
            key,
            gate,
        };
        crate::support::cmd::wait_until("the gate's lock", &|| held.waiting(pg, true));
        held
    }

    /// Whether the lock is held (`granted`) or waited for, by one session.
    fn waiting(&self, pg: &Pg, granted: bool) -> bool {
        pg.psql(
            "i",
            &format!(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = {} AND granted = {granted}",
                self.key
            ),
        )
        .trim()
            == "1"
    }

    /// Waits until shop.orders's load waits at row 100750.
    pub(crate) fn wait_until_held(&self, pg: &Pg) {
        crate::support::cmd::wait_until("shop.orders's load waiting at row 100750", &|| {
            self.waiting(pg, false)
        });
    }

    /// Lets the load go on: the lock's session ends.
    pub(crate) fn release(&mut self) {
        drop(self.gate.stdin.take());
        crate::support::cmd::wait_timeout(
            &mut self.gate,
            std::time::Duration::from_secs(30),
            "the lock holder",
        );
    }
}

/// Issue 34 item 5: a load interrupted under migrate.mk (Ctrl-C reaching csvload) names its
/// table, the run says to rerun, and the rerun says the table's load resumes (csvload's own
/// resume line is hidden by -q) and ends verified. The load is held at a known row by a
/// trigger waiting for an advisory lock the test holds, so nothing depends on speed.
#[test]
fn interrupted_load_names_its_table_and_the_rerun_resumes() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let mut held = HeldLoad::start(&pg, 3535);
    let (out, vars) = (held.out.clone(), held.vars.clone());

    let o = out.to_str().unwrap().to_string();
    let first = std::thread::scope(|s| {
        let run = s.spawn(|| make(Some(&pg), &vars));
        held.wait_until_held(&pg);
        // Its -t quoted: `"shop"."orders"` (issue 60).
        let pid = csvload_pid(&[&o, "\"shop\".\"orders\""]).expect("the csvload of shop.orders");
        // SAFETY: a signal to a process of this test's own make.
        unsafe {
            libc::kill(pid, libc::SIGINT);
        }
        run.join().unwrap()
    });
    held.release();
    let err = text(&first.stderr);
    assert!(!first.status.success(), "{err}");
    assert!(
        err.contains("csvload: interrupted loading table shop.orders: this run committed 700 rows"),
        "{err}"
    );
    assert!(
        err.contains("migrate.mk: shop.orders: interrupted (above); rerun the same command"),
        "{err}"
    );
    rerun_ends_verified(
        &pg,
        &vars,
        &out,
        "migrate.mk: shop.orders: resuming its load",
    );
    assert_eq!(
        pg.psql("i", "SELECT count(*), count(DISTINCT id) FROM shop.orders")
            .trim(),
        "1500|1500"
    );
}
