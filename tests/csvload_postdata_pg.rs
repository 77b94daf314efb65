//! csvload --post-data on several connections (`-j`) against a real PostgreSQL: each table's
//! index and key builds side by side, then the rest (foreign keys, comments, sequence values)
//! in order. The same end state as one connection, a failing build named by its line with the
//! tables already built journaled, and a rerun that completes.

use crate::support::cmd::Within;
use crate::support::pg::{self, Pg};
use std::path::Path;
use std::process::Output;

const SCHEMA: &str = "CREATE TABLE public.a (x int NOT NULL, y int NOT NULL);
CREATE TABLE public.b (z int, w text);
CREATE TABLE public.\"C d\" (q int);
CREATE SEQUENCE public.s;
INSERT INTO public.a SELECT g, g % 7 FROM generate_series(1, 2000) g;
INSERT INTO public.b SELECT g % 2000 + 1, 'w' || g FROM generate_series(1, 3000) g;
INSERT INTO public.\"C d\" SELECT g FROM generate_series(1, 1000) g;";

/// pg_dump's shape: settings, then builds of several tables mixed with what must follow them.
const POST: &str = "\\restrict k
SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
SET default_tablespace = '';

ALTER TABLE ONLY public.a
    ADD CONSTRAINT a_pkey PRIMARY KEY (x);
CREATE INDEX b_z ON public.b USING btree (z);
CREATE INDEX a_y ON public.a USING btree (y);
COMMENT ON INDEX public.a_y IS 'by y';
CREATE UNIQUE INDEX b_w ON public.b USING btree (w);
ALTER TABLE ONLY public.\"C d\"
    ADD CONSTRAINT \"C d_q\" UNIQUE (q);
ALTER TABLE ONLY public.b
    ADD CONSTRAINT b_fk FOREIGN KEY (z) REFERENCES public.a(x);
SELECT pg_catalog.setval('public.s', 42, true);
\\unrestrict k
";

fn csvload(pg: &Pg, post: &Path, jobs: &str, db: &str) -> Output {
    pg.csvload(pg::SUPERUSER)
        .args(["--post-data", post.to_str().unwrap(), "-j", jobs, "-q"])
        .arg(format!("dbname={db}"))
        .output_within()
        .expect("run csvload")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Indexes, constraints, comments and the sequence's value of `db`.
fn objects(pg: &Pg, db: &str) -> String {
    pg.psql(
        db,
        "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (
           SELECT indexdef AS x FROM pg_indexes WHERE schemaname = 'public'
           UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
             WHERE connamespace = 'public'::regnamespace
           UNION ALL SELECT coalesce(obj_description('public.a_y'::regclass, 'pg_class'), '-')
           UNION ALL SELECT last_value::text FROM public.s) o",
    )
}

fn setup(pg: &Pg, db: &str) {
    pg.createdb(db);
    pg.psql(db, SCHEMA);
}

#[test]
fn parallel_post_data_same_as_serial_and_keys_before_foreign_keys() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let post = pg::write_temp(dir.path(), "post.sql", POST.as_bytes());
    setup(&pg, "serial");
    setup(&pg, "par");
    let s = csvload(&pg, &post, "1", "serial");
    assert!(s.status.success(), "{}", text(&s.stderr));
    // The foreign key needs a's primary key, built on another connection: it runs after.
    let p = csvload(&pg, &post, "3", "par");
    assert!(p.status.success(), "{}", text(&p.stderr));
    let want = objects(&pg, "serial");
    assert!(want.contains("b_fk FOREIGN KEY") && want.contains("by y") && want.contains("42"));
    assert_eq!(objects(&pg, "par"), want);
    // Journaled as one script: a rerun does nothing.
    let again = pg
        .csvload(pg::SUPERUSER)
        .args([
            "--post-data",
            post.to_str().unwrap(),
            "-j",
            "3",
            "dbname=par",
        ])
        .output_within()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("already run"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn failing_build_is_named_and_a_rerun_completes() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let post = pg::write_temp(dir.path(), "post.sql", POST.as_bytes());
    setup(&pg, "t");
    // b_w (line 11) cannot be unique.
    pg.psql("t", "INSERT INTO public.b VALUES (1, 'w1')");
    let out = csvload(&pg, &post, "2", "t");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("post.sql:11:") && err.contains("could not create unique index"),
        "{err}"
    );
    // Nothing of b's group stayed (one transaction), nor of the rest (the foreign key, the
    // sequence): nothing looks finished.
    let after = objects(&pg, "t");
    // a's builds, run on the other connection, committed with their journal row.
    assert!(after.contains("a_pkey"), "{after}");
    let rows = pg.psql(
        "t",
        "SELECT count(*) FROM dumpshard.load_journal WHERE table_name = ''",
    );
    assert_ne!(rows.trim(), "0");
    assert!(!after.contains("b_z") && !after.contains("b_fk"), "{after}");
    assert!(!after.contains("\n42"), "{after}");
    pg.psql(
        "t",
        "DELETE FROM public.b WHERE ctid = (SELECT max(ctid) FROM public.b)",
    );
    // The rerun skips the tables already built (their ADD CONSTRAINT again would fail: a
    // second primary key) and completes.
    let out = csvload(&pg, &post, "2", "t");
    assert!(out.status.success(), "{}", text(&out.stderr));
    setup(&pg, "ref");
    let r = csvload(&pg, &post, "1", "ref");
    assert!(r.status.success(), "{}", text(&r.stderr));
    assert_eq!(objects(&pg, "t"), objects(&pg, "ref"));
}

/// `public.a` loaded from a CSV file (x = 1..2000, y = x % 7), through a manifest.
fn load_a(pg: &Pg, dir: &Path, db: &str, extra: &[&str]) -> Output {
    let csv: String = (1..=2000).map(|x| format!("{x},{}\n", x % 7)).collect();
    let file = pg::write_temp(dir, "a.csv", csv.as_bytes());
    let m = format!(
        r#"{{"format":"dumpshard-manifest","version":1,"tables":[{{"schema":"public","name":"a",
        "file":"{}","columns":[{{"name":"x","type":"integer","not_null":true}},
        {{"name":"y","type":"integer","not_null":true}}],"primary_key":["x"],"rows":2000,
        "bytes":0,"header":false,"null":""}}]}}"#,
        file.display()
    );
    let m = pg::write_temp(dir, "a.json", m.as_bytes());
    pg.csvload(pg::SUPERUSER)
        .args(["-m", m.to_str().unwrap()])
        .args(extra)
        .arg(format!("dbname={db}"))
        .output_within()
        .expect("run csvload")
}

/// migrate.mk's order for PostgreSQL: each table's load builds its own indexes and keys
/// (`--build-indexes`), as pg_restore -j does, and nothing else of the script; the later
/// `--post-data` runs the rest, on one connection (one transaction, which ran the builds
/// again and failed before it skipped the journaled ones) or several, to the same end state.
#[test]
fn build_indexes_after_the_load_then_post_data_runs_the_rest() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let post = pg::write_temp(dir.path(), "post.sql", POST.as_bytes());
    let schema = SCHEMA.replace(
        "INSERT INTO public.a SELECT g, g % 7 FROM generate_series(1, 2000) g;",
        "",
    );
    pg.createdb("ref");
    pg.psql("ref", &schema);
    let r = load_a(&pg, dir.path(), "ref", &["-q"]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let r = csvload(&pg, &post, "1", "ref");
    assert!(r.status.success(), "{}", text(&r.stderr));
    let want = objects(&pg, "ref");
    for jobs in ["1", "2"] {
        let db = format!("built{jobs}");
        pg.createdb(&db);
        pg.psql(&db, &schema);
        let post_arg = post.to_str().unwrap();
        let out = load_a(&pg, dir.path(), &db, &["--build-indexes", post_arg]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(
            err.contains("the indexes and keys of 1 table(s) built"),
            "{err}"
        );
        // a's key and index, nothing of b, "C d", the foreign key or the sequence.
        let mid = objects(&pg, &db);
        assert!(mid.contains("a_pkey") && mid.contains("a_y"), "{mid}");
        assert!(
            !mid.contains("b_z") && !mid.contains("C d_q") && !mid.contains("b_fk"),
            "{mid}"
        );
        assert!(!mid.contains("by y") && !mid.contains("\n42"), "{mid}");
        let out = csvload(&pg, &post, jobs, &db);
        assert!(out.status.success(), "-j {jobs}: {}", text(&out.stderr));
        assert_eq!(objects(&pg, &db), want, "-j {jobs}");
        // The script is journaled whole: run again, it is skipped.
        let again = pg
            .csvload(pg::SUPERUSER)
            .args(["--post-data", post_arg, "-j", jobs])
            .arg(format!("dbname={db}"))
            .output_within()
            .unwrap();
        assert!(
            again.status.success() && text(&again.stderr).contains("already run"),
            "{}",
            text(&again.stderr)
        );
    }
    // Not on a target whose schema changes conflict beside a load: refused before loading.
    pg.createdb("crdb");
    pg.psql("crdb", &schema);
    let out = load_a(
        &pg,
        dir.path(),
        "crdb",
        &[
            "--target-kind",
            "cockroachdb",
            "--build-indexes",
            post.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--build-indexes is for PostgreSQL targets"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(pg.psql("crdb", "SELECT count(*) FROM public.a").trim(), "0");
}
