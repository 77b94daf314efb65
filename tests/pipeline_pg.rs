//! The migration pipeline (dumpshard(7), MIGRATION), end to end, through a real PostgreSQL: the sample dump
//! goes through `pgdump2csv`, then every table through `csvcheck --filter | pksort |
//! csvsplit --copy-sql` into gzip shards; the target database is built from `schema.sql`,
//! the generated `\copy` scripts and `post.sql`, and must hold exactly what `psql -f dump`
//! restores. Skipped loudly without a server (a failure under DUMPSHARD_REQUIRE_PG=1).

use crate::support::pg;

use crate::support::cmd::Within;
use dumpshard::manifest::Manifest;
use pg::Pg;
use std::path::Path;
use std::process::Command;

fn sh(dir: &Path, script: &str) {
    let out = Command::new("bash")
        .args(["-c", &format!("set -euo pipefail\n{script}")])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(
        out.status.success(),
        "pipeline failed: {script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn fingerprint(pg: &Pg, db: &str, table: &str) -> String {
    pg.psql(
        db,
        &format!("SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') FROM ONLY {table} t"),
    )
}

#[test]
fn readme_pipeline_loads_the_sample_exactly() {
    let Some(pg) = Pg::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let dump = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/dumps/sample.sql.gz");
    let (p2c, check, sort, split) = (
        env!("CARGO_BIN_EXE_pgdump2csv"),
        env!("CARGO_BIN_EXE_csvcheck"),
        env!("CARGO_BIN_EXE_pksort"),
        env!("CARGO_BIN_EXE_csvsplit"),
    );
    sh(
        dir,
        &format!(
            "gzip -dc {} | {p2c} --write-schema schema.sql --write-post-data post.sql --write-manifest m.json -o csv/",
            dump.display()
        ),
    );
    let m = Manifest::read(&dir.join("m.json")).unwrap();
    assert!(m.tables.len() >= 4);
    let mut load = String::new();
    for t in &m.tables {
        let q = t.qualified();
        assert!(
            !t.primary_key.is_empty(),
            "{q} has a primary key in the sample"
        );
        let file = t.file.as_deref().unwrap();
        sh(
            dir,
            &format!(
                "{check} -m m.json -t {q} --filter --bad-rows bad-{q}.csv {file} \
                 | {sort} -m m.json -t {q} -S 64K \
                 | {split} -b 16K -m m.json -t {q} -o shards/{q}-{{n:04}}.csv.gz \
                     --write-manifest shards/{q}.json --copy-sql > load-{q}.psql"
            ),
        );
        let bad = std::fs::read(dir.join(format!("bad-{q}.csv"))).unwrap_or_else(|e| {
            panic!(
                "bad-{q}.csv: {e}; dir has {:?}",
                std::fs::read_dir(dir)
                    .unwrap()
                    .map(|e| e.unwrap().file_name())
                    .collect::<Vec<_>>()
            )
        });
        assert_eq!(bad, b"", "no bad rows in {q}");
        let script = std::fs::read_to_string(dir.join(format!("load-{q}.psql"))).unwrap();
        load.push_str(&script);
    }
    assert!(
        load.lines().count() > 2 * m.tables.len(),
        "the bigger tables were split into several shards: {load}"
    );
    std::fs::write(dir.join("load.psql"), load).unwrap();

    pg.createdb("referee");
    let plain = dir.join("dump.sql");
    sh(
        dir,
        &format!("gzip -dc {} > {}", dump.display(), plain.display()),
    );
    pg.psql_file("referee", &plain);
    pg.createdb("target");
    pg.psql_file("target", &dir.join("schema.sql"));
    let out = pg
        .client("psql")
        .args([
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            "target",
            "-f",
            "load.psql",
        ])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(
        out.status.success(),
        "load.psql: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    pg.psql_file("target", &dir.join("post.sql"));
    for t in &m.tables {
        let q = format!(
            "{}.{}",
            pg::quote_ident(&t.schema),
            pg::quote_ident(&t.name)
        );
        assert_eq!(
            fingerprint(&pg, "target", &q),
            fingerprint(&pg, "referee", &q),
            "table {q}"
        );
    }
    // post.sql really ran: the primary keys and foreign keys exist in the target.
    let cons = pg.psql(
        "target",
        "SELECT count(*) FROM pg_constraint WHERE contype IN ('p', 'f')",
    );
    let want = pg.psql(
        "referee",
        "SELECT count(*) FROM pg_constraint WHERE contype IN ('p', 'f')",
    );
    assert_eq!(cons, want);
}
