//! Fuzzes the COPY text decoder (`pgdump::copytext`) against a plain reference decoder: every
//! row it accepts must come out as one CSV record whose fields, read back with the CSV
//! splitter, are the de-escaped COPY fields (NULL as the NULL token, unquoted).
//!
//! Input: one flag byte (bits 0-3: column count; bit 4: NULL written as `\N`), then the block.
#![no_main]

use dumpshard::csvout::FieldWriter;
use dumpshard::pgdump::copytext::{CopyConverter, unescape};
use dumpshard::records::{ChunkReader, split_fields};
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
    let mut want = Vec::new();
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
            want.clear();
            unescape(r, &mut want);
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
