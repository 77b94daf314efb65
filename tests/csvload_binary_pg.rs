//! csvload's binary COPY into PostgreSQL (src/pg/types/binary.rs) against the source of the
//! rows: a table of every type with an encoder, filled by the server with nasty values,
//! printed by its own `COPY ... TO STDOUT (FORMAT csv)` in a zone with a 45-minute offset,
//! loaded by csvload (whole file and in batches) and compared with the source row by row;
//! a file with one value outside the encoders' forms (falls back to COPY text from the last
//! committed batch, every row once); a value the server refuses in binary, named by the
//! file's line and record.

use crate::support::pg;

use crate::support::cmd;
use pg::Pg;
use std::io::Read;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

const DDL: &str = "CREATE TABLE public.src (
    id integer PRIMARY KEY, b boolean, i2 smallint, i8 bigint, n numeric, n2 numeric(10,2),
    d date, ts timestamp, ts3 timestamp(3), tz timestamptz, tx text, vc varchar(20), ch char(3),
    j json, jb jsonb, u uuid, f double precision, tm time)";

const COLUMNS: &[(&str, &str)] = &[
    ("id", "integer"),
    ("b", "boolean"),
    ("i2", "smallint"),
    ("i8", "bigint"),
    ("n", "numeric"),
    ("n2", "numeric(10,2)"),
    ("d", "date"),
    ("ts", "timestamp without time zone"),
    ("ts3", "timestamp(3) without time zone"),
    ("tz", "timestamp with time zone"),
    ("tx", "text"),
    ("vc", "character varying(20)"),
    ("ch", "character(3)"),
    ("j", "json"),
    ("jb", "jsonb"),
    ("u", "uuid"),
    ("f", "double precision"),
    ("tm", "time without time zone"),
];

/// A random string of up to `n` characters from a nasty alphabet (CSV's and COPY text's
/// specials, UTF-8), re-drawn per row.
fn rand_text(n: u32) -> String {
    format!(
        "(SELECT coalesce(string_agg(substr(E'ab,\"\\\\ \\n\\r\\t.x\u{e9}\u{20ac}\u{1f600}{{}}''N', \
         1 + floor(random() * 20)::int, 1), ''), '') \
         FROM generate_series(1, floor(random() * {n})::int + 0 * g))"
    )
}

fn nullable(expr: &str) -> String {
    format!("CASE WHEN random() < 0.1 THEN NULL ELSE {expr} END")
}

fn insert(rows: u32) -> String {
    let cols = [
        "random() < 0.5".to_string(),
        "(floor(random() * 65536) - 32768)::smallint".into(),
        "floor((random() - 0.5) * 1.8e19)::numeric::bigint".into(),
        "round(((random() - 0.5) * 10 ^ (random() * 40 - 20))::numeric, floor(random() * 25)::int)"
            .into(),
        "round(((random() - 0.5) * 1.99e8)::numeric, 2)".into(),
        "'0001-01-01'::date + floor(random() * 3652058)::int".into(),
        "'1900-01-01'::timestamp + random() * interval '80000 days'".into(),
        "'1900-01-01'::timestamp + random() * interval '80000 days'".into(),
        "'1900-01-01 00:00:00+00'::timestamptz + random() * interval '80000 days'".into(),
        format!(
            "(CASE WHEN random() < 0.1 THEN '' ELSE {} END)",
            rand_text(40)
        ),
        format!("left({}, 20)", rand_text(25)),
        "substr('ab c', 1 + floor(random() * 4)::int, 3)".into(),
        format!("json_build_object('k', {}, 'n', random())", rand_text(10)),
        format!(
            "jsonb_build_object('k', {}, 'a', jsonb_build_array(1, 'x\"y', NULL))",
            rand_text(10)
        ),
        "md5(random()::text)::uuid".into(),
        "(CASE WHEN random() < 0.05 THEN '-0' ELSE (random() - 0.5) * 10 ^ (random() * 600 - 300) END)"
            .into(),
        "'00:00:00'::time + random() * interval '24 hours'".into(),
    ];
    let exprs: Vec<String> = cols.iter().map(|c| nullable(c)).collect();
    format!(
        "INSERT INTO public.src SELECT g, {} FROM generate_series(1, {rows}) g",
        exprs.join(", ")
    )
}

fn connect(pg: &Pg, db: &str) -> postgres::Client {
    postgres::Config::new()
        .host_path(pg.socket_dir())
        .port(pg.port())
        .user(pg::SUPERUSER)
        .dbname(db)
        .connect(postgres::NoTls)
        .unwrap()
}

fn manifest(dir: &Path, file: &str, rows: usize, null_token: &str) -> std::path::PathBuf {
    let cols: Vec<serde_json::Value> = COLUMNS
        .iter()
        .map(|(n, t)| serde_json::json!({"name": n, "type": t, "not_null": *n == "id"}))
        .collect();
    let j = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{"schema": "public", "name": "t", "file": file, "columns": cols,
            "rows": rows, "bytes": 0, "header": false, "null": null_token}]
    });
    let p = dir.join(format!("{file}.json"));
    std::fs::write(&p, j.to_string()).unwrap();
    p
}

fn csvload(pg: &Pg, m: &Path, batch: &str) -> Output {
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args([
        "-m",
        m.to_str().unwrap(),
        "--batch-rows",
        batch,
        "--truncate",
        "dbname=b",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    cmd::wait_output_timeout(c.spawn().unwrap(), Duration::from_secs(120), "csvload")
}

/// An empty target table and no journal, so each run loads the whole file (a run on a
/// table its journal holds completely resumes, loading nothing).
fn fresh(c: &mut postgres::Client) {
    c.batch_execute("TRUNCATE public.t; DROP SCHEMA IF EXISTS dumpshard CASCADE")
        .unwrap();
}

/// Rows of t that differ from src (either side missing or any column distinct).
fn differ(c: &mut postgres::Client) -> i64 {
    c.query_one(
        "SELECT count(*) FROM public.t FULL JOIN public.src s USING (id) \
         WHERE t.id IS NULL OR s.id IS NULL OR (t.*)::text IS DISTINCT FROM (s.*)::text",
        &[],
    )
    .unwrap()
    .get(0)
}

#[test]
fn binary_wire_loads_the_source_exactly() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("b");
    pg.psql("b", "ALTER DATABASE b SET log_statement = 'all'");
    let mut c = connect(&pg, "b");
    c.batch_execute(DDL).unwrap();
    c.batch_execute(&format!("SELECT setseed(0.25); {}", insert(3000)))
        .unwrap();
    c.batch_execute("CREATE TABLE public.t (LIKE public.src)")
        .unwrap();
    // pg_dump's settings, in a zone whose offset has minutes.
    c.batch_execute(
        "SET TimeZone = 'Asia/Kathmandu'; SET DateStyle = ISO; SET extra_float_digits = 3",
    )
    .unwrap();
    let stmt_bin = r#"COPY "public"."t" ("id", "b", "i2", "i8", "n", "n2", "d", "ts", "ts3", "tz", "tx", "vc", "ch", "j", "jb", "u", "f", "tm") FROM STDIN (FORMAT binary)"#;
    let stmt_text = r#"COPY "public"."t" ("id", "b", "i2", "i8", "n", "n2", "d", "ts", "ts3", "tz", "tx", "vc", "ch", "j", "jb", "u", "f", "tm") FROM STDIN
"#;
    let dir = tempfile::tempdir().unwrap();
    let mut csv = Vec::new();
    // NULL as pg_dump's CSV has it (the empty unquoted field), then as `\N` (an empty field
    // is then '').
    for (k, null) in ["", "\\N"].into_iter().enumerate() {
        csv.clear();
        c.copy_out(&format!(
            "COPY (SELECT * FROM public.src ORDER BY id) TO STDOUT (FORMAT csv, NULL {})",
            pg::quote_literal(null)
        ))
        .unwrap()
        .read_to_end(&mut csv)
        .unwrap();
        let file = format!("t{k}.csv");
        std::fs::write(dir.path().join(&file), &csv).unwrap();
        let m = manifest(dir.path(), &file, 3000, null);
        for batch in ["100000", "7"] {
            fresh(&mut c);
            let out = csvload(&pg, &m, batch);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{err}");
            assert_eq!(differ(&mut c), 0, "NULL {null:?}, batches of {batch}");
        }
    }
    let log = pg.server_log();
    assert!(log.contains(stmt_bin), "binary COPY sent");
    assert!(!log.contains(stmt_text), "no batch fell back to text");

    // One value outside the encoders' forms (int2in takes the spaces), in the last record:
    // in batches of 7, the batches before it are committed as binary and the rest goes as
    // text from there; every row once.
    c.batch_execute("INSERT INTO public.src (id, i2) VALUES (3001, 7)")
        .unwrap();
    let mut csv2 = csv.clone();
    csv2.extend_from_slice(
        b"3001,\\N, 7 ,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N\n",
    );
    std::fs::write(dir.path().join("t2.csv"), &csv2).unwrap();
    let m2 = manifest(dir.path(), "t2.csv", 3001, "\\N");
    for batch in ["100000", "7"] {
        fresh(&mut c);
        let out = csvload(&pg, &m2, batch);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert_eq!(differ(&mut c), 0, "fallback, batches of {batch}");
        assert!(
            err.contains("goes on as COPY text"),
            "the fallback is said: {err}"
        );
        let journal: i64 = c
            .query_one(
                "SELECT sum(records)::int8 FROM dumpshard.load_journal WHERE file LIKE '%t2.csv'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(
            journal, 3001,
            "batches of {batch}: the journal counts each record once"
        );
    }
    assert!(
        pg.server_log().contains(stmt_text),
        "the fallback sent text"
    );

    // A value the server refuses in binary (too long for varchar(20)) is named by the file's
    // line and record, as in text.
    // It goes after the last record, so its line is one more than the file's newlines
    // (quoted ones count, as a file's lines do).
    let bad_line = 1 + csv.iter().filter(|&&b| b == b'\n').count();
    let bad_byte = csv.len();
    let bad_record = 3001;
    let mut out_csv = csv.clone();
    out_csv.extend_from_slice(
        b"3002,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,\\N,aaaaaaaaaaaaaaaaaaaaaaaaa,\\N,\\N,\\N,\\N,\\N,\\N\n",
    );
    std::fs::write(dir.path().join("t3.csv"), &out_csv).unwrap();
    let m3 = manifest(dir.path(), "t3.csv", 3001, "\\N");
    fresh(&mut c);
    let out = csvload(&pg, &m3, "100000");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let want = format!(
        "csvload: {}:{bad_line}: (record {bad_record}, byte {bad_byte}) table public.t: row refused: ",
        dir.path().join("t3.csv").display()
    );
    assert!(err.contains(&want), "want {want}\n{err}");
    assert!(err.contains("SQLSTATE 22001"), "{err}");
    let log = pg.server_log();
    assert!(
        log.rfind(stmt_bin) > log.rfind(stmt_text),
        "the refused batch went as binary"
    );
}
