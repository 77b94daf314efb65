//! Parallel inflate of one seekable `.gz` (src/io/input/gzpar.rs) and ISA-L's inflate
//! (src/io/input/isal.rs, what `input::open_with` gives for a gzip file) against the sequential
//! path (flate2 on zlib-rs, `input::sequential_gzip`): the same bytes on every valid input (one
//! stream, multi-member, our own and pigz-style blocks, BGZF built by hand, empty members,
//! zero padding), an error on every invalid one (truncations and flipped bytes at many
//! offsets, trailing garbage), with the same truncation flag and a position; and the real
//! binaries: `pgdump2csv -j 2` of a gzip -6 dump equals `-j 1`, a truncated one exits 2.

use crate::support::cmd::Cmd;
use dumpshard::io::input::{self, gzpar};
use proptest::prelude::*;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::OnceLock;

/// What a reader gave: the bytes read, then the error that ended it, if any.
#[derive(Debug)]
struct Got {
    out: Vec<u8>,
    err: Option<std::io::Error>,
}

fn drain(mut r: impl Read) -> Got {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Got { out, err: None },
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return Got { out, err: Some(e) },
        }
    }
}

fn sequential(p: &Path) -> Got {
    drain(input::sequential_gzip(std::fs::File::open(p).unwrap()))
}

/// ISA-L's path as the tools open a gzip file: on the reading thread or on a thread of its own.
fn isal(p: &Path, thread: bool) -> Got {
    drain(input::open_with(Some(p), thread).unwrap().reader)
}

fn parallel(p: &Path, threads: usize) -> Got {
    drain(gzpar::reader(std::fs::File::open(p).unwrap(), threads).unwrap())
}

/// Asserts that both paths agree on `bytes` and returns whether they succeeded.
fn agree(bytes: &[u8], what: &str) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("in.gz");
    std::fs::write(&p, bytes).unwrap();
    let s = sequential(&p);
    for thread in [false, true] {
        let i = isal(&p, thread);
        let (se, ie) = (
            s.err.as_ref().map(|e| e.to_string()),
            i.err.map(|e| e.to_string()),
        );
        // The same words and positions: an error is always the sequential path's.
        assert_eq!(se, ie, "{what}: ISA-L (thread {thread}) and zlib-rs differ");
        if se.is_none() {
            assert!(s.out == i.out, "{what}: ISA-L's bytes differ");
        } else {
            let n = s.out.len().min(i.out.len());
            assert!(
                s.out[..n] == i.out[..n],
                "{what}: ISA-L's bytes before the error differ"
            );
        }
    }
    let par = parallel(&p, 2);
    match (&s.err, &par.err) {
        (None, None) => {
            assert!(
                s.out == par.out,
                "{what}: outputs differ ({} vs {} bytes)",
                s.out.len(),
                par.out.len()
            );
            true
        }
        (Some(se), Some(pe)) => {
            let (st, pt) = (se.to_string(), pe.to_string());
            let trunc = |m: &str| m.contains("(the file is truncated)");
            assert_eq!(
                trunc(&st),
                trunc(&pt),
                "{what}: truncation flag differs:\n  sequential: {st}\n  parallel:   {pt}"
            );
            assert!(
                pt.contains("compressed byte") || pt.contains("bytes after"),
                "{what}: no position: {pt}"
            );
            // Whatever came before the error is the same data.
            let n = s.out.len().min(par.out.len());
            assert!(
                s.out[..n] == par.out[..n],
                "{what}: the bytes before the error differ"
            );
            false
        }
        _ => panic!(
            "{what}: one path failed, the other did not:\n  sequential: {:?} ({} bytes)\n  parallel:   {:?} ({} bytes)",
            s.err.map(|e| e.to_string()),
            s.out.len(),
            par.err.map(|e| e.to_string()),
            par.out.len()
        ),
    }
}

/// CSV-like text that compresses about 3:1, as dumps do, from `seed`.
fn text(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let words: [&[u8]; 8] = [
        b"alpha",
        b"beta",
        b"2024-01-0",
        b"NULL",
        b"\"x, y\"",
        b"customer",
        b"\n",
        b",",
    ];
    let mut v = Vec::with_capacity(len + 16);
    while v.len() < len {
        if rng.u8(..) < 90 {
            v.extend_from_slice(words[rng.usize(..words.len())]);
        } else {
            for _ in 0..rng.usize(1..12) {
                v.push(b'0' + rng.u8(..75));
            }
        }
    }
    v.truncate(len);
    v
}

fn gzip(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// One BGZF block (gzip member with the `BC` extra field giving its size), as bgzip writes.
fn bgzf_block(data: &[u8]) -> Vec<u8> {
    let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(6).unwrap());
    let mut d = vec![0u8; c.deflate_compress_bound(data.len())];
    let n = c.deflate_compress(data, &mut d).unwrap();
    d.truncate(n);
    let bsize = (18 + d.len() + 8 - 1) as u16;
    let mut m = vec![
        0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0,
    ];
    m.extend_from_slice(&bsize.to_le_bytes());
    m.extend_from_slice(&d);
    m.extend_from_slice(&libdeflater::crc32(data).to_le_bytes());
    m.extend_from_slice(&(data.len() as u32).to_le_bytes());
    m
}

/// BGZF: blocks of at most 65280 input bytes, then the empty EOF block.
fn bgzf(data: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    for b in data.chunks(65280) {
        v.extend(bgzf_block(b));
    }
    v.extend(bgzf_block(b""));
    v
}

/// Our own `--gzip` output: 1 MiB members (src/io/gzblocks.rs), as pigz's blocks.
fn blocks(data: &[u8]) -> Vec<u8> {
    let mut w = dumpshard::io::gzblocks::GzBlocks::new(Vec::new(), 6, None);
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

/// A large input: what it is, the file, the data it holds.
type Big = (&'static str, Vec<u8>, Vec<u8>);

/// Large inputs (several MiB compressed, so the crate takes its parallel paths: marker/window
/// for one stream, member-parallel for blocks and BGZF), built once.
fn big() -> &'static [Big] {
    static BIG: OnceLock<Vec<Big>> = OnceLock::new();
    BIG.get_or_init(|| {
        let data = text(9 << 20, 7);
        let mut two = gzip(&data[..3 << 20], 1);
        two.extend(gzip(b"", 6));
        two.extend(gzip(&data[3 << 20..], 9));
        vec![
            ("gzip -6", gzip(&data, 6), data.clone()),
            ("members of levels 1, 9 and an empty one", two, data.clone()),
            ("1 MiB blocks", blocks(&data), data.clone()),
            ("BGZF", bgzf(&data), data),
        ]
    })
}

#[test]
fn large_inputs_are_identical() {
    for (what, gz, data) in big() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("in.gz");
        std::fs::write(&p, gz).unwrap();
        for threads in [2, 3] {
            let g = parallel(&p, threads);
            assert!(g.err.is_none(), "{what}: {:?}", g.err);
            assert!(g.out == *data, "{what} with {threads} threads: wrong bytes");
        }
    }
}

#[test]
fn large_inputs_cut_and_flipped_agree() {
    for (what, gz, _) in big() {
        let n = gz.len();
        // The header, the first blocks, several places in the middle (different chunks of
        // the parallel decoder), the last member's footer.
        let mut at: Vec<usize> = vec![2, 3, 5, 9, 10, 11, 20, 200, 5000];
        at.extend((1..12).map(|k| n * k / 12 + k * 37));
        at.extend([n - 9, n - 8, n - 5, n - 4, n - 2, n - 1]);
        for &i in &at {
            assert!(!agree(&gz[..i], &format!("{what} cut at {i} of {n}")));
            let mut f = gz.clone();
            f[i] ^= 0x5a;
            agree(&f, &format!("{what} byte {i} of {n} flipped"));
        }
    }
}

#[test]
fn trailing_bytes_as_the_sequential_path() {
    let data = text(300_000, 3);
    let gz = gzip(&data, 6);
    let with = |tail: &[u8]| {
        let mut v = gz.clone();
        v.extend_from_slice(tail);
        v
    };
    // Zero padding (tape blocks) is accepted, as gzip -t does.
    assert!(agree(&with(&[0; 1000]), "zero padding"));
    for (tail, want) in [
        (&b"garbage"[..], "bytes after the last gzip member"),
        (
            &b"\0\0\0x"[..],
            "zero padding after the last gzip member is followed",
        ),
        (&b"\x1f"[..], ""),
        (&b"\x1f\x8b\x08"[..], "(the file is truncated)"),
    ] {
        let v = with(tail);
        assert!(!agree(&v, &format!("tail {tail:?}")));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("in.gz");
        std::fs::write(&p, &v).unwrap();
        let e = parallel(&p, 2).err.unwrap().to_string();
        assert!(e.contains(want), "tail {tail:?}: {e}");
    }
    // Our own writer's mark of an incomplete output.
    let mut v = gz.clone();
    v.push(b'"');
    v.extend_from_slice(dumpshard::io::stream::INCOMPLETE);
    assert!(!agree(&v, "incomplete mark"));
}

/// One member of a generated file.
#[derive(Debug, Clone)]
enum Member {
    Gzip { len: usize, level: u32 },
    Bgzf { len: usize },
    Empty,
}

fn member() -> impl Strategy<Value = Member> {
    prop_oneof![
        (0usize..400_000, 0u32..10).prop_map(|(len, level)| Member::Gzip { len, level }),
        (1usize..200_000).prop_map(|len| Member::Bgzf { len }),
        Just(Member::Empty),
    ]
}

#[derive(Debug, Clone)]
enum Damage {
    None,
    /// Cut at this fraction (per mille) of the length.
    Cut(u32),
    /// XOR the byte at this fraction (per mille) with the value.
    Flip(u32, u8),
    Tail(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        Just(Damage::None),
        (0u32..1000).prop_map(Damage::Cut),
        (0u32..1000, 1u8..=255).prop_map(|(a, x)| Damage::Flip(a, x)),
        proptest::collection::vec(any::<u8>(), 1..20).prop_map(Damage::Tail),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_files_agree(members in proptest::collection::vec(member(), 1..6), d in damage(), seed in any::<u64>()) {
        let mut gz = Vec::new();
        for (k, m) in members.iter().enumerate() {
            match *m {
                Member::Gzip { len, level } => gz.extend(gzip(&text(len, seed + k as u64), level)),
                Member::Bgzf { len } => gz.extend(bgzf(&text(len, seed + k as u64))),
                Member::Empty => gz.extend(gzip(b"", 6)),
            }
        }
        let n = gz.len();
        match &d {
            Damage::None => {}
            Damage::Cut(a) => gz.truncate(n * *a as usize / 1000),
            Damage::Flip(a, x) => gz[n * *a as usize / 1000] ^= x,
            Damage::Tail(t) => gz.extend_from_slice(t),
        }
        if gz.len() < 2 {
            return Ok(()); // not gzip any more: never reaches either path
        }
        gz[0] = 0x1f;
        gz[1] = 0x8b;
        let ok = agree(&gz, &format!("{members:?} {d:?}"));
        if matches!(d, Damage::None) {
            prop_assert!(ok);
        }
    }
}

/// A plain dump of one table with `n` rows.
fn dump(n: usize) -> String {
    let mut d = String::from(
        "--\n-- PostgreSQL database dump\n--\n\nSET standard_conforming_strings = on;\n\n\
         CREATE TABLE public.t (id integer NOT NULL, s text);\n\nCOPY public.t (id, s) FROM stdin;\n",
    );
    for i in 0..n {
        d.push_str(&format!(
            "{i}\tcustomer {} \"q\", tab\\there\n",
            i * 7919 % 100_003
        ));
    }
    d.push_str("\\.\n\n--\n-- PostgreSQL database dump complete\n--\n\n");
    d
}

#[test]
fn pgdump2csv_j2_equals_j1_on_gzip6_and_a_cut_file_fails() {
    // Every inflate the tools choose from (DUMPSHARD_GZIP: zlib-rs, ISA-L, rapidgzip-core;
    // by default ISA-L at -j 1 and -j 2) writes the same CSV, and on a cut file the same
    // message, word for word.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = dump(250_000);
    std::fs::write(d.join("dump.sql.gz"), gzip(text.as_bytes(), 6)).unwrap();
    let gz = std::fs::read(d.join("dump.sql.gz")).unwrap();
    std::fs::write(d.join("cut.sql.gz"), &gz[..gz.len() * 2 / 3]).unwrap();
    let mut want: Option<(Vec<u8>, String)> = None;
    for (path, j) in [
        ("zlib", "1"),
        ("", "1"),
        ("", "2"),
        ("isal", "2"),
        ("par", "2"),
    ] {
        let out = format!("out-{path}-{j}");
        let cut = format!("cut-{path}-{j}");
        let cmd = |input: &str, o: &str| {
            let c = Cmd::new("pgdump2csv")
                .args(["-j", j, "-q", input, "-o", o])
                .current_dir(d);
            if path.is_empty() {
                c.env_remove("DUMPSHARD_GZIP")
            } else {
                c.env("DUMPSHARD_GZIP", path)
            }
        };
        cmd("dump.sql.gz", &out).expect(0);
        let csv = std::fs::read(d.join(&out).join("public.t.csv")).unwrap();
        let err = cmd("cut.sql.gz", &cut).expect(2).stderr_str();
        assert!(
            err.contains("cut.sql.gz: cannot decompress (the file is truncated)")
                && err.contains("compressed byte"),
            "{path} -j {j}: {err}"
        );
        // No finished-looking output: no CSV under its final name.
        assert!(
            !d.join(&cut).join("public.t.csv").exists(),
            "{path} -j {j}: a finished-looking CSV was left"
        );
        match &want {
            None => {
                assert!(csv.len() > 1_000_000);
                want = Some((csv, err));
            }
            Some((wcsv, werr)) => {
                assert!(
                    csv == *wcsv,
                    "{path} -j {j}: the CSV differs from zlib-rs's"
                );
                assert_eq!(
                    &err, werr,
                    "{path} -j {j}: the message differs from zlib-rs's"
                );
            }
        }
    }
}

#[test]
fn every_gzip_reader_takes_the_parallel_path_with_j() {
    // pksort, csvsplit and csvcheck read a .gz file with -j 2 (rapidgzip-core, as from
    // PAR_MIN_THREADS threads) as with -j 1 (ISA-L).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut csv = String::from("id,s\n");
    for i in 0..200_000 {
        csv.push_str(&format!("{},customer {i}\n", (i * 7919) % 200_003));
    }
    std::fs::write(d.join("in.csv.gz"), gzip(csv.as_bytes(), 6)).unwrap();
    for j in ["1", "2"] {
        let sorted = Cmd::new("pksort")
            .args(["--header", "-k", "id:int", "-j", j, "in.csv.gz"])
            .env("DUMPSHARD_GZIP", if j == "2" { "par" } else { "isal" })
            .current_dir(d)
            .ok();
        assert_eq!(sorted.len(), csv.len(), "pksort -j {j}");
        Cmd::new("csvcheck")
            .args(["--header", "-j", j, "in.csv.gz"])
            .env("DUMPSHARD_GZIP", if j == "2" { "par" } else { "isal" })
            .current_dir(d)
            .expect(0);
    }
    let gz = std::fs::read(d.join("in.csv.gz")).unwrap();
    std::fs::write(d.join("cut.csv.gz"), &gz[..gz.len() / 2]).unwrap();
    let r = Cmd::new("pksort")
        .args(["--header", "-k", "id:int", "-j", "2", "cut.csv.gz"])
        .env("DUMPSHARD_GZIP", "par")
        .current_dir(d)
        .expect(2);
    assert!(
        r.stderr_str().contains("(the file is truncated)"),
        "{}",
        r.stderr_str()
    );
}

#[test]
fn member_files_take_the_parallel_paths() {
    // What the crate decides for our 1 MiB blocks and for BGZF (by structure, not by timing;
    // one gzip stream goes to its marker/window path only when a timed probe admits it, which
    // it did not on the 2-core machine these tests were written on: docs/benchmarks.md).
    let dir = tempfile::tempdir().unwrap();
    for (k, want) in [
        (2, rapidgzip_core::DecoderPath::DenseMembers),
        (3, rapidgzip_core::DecoderPath::Bgzf),
    ] {
        let p = dir.path().join(format!("{k}.gz"));
        std::fs::write(&p, &big()[k].1).unwrap();
        let dec = rapidgzip_core::Decoder::builder()
            .decoder_threads(2)
            .build()
            .unwrap();
        let mut r = dec.reader(std::fs::File::open(&p).unwrap()).unwrap();
        let h = r.handle();
        let n = std::io::copy(&mut r, &mut std::io::sink()).unwrap();
        assert_eq!(n as usize, big()[k].2.len());
        assert_eq!(h.stats().path, want, "{}", big()[k].0);
    }
}

#[test]
fn a_gzip_fifo_is_opened_once_and_read_sequentially() {
    // A FIFO is not a regular file: opened once (a second open would lose the writer's
    // data or block), inflated on the sequential path, with -j 2 as with -j 1.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = dump(20_000);
    let gz = gzip(text.as_bytes(), 6);
    let fifo = d.join("dump.sql.gz");
    crate::support::mkfifo(&fifo);
    let w = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            f.write_all(&gz).unwrap();
        })
    };
    Cmd::new("pgdump2csv")
        .args(["-j", "2", "-q", "dump.sql.gz", "-o", "out"])
        .current_dir(d)
        .expect(0);
    w.join().unwrap();
    let csv = std::fs::read_to_string(d.join("out/public.t.csv")).unwrap();
    assert_eq!(csv.lines().count(), 20_000);
}

/// A byte flipped late in a long level-1 member (found by `generated_files_agree`): ISA-L on
/// its own thread read its decoder in 1 MiB calls, and a decoder that fails inside a call
/// hands out nothing of it, so it gave 0 bytes and "decompressed byte 0" where the inline
/// paths gave 262144 bytes and said so. Seeds 1 and 9 failed before the fix.
#[test]
fn late_flip_in_a_long_member_same_message_on_every_path() {
    for seed in [1u64, 9, 12] {
        let mut gz = gzip(&text(280_431, seed), 1);
        gz.extend(gzip(b"", 6));
        let n = gz.len();
        gz[n * 975 / 1000] ^= 124;
        assert!(!agree(&gz, &format!("late flip, seed {seed}")));
    }
}
