//! Table names through the whole chain against a real PostgreSQL (issue 34 item 6): every
//! csvsplit manifest names its table (schema and name apart), csvload loads it without `-t`,
//! and schema and table names with dots, quotes, spaces, capitals and non-ASCII letters work;
//! `-t` reads a name as psql does (`"app.v2".users`), with a hint to quote `MixedCase`.

use crate::support::cli::{self, Input};
use crate::support::cmd::Cmd;
use crate::support::pg::{self, Pg, quote_ident};
use std::path::Path;

/// The awkward tables: (schema, table), each with `id int PRIMARY KEY, note text`.
const TABLES: [(&str, &str); 4] = [
    ("app.v2", "users"),
    ("Mixed Case", "Price History"),
    ("ünï", "a\"b.c"),
    ("public", "plain"),
];

fn qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", quote_ident(schema), quote_ident(name))
}

fn csvload(pg: &Pg, args: &[&str]) -> crate::support::cmd::Run {
    csvload_cmd(pg, args).run()
}

fn csvload_cmd(pg: &Pg, args: &[&str]) -> Cmd {
    let c = pg.csvload(pg::SUPERUSER);
    let mut cmd = Cmd::program(c.get_program());
    for (k, v) in c.get_envs() {
        cmd = match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.args(args)
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Dumps database `a` holding [`TABLES`] (table i has 10 * (i + 1) rows) and converts it.
fn setup(pg: &Pg, dir: &Path) -> cli::Converted {
    pg.createdb("a");
    for (i, (s, t)) in TABLES.iter().enumerate() {
        if *s != "public" {
            pg.psql(
                "a",
                &format!("CREATE SCHEMA IF NOT EXISTS {}", quote_ident(s)),
            );
        }
        let q = qualified(s, t);
        pg.psql(
            "a",
            &format!(
                "CREATE TABLE {q} (id int PRIMARY KEY, note text); \
                 INSERT INTO {q} SELECT g, 'n' || g FROM generate_series(1, {}) g",
                10 * (i + 1)
            ),
        );
    }
    let dump = dir.join("a.sql");
    pg.pg_dump_to(&["-d", "a"], &dump);
    cli::convert(&dump, Input::Path, &[])
}

/// The CSV of table `schema.name`, as pgdump2csv's manifest names it.
fn table_csv(conv: &cli::Converted, schema: &str, name: &str) -> std::path::PathBuf {
    let m = json(&conv.manifest_path);
    let t = m["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["schema"] == schema && x["name"] == name)
        .unwrap_or_else(|| panic!("{schema}.{name} not in {m}"));
    conv.manifest_path
        .parent()
        .unwrap()
        .join(t["file"].as_str().unwrap())
}

fn count(pg: &Pg, db: &str, schema: &str, name: &str) -> String {
    pg.psql(
        db,
        &format!("SELECT count(*) FROM {}", qualified(schema, name)),
    )
    .trim()
    .to_string()
}

/// Each table split by `csvsplit -m -t SPELLING` (psql's spelling of its name) into a manifest
/// that names it; csvload loads each manifest without -t into the right table. Before, csvsplit
/// could not find `"app.v2".users` in the manifest, its manifest named no table, and csvload
/// refused a csvsplit manifest without -t (and no -t spelling loaded `"app.v2".users`).
#[test]
fn csvsplit_manifests_name_their_table_and_csvload_needs_no_t() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let conv = setup(&pg, dir.path());
    pg.createdb("b");
    let m = conv.manifest_path.to_str().unwrap();
    let schema = conv.schema.to_str().unwrap();
    csvload_cmd(&pg, &["--schema", schema, "-q", "dbname=b"]).expect(0);
    let mut loads = Vec::new();
    for (i, (s, t)) in TABLES.iter().enumerate() {
        // psql's spelling: each part quoted when it needs it.
        let spelling = match i {
            0 => "\"app.v2\".users".to_string(),
            3 => "plain".to_string(),
            _ => qualified(s, t),
        };
        let sm = dir.path().join(format!("s{i}.json"));
        let out = dir.path().join(format!("shards{i}/{{n:04}}.csv"));
        Cmd::new("csvsplit")
            .args(["-n", "3", "-m", m, "-t", &spelling, "-o"])
            .arg(&out)
            .arg("--write-manifest")
            .arg(&sm)
            .arg("--")
            .arg(table_csv(&conv, s, t))
            .expect(0);
        let j = json(&sm);
        assert_eq!(
            (j["schema"].as_str(), j["table"].as_str()),
            (Some(*s), Some(*t)),
            "{j}"
        );
        loads.push(sm);
    }
    for (i, sm) in loads.iter().enumerate() {
        let r = csvload(&pg, &["-m", sm.to_str().unwrap(), "-q", "dbname=b"]);
        if r.code() != Some(0) {
            r.fail("csvload without -t");
        }
        let (s, t) = TABLES[i];
        assert_eq!(count(&pg, "b", s, t), (10 * (i + 1)).to_string());
    }
    // -t selects among the manifests, in psql's spelling or as the manifest lists the name.
    for (spelling, table) in [("\"app.v2\".users", 0), ("app.v2.users", 0), ("plain", 3)] {
        let mut args: Vec<&str> = Vec::new();
        for sm in &loads {
            args.extend(["-m", sm.to_str().unwrap()]);
        }
        args.extend(["--verify-only", "-t", spelling, "dbname=b"]);
        let r = csvload(&pg, &args);
        let so = r.stdout_str();
        let others = (0..TABLES.len()).filter(|&k| k != table);
        if r.code() != Some(0)
            || !so.contains(TABLES[table].1)
            || others.clone().any(|k| so.contains(TABLES[k].1))
        {
            r.fail(&format!("-t {spelling} selects table {table} alone"));
        }
    }
    let r = csvload(
        &pg,
        &[
            "-m",
            loads[0].to_str().unwrap(),
            "-t",
            "nope",
            "--verify-only",
            "dbname=b",
        ],
    );
    let e = r.stderr_str();
    assert!(
        r.code() == Some(2)
            && e.contains("in none of the manifests")
            && e.contains("\"app.v2\".users"),
        "{e}"
    );
}

/// A csvsplit manifest that names no table (written before it did, or without -m and -t):
/// `-t` names it, read as psql reads a name. Before, `"app.v2".users` could not be spelled
/// (`relation "app.v2.users" does not exist`, `relation ""app.v2".users" does not exist`), and
/// a folded `MixedCase` got no hint to quote it.
#[test]
fn t_reads_names_as_psql_and_hints_to_quote_capitals() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    pg.createdb("c");
    pg.psql(
        "c",
        "CREATE SCHEMA \"app.v2\"; CREATE TABLE \"app.v2\".users (id int, note text); \
         CREATE TABLE \"MixedCase\" (id int, note text)",
    );
    let csv = dir.path().join("in.csv");
    std::fs::write(&csv, "1,a\n2,b\n3,c\n").unwrap();
    let sm = dir.path().join("s.json");
    Cmd::new("csvsplit")
        .args(["-n", "2", "-o"])
        .arg(dir.path().join("p{n:0}.csv"))
        .arg("--write-manifest")
        .arg(&sm)
        .arg(&csv)
        .expect(0);
    assert!(json(&sm).get("table").is_none(), "no -m, no -t: no table");
    let m = sm.to_str().unwrap();
    let r = csvload(&pg, &["-m", m, "dbname=c"]);
    assert!(
        r.code() == Some(2) && r.stderr_str().contains("does not name its table"),
        "{}",
        r.stderr_str()
    );
    let r = csvload(&pg, &["-m", m, "-t", "\"app.v2\".users", "-q", "dbname=c"]);
    if r.code() != Some(0) {
        r.fail("-t \"app.v2\".users");
    }
    assert_eq!(
        pg.psql("c", "SELECT count(*) FROM \"app.v2\".users").trim(),
        "3"
    );
    // MixedCase folds to mixedcase, which does not exist: the hint says how to quote it.
    let r = csvload(&pg, &["-m", m, "-t", "MixedCase", "dbname=c"]);
    let e = r.stderr_str();
    assert!(
        r.code() == Some(2) && e.contains("does not exist") && e.contains("-t '\"MixedCase\"'"),
        "{e}"
    );
    let r = csvload(&pg, &["-m", m, "-t", "\"MixedCase\"", "-q", "dbname=c"]);
    if r.code() != Some(0) {
        r.fail("-t \"MixedCase\"");
    }
    assert_eq!(
        pg.psql("c", "SELECT count(*) FROM \"MixedCase\"").trim(),
        "3"
    );
    // A name with three parts is refused in words, naming the quoting.
    let r = csvload(&pg, &["-m", m, "-t", "app.v2.users", "dbname=c"]);
    assert!(
        r.code() == Some(2) && r.stderr_str().contains("\"app.v2\".users"),
        "{}",
        r.stderr_str()
    );
}

/// Issue 60 item 4: tables `users` and `"Users"`, each split by csvsplit into a manifest that
/// names it. `-t` names exactly one table, read as psql reads a name: `public.Users` is
/// `public.users`, `public."Users"` the other. Before, `-t public.Users` loaded both (the
/// second matched by its unquoted spelling).
#[test]
fn t_names_one_of_twin_tables_differing_in_case() {
    let Some(pg) = Pg::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    pg.createdb("twins");
    pg.psql(
        "twins",
        "CREATE TABLE public.users (id int PRIMARY KEY, note text);
         CREATE TABLE public.\"Users\" (id int PRIMARY KEY, note text);
         INSERT INTO public.users SELECT g, 'lower' FROM generate_series(1, 3) g;
         INSERT INTO public.\"Users\" SELECT g, 'upper' FROM generate_series(1, 5) g;",
    );
    let dump = dir.path().join("twins.sql");
    pg.pg_dump_to(&["-d", "twins"], &dump);
    let conv = cli::convert(&dump, Input::Path, &[]);
    let m = conv.manifest_path.to_str().unwrap();
    let mut manifests = Vec::new();
    for (i, (spelling, name)) in [("public.users", "users"), ("public.\"Users\"", "Users")]
        .into_iter()
        .enumerate()
    {
        let sm = dir.path().join(format!("s{i}.json"));
        Cmd::new("csvsplit")
            .args(["-n", "2", "-m", m, "-t", spelling, "-o"])
            .arg(dir.path().join(format!("shards{i}/{{n:04}}.csv")))
            .arg("--write-manifest")
            .arg(&sm)
            .arg("--")
            .arg(table_csv(&conv, "public", name))
            .expect(0);
        assert_eq!(json(&sm)["table"].as_str(), Some(name));
        manifests.push(sm);
    }
    pg.createdb("into");
    let schema = conv.schema.to_str().unwrap();
    csvload_cmd(&pg, &["--schema", schema, "-q", "dbname=into"]).expect(0);
    let load = |t: &str| {
        let mut args = Vec::new();
        for sm in &manifests {
            args.extend(["-m", sm.to_str().unwrap()]);
        }
        args.extend(["-t", t, "-q", "dbname=into"]);
        let r = csvload(&pg, &args);
        if r.code() != Some(0) {
            r.fail(&format!("-t {t}"));
        }
    };
    load("public.Users");
    assert_eq!(count(&pg, "into", "public", "users"), "3");
    assert_eq!(
        count(&pg, "into", "public", "Users"),
        "0",
        "-t public.Users is users"
    );
    load("public.\"Users\"");
    assert_eq!(count(&pg, "into", "public", "Users"), "5");
    assert_eq!(count(&pg, "into", "public", "users"), "3");
}
