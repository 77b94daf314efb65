//! pgdump2csv on the archives the real pg_dump writes of the fixture database: custom
//! (`-Fc`, `-Fc -Z0`, `-Fc` into a pipe so the TOC has no offsets), directory (`-Fd -j 2`)
//! and tar (`-Ft`). Every output (CSV files, --schema, --post-data, the manifest's tables)
//! must be byte-identical to converting the plain dump of the same server.
//!
//! Skipped with a loud line when no PostgreSQL can be started (DUMPSHARD_REQUIRE_PG=1 makes
//! that a failure).

#[path = "support/pg.rs"]
mod pg;

use pg::Pg;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_pgdump2csv")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/dumps")
        .join(name)
}

/// Every file under `dir` (relative name -> bytes), the manifest's archive facts and
/// source dropped so manifests of different inputs compare.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let mut bytes = fs::read(&p).unwrap();
        if name == "m.json" {
            let mut m: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let o = m.as_object_mut().unwrap();
            o.remove("archive");
            o.remove("source");
            bytes = serde_json::to_vec_pretty(&m).unwrap();
        }
        v.push((name, bytes));
    }
    v.sort();
    v
}

/// Converts `input` (a path, or `None` with `stdin` feeding it) into `out`.
fn convert(input: Option<&Path>, stdin: Stdio, out: &Path, extra: &[&str]) {
    fs::create_dir_all(out).unwrap();
    let mut c = Command::new(bin());
    c.arg("-o")
        .arg(out.join("csv"))
        .arg("--schema")
        .arg(out.join("schema.sql"))
        .arg("--post-data")
        .arg(out.join("post.sql"))
        .arg("--write-manifest")
        .arg(out.join("csv/m.json"))
        .args(extra)
        .stdin(stdin);
    match input {
        Some(p) => c.arg(p),
        None => c.arg("-"),
    };
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "pgdump2csv {:?} failed: {}",
        input,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A schema file with the keys of its `\restrict`/`\unrestrict` lines blanked: pgdump2csv
/// draws a fresh random key for every file it writes.
fn unkeyed(p: &Path) -> String {
    let s = fs::read_to_string(p).unwrap();
    let mut keys = 0;
    let out: Vec<&str> = s
        .split_inclusive('\n')
        .map(|l| {
            if l.starts_with("\\restrict ") {
                keys += 1;
                "\\restrict KEY\n"
            } else if l.starts_with("\\unrestrict ") {
                keys += 1;
                "\\unrestrict KEY\n"
            } else {
                l
            }
        })
        .collect();
    assert!(keys >= 2, "{}: no \\restrict guard", p.display());
    out.concat()
}

fn assert_same(plain: &Path, other: &Path, what: &str) {
    for f in ["schema.sql", "post.sql"] {
        let a = unkeyed(&plain.join(f));
        let b = unkeyed(&other.join(f));
        if a != b {
            let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
            panic!("{what}: {f} differs from the plain dump's (line {line:?})");
        }
    }
    let a = outputs(&plain.join("csv"));
    let b = outputs(&other.join("csv"));
    assert_eq!(
        a.iter().map(|x| &x.0).collect::<Vec<_>>(),
        b.iter().map(|x| &x.0).collect::<Vec<_>>(),
        "{what}: different files"
    );
    for ((n, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{what}: {n} differs from the plain dump's");
    }
}

fn facts(out: &Path) -> serde_json::Value {
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("csv/m.json")).unwrap()).unwrap();
    m["archive"].clone()
}

#[test]
fn every_archive_form_matches_the_plain_dump() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("nasty");
    pg.psql_file("nasty", &fixture("nasty.sql"));
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let dump = |args: &[&str], to: &Path| {
        let o = pg
            .client("pg_dump")
            .args(args)
            .arg("-f")
            .arg(to)
            .arg("nasty")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "pg_dump {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    dump(&[], &t.join("plain.sql"));
    dump(&["-Fc"], &t.join("c.dump"));
    dump(&["-Fc", "-Z0"], &t.join("c0.dump"));
    dump(&["-Fd", "-j", "2"], &t.join("dir"));
    dump(&["-Fd", "-Z0"], &t.join("dir0"));
    dump(&["-Ft"], &t.join("t.tar"));

    convert(
        Some(&t.join("plain.sql")),
        Stdio::null(),
        &t.join("o-plain"),
        &[],
    );
    for (name, format, compression) in [
        ("c.dump", "custom", "gzip"),
        ("c0.dump", "custom", "none"),
        ("dir", "directory", "gzip"),
        ("dir0", "directory", "none"),
        ("t.tar", "tar", "none"),
    ] {
        let out = t.join(format!("o-{name}"));
        convert(Some(&t.join(name)), Stdio::null(), &out, &[]);
        assert_same(&t.join("o-plain"), &out, name);
        let f = facts(&out);
        assert_eq!(f["format"], format, "{name}");
        assert_eq!(f["compression"], compression, "{name}");
        assert_eq!(f["version"], "1.14.0", "{name}: pg_dump 15 writes 1.14");
        assert!(
            f["dump_version"].as_str().unwrap().starts_with("15."),
            "{name}"
        );
    }

    // One job: the custom file is read in one pass, directory files one at a time.
    for name in ["c.dump", "dir"] {
        let out = t.join(format!("o-j1-{name}"));
        convert(Some(&t.join(name)), Stdio::null(), &out, &["-j", "1"]);
        assert_same(&t.join("o-plain"), &out, &format!("{name} -j 1"));
    }

    // A truncated archive file (data offsets in its TOC) fails with the offset, in both
    // reading modes.
    let full = fs::read(t.join("c.dump")).unwrap();
    fs::write(t.join("cut.dump"), &full[..full.len() * 3 / 5]).unwrap();
    for j in ["1", "2"] {
        let o = Command::new(bin())
            .arg(t.join("cut.dump"))
            .args(["-j", j, "-o"])
            .arg(t.join(format!("o-cut-{j}")))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(": byte ") && err.contains("entry "), "{err}");
    }

    // A custom archive on stdin.
    let out = t.join("o-stdin");
    convert(
        None,
        Stdio::from(fs::File::open(t.join("c.dump")).unwrap()),
        &out,
        &[],
    );
    assert_same(&t.join("o-plain"), &out, "-Fc on stdin");

    // pg_dump -Fc writing into a pipe cannot seek back to record the data offsets: the
    // archive is read in one pass straight from pg_dump.
    let mut pd = pg
        .client("pg_dump")
        .args(["-Fc", "nasty"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = t.join("o-pipe");
    convert(None, Stdio::from(pd.stdout.take().unwrap()), &out, &[]);
    assert!(pd.wait().unwrap().success());
    assert_same(&t.join("o-plain"), &out, "pg_dump -Fc | pgdump2csv -");
}

#[test]
fn options_act_on_archives_as_on_plain_dumps() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("nasty");
    pg.psql_file("nasty", &fixture("nasty.sql"));
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    for (args, to) in [(&[][..], "plain.sql"), (&["-Fc"][..], "c.dump")] {
        let o = pg
            .client("pg_dump")
            .args(args)
            .arg("-f")
            .arg(t.join(to))
            .arg("nasty")
            .output()
            .unwrap();
        assert!(o.status.success());
    }
    let extra = [
        "--header",
        "--null",
        "\\N",
        "--gzip",
        "-T",
        "public.customer",
        "-t",
        "public.*",
    ];
    convert(
        Some(&t.join("plain.sql")),
        Stdio::null(),
        &t.join("a"),
        &extra,
    );
    convert(Some(&t.join("c.dump")), Stdio::null(), &t.join("b"), &extra);
    assert_same(&t.join("a"), &t.join("b"), "-Fc with options");
    assert!(!t.join("b/csv/public.customer.csv.gz").exists());

    // One table to stdout.
    let one = |p: &Path| {
        let o = Command::new(bin())
            .arg(p)
            .args(["-t", "public.customer"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    };
    let a = one(&t.join("plain.sql"));
    assert!(!a.is_empty());
    assert_eq!(a, one(&t.join("c.dump")));
}

#[test]
fn large_objects_are_counted_not_converted() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("lo");
    pg.psql(
        "lo",
        "CREATE TABLE t (id int PRIMARY KEY, doc oid); \
         INSERT INTO t VALUES (1, lo_from_bytea(0, 'hello')), (2, lo_from_bytea(0, 'world'))",
    );
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let o = pg
        .client("pg_dump")
        .args(["-Fc", "-f"])
        .arg(t.join("lo.dump"))
        .arg("lo")
        .output()
        .unwrap();
    assert!(o.status.success());
    let o = Command::new(bin())
        .arg(t.join("lo.dump"))
        .arg("-o")
        .arg(t.join("out"))
        .arg("--write-manifest")
        .arg(t.join("out/m.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err.matches("large object").count(),
        1,
        "named once on stderr: {err}"
    );
    assert!(err.contains("2 large object(s)"), "{err}");
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(t.join("out/m.json")).unwrap()).unwrap();
    assert_eq!(m["archive"]["large_objects"], 2);
    assert_eq!(m["tables"][0]["rows"], 2);
    assert_eq!(
        fs::read_to_string(t.join("out/public.t.csv"))
            .unwrap()
            .lines()
            .count(),
        2
    );
}
