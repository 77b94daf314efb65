//! Fuzzes the COPY text decoder (`dump::copytext`) against a plain reference decoder: every
//! row it accepts must come out as one CSV record whose fields, read back with the CSV
//! splitter, are the de-escaped COPY fields (NULL as the NULL token, unquoted).
//!
//! Input: one flag byte (bits 0-3: column count; bit 4: NULL written as `\N`), then the block.
#![no_main]

use dumpshard::csv::csvout::FieldWriter;
use dumpshard::pg::dump::copytext::CopyConverter;
use dumpshard::csv::records::{ChunkReader, split_fields};
use libfuzzer_sys::fuzz_target;

/// The raw fields of one COPY line: split on TABs not escaped by a backslash.
fn raw_fields(line: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'\t' => {
                out.push(&line[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    out.push(&line[start..]);
    out
}

/// De-escapes a COPY text field as `CopyReadAttributesText` does, written apart from the
/// library's `unescape` so the two check each other.
fn reference_unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut it = raw.iter().copied().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(c) = it.next() else {
            out.push(b'\\');
            break;
        };
        let digit = |d: Option<&u8>, radix: u32| d.and_then(|&d| (d as char).to_digit(radix));
        out.push(match c {
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 11,
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                for _ in 0..2 {
                    let Some(d) = digit(it.peek(), 8) else { break };
                    v = v * 8 + d;
                    it.next();
                }
                v as u8
            }
            b'x' if digit(it.peek(), 16).is_some() => {
                let mut v = 0;
                for _ in 0..2 {
                    let Some(d) = digit(it.peek(), 16) else { break };
                    v = v * 16 + d;
                    it.next();
                }
                v as u8
            }
            other => other,
        });
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, block)) = data.split_first() else {
        return;
    };
    // The converter takes whole lines; pgdump2csv never hands it a partial one.
    let Some(last_nl) = block.iter().rposition(|&b| b == b'\n') else {
        return;
    };
    let block = &block[..=last_nl];
    let ncols = (flags & 15) as usize;
    let null: &[u8] = if flags & 16 != 0 { b"\\N" } else { b"" };
    let conv = CopyConverter::new(ncols, FieldWriter::new(null));
    let mut out = Vec::new();
    let Ok(rows) = conv.convert(block, &mut out) else {
        return;
    };
    let lines: Vec<&[u8]> = block[..block.len() - 1].split(|&b| b == b'\n').collect();
    assert_eq!(rows as usize, lines.len());

    let mut rd = ChunkReader::new(&out[..], "out", 1 << 20);
    let chunk = rd.next_chunk(Vec::new()).expect("converter output is CSV");
    let chunk = chunk.unwrap_or_default();
    assert_eq!(chunk.data, out, "one chunk holds all the output");
    assert_eq!(chunk.len(), lines.len(), "one CSV record per row");
    if ncols == 0 {
        assert!(out.iter().all(|&b| b == b'\n'));
        return;
    }
    let mut fields = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let rec = chunk.record(i);
        split_fields(rec, &mut fields).expect("converter output splits");
        let raw = raw_fields(line);
        assert_eq!(fields.len(), raw.len(), "row {i}: field count");
        assert_eq!(fields.len(), ncols, "row {i}: field count");
        for (f, r) in fields.iter().zip(raw) {
            if r == b"\\N" {
                assert!(!f.quoted && f.raw(rec) == null, "row {i}: NULL");
                continue;
            }
            let want = reference_unescape(r);
            assert_eq!(f.value(rec).as_ref(), &want[..], "row {i}: value");
            if want == null {
                assert!(
                    f.quoted,
                    "row {i}: a value equal to the NULL token must be quoted"
                );
            }
        }
    }
});
