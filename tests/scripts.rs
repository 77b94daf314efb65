//! The scripts the toolkit writes (pgdump2csv `--write-schema`/`--write-post-data`, csvsplit
//! `--copy-sql`/`--import-sql`) run under a real psql exactly what the toolkit meant, and
//! never what a dump or a table name smuggles in. Needs PostgreSQL (tests/support/pg.rs);
//! set DUMPSHARD_REQUIRE_PG=1 so that they cannot skip.

use crate::support::pg;

use crate::support::cmd::Within;
use std::path::Path;
use std::process::{Command, Output};

fn tool(name: &str) -> Command {
    Command::new(match name {
        "pgdump2csv" => env!("CARGO_BIN_EXE_pgdump2csv"),
        "csvsplit" => env!("CARGO_BIN_EXE_csvsplit"),
        _ => unreachable!(),
    })
}

fn run_in(dir: &Path, name: &str, args: &[&str]) -> Output {
    tool(name)
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a script with `psql -v ON_ERROR_STOP=1 -f`, from `dir`, as a user would.
fn psql_file(pg: &pg::Pg, dir: &Path, db: &str, script: &str) -> Output {
    pg.client("psql")
        .current_dir(dir)
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-f", script])
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap()
}

/// A real `pg_dump --create` (so with `\connect`) converted by pgdump2csv: the schema and
/// post-data scripts keep a restricted mode of their own and still run under psql; the same
/// dump with a `\!` line between statements is refused by psql and by pgdump2csv alike.
#[test]
fn schema_scripts_of_a_real_dump_run_and_smuggled_commands_do_not() {
    let Some(pg) = pg::Pg::start() else { return };
    pg.createdb("src db");
    pg.psql(
        "src db",
        "CREATE TABLE t (id int PRIMARY KEY, v text);
         INSERT INTO t VALUES (1, 'a'), (2, NULL);
         CREATE INDEX t_v ON t (v);",
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.pg_dump_to(&["--create", "-d", "src db"], &d.join("dump.sql"));
    let dump = std::fs::read_to_string(d.join("dump.sql")).unwrap();
    assert!(dump.contains("\\connect"), "{dump}");
    ok(&run_in(
        d,
        "pgdump2csv",
        &[
            "dump.sql",
            "-o",
            "csv",
            "--write-schema",
            "schema.sql",
            "--write-post-data",
            "post.sql",
        ],
    ));
    let schema = std::fs::read_to_string(d.join("schema.sql")).unwrap();
    assert!(schema.starts_with("\\restrict "), "{schema}");
    // Restore into a renamed database: the script creates and connects to it itself.
    let renamed = schema.replace("src db", "dst db");
    assert_ne!(renamed, schema);
    std::fs::write(d.join("schema.sql"), renamed).unwrap();
    let o = psql_file(&pg, d, "postgres", "schema.sql");
    ok(&o);
    pg.psql(
        "dst db",
        &format!(
            "COPY t FROM '{}' WITH (FORMAT csv)",
            d.join("csv/public.t.csv").display()
        ),
    );
    ok(&psql_file(&pg, d, "dst db", "post.sql"));
    assert_eq!(
        pg.psql(
            "dst db",
            "SELECT count(*), count(v), (SELECT count(*) FROM pg_indexes WHERE indexname IN ('t_pkey', 't_v')) FROM t"
        )
        .trim(),
        "2|1|2"
    );

    // A dump with a shell escape between two statements.
    let mark = d.join("smuggled");
    let evil = dump.replacen(
        "CREATE TABLE public.t",
        &format!("\\! touch {}\nCREATE TABLE public.t", mark.display()),
        1,
    );
    assert_ne!(evil, dump);
    std::fs::write(d.join("evil.sql"), &evil).unwrap();
    let line = evil[..evil.find("\\! touch").unwrap()].lines().count() + 1;
    let o = run_in(
        d,
        "pgdump2csv",
        &[
            "evil.sql",
            "-o",
            "csv2",
            "--write-schema",
            "evil-schema.sql",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("evil.sql:{line}:")) && stderr(&o).contains("\\!"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("evil-schema.sql").exists());
    // psql itself refuses it too, thanks to pg_dump's own guard.
    pg.createdb("evil");
    let o = psql_file(&pg, d, "evil", "evil.sql");
    assert!(!o.status.success());
    assert!(!mark.exists(), "the smuggled command ran");
}

const NASTY_TABLE: &str = "t'a\"b\\c";

/// csvsplit `--copy-sql`: names with quotes and backslashes load through `psql -f`; a name
/// with a line break is refused before anything is written; a `\.` line is warned about,
/// counted in the manifest, and makes the script fail instead of loading part of a shard.
#[test]
fn copy_sql_with_nasty_names() {
    let Some(pg) = pg::Pg::start() else { return };
    pg.createdb("src");
    let q = pg::quote_ident;
    let schema = "s\"q\\b";
    let nl_table = "nl\n\\! touch smuggled";
    pg.psql(
        "src",
        &format!(
            "CREATE SCHEMA {s};
             CREATE TABLE {s}.{t} (id int PRIMARY KEY, {c1} text, {c2} text);
             INSERT INTO {s}.{t} SELECT i, 'v' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE E'x\\\\y' END
               FROM generate_series(1, 50) i;
             CREATE TABLE {s}.{nl} (id int);
             INSERT INTO {s}.{nl} VALUES (1);
             CREATE TABLE dot (id int, v text);
             INSERT INTO dot VALUES (1, E'a\\n\\\\.\\nb'), (2, 'c');",
            s = q(schema),
            t = q(NASTY_TABLE),
            c1 = q("it's"),
            c2 = q("c\"\\2"),
            nl = q(nl_table),
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.pg_dump_to(&["-d", "src"], &d.join("dump.sql"));
    ok(&run_in(
        d,
        "pgdump2csv",
        &[
            "dump.sql",
            "-o",
            "csv",
            "--write-schema",
            "schema.sql",
            "--write-manifest",
            "m.json",
        ],
    ));
    pg.createdb("dst");
    ok(&psql_file(&pg, d, "dst", "schema.sql"));

    let csv_of = |schema: &str, table: &str| {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
        let t = m["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["schema"] == schema && t["name"] == table)
            .unwrap_or_else(|| panic!("{table} not in the manifest"));
        t["file"].as_str().unwrap().to_string()
    };

    // Quotes and backslashes: the script loads the table exactly, from plain shards and
    // through `PROGRAM 'gzip -dc ...'` (shell quoting inside a SQL literal) alike.
    let file = csv_of(schema, NASTY_TABLE);
    let qualified = format!("{schema}.{NASTY_TABLE}");
    let sel = format!(
        "SELECT count(*), md5(string_agg(t::text, ',' ORDER BY id)) FROM {}.{} t",
        q(schema),
        q(NASTY_TABLE)
    );
    for ext in ["csv", "csv.gz"] {
        let tmpl = format!("sh'a\\rd $(x)-{{n}}.{ext}");
        let o = run_in(
            d,
            "csvsplit",
            &[
                "-r",
                "7",
                "--manifest",
                "m.json",
                "--table",
                &qualified,
                "-o",
                &tmpl,
                "--copy-sql",
                &file,
            ],
        );
        ok(&o);
        let script = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(script.starts_with("\\set ON_ERROR_STOP on\n"), "{script}");
        std::fs::write(d.join("load.psql"), &script).unwrap();
        pg.psql("dst", &format!("TRUNCATE {}.{}", q(schema), q(NASTY_TABLE)));
        ok(&psql_file(&pg, d, "dst", "load.psql"));
        assert_eq!(pg.psql("dst", &sel), pg.psql("src", &sel), "{ext}");
    }

    // A line break in a name: refused, naming the table, before any shard is written.
    let file = csv_of(schema, nl_table);
    for sql in [&["--copy-sql"][..], &["--import-sql", "s3://b/x"][..]] {
        let mut args = vec![
            "-r",
            "7",
            "--manifest",
            "m.json",
            "--table",
            nl_table,
            "-o",
            "nl-{n}.csv",
        ];
        args.extend_from_slice(sql);
        args.push(&file);
        let o = run_in(d, "csvsplit", &args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("nl\\n\\\\! touch smuggled") && stderr(&o).contains("CR or LF"),
            "{}",
            stderr(&o)
        );
        assert!(!d.join("nl-0.csv").exists());
    }
    assert!(!d.join("smuggled").exists());

    // A `\.` line in a quoted value: warned about, counted, and the script fails loudly.
    let file = csv_of("public", "dot");
    let o = run_in(
        d,
        "csvsplit",
        &[
            "-n",
            "1",
            "--manifest",
            "m.json",
            "--table",
            "dot",
            "-o",
            "dot-{n}.csv",
            "--write-manifest",
            "dot.json",
            "--copy-sql",
            &file,
        ],
    );
    ok(&o);
    assert!(
        stderr(&o).contains("dot-0.csv: 1 line(s) that are exactly \\."),
        "{}",
        stderr(&o)
    );
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("dot.json")).unwrap()).unwrap();
    assert_eq!(m["shards"][0]["copy_end_lines"], 1, "{m}");
    std::fs::write(d.join("dot.psql"), &o.stdout).unwrap();
    let v = pg
        .client("psql")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    let v = String::from_utf8_lossy(&v.stdout).into_owned();
    let major: u32 = v
        .split_whitespace()
        .nth(2)
        .and_then(|x| x.split('.').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("psql --version: {v}"));
    let o = psql_file(&pg, d, "dst", "dot.psql");
    if major <= 17 {
        assert!(!o.status.success(), "psql <= 17 cannot load this shard");
    }
}

/// pg_dumpall output (several `\restrict` sections and `\connect`s) converts, and its schema
/// script recreates the databases under psql.
#[test]
fn cluster_dump_schema_runs() {
    let Some(pg) = pg::Pg::start() else { return };
    pg.createdb("one");
    pg.createdb("two");
    pg.psql("one", "CREATE TABLE a (id int); INSERT INTO a VALUES (1);");
    pg.psql("two", "CREATE TABLE b (id int); INSERT INTO b VALUES (2);");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = pg
        .client("pg_dumpall")
        .arg("-f")
        .arg(d.join("all.sql"))
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    ok(&o);
    ok(&run_in(
        d,
        "pgdump2csv",
        &["all.sql", "-o", "csv", "--write-schema", "schema.sql"],
    ));
    assert_eq!(
        std::fs::read_to_string(d.join("csv/public.b.csv")).unwrap(),
        "2\n"
    );
    pg.psql("postgres", "DROP DATABASE one");
    pg.psql("postgres", "DROP DATABASE two");
    // The roles exist already: let psql go on past those errors, and check the result.
    let o = pg
        .client("psql")
        .current_dir(d)
        .args(["-X", "-q", "-d", "postgres", "-f", "schema.sql"])
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("restrict") && !stderr(&o).contains("invalid command"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        pg.psql("two", "SELECT count(*) FROM pg_class WHERE relname = 'b'")
            .trim(),
        "1",
        "{}",
        stderr(&o)
    );
}
