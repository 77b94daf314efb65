//! CSV records rewritten as PostgreSQL's COPY text format (tab-separated, backslash escapes,
//! NULL `\N`): what csvload sends a PostgreSQL server, whose COPY parses text cheaper than CSV
//! (docs/benchmarks.md, "What csvload sends").
//!
//! The fields are read exactly as `COPY ... FROM STDIN WITH (FORMAT csv, NULL '...')` reads
//! them (PostgreSQL's `CopyReadAttributesCSV`): a quote opens a quoted section anywhere in a
//! field, `""` inside one is a quote, a field is NULL when no quote appeared in it and its
//! bytes are the NULL string. So a file loads the same values either way, NULL and `''`
//! kept apart. Each record keeps its own line ending (`\n`, `\r\n`) and a line `\.` stays
//! as it is, so the server meets the same ends of lines and the same end-of-data marker and
//! refuses what it would refuse in CSV. Hand-written: no crate writes COPY text from CSV.

use super::records::byte_masks;

/// The bytes that need a look: outside quotes all six, inside quotes all but the comma.
const NEEDLES: [u8; 6] = [b',', b'"', b'\\', b'\t', b'\n', b'\r'];

/// Bit `k`: byte `pos + k` of `data` is one of [`NEEDLES`]; the comma bits apart.
#[inline]
fn block_masks(data: &[u8], pos: usize) -> (u64, u64) {
    if pos + 64 <= data.len() {
        let [c, q, b, t, n, r] = byte_masks(&data[pos..], NEEDLES);
        (c | q | b | t | n | r, c)
    } else {
        let (mut all, mut comma) = (0u64, 0u64);
        for (k, &x) in data[pos..].iter().enumerate() {
            if NEEDLES.contains(&x) {
                all |= 1 << k;
                comma |= u64::from(x == b',') << k;
            }
        }
        (all, comma)
    }
}

/// Length of a line `\.` (with its line ending) at `data[i..]`, or 0.
#[inline]
fn end_marker(data: &[u8], i: usize) -> usize {
    if data.get(i) != Some(&b'\\') || data.get(i + 1) != Some(&b'.') {
        return 0;
    }
    match (data.get(i + 2), data.get(i + 3)) {
        (None, _) => 2,
        (Some(b'\n'), _) => 3,
        (Some(b'\r'), Some(b'\n')) => 4,
        (Some(b'\r'), _) => 3,
        _ => 0,
    }
}

/// Appends `data`, whole CSV records (the last one may lack its line ending), to `out` as COPY
/// text with NULL `\N`, reading NULL as the unquoted field `null`. `Err(at)`: a quoted field
/// opened at or after offset `at` of `data` is not closed by its end (PostgreSQL's
/// "unterminated CSV quoted field"); `out` then holds a part.
///
/// One pass over 64-byte blocks: a mask of the bytes that need a look, and the bytes
/// between them copied in runs.
pub fn csv_to_copy_text(data: &[u8], null: &[u8], out: &mut Vec<u8>) -> Result<(), usize> {
    out.reserve(data.len() + data.len() / 16 + 16);
    // Bytes before `run` are written; bytes before `done` are consumed (a look ahead past a
    // special byte: the second quote of `""`, the LF of CR LF, a line `\.`).
    let mut run = end_marker(data, 0);
    out.extend_from_slice(&data[..run]);
    let mut done = run;
    // The current field: where its bytes start in `data` and its text in `out`, and whether
    // a quote appeared in it (then it is never NULL).
    let mut field_in = run;
    let mut field_out = out.len();
    let mut saw_quote = false;
    let mut in_quote = false;
    // Nothing of a record read since the last line ending.
    let mut at_line_start = true;
    let end_field = |out: &mut Vec<u8>, field_in: usize, field_out: usize, end: usize, q: bool| {
        if !q && end - field_in == null.len() && (null.is_empty() || &data[field_in..end] == null) {
            out.truncate(field_out);
            out.extend_from_slice(b"\\N");
        }
    };
    // Blocks of commas only (most of a clean record) go whole when no field in them can be
    // NULL but the first: with NULL the empty field, no two commas side by side; with a NULL
    // token holding a byte of NEEDLES, never (such a field is not commas-only).
    let null_empty = null.is_empty();
    let null_special = null.iter().any(|b| NEEDLES.contains(b));
    let mut pos = 0;
    while pos < data.len() {
        let (mut m, comma) = block_masks(data, pos);
        if in_quote {
            m &= !comma;
        } else if m == comma
            && comma != 0
            && done <= pos
            && pos + 64 <= data.len()
            && ((null_empty && comma & (comma << 1) == 0) || null_special)
        {
            let first = pos + comma.trailing_zeros() as usize;
            let first_null =
                !saw_quote && first - field_in == null.len() && data[field_in..first] == *null;
            if !first_null {
                copy_run(out, data, run, pos);
                let base = out.len();
                out.extend_from_slice(&data[pos..pos + 64]);
                let mut c = comma;
                while c != 0 {
                    out[base + c.trailing_zeros() as usize] = b'\t';
                    c &= c - 1;
                }
                let last = 63 - comma.leading_zeros() as usize;
                field_in = pos + last + 1;
                field_out = base + last + 1;
                saw_quote = false;
                at_line_start = false;
                run = pos + 64;
                done = run;
                pos += 64;
                continue;
            }
        }
        while m != 0 {
            let j = pos + m.trailing_zeros() as usize;
            m &= m - 1;
            if j < done {
                continue;
            }
            let c = data[j];
            if in_quote && c == b',' {
                continue;
            }
            copy_run(out, data, run, j);
            run = j + 1;
            at_line_start = false;
            match (c, in_quote) {
                (b'"', true) => {
                    if data.get(j + 1) == Some(&b'"') {
                        // `""`: the second quote begins the next run, so one is written
                        // (a JSON document has two per string; no write of its own).
                        if j + 1 < pos + 64 {
                            m &= m - 1; // the second quote's bit, the lowest left
                        }
                        done = j + 2;
                        continue;
                    } else {
                        in_quote = false;
                        // Commas count again from here in this block.
                        m |= comma & ((!0u64 << (j - pos)) << 1);
                    }
                }
                (b'"', false) => {
                    in_quote = true;
                    saw_quote = true;
                    m &= !comma;
                }
                (b'\\', _) => out.extend_from_slice(b"\\\\"),
                (b'\t', _) => out.extend_from_slice(b"\\t"),
                (b'\n', true) => out.extend_from_slice(b"\\n"),
                (b'\r', true) => out.extend_from_slice(b"\\r"),
                (b',', _) => {
                    end_field(out, field_in, field_out, j, saw_quote);
                    out.push(b'\t');
                    field_in = run;
                    field_out = out.len();
                    saw_quote = false;
                }
                // A line ending outside quotes: `\n`, `\r\n` or a lone `\r` (which the
                // server reads by COPY's own rules for line endings).
                (_, false) => {
                    end_field(out, field_in, field_out, j, saw_quote);
                    out.push(c);
                    if c == b'\r' && data.get(j + 1) == Some(&b'\n') {
                        out.push(b'\n');
                        run = j + 2;
                    }
                    // A line `\.` is COPY's end of data in both formats: passed on as it is.
                    let k = end_marker(data, run);
                    out.extend_from_slice(&data[run..run + k]);
                    run += k;
                    field_in = run;
                    field_out = out.len();
                    saw_quote = false;
                    at_line_start = true;
                }
                _ => unreachable!("block_masks marks only NEEDLES"),
            }
            done = run;
        }
        pos += 64;
    }
    if in_quote {
        return Err(field_in);
    }
    out.extend_from_slice(&data[run..]);
    // The last record, when it has no line ending.
    if field_in < data.len() || !at_line_start {
        end_field(out, field_in, field_out, data.len(), saw_quote);
    }
    Ok(())
}

/// Appends `data[from..to]` to `out`; a short run (most fields) by one 32-byte copy, of
/// which the bytes past `to` are overwritten next (a call to memcpy per field cost more
/// than the rest of the rewrite).
#[inline(always)]
fn copy_run(out: &mut Vec<u8>, data: &[u8], from: usize, to: usize) {
    let n = to - from;
    if n <= 32 && from + 32 <= data.len() {
        out.reserve(32);
        // SAFETY: `data[from..from + 32]` is in bounds (checked above) and `out` has room
        // for 32 more bytes (reserved); only the `n` bytes copied from `data[from..to]`
        // become part of `out`.
        unsafe {
            let dst = out.as_mut_ptr().add(out.len());
            std::ptr::copy_nonoverlapping(data.as_ptr().add(from), dst, 32);
            out.set_len(out.len() + n);
        }
    } else {
        out.extend_from_slice(&data[from..to]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csv::csvout::FieldWriter;
    use crate::pg::dump::copytext::{escape, unescape};
    use proptest::prelude::*;

    fn conv(data: &[u8], null: &[u8]) -> String {
        let mut out = Vec::new();
        csv_to_copy_text(data, null, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn fields_as_copy_csv_reads_them() {
        assert_eq!(conv(b"1,,\"\",a,\n", b""), "1\t\\N\t\ta\t\\N\n");
        // Quotes open anywhere in a field; "" inside is a quote; NULL only unquoted.
        assert_eq!(conv(b"ab\"c,d\"e,\"x\"\"y\"\n", b""), "abc,de\tx\"y\n");
        assert_eq!(
            conv(b"\\N,\"\\N\",\\\\\n", b"\\N"),
            "\\N\t\\\\N\t\\\\\\\\\n"
        );
        // Escapes for what text format reads specially.
        assert_eq!(conv(b"\"a\tb\nc\rd\\e\"\n", b""), "a\\tb\\nc\\rd\\\\e\n");
        assert_eq!(conv(b"a\tb\n", b""), "a\\tb\n");
        // Line endings kept; the last record may lack one; an empty record is one NULL.
        assert_eq!(conv(b"a,\r\nb,c", b""), "a\t\\N\r\nb\tc");
        assert_eq!(conv(b"\n\n", b""), "\\N\n\\N\n");
        assert_eq!(conv(b"", b""), "");
        // `\.` alone on a line stays COPY's end of data; elsewhere it is data.
        assert_eq!(conv(b"\\.\n\\.x\n\"\\.\"\n", b""), "\\.\n\\\\.x\n\\\\.\n");
        assert_eq!(conv(b"a\n\\.\r\n", b""), "a\n\\.\r\n");
        assert_eq!(conv(b"a\n\\.", b""), "a\n\\.");
        let mut out = Vec::new();
        assert_eq!(csv_to_copy_text(b"a,\"b\n", b"", &mut out), Err(2));
    }

    /// Reads COPY text records back: each field's value (None for NULL).
    fn read_text(t: &[u8]) -> Vec<Vec<Option<Vec<u8>>>> {
        let mut recs = Vec::new();
        for line in t.split(|&b| b == b'\n') {
            recs.push(
                line.split(|&b| b == b'\t')
                    .map(|f| {
                        (f != b"\\N").then(|| {
                            let mut v = Vec::new();
                            unescape(f, &mut v);
                            v
                        })
                    })
                    .collect(),
            );
        }
        recs.pop();
        recs
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Clean, comma-dense records (the blocks of commas only go whole), with NULLs and
        /// empty strings now and then: the same values as the byte-by-byte reading.
        #[test]
        fn comma_blocks_agree(
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![
                        8 => proptest::option::of(proptest::collection::vec(
                            prop_oneof![Just(b'a'), Just(b'7'), Just(b'N'), Just(b' ')], 1..9)),
                        1 => Just(Some(Vec::new())),
                        1 => Just(None),
                    ],
                    1..40,
                ),
                1..8,
            ),
            null in prop_oneof![Just(&b""[..]), Just(&b"\\N"[..]), Just(&b"NULL"[..])],
        ) {
            let fw = FieldWriter::new(null);
            let mut csv = Vec::new();
            for r in &rows {
                for (k, v) in r.iter().enumerate() {
                    if k > 0 {
                        csv.push(b',');
                    }
                    fw.field(&mut csv, v.as_deref());
                }
                csv.push(b'\n');
            }
            let mut out = Vec::new();
            csv_to_copy_text(&csv, null, &mut out).unwrap();
            prop_assert_eq!(read_text(&out), rows);
        }

        /// Any values, written as CSV (quoted or not, as the writer chooses) and rewritten as
        /// COPY text, read back as the same values, NULL and '' apart; the blocks of 64
        /// bytes meet quotes, escapes and ends anywhere.
        #[test]
        fn values_survive(
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::option::of(proptest::collection::vec(
                        prop_oneof![
                            Just(b','), Just(b'"'), Just(b'\\'), Just(b'\t'), Just(b'\n'),
                            Just(b'\r'), Just(b'.'), Just(b'N'), Just(b'a'), Just(0xc3),
                            Just(0xa9), Just(b' ')
                        ],
                        0..80,
                    )),
                    1..6,
                ),
                0..12,
            ),
            null in prop_oneof![Just(&b""[..]), Just(&b"\\N"[..]), Just(&b"NULL"[..])],
        ) {
            let fw = FieldWriter::new(null);
            let mut csv = Vec::new();
            let mut want = Vec::new();
            for r in &rows {
                // A lone `\.` record would end the data: not a value test.
                if r.len() == 1 && r[0].as_deref() == Some(b"\\.") {
                    continue;
                }
                for (k, v) in r.iter().enumerate() {
                    if k > 0 {
                        csv.push(b',');
                    }
                    fw.field(&mut csv, v.as_deref());
                }
                csv.push(b'\n');
                want.push(r.clone());
            }
            let mut out = Vec::new();
            csv_to_copy_text(&csv, null, &mut out).unwrap();
            prop_assert_eq!(read_text(&out), want.clone());
            // And as the server itself would write them.
            let mut text = Vec::new();
            for r in &want {
                for (k, v) in r.iter().enumerate() {
                    if k > 0 {
                        text.push(b'\t');
                    }
                    escape(v.as_deref(), &mut text);
                }
                text.push(b'\n');
            }
            prop_assert_eq!(read_text(&text), want);
        }
    }
}
