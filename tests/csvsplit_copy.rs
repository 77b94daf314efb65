//! Integration tests of csvsplit's kernel copy: plain shards of a regular file are copied by
//! copy_file_range(2) when `DUMPSHARD_COPY_FILE_RANGE=1` (off by default: slower than write(2)
//! on ext4), and they must be byte-identical, with the same manifest (CRC-32s
//! included), to the shards written through write(2) (`DUMPSHARD_COPY_FILE_RANGE=0`) and to
//! the shards of the same bytes read from a pipe; records with quoted newlines across shard
//! and read-block boundaries stay whole.

use crate::support::cmd::Cmd;
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::Output;

/// Runs csvsplit in `dir`, which must succeed; `stdin`: the input on a pipe; `copy`: allow
/// copy_file_range.
fn csvsplit(dir: &Path, args: &[&str], stdin: Option<&[u8]>, copy: bool) -> Output {
    let mut cmd = Cmd::new("csvsplit")
        .args(args)
        .current_dir(dir)
        .env("DUMPSHARD_COPY_FILE_RANGE", if copy { "1" } else { "0" });
    if let Some(d) = stdin {
        cmd = cmd.stdin(d);
    }
    cmd.expect(0).output
}

/// About 3 MB (three of csvsplit's 1 MiB read blocks) of records, every seventh with quoted
/// newlines (and a CRLF) in a long value, so that some of them straddle a block and a shard
/// boundary.
fn input() -> Vec<u8> {
    let mut v = Vec::new();
    let mut i = 0u64;
    while v.len() < 3 << 20 {
        if i % 7 == 3 {
            let long = "x\n\"\"y\r\n".repeat((i % 500) as usize);
            writeln!(v, "{i},\"multi\nline {long}\",{}", i * 31).unwrap();
        } else {
            writeln!(
                v,
                "{i},plain value {},{}",
                "z".repeat((i % 90) as usize),
                i * 7
            )
            .unwrap();
        }
        i += 1;
    }
    v
}

/// The shards (in manifest order) and the manifest with its run-specific fields dropped.
fn shards(dir: &Path) -> (Vec<Vec<u8>>, Value) {
    let mut m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("m.json")).expect("manifest")).unwrap();
    let mut bodies = Vec::new();
    for s in m["shards"].as_array().expect("shards") {
        bodies.push(std::fs::read(dir.join(s["file"].as_str().unwrap())).unwrap());
    }
    let shards = m["shards"].take();
    (bodies, shards)
}

/// Whether `b` is whole records: no quoted field is left open at its end.
fn whole_records(b: &[u8]) -> bool {
    b.iter().filter(|&&c| c == b'"').count() % 2 == 0 && b.ends_with(b"\n")
}

#[test]
fn kernel_copy_write_and_pipe_give_identical_shards() {
    let data = input();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.csv"), &data).unwrap();
    let mut results = Vec::new();
    for (name, from_pipe, copy) in [
        ("copy", false, true),
        ("write", false, false),
        ("pipe", true, true),
    ] {
        let d = dir.path().join(name);
        std::fs::create_dir(&d).unwrap();
        std::fs::copy(dir.path().join("in.csv"), d.join("in.csv")).unwrap();
        // 300 000 bytes: shards end inside read blocks, and blocks inside shards.
        let mut args = vec!["-b", "300000", "-o", "s/{n:03}.csv", "--write-manifest"];
        args.push("m.json");
        if !from_pipe {
            args.push("in.csv");
        }
        csvsplit(&d, &args, from_pipe.then_some(&data[..]), copy);
        results.push((name, shards(&d)));
    }
    let (_, (bodies, manifest)) = &results[0];
    assert!(bodies.len() >= 10, "{} shards", bodies.len());
    assert_eq!(bodies.concat(), data, "the shards are the input, in order");
    for (i, b) in bodies.iter().enumerate() {
        assert!(whole_records(b), "shard {i} holds whole records");
        assert!(b.len() <= 300_000, "shard {i} is {} bytes", b.len());
    }
    for (name, (b, m)) in &results[1..] {
        assert!(b == bodies, "{name}: shards differ from the copied ones");
        assert_eq!(m, manifest, "{name}: manifest differs");
    }
}

#[test]
fn kernel_copy_after_a_repeated_header() {
    // With --header each shard starts with the header, written from user space, and goes on
    // with copied bytes: both must land in order.
    let mut data = b"id,\"a\nb\",c\n".to_vec();
    data.extend(input());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.csv"), &data).unwrap();
    let mut got = Vec::new();
    for copy in [true, false] {
        let out = if copy { "c" } else { "w" };
        let tmpl = format!("{out}/{{n}}.csv");
        let m = format!("{out}.json");
        csvsplit(
            dir.path(),
            &[
                "--header",
                "-b",
                "500000",
                "-o",
                &tmpl,
                "--write-manifest",
                &m,
                "in.csv",
            ],
            None,
            copy,
        );
        let mut shards = Vec::new();
        for n in 0.. {
            match std::fs::read(dir.path().join(format!("{out}/{n}.csv"))) {
                Ok(b) => shards.push(b),
                Err(_) => break,
            }
        }
        got.push(shards);
    }
    assert!(got[0].len() > 2);
    assert_eq!(got[0], got[1]);
    let mut body = Vec::new();
    for s in &got[0] {
        assert!(s.starts_with(b"id,\"a\nb\",c\n"));
        body.extend_from_slice(&s[11..]);
    }
    assert_eq!(body, data[11..]);
}

/// The fallbacks of the kernel copy, with it asked for (`DUMPSHARD_COPY_FILE_RANGE=1`): shards
/// on another file system than the input (copy_file_range(2) fails with EXDEV: tmpfs under
/// /dev/shm against the input's disk), shards piped to a `--filter`, and `.gz` shards are all
/// written with write(2), byte for byte what the plain write path gives, in `-b` and `-n`
/// modes.
#[test]
fn kernel_copy_falls_back_across_file_systems_pipes_and_gzip() {
    use std::os::unix::fs::MetadataExt;
    let data = input();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in.csv");
    std::fs::write(&src, &data).unwrap();
    let shm = Path::new("/dev/shm");
    let other_fs = shm.is_dir()
        && std::fs::metadata(shm).map(|m| m.dev()).ok()
            != std::fs::metadata(dir.path()).map(|m| m.dev()).ok();
    let out = if other_fs {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        eprintln!("NOTE: /dev/shm is missing or on the input's file system: no EXDEV case");
        tempfile::tempdir().unwrap()
    };
    let input = src.to_str().unwrap();
    for mode in [["-b", "300000"], ["-n", "5"]] {
        // name, copy asked for, extra arguments, output template
        let runs: [(&str, bool, &[&str], &str); 4] = [
            ("write", false, &[], "s/{n:03}.csv"),
            ("exdev", true, &[], "s/{n:03}.csv"),
            (
                "filter",
                true,
                &["--filter", "mkdir -p s && cat > \"$FILE\""],
                "s/{n:03}.csv",
            ),
            ("gzip", true, &[], "s/{n:03}.csv.gz"),
        ];
        let mut got = Vec::new();
        for (name, copy, extra, tmpl) in runs {
            let d = out.path().join(format!("{}-{name}", &mode[0][1..]));
            std::fs::create_dir(&d).unwrap();
            let mut args = vec![mode[0], mode[1], "-o", tmpl, "--write-manifest", "m.json"];
            args.extend_from_slice(extra);
            args.push(input);
            csvsplit(&d, &args, None, copy);
            let (mut bodies, manifest) = shards(&d);
            if name == "gzip" {
                bodies = bodies
                    .iter()
                    .map(|z| {
                        let mut raw = Vec::new();
                        std::io::Read::read_to_end(
                            &mut flate2::read::MultiGzDecoder::new(&z[..]),
                            &mut raw,
                        )
                        .unwrap();
                        raw
                    })
                    .collect();
            }
            let crcs: Vec<Value> = manifest
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["crc32"].clone())
                .collect();
            got.push((name, bodies, crcs));
        }
        let (_, want, want_crc) = &got[0];
        assert!(want.len() >= 5, "{mode:?}: {} shards", want.len());
        assert_eq!(want.concat(), data, "{mode:?}: the shards are the input");
        for (name, bodies, crcs) in &got[1..] {
            assert!(
                bodies == want,
                "{mode:?} {name}: shards differ from write(2)'s"
            );
            assert_eq!(crcs, want_crc, "{mode:?} {name}: CRC-32s differ");
        }
    }
}

/// What one csvsplit run left: exit code, stderr lines (the summary's time and rate cut
/// off), the shard files' contents in name order, and the manifest.
type Outcome = (Option<i32>, Vec<String>, Vec<Vec<u8>>, Vec<u8>);

/// Runs csvsplit with `args` (shards under `s/`) in a new directory `dir/tag-SCAN` once per
/// scan, the cut scan and the record scan (`DUMPSHARD_CSVSPLIT_SCAN=records`); `stdin`: the
/// input on a pipe.
fn both_scans(dir: &Path, tag: &str, args: &[&str], stdin: Option<&[u8]>) -> [Outcome; 2] {
    ["cut", "records"].map(|scan| {
        let d = dir.join(format!("{tag}-{scan}"));
        std::fs::create_dir(&d).unwrap();
        let mut cmd = Cmd::new("csvsplit")
            .args(args)
            .current_dir(&d)
            .env("DUMPSHARD_CSVSPLIT_SCAN", scan);
        if let Some(b) = stdin {
            cmd = cmd.stdin(b);
        }
        let run = cmd.run();
        let mut files = Vec::new();
        let mut shard_dir: Vec<_> = std::fs::read_dir(d.join("s"))
            .map(|r| r.map(|e| e.unwrap().path()).collect())
            .unwrap_or_default();
        shard_dir.sort();
        for p in shard_dir {
            files.push(std::fs::read(p).unwrap());
        }
        let manifest = std::fs::read(d.join("m.json")).unwrap_or_default();
        // The summary line's time and rate differ from run to run.
        let err: Vec<String> = run
            .stderr_str()
            .lines()
            .map(|l| l.split("; 0 dropped").next().unwrap_or(l).to_string())
            .collect();
        (run.code(), err, files, manifest)
    })
}

/// Inputs made to trip the cut scan: quoted newlines and CRLF, `\.` lines inside and outside
/// quotes, long records, a last record without a newline, an unterminated quote at the end,
/// a header with a quoted newline and CRLF, and quoted fields longer than the scan's 1 MiB
/// pieces.
fn tricky_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let mut nasty = Vec::new();
    for i in 0..400u64 {
        match i % 6 {
            0 => writeln!(
                nasty,
                "{i},\"multi\nline {}\",x\r",
                "q\n\"\"y\r\n".repeat((i % 40) as usize)
            ),
            1 => writeln!(nasty, "{i},\"\\.\n\",\"\\.\r\n\"\n\\."),
            2 => writeln!(nasty, "{i},{}", "w".repeat((i * 37 % 700) as usize)),
            3 => write!(nasty, "{i},\"\"\"\",\"a,\"\"\nb\"\r\n"),
            _ => writeln!(nasty, "{i},plain,{}", i * 7),
        }
        .unwrap();
    }
    let mut no_newline = nasty.clone();
    no_newline.extend_from_slice(b"last,\"no\nnewline\"");
    let mut unterminated = nasty.clone();
    unterminated.extend_from_slice(b"9,\"open\nnever closed\n1,2\n");
    // Quoted fields longer than a piece, and a cut inside one.
    let mut big = Vec::new();
    for i in 0..2u64 {
        writeln!(
            big,
            "{i},\"{}\",{i}",
            "a\nb,\"\"".repeat(1_250_000 + i as usize)
        )
        .unwrap();
    }
    let header = b"id,\"na\nme\",v\r\n".to_vec();
    vec![
        ("nasty", nasty.clone()),
        ("no-newline", no_newline),
        ("unterminated", unterminated),
        ("header", [header, nasty].concat()),
        ("big", big),
    ]
}

/// The option sets every mode is compared with.
const EXTRAS: [&[&str]; 4] = [
    &[],
    &["--header"],
    &[
        "--header",
        "--no-repeat-header",
        "--write-manifest",
        "m.json",
    ],
    &["--write-manifest", "m.json", "--verbose"],
];

/// `-b` over a regular file finds its cuts by quote parity over the rare bytes (`"`, `\`)
/// instead of record by record (src/tools/csvsplit/cut.rs). On inputs made to trip it (quoted
/// newlines and CRLF across cuts and its 1 MiB pieces, `\.` lines inside and outside quotes,
/// records larger than `-b`, more than ten of them, a last record without a newline, an
/// unterminated quote at the end, a header that does not fit), with and without a repeated
/// header and a manifest, it gives exactly what the record-by-record path gives
/// (`DUMPSHARD_CSVSPLIT_SCAN=records`): the same exit code, messages, shards and manifest.
/// `-n` goes through the cut scan too: [`chunks_cut_scan_equals_the_record_scan`].
#[test]
fn cut_scan_equals_the_record_scan() {
    let dir = tempfile::tempdir().unwrap();
    for (name, data) in &tricky_inputs() {
        let input = dir.path().join(format!("{name}.csv"));
        std::fs::write(&input, data).unwrap();
        let sizes: &[&str] = if *name == "big" {
            &["4M", "9M"]
        } else {
            &["10", "100", "777", "4096", "1M"]
        };
        for size in sizes {
            for extra in EXTRAS {
                let mut args = vec!["-b", size, "-o", "s/{n:04}.csv"];
                args.extend_from_slice(extra);
                args.push(input.to_str().unwrap());
                let tag = format!("{name}-{size}-{}", extra.len());
                let got = both_scans(dir.path(), &tag, &args, None);
                let what = format!("{name} -b {size} {extra:?}");
                assert_eq!(got[0].0, got[1].0, "{what}: exit codes");
                if *name == "unterminated" {
                    // The error is the same; the record scan, a block ahead of the writing,
                    // meets it before the warnings of earlier shards (on input over 1 MiB it
                    // too warns and writes first), the cut scan at the last shard.
                    // (With a header too long for -b the cut scan stops at that first.)
                    if !extra.contains(&"--header") {
                        assert_eq!(got[0].1.last(), got[1].1.last(), "{what}: error");
                    }
                    assert_eq!(got[0].0, Some(2), "{what}: {:?}", got[0].1);
                    continue;
                }
                assert_eq!(got[0].1, got[1].1, "{what}: messages");
                assert!(got[0].2 == got[1].2, "{what}: shards differ");
                assert_eq!(got[0].3, got[1].3, "{what}: manifests");
                if got[0].0 == Some(0) && !extra.contains(&"--header") {
                    assert_eq!(got[0].2.concat(), *data, "{what}: shards are the input");
                }
            }
        }
    }
}

/// `-n N` over a regular file takes the cut scan as `-b` does (src/tools/csvsplit/splitter.rs,
/// `Run::cut_chunks`), and over a pipe or a gzip file too (spooled, then mapped). On the
/// inputs of [`cut_scan_equals_the_record_scan`] and on an empty input, a header alone, and
/// fewer records than shards, for N = 1, 2, 3, 7 and more than the records, it gives exactly
/// what the record-by-record path gives: exit code, messages (the unterminated-quote error
/// included), shards (always N files, the empty ones too) and manifest.
#[test]
fn chunks_cut_scan_equals_the_record_scan() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = tricky_inputs();
    inputs.extend([
        ("empty", Vec::new()),
        ("header-only", b"id,\"na\nme\"\r\n".to_vec()),
        ("header-no-newline", b"id,\"na\nme\"".to_vec()),
        ("few", b"1,a\n2,\"b\nc\"\r\n3,d".to_vec()),
        ("one-quote", b"\"".to_vec()),
    ]);
    for (name, data) in &inputs {
        let input = dir.path().join(format!("{name}.csv"));
        std::fs::write(&input, data).unwrap();
        let gz = dir.path().join(format!("{name}.csv.gz"));
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(data).unwrap();
        std::fs::write(&gz, z.finish().unwrap()).unwrap();
        for n in ["1", "2", "3", "7", "500"] {
            // (how the input is given, the extra options)
            let mut runs: Vec<(&str, &[&str])> = EXTRAS.iter().map(|e| ("file", *e)).collect();
            runs.push(("stdin", &["--header", "--write-manifest", "m.json"]));
            runs.push(("gz", &["--write-manifest", "m.json"]));
            if n == "500" {
                // Mostly empty shards: two runs are enough (writing 500 files takes a while).
                runs = vec![("file", EXTRAS[0]), ("file", EXTRAS[2])];
            }
            for (i, (how, extra)) in runs.into_iter().enumerate() {
                let mut args = vec!["-n", n, "-o", "s/{n:04}.csv"];
                args.extend_from_slice(extra);
                match how {
                    "file" => args.push(input.to_str().unwrap()),
                    "gz" => args.push(gz.to_str().unwrap()),
                    _ => {}
                }
                let stdin = (how == "stdin").then_some(&data[..]);
                let got = both_scans(dir.path(), &format!("{name}-n{n}-{i}"), &args, stdin);
                let what = format!("{name} -n {n} {how} {extra:?}");
                assert_eq!(got[0].0, got[1].0, "{what}: exit codes");
                assert_eq!(got[0].1, got[1].1, "{what}: messages");
                assert!(got[0].2 == got[1].2, "{what}: shards differ");
                assert_eq!(got[0].3, got[1].3, "{what}: manifests");
                if matches!(*name, "unterminated" | "one-quote") {
                    assert_eq!(got[0].0, Some(2), "{what}: {:?}", got[0].1);
                    assert!(
                        got[0].1.iter().any(|l| l.contains("unterminated")),
                        "{what}: {:?}",
                        got[0].1
                    );
                    continue;
                }
                assert_eq!(got[0].0, Some(0), "{what}: {:?}", got[0].1);
                assert_eq!(
                    got[0].2.len(),
                    n.parse::<usize>().unwrap(),
                    "{what}: N files"
                );
                if !extra.contains(&"--header") {
                    assert_eq!(got[0].2.concat(), *data, "{what}: shards are the input");
                }
            }
        }
    }
}
