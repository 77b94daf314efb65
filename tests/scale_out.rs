//! docs/scale-out.md executed: bench/scale-out.sh runs the recipe end to end on small data
//! with real parts (moto's S3 server on loopback as the bucket, the AWS CLI as uploader in
//! `csvsplit --filter`, GNU parallel running examples/sort-range.sh as separate jobs, csvload
//! into a real PostgreSQL) and the loaded table must equal the source table. Skipped loudly
//! when moto_server, aws or parallel are missing (a failure under
//! DUMPSHARD_REQUIRE_SCALE_OUT=1; .ci/run installs them and sets it); directories in
//! DUMPSHARD_SCALE_OUT_PATH are searched before PATH (.ci/run's virtualenv). Also: the job
//! script fails closed (no range manifest in the bucket when its sort fails), and the
//! document quotes the job script it tells users to run.

use crate::support::pg::{self, Pg};

use crate::support::cmd::{TIMEOUT, Within, wait_output_timeout};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// PATH for the recipe: DUMPSHARD_SCALE_OUT_PATH first. Err names the tools it lacks.
fn tools_path() -> Result<OsString, String> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in ["DUMPSHARD_SCALE_OUT_PATH", "PATH"] {
        if let Some(v) = std::env::var_os(var) {
            dirs.extend(std::env::split_paths(&v));
        }
    }
    let missing: Vec<&str> = ["moto_server", "aws", "parallel", "python3"]
        .into_iter()
        .filter(|t| !dirs.iter().any(|d| d.join(t).is_file()))
        .collect();
    if missing.is_empty() {
        Ok(std::env::join_paths(&dirs).unwrap())
    } else {
        Err(format!("not found: {}", missing.join(", ")))
    }
}

/// The PATH to run the recipe with, or None after a loud SKIPPED line.
fn tools_or_skip() -> Option<OsString> {
    match tools_path() {
        Ok(p) => Some(p),
        Err(why) => {
            if std::env::var("DUMPSHARD_REQUIRE_SCALE_OUT").as_deref() == Ok("1") {
                panic!("DUMPSHARD_REQUIRE_SCALE_OUT=1 but {why}");
            }
            eprintln!();
            eprintln!("==================================================================");
            eprintln!("SKIPPED: the scale-out recipe test ({why})");
            eprintln!("         pip install 'moto[server]' awscli; apt-get install parallel;");
            eprintln!("         set DUMPSHARD_REQUIRE_SCALE_OUT=1 to make this a failure");
            eprintln!("==================================================================");
            None
        }
    }
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_csvsplit"))
        .parent()
        .unwrap()
        .to_owned()
}

fn conninfo(pg: &Pg, db: &str) -> String {
    format!(
        "host={} port={} user={} dbname={db}",
        pg.socket_dir().display(),
        pg.port(),
        pg::SUPERUSER
    )
}

#[test]
fn recipe_runs_end_to_end_and_the_target_equals_the_source() {
    let Some(path) = tools_or_skip() else { return };
    let Some(pg) = Pg::start() else { return };
    pg.createdb("source");
    pg.createdb("target");
    // A composite integer key (negative values too, so text order would be wrong) and values
    // that CSV must quote: NULL and '' apart, newlines, commas, quotes, non-ASCII.
    pg.psql(
        "source",
        r#"CREATE TABLE public.orders (
               o_w_id int, o_d_id int, o_id bigint, o_note text, o_ts timestamptz,
               PRIMARY KEY (o_w_id, o_d_id, o_id));
           INSERT INTO public.orders
           SELECT w, d, i * 7919 % 100003 - 50000,
                  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN E'two\nlines, "quoted"'
                             WHEN 3 THEN 'ä €' ELSE md5(i::text) END,
                  timestamptz '2024-01-01 00:00+00' + i * interval '1 minute'
           FROM generate_series(1, 5) w, generate_series(1, 10) d, generate_series(1, 60) i"#,
    );
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("dump.sql");
    let o = pg
        .client("pg_dump")
        .args(["-d", "source", "-f"])
        .arg(&dump)
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    assert!(
        o.status.success(),
        "pg_dump: {}",
        String::from_utf8_lossy(&o.stderr)
    );

    let out = tmp.path().join("run");
    let o = Command::new("timeout")
        .args(["-k", "10", "600", "bash"])
        .arg(root().join("bench/scale-out.sh"))
        .env("PATH", &path)
        .env("BIN", bin_dir())
        .env("OUT", &out)
        .env("N", "3")
        .env("JOBS", "3")
        // pksort spills runs to its job's TMPDIR; csvsplit cuts each range into several parts.
        .env("MEM", "64K")
        .env("PART", "48K")
        .env("DUMP", &dump)
        .env("TABLE", "public.orders")
        .env("SOURCE_DB", conninfo(&pg, "source"))
        .env("TARGET_DB", conninfo(&pg, "target"))
        .env("PSQL", pg.bin("psql"))
        .stdin(std::process::Stdio::null())
        .output_within()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && stdout.contains("target = source: yes"),
        "bench/scale-out.sh: {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        o.status
    );
    eprintln!("{stdout}");

    // Checked here too, not only by the script: every row arrived, and post.sql ran.
    let src = pg::fingerprints(&pg, "source");
    let dst = pg::fingerprints(&pg, "target");
    assert_eq!(src["public.orders"], dst["public.orders"]);
    assert!(src["public.orders"].starts_with("3000 "), "{src:?}");
    assert_eq!(
        pg.psql(
            "target",
            "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid = 'public.orders'::regclass"
        )
        .trim(),
        "1"
    );
    // The sorted parts are what was loaded: several per range, and a manifest per range.
    let load = out.join("load/orders");
    for i in 0..3 {
        assert!(load.join(format!("sorted-{i:02}.json")).is_file());
        let parts = std::fs::read_dir(load.join(format!("sorted-{i:02}")))
            .unwrap()
            .count();
        assert!(parts >= 2, "range {i}: {parts} parts");
    }
}

/// A stand-in `aws` for the job script: `aws s3 cp [--only-show-errors] SRC DST` with
/// s3://bucket/KEY mapped to $FAKE_S3/bucket/KEY and `-` as stdin/stdout.
const FAKE_AWS: &str = r#"#!/bin/sh
set -eu
[ "$1 $2" = "s3 cp" ] || { echo "fake aws: $*" >&2; exit 2; }
shift 2
[ "$1" = --only-show-errors ] && shift
map() { case "$1" in s3://*) echo "$FAKE_S3/${1#s3://}";; *) echo "$1";; esac; }
src=$(map "$1"); dst=$(map "$2")
if [ "$dst" = - ]; then cat "$src"; exit; fi
mkdir -p "$(dirname "$dst")"
if [ "$src" = - ]; then cat > "$dst"; else cat "$src" > "$dst"; fi
"#;

/// The job of one range fails closed: when its sort fails (here a duplicate key, which
/// pksort refuses), the job exits non-zero and the range's manifest never reaches the bucket.
/// The pipe the document gave before (`aws s3 cp ... - | pksort -k NAME:int ... | aws s3 cp -
/// ...`) failed on a worker without a header and, run by a shell without pipefail, still
/// exited 0 with an empty object uploaded as the sorted range.
#[test]
fn a_failed_sort_leaves_no_range_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let fake_bin = d.join("bin");
    std::fs::create_dir(&fake_bin).unwrap();
    std::fs::write(fake_bin.join("aws"), FAKE_AWS).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(fake_bin.join("aws"))
        .status_within()
        .unwrap();
    let bucket = d.join("s3/b/orders");
    std::fs::create_dir_all(&bucket).unwrap();
    std::fs::write(
        bucket.join("manifest.json"),
        r#"{"format": "dumpshard-manifest", "version": 1, "generator": "dumpshard 0.1.0",
            "source": "dump.sql", "tables": [{"schema": "public", "name": "orders",
            "file": "csv/public.orders.csv", "columns": [
                {"name": "id", "type": "integer", "not_null": true},
                {"name": "v", "type": "text", "not_null": false}],
            "primary_key": ["id"], "rows": 3, "bytes": 0, "header": false, "null": "",
            "compression": null}]}"#,
    )
    .unwrap();
    let run = |range_csv: &[u8]| {
        let gz = Command::new("gzip")
            .arg("-c")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        gz.stdin.as_ref().unwrap().write_all(range_csv).unwrap();
        let gz = wait_output_timeout(gz, TIMEOUT, "gzip -c");
        std::fs::write(bucket.join("range-00.csv.gz"), gz.stdout).unwrap();
        let _ = std::fs::remove_file(bucket.join("sorted-00.json"));
        let path = std::env::join_paths(
            std::iter::once(fake_bin.clone())
                .chain(std::iter::once(bin_dir()))
                .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
        )
        .unwrap();
        Command::new("timeout")
            .args(["-k", "10", "120", "bash"])
            .arg(root().join("examples/sort-range.sh"))
            .arg("00")
            .env("PATH", path)
            .env("FAKE_S3", d.join("s3"))
            .env("BUCKET", "s3://b/orders")
            .env("TABLE", "public.orders")
            .env("TMPDIR", d)
            .stdin(std::process::Stdio::null())
            .output_within()
            .unwrap()
    };
    let good = run(b"3,c\n1,a\n2,\"b,\"\"\"\n");
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    assert!(bucket.join("sorted-00.json").is_file());
    assert_eq!(
        std::fs::read(bucket.join("sorted-00/part-0000.csv")).unwrap(),
        b"1,a\n2,\"b,\"\"\"\n3,c\n"
    );

    let bad = run(b"3,c\n1,a\n3,again\n");
    assert!(!bad.status.success(), "a duplicate key must fail the job");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("pksort"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    assert!(
        !bucket.join("sorted-00.json").exists(),
        "no manifest for a failed range"
    );
    // The job's own temporary directory is gone either way.
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("tmp."))
        .collect();
    assert!(left.is_empty(), "job directories left: {left:?}");
}

/// docs/scale-out.md shows examples/sort-range.sh as it is (from `set -euo pipefail` on, indented
/// inside its step), so
/// what the document tells a user to run is what the recipe test runs.
#[test]
fn the_document_quotes_the_job_script() {
    let script = std::fs::read_to_string(root().join("examples/sort-range.sh")).unwrap();
    let body = &script[script.find("set -euo pipefail").unwrap()..];
    // Indented by three spaces, as a code block inside the numbered step.
    let quoted: String = body
        .split_inclusive('\n')
        .map(|l| {
            if l.trim().is_empty() {
                l.to_string()
            } else {
                format!("   {l}")
            }
        })
        .collect();
    let doc = std::fs::read_to_string(root().join("docs/scale-out.md")).unwrap();
    assert!(
        doc.contains(&quoted),
        "docs/scale-out.md must quote examples/sort-range.sh from `set -euo pipefail` on"
    );
    for step in [
        "bench/scale-out.sh",
        "examples/sort-range.sh",
        "pipefail",
        "--halt now,fail=1",
    ] {
        assert!(doc.contains(step), "docs/scale-out.md mentions {step}");
    }
}
