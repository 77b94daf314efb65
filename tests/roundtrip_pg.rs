//! Round trip through a real PostgreSQL server (skipped with a loud SKIPPED line when
//! none can be started; set DUMPSHARD_REQUIRE_PG=1 to make that a failure).
//!
//! For each fixture dump:
//!   db `a` (the referee) = the dump restored with `psql -f`;
//!   db `b` = pgdump2csv's schema.sql, then every manifest table loaded from its CSV
//!            with `COPY ... FROM ... (FORMAT csv, ...)`, then post.sql;
//! then every table (and materialized view) of `a` and `b` must have the same row
//! count and `md5(string_agg(t::text, E'\n' ORDER BY t::text))` over
//! `SELECT * FROM ONLY tbl t`, and the schema (columns, constraints, indexes,
//! sequences, functions, views, comments, enum labels, partition bounds) must match.
//!
//! The CSVs are loaded with a server-side COPY (the file is spooled where the server
//! can read it), not through psql's stdin: psql <= 17 ends COPY data at a line that is
//! exactly `\.` even inside a quoted CSV value, and fixtures/nasty.sql has such values.

use crate::support::cli;
use crate::support::pg;

use std::collections::{BTreeMap, BTreeSet};

use crate::support::cmd::{Cmd, Within};
use cli::Input;
use pg::{Pg, fingerprints};

#[test]
fn pg_self_test() {
    let Some(pg) = Pg::start() else { return };
    assert_eq!(pg.psql("postgres", "SELECT 1").trim(), "1");
    pg.createdb("self test");
    pg.psql("self test", "CREATE TABLE t (a int, b text)");
    let dir = tempfile::tempdir().unwrap();
    let f = pg::write_temp(dir.path(), "in.csv", b"1,x\n2,\n3,\"\"\n");
    pg.copy_in("self test", "COPY t (a, b) FROM STDIN (FORMAT csv)", &f);
    pg.copy_in_server("self test", "t (a, b)", &f, "FORMAT csv");
    assert_eq!(
        pg.psql(
            "self test",
            "SELECT count(*), count(b), count(*) FILTER (WHERE b = '') FROM t"
        )
        .trim(),
        "6|4|2"
    );
    // A second server in the same process gets its own socket.
    let Some(pg2) = Pg::start() else { return };
    assert_ne!(pg.socket_dir(), pg2.socket_dir());
    assert!(
        pg2.try_psql("self test", "SELECT 1").is_err(),
        "databases are per server"
    );
    let v = pg
        .client("pg_dump")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(v.status.success());
}

// --- one round trip per dump variant ---------------------------------------------------

/// One `#[test]` per case (`name: dump, input, extra args;`), so each starts its own server,
/// runs in parallel with the others and can be run alone by name.
macro_rules! roundtrips {
    ($($name:ident: $dump:expr, $input:expr, $extra:expr;)*) => {
        $(
            #[test]
            fn $name() {
                roundtrip($dump, $input, $extra);
            }
        )*
    };
}

roundtrips! {
    roundtrip_plain: "nasty.sql", Input::Path, &[];
    roundtrip_gzip: "nasty.sql.gz", Input::Path, &[];
    roundtrip_gzip_stdin: "nasty.sql.gz", Input::Stdin, &[];
    roundtrip_inserts: "nasty-inserts.sql", Input::Path, &[];
    roundtrip_column_inserts: "nasty-colinserts.sql", Input::Path, &[];
    roundtrip_partition_root: "nasty-partroot.sql", Input::Path, &[];
    roundtrip_crlf: "nasty-crlf.sql", Input::Path, &[];
    roundtrip_sample: "sample.sql.gz", Input::Path, &[];
    roundtrip_null_token: "nasty.sql", Input::Path, &["--null", "\\N"];
    roundtrip_header: "nasty.sql", Input::Path, &["--header"];
    roundtrip_inserts_header_null_token_gzip:
        "nasty-colinserts.sql", Input::Path, &["--header", "--null", "\\N", "--gzip"];
}

// --- the round trip ----------------------------------------------------------------------

fn roundtrip(dump_name: &str, input: Input, extra: &[&str]) {
    let Some(pg) = Pg::start() else { return };
    let dump = cli::dump_path(dump_name);
    let conv = cli::convert(&dump, input, extra);
    let manifest = cli::read_manifest(&conv.manifest_path);
    let want_header = extra.contains(&"--header");
    let want_null = extra
        .iter()
        .position(|a| *a == "--null")
        .map(|i| extra[i + 1])
        .unwrap_or("");

    let mut errors: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();

    // a: the referee.
    pg.createdb("a");
    pg.psql_file("a", &cli::plain_sql(&dump, conv.dir.path()));

    // b: schema, data from CSV, post-data.
    pg.createdb("b");
    if let Err(e) = pg.try_psql_file("b", &conv.schema) {
        panic!("{dump_name}: schema.sql does not run:\n{e}");
    }
    for t in &manifest {
        if t.header != want_header || t.null != want_null {
            errors.push(format!(
                "{}.{}: manifest says header={} null={:?}, asked for header={} null={:?}",
                t.schema, t.name, t.header, t.null, want_header, want_null
            ));
        }
        let mut opts = vec!["FORMAT csv".to_string()];
        if t.header {
            opts.push("HEADER MATCH".into());
        }
        opts.push(format!("NULL {}", cli::quote_literal(&t.null)));
        let data = cli::read_maybe_gz(&cli::resolve_csv(
            &t.file,
            &conv.csv_dir,
            &conv.manifest_path,
        ));
        if let Err(e) = pg.try_copy_in_server_bytes("b", &t.copy_target(), &data, &opts.join(", "))
        {
            errors.push(format!(
                "{}.{}: loading {} failed:\n{e}",
                t.schema, t.name, t.file
            ));
        }
    }
    if let Err(e) = pg.try_psql_file("b", &conv.post) {
        errors.push(format!("post.sql does not run:\n{e}"));
    }

    // No table with data may be missing from the manifest.
    let in_manifest: BTreeSet<(String, String)> = manifest
        .iter()
        .map(|t| (t.schema.clone(), t.name.clone()))
        .collect();
    for line in pg
        .psql("a", TABLES_WITH_ROWS_SQL)
        .lines()
        .filter(|l| !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let (tbl, root) = (
            (f[0].to_string(), f[1].to_string()),
            (f[2].to_string(), f[3].to_string()),
        );
        if !in_manifest.contains(&tbl) && !in_manifest.contains(&root) {
            errors.push(format!(
                "{}.{} has rows in the dump but is not in the manifest",
                tbl.0, tbl.1
            ));
        }
    }

    // Data.
    let fa = fingerprints(&pg, "a");
    let fb = fingerprints(&pg, "b");
    let mut orig: Option<BTreeMap<String, String>> = None;
    for name in fa.keys().chain(fb.keys()).collect::<BTreeSet<_>>() {
        match (fa.get(name), fb.get(name)) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => {
                // pg_dump --inserts prints float -0 as a bare `-0` (read back as integer
                // 0), so psql's restore of an INSERT dump can be lossy. Accept b when it
                // equals the original data (restored from the plain COPY dump).
                if dump_name.starts_with("nasty-") && dump_name.contains("inserts") {
                    let o = orig.get_or_insert_with(|| {
                        pg.createdb("orig");
                        pg.psql_file("orig", &cli::dump_path("nasty.sql"));
                        fingerprints(&pg, "orig")
                    });
                    if o.get(name) == Some(y) && o.get(name) != Some(x) {
                        notes.push(format!(
                            "{name}: psql's restore of {dump_name} differs from the original data, \
                             the CSV load equals the original (pg_dump INSERT rendering is lossy here)"
                        ));
                        continue;
                    }
                }
                errors.push(format!(
                    "{name}: data differs (a: {x}, b: {y})\n{}",
                    row_diff(&pg, name, 5)
                ));
            }
            (Some(_), None) => {
                errors.push(format!("{name}: missing in b (not created by schema.sql?)"))
            }
            (None, Some(_)) => {
                errors.push(format!("{name}: exists in b but not in the restored dump"))
            }
            (None, None) => unreachable!(),
        }
    }

    // Schema.
    let sa = schema_fingerprint(&pg, "a");
    let sb = schema_fingerprint(&pg, "b");
    let only_a: Vec<&String> = sa.difference(&sb).collect();
    let only_b: Vec<&String> = sb.difference(&sa).collect();
    if !only_a.is_empty() || !only_b.is_empty() {
        let mut msg = String::from(
            "schema differs between the restored dump (a) and schema.sql + post.sql (b):\n",
        );
        for l in only_a.iter().take(15) {
            msg.push_str(&format!("  only in a: {l}\n"));
        }
        for l in only_b.iter().take(15) {
            msg.push_str(&format!("  only in b: {l}\n"));
        }
        errors.push(msg);
    }

    for n in &notes {
        eprintln!("note [{dump_name}]: {n}");
    }
    if !errors.is_empty() {
        panic!(
            "round trip of fixtures/dumps/{dump_name} ({input:?}, args {extra:?}): {} problem(s):\n{}\n--- pgdump2csv stderr ---\n{}",
            errors.len(),
            errors.join("\n"),
            conv.stderr
        );
    }
    eprintln!(
        "roundtrip {dump_name} {extra:?}: {} tables compared",
        fa.len()
    );
}

/// Ordinary tables with rows: schema, name, and partition root (or itself).
const TABLES_WITH_ROWS_SQL: &str = r#"
SELECT n.nspname || E'\t' || c.relname || E'\t' || rn.nspname || E'\t' || rc.relname
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class rc ON rc.oid = coalesce(pg_partition_root(c.oid), c.oid)
JOIN pg_namespace rn ON rn.oid = rc.relnamespace
WHERE c.relkind = 'r' AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
  AND (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) > 0 AS n FROM ONLY %I.%I', n.nspname, c.relname), false, true, '')))[1]::text = 'true'
ORDER BY 1
"#;

/// A few rows that are only in a or only in b (multiset difference of `t::text`).
fn row_diff(pg: &Pg, qname: &str, max: usize) -> String {
    let sql = format!(
        "SELECT replace(replace(replace(t::text, E'\\\\', E'\\\\\\\\'), E'\\n', E'\\\\n'), E'\\r', E'\\\\r') \
         FROM ONLY {qname} t ORDER BY 1"
    );
    let rows = |db: &str| -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        match pg.try_psql(db, &sql) {
            Ok(out) => {
                for l in out.lines() {
                    *m.entry(l.replace('\r', "\\r")).or_insert(0) += 1;
                }
            }
            Err(e) => {
                m.insert(format!("(query failed: {e})"), 1);
            }
        }
        m
    };
    let (ra, rb) = (rows("a"), rows("b"));
    let mut out = String::new();
    for (label, x, y) in [("only in a", &ra, &rb), ("only in b", &rb, &ra)] {
        let mut shown = 0;
        for (row, &k) in x {
            let other = y.get(row).copied().unwrap_or(0);
            if k > other {
                let mut r = row.clone();
                if r.len() > 300 {
                    r = format!(
                        "{}... ({} chars)",
                        r.chars().take(300).collect::<String>(),
                        row.len()
                    );
                }
                out.push_str(&format!("    {label} (x{}): {r}\n", k - other));
                shown += 1;
                if shown >= max {
                    out.push_str("    ...\n");
                    break;
                }
            }
        }
    }
    out
}

/// Schema objects in user schemas, one line each, comparable across databases.
/// `\r` is removed from function bodies and comments (the CRLF dump has CRLF in
/// them; whether a converter keeps them is not what this test checks).
fn schema_fingerprint(pg: &Pg, db: &str) -> BTreeSet<String> {
    let sql = r#"
WITH ns AS (
    SELECT oid, nspname FROM pg_namespace
    WHERE nspname <> 'information_schema' AND nspname !~ '^pg_'
)
SELECT x FROM (
    SELECT format('column %s.%I %s%s%s%s%s', c.oid::regclass, a.attname,
                  format_type(a.atttypid, a.atttypmod),
                  CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                  coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''),
                  CASE a.attidentity WHEN '' THEN '' ELSE ' identity ' || a.attidentity::text END,
                  CASE a.attgenerated WHEN '' THEN '' ELSE ' generated ' || a.attgenerated::text END) AS x
    FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  UNION ALL
    SELECT format('relation %s kind %s', c.oid::regclass, c.relkind::text)
    FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
  UNION ALL
    SELECT format('constraint %s %I %s', coalesce(co.conrelid::regclass::text, co.contypid::regtype::text),
                  co.conname, pg_get_constraintdef(co.oid))
    FROM pg_constraint co JOIN ns ON ns.oid = co.connamespace
  UNION ALL
    SELECT format('index %I.%I %s', schemaname, indexname, indexdef)
    FROM pg_indexes WHERE schemaname IN (SELECT nspname FROM ns)
  UNION ALL
    SELECT format('sequence %I.%I %s %s %s %s %s', schemaname, sequencename, data_type, start_value,
                  increment_by, max_value, coalesce(last_value::text, 'not called'))
    FROM pg_sequences WHERE schemaname IN (SELECT nspname FROM ns)
  UNION ALL
    SELECT format('function %s %s', p.oid::regprocedure, md5(replace(p.prosrc, E'\r', '')))
    FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
  UNION ALL
    SELECT format('view %s %s', c.oid::regclass, md5(pg_get_viewdef(c.oid)))
    FROM pg_class c JOIN ns ON ns.oid = c.relnamespace WHERE c.relkind IN ('v', 'm')
  UNION ALL
    SELECT format('comment %s %s %s', c.oid::regclass, coalesce(a.attname::text, ''),
                  md5(replace(dsc.description, E'\r', '')))
    FROM pg_description dsc
    JOIN pg_class c ON dsc.classoid = 'pg_class'::regclass AND dsc.objoid = c.oid
    JOIN ns ON ns.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = dsc.objsubid AND dsc.objsubid > 0
  UNION ALL
    SELECT format('enum %s %s', t.oid::regtype, string_agg(quote_literal(e.enumlabel), ',' ORDER BY e.enumsortorder))
    FROM pg_type t JOIN ns ON ns.oid = t.typnamespace JOIN pg_enum e ON e.enumtypid = t.oid
    GROUP BY t.oid
  UNION ALL
    SELECT format('domain %s %s', t.oid::regtype, format_type(t.typbasetype, t.typtypmod))
    FROM pg_type t JOIN ns ON ns.oid = t.typnamespace WHERE t.typtype = 'd'
  UNION ALL
    SELECT format('partition %s of %s %s', c.oid::regclass, i.inhparent::regclass,
                  coalesce(pg_get_expr(c.relpartbound, c.oid), 'inherits'))
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN ns ON ns.oid = c.relnamespace
) AS s
ORDER BY 1;
"#;
    pg.psql(db, sql)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// 63-byte Cyrillic schema and table names (the longest PostgreSQL keeps) through a real
/// pg_dump: every table gets a file of bounded name (two names alike up to their last
/// letter get two files), the manifest keeps the full names, and the data is exact.
#[test]
fn longest_cyrillic_names() {
    let Some(pg) = Pg::start() else { return };
    let schema = format!("{}s", "ж".repeat(31));
    let tables = [
        format!("{}a", "ж".repeat(31)),
        format!("{}b", "ж".repeat(31)),
        "after".to_string(),
    ];
    assert_eq!(schema.len(), 63);
    pg.createdb("long");
    let q = pg::quote_ident;
    let mut sql = format!("CREATE SCHEMA {};", q(&schema));
    for (i, t) in tables.iter().enumerate() {
        sql.push_str(&format!(
            "CREATE TABLE {s}.{t} (id int, v text); INSERT INTO {s}.{t} VALUES ({i}, 'row of {i}');",
            s = q(&schema),
            t = q(t)
        ));
    }
    pg.psql("long", &sql);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.pg_dump_to(&["-d", "long"], &d.join("dump.sql"));
    Cmd::new("pgdump2csv")
        .current_dir(d)
        .args([
            "dump.sql",
            "-o",
            "csv",
            "--gzip",
            "--write-manifest",
            "m.json",
        ])
        .expect(0);
    let manifest = cli::read_manifest(&d.join("m.json"));
    assert_eq!(manifest.len(), 3);
    let mut files = BTreeSet::new();
    for (i, t) in tables.iter().enumerate() {
        let m = manifest
            .iter()
            .find(|m| &m.name == t && m.schema == schema)
            .unwrap_or_else(|| panic!("{t} not in the manifest"));
        let name = m.file.rsplit('/').next().unwrap().to_string();
        assert!(name.len() <= 200, "{name}");
        let data = cli::read_maybe_gz(&d.join(&m.file));
        assert_eq!(
            String::from_utf8(data).unwrap(),
            format!("{i},row of {i}\n")
        );
        files.insert(name);
    }
    assert_eq!(files.len(), 3, "{files:?}");
}

/// `--inserts` shapes found on PostgreSQL's regression database, through a real pg_dump: a
/// typed table (columns from its composite type) converts exactly; an INHERITS child whose
/// parent gained a column after it was created gets a warning naming it, once.
#[test]
fn inserts_typed_table_and_late_parent_column() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("reg");
    pg.psql(
        "reg",
        "CREATE TYPE person_type AS (name text, age numeric(5, 1), tags text[]);
         CREATE TABLE persons OF person_type;
         INSERT INTO persons VALUES ('ann', 31.5, '{a,\"b c\"}'), ('bob', NULL, NULL);
         CREATE TABLE parent (a int);
         CREATE TABLE child (b int) INHERITS (parent);
         ALTER TABLE parent ADD COLUMN c int;
         INSERT INTO child VALUES (1, 2, 3), (4, 5, 6);",
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pg.pg_dump_to(
        &["--inserts", "--rows-per-insert", "10", "-d", "reg"],
        &d.join("dump.sql"),
    );
    let err = Cmd::new("pgdump2csv")
        .current_dir(d)
        .args(["dump.sql", "-o", "csv", "--header"])
        .expect(0)
        .stderr_str();
    assert_eq!(
        std::fs::read_to_string(d.join("csv/public.persons.csv")).unwrap(),
        "name,age,tags\nann,31.5,\"{a,\"\"b c\"\"}\"\nbob,,\n"
    );
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(
        err.contains("public.child") && err.contains("--column-inserts"),
        "{err}"
    );
}
