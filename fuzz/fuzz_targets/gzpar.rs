//! Differential fuzzing of the parallel inflate (`gzpar`, rapidgzip-core) and of ISA-L's
//! inflate (`input::open_with`, src/io/input/isal.rs) against the sequential path (flate2 on
//! zlib-rs, `input::sequential_gzip`): on every input all succeed with the same bytes, or all
//! fail, with the same truncation flag, a position, and the same bytes before the error (ISA-L:
//! zlib-rs's message word for word).
//!
//! Input: one flag byte, then the rest.
//! - Bit 0 clear: the rest is the gzip file itself (its first two bytes forced to the magic):
//!   headers, optional fields, small members, trailers.
//! - Bit 0 set: a large built file (several MiB compressed, so the crate takes its parallel
//!   paths) is edited by the rest: bits 1-2 of the flag pick the file (one gzip -6 stream,
//!   levels 1 and 9 members with an empty one between, 1 MiB blocks, BGZF); then records of 5
//!   bytes (4-byte little-endian position modulo the length, XOR byte; XOR 0 = cut there);
//!   the bytes after the last whole record are appended.
#![no_main]

use dumpshard::io::input::{self, gzpar};
use libfuzzer_sys::fuzz_target;
use std::io::{Read, Write};
use std::sync::OnceLock;

fn drain(mut r: impl Read) -> (Vec<u8>, Option<String>) {
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

fn text(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let words: [&[u8]; 6] = [b"alpha,", b"beta,", b"\"x, y\",", b"NULL,", b"customer ", b"\n"];
    let mut v = Vec::with_capacity(len + 16);
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x % 4 == 0 {
            v.extend_from_slice(format!("{}", x % 100_000).as_bytes());
        } else {
            v.extend_from_slice(words[(x >> 8) as usize % words.len()]);
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

fn bgzf(data: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    let mut chunks: Vec<&[u8]> = data.chunks(65280).collect();
    chunks.push(b"");
    for b in chunks {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(b).unwrap();
        let d = e.finish().unwrap();
        let bsize = (18 + d.len() + 8 - 1) as u16;
        v.extend_from_slice(&[0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0]);
        v.extend_from_slice(&bsize.to_le_bytes());
        v.extend_from_slice(&d);
        let mut crc = flate2::Crc::new();
        crc.update(b);
        v.extend_from_slice(&crc.sum().to_le_bytes());
        v.extend_from_slice(&(b.len() as u32).to_le_bytes());
    }
    v
}

fn big(k: usize) -> &'static [u8] {
    static BIG: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    &BIG.get_or_init(|| {
        let data = text(6 << 20);
        let mut two = gzip(&data[..2 << 20], 1);
        two.extend(gzip(b"", 6));
        two.extend(gzip(&data[2 << 20..], 9));
        let mut blocks = dumpshard::io::gzblocks::GzBlocks::new(Vec::new(), 6, None);
        blocks.write_all(&data).unwrap();
        vec![gzip(&data, 6), two, blocks.finish().unwrap(), bgzf(&data)]
    })[k]
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut gz = if flags & 1 == 0 {
        rest.to_vec()
    } else {
        let mut gz = big((flags as usize >> 1) & 3).to_vec();
        let mut recs = rest.chunks_exact(5);
        for r in &mut recs {
            let at = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as usize % gz.len().max(1);
            if r[4] == 0 {
                gz.truncate(at);
            } else {
                gz[at] ^= r[4];
            }
        }
        gz.extend_from_slice(recs.remainder());
        gz
    };
    if gz.len() < 2 {
        return;
    }
    gz[0] = 0x1f;
    gz[1] = 0x8b;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("in.gz");
    std::fs::write(&p, &gz).unwrap();
    let (so, se) = drain(input::sequential_gzip(std::fs::File::open(&p).unwrap()));
    // ISA-L (what the tools open a gzip file with): zlib-rs's words exactly on an error. The
    // one allowed difference (src/io/input/isal.rs): a Huffman code that does not fill its
    // code space, which zlib-rs refuses ("invalid ... set") and ISA-L takes.
    let (io, ie) = drain(input::open_with(Some(&p), false).unwrap().reader);
    let lenient = io.len() >= so.len()
        && ie.is_none()
        && se.as_deref().is_some_and(|e| e.contains("invalid") && e.contains(" set"));
    if !lenient {
        assert_eq!(se, ie, "ISA-L's message differs from zlib-rs's");
        let n = so.len().min(io.len());
        assert!(so[..n] == io[..n], "ISA-L's bytes differ");
        if se.is_none() {
            assert!(so.len() == io.len(), "ISA-L's length differs");
        }
    }
    let (po, pe) = drain(gzpar::reader(std::fs::File::open(&p).unwrap(), 2).unwrap());
    match (&se, &pe) {
        (None, None) => assert!(so == po, "outputs differ: {} vs {} bytes", so.len(), po.len()),
        (Some(s), Some(e)) => {
            let t = |m: &str| m.contains("(the file is truncated)");
            assert_eq!(t(s), t(e), "truncation flag: sequential {s:?}, parallel {e:?}");
            assert!(e.contains("compressed byte") || e.contains("bytes after"), "{e}");
            let n = so.len().min(po.len());
            assert!(so[..n] == po[..n], "bytes before the error differ");
        }
        _ => panic!("one path failed: sequential {se:?}, parallel {pe:?}"),
    }
});
