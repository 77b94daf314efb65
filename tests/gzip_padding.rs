//! Issue 35 item 6: what every gzip path does after the last member, against `gzip -dc` (the
//! reader a user checks a file with). Zero padding to the end of the file is accepted (gzip
//! exits 0); zero padding followed by anything, a gzip member included, and bytes after a
//! member that start no member, are refused (gzip says "trailing garbage ignored" and exits
//! 2). Before the fix a member hidden after zero padding that ended where a 1 MiB read of the
//! file ended was inflated by the ISA-L and parallel paths (exit 0): a `.sql.gz` could hold a
//! table `zcat` never shows. The padding is placed at and around the read boundaries of every
//! path: multiples of 1 MiB (the sequential reader that ISA-L and the parallel inflate fall
//! back to) and 6 bytes past them (the zlib path of `input::open`, whose first read is the
//! 6-byte sniff).

use crate::support::cmd::Cmd;
use dumpshard::io::input::{self, gzpar};
use std::io::{Read, Write};
use std::path::Path;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// What `gzip -dc` makes of the file: its exit code and output.
fn gzip_dc(p: &Path) -> (i32, Vec<u8>) {
    let o = Cmd::program("gzip").arg("-dc").arg(p).run();
    (o.code().unwrap(), o.stdout().to_vec())
}

/// The bytes a reader gave, and whether it ended in an error (with its message).
fn drain(mut r: impl Read) -> Drained {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, None),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

/// What a reader gave: the bytes it read, and its error if it failed.
type Drained = (Vec<u8>, Option<String>);

/// Every gzip reader of the library on the file at `p`, by name.
fn paths(p: &Path) -> Vec<(&'static str, Drained)> {
    let open = || std::fs::File::open(p).unwrap();
    let v = vec![
        ("sequential", drain(input::sequential_gzip(open()))),
        (
            "input::open, inline",
            drain(input::open_with(Some(p), false).unwrap().reader),
        ),
        (
            "input::open, thread",
            drain(input::open_with(Some(p), true).unwrap().reader),
        ),
        (
            "parallel, 2 threads",
            drain(gzpar::reader(open(), 2).unwrap()),
        ),
        (
            "parallel, 3 threads",
            drain(gzpar::reader(open(), 3).unwrap()),
        ),
    ];
    #[cfg(feature = "isal")]
    let v = {
        let mut v = v;
        v.push((
            "ISA-L",
            drain(input::isal::reader(open(), Default::default())),
        ));
        v
    };
    v
}

/// The file's cases: the first member, then what follows it, ending at `end` (or at the
/// padding's end, for the trailing part).
fn cases(first: &[u8]) -> Vec<(String, Vec<u8>)> {
    let hidden = gzip(b"COPY public.hidden (x) FROM stdin;\n1\n\\.\n");
    let mut v = Vec::new();
    for boundary in [1usize << 20, 2 << 20, (1 << 20) + 6, (2 << 20) + 6] {
        for end in [boundary - 1, boundary, boundary + 1] {
            let mut f = first.to_vec();
            f.resize(end, 0);
            v.push((format!("zeros to byte {end}"), f.clone()));
            for (what, tail) in [
                ("a gzip member", &hidden[..]),
                ("garbage", &b"xyz"[..]),
                ("one byte", &b"\x1f"[..]),
            ] {
                let mut g = f.clone();
                g.extend_from_slice(tail);
                v.push((format!("zeros to byte {end}, then {what}"), g));
            }
        }
    }
    let mut g = first.to_vec();
    g.extend_from_slice(&hidden);
    v.push(("a second member".into(), g));
    v
}

/// Every path succeeds exactly where `gzip -dc` exits 0, with its bytes; where gzip fails
/// (or warns of trailing garbage), every path fails, having handed out no more than gzip's
/// output.
#[test]
fn every_gzip_path_reads_trailing_bytes_as_gzip_dc() {
    let data: Vec<u8> = (0..20_000u32)
        .flat_map(|i| format!("{i},customer {}\n", i * 7919 % 10_007).into_bytes())
        .collect();
    let first = gzip(&data);
    assert!(first.len() < (1 << 20) - 1);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("in.gz");
    let mut failures = Vec::new();
    for (what, file) in cases(&first) {
        std::fs::write(&p, &file).unwrap();
        let (code, want) = gzip_dc(&p);
        for (path, (out, err)) in paths(&p) {
            let ok = err.is_none();
            if (code == 0) != ok {
                failures.push(format!(
                    "{what}: gzip -dc exits {code}, {path} {}",
                    err.map_or("succeeds".to_string(), |e| format!("fails: {e}"))
                ));
            } else if ok && out != want {
                failures.push(format!("{what}: {path} gives other bytes than gzip -dc"));
            } else if !ok && !want.starts_with(&out) {
                failures.push(format!(
                    "{what}: {path} handed out {} bytes, past gzip -dc's {}",
                    out.len(),
                    want.len()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The tools, on each inflate they choose from (DUMPSHARD_GZIP), never convert a table that
/// hides after zero padding: exit 2, no CSV of it.
#[test]
fn a_table_hidden_after_zero_padding_is_refused_by_every_path() {
    let dump = "--\n-- PostgreSQL database dump\n--\n\nCREATE TABLE public.t (x integer);\n\n\
                COPY public.t (x) FROM stdin;\n1\n\\.\n\n\
                --\n-- PostgreSQL database dump complete\n--\n\n";
    let hidden = "CREATE TABLE public.hidden (x integer);\n\nCOPY public.hidden (x) FROM stdin;\n42\n\\.\n\n";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for boundary in [1usize << 20, (1 << 20) + 6] {
        let mut f = gzip(dump.as_bytes());
        f.resize(boundary, 0);
        f.extend(gzip(hidden.as_bytes()));
        std::fs::write(d.join("dump.sql.gz"), &f).unwrap();
        assert_eq!(gzip_dc(&d.join("dump.sql.gz")).0, 2, "gzip -dc warns");
        for (path, j) in [
            ("zlib", "1"),
            ("isal", "1"),
            ("isal", "2"),
            ("par", "2"),
            ("", "1"),
        ] {
            let out = format!("out-{boundary}-{path}-{j}");
            let c = Cmd::new("pgdump2csv")
                .args(["-q", "-j", j, "dump.sql.gz", "-o", &out])
                .current_dir(d);
            let c = if path.is_empty() {
                c.env_remove("DUMPSHARD_GZIP")
            } else {
                c.env("DUMPSHARD_GZIP", path)
            };
            let r = c.expect(2);
            assert!(
                r.stderr_str()
                    .contains("zero padding after the last gzip member is followed by other bytes"),
                "{path} -j {j}: {}",
                r.stderr_str()
            );
            assert!(
                !d.join(&out).join("public.hidden.csv").exists(),
                "{path} -j {j}, padding to {boundary}: the hidden table was converted"
            );
        }
    }
}
