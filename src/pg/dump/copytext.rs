//! Decoding COPY text rows (what pg_dump writes between `COPY ... FROM stdin;` and `\.`) into
//! CSV rows under the dumpshard contract. This is the hot loop of `pgdump2csv`.
//!
//! Rules (PostgreSQL `CopyReadAttributesText`): fields are split on unescaped TAB; a field
//! that is exactly `\N` before de-escaping is NULL; `\b \f \n \r \t \v` are control
//! characters, `\` + 1-3 octal digits and `\x` + 1-2 hex digits are bytes, any other `\c` is
//! `c`. pg_dump never writes a backslash at the end of a line, so that is reported as damage.

use crate::csv::csvout::FieldWriter;

/// The searcher for an empty field between two others, built once: `memmem::find` would
/// build one for every row (a profile of the bench dump put that at 2% of the conversion).
static TAB_TAB: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\t\t"));

/// A row that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// 0-based index of the row within the converted block.
    pub row: u64,
    /// Offset of the row's first byte within the block.
    pub offset: usize,
    /// What is wrong.
    pub msg: String,
}

/// Converts COPY text rows of one table to CSV.
#[derive(Debug, Clone)]
pub struct CopyConverter {
    ncols: usize,
    fw: FieldWriter,
    crlf: bool,
}

impl CopyConverter {
    /// For a table with `ncols` columns, writing NULL as `fw`'s token.
    pub fn new(ncols: usize, fw: FieldWriter) -> CopyConverter {
        CopyConverter {
            ncols,
            fw,
            crlf: false,
        }
    }

    /// Rows end in CR LF (`true`) or LF. PostgreSQL takes this from the block's first row and
    /// refuses a row that ends otherwise ("literal carriage return found in data", "literal
    /// newline found in data"), so a CR before LF is only a line end in a CR LF block.
    pub fn with_crlf(mut self, crlf: bool) -> CopyConverter {
        self.crlf = crlf;
        self
    }

    /// Converts `block`, a run of whole lines each ending in `\n` (`\r\n` with
    /// [`CopyConverter::with_crlf`]), appending CSV to `out`.
    /// Returns the number of rows. Reuses `scratch` for de-escaped values.
    pub fn convert(&self, block: &[u8], out: &mut Vec<u8>) -> Result<u64, RowError> {
        let mut scratch = Vec::new();
        let mut rows = 0u64;
        let mut start = 0usize;
        out.reserve(block.len() + block.len() / 8);
        // Next `\\`, `,` or `"` and next CR at or after `start`: found once per occurrence
        // over the whole block rather than searched for in every line, since most lines
        // have none.
        let find = |from: usize, f: fn(&[u8]) -> Option<usize>| {
            f(&block[from..]).map_or(block.len(), |k| from + k)
        };
        let special = |b: &[u8]| memchr::memchr3(b'\\', b',', b'"', b);
        let cr = |b: &[u8]| memchr::memchr(b'\r', b);
        let (mut next_sp, mut next_cr) = (find(0, special), find(0, cr));
        for nl in memchr::memchr_iter(b'\n', block) {
            let mut end = nl;
            if self.crlf {
                if end == start || block[end - 1] != b'\r' {
                    return Err(RowError {
                        row: rows,
                        offset: start,
                        msg: "row ends in LF where the block's first row ends in CR LF (literal newline in COPY data)".into(),
                    });
                }
                end -= 1;
            }
            if next_sp < start {
                next_sp = find(start, special);
            }
            if next_cr < start {
                next_cr = find(start, cr);
            }
            let line = &block[start..end];
            let res = if next_sp >= end && next_cr >= end {
                self.plain_row(line, out)
            } else {
                self.row(line, out, &mut scratch)
            };
            res.map_err(|msg| RowError {
                row: rows,
                offset: start,
                msg,
            })?;
            rows += 1;
            start = nl + 1;
        }
        debug_assert_eq!(start, block.len(), "blocks hold whole lines");
        Ok(rows)
    }

    /// A row with no backslash (so no NULL and no escape), no `,` `"` or CR: its fields can
    /// be copied as they are, TABs becoming commas.
    fn plain_row(&self, line: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        if self.ncols == 0 {
            return if line.is_empty() {
                out.push(b'\n');
                Ok(())
            } else {
                Err("data in a row of a table with no columns".into())
            };
        }
        let has_empty = line.is_empty()
            || line[0] == b'\t'
            || line[line.len() - 1] == b'\t'
            || TAB_TAB.find(line).is_some();
        if has_empty || !self.fw.null().is_empty() {
            // Empty strings must be quoted, and values equal to a NULL token too.
            let mut n = 0usize;
            let mut s = 0usize;
            for t in memchr::memchr_iter(b'\t', line).chain(std::iter::once(line.len())) {
                let f = &line[s..t];
                if n > 0 {
                    out.push(b',');
                }
                self.fw.field(out, Some(f));
                n += 1;
                s = t + 1;
            }
            if n != self.ncols {
                return Err(count_msg(n, self.ncols));
            }
        } else {
            // Two branch-free passes the compiler vectorises: count TABs, copy with
            // TAB -> ','. Much faster than a memchr call per short field.
            let n = line.iter().filter(|&&b| b == b'\t').count() + 1;
            if n != self.ncols {
                return Err(count_msg(n, self.ncols));
            }
            out.extend(line.iter().map(|&b| if b == b'\t' { b',' } else { b }));
        }
        out.push(b'\n');
        Ok(())
    }

    fn row(&self, line: &[u8], out: &mut Vec<u8>, scratch: &mut Vec<u8>) -> Result<(), String> {
        if memchr::memchr(b'\r', line).is_some() {
            return Err("literal carriage return in COPY data (pg_dump writes it as \\r)".into());
        }
        let mut n = 0usize;
        let mut i = 0usize;
        loop {
            // Find the end of this field: the next TAB not consumed by a backslash.
            let fstart = i;
            let mut has_escape = false;
            while i < line.len() && line[i] != b'\t' {
                if line[i] == b'\\' {
                    has_escape = true;
                    if i + 1 >= line.len() {
                        return Err("backslash at the end of a line (damaged COPY data)".into());
                    }
                    i += 2;
                } else {
                    i += 1;
                }
            }
            let raw = &line[fstart..i];
            if n > 0 {
                out.push(b',');
            }
            if raw == b"\\N" {
                out.extend_from_slice(self.fw.null());
            } else if has_escape {
                scratch.clear();
                unescape(raw, scratch);
                self.fw.field(out, Some(scratch));
            } else {
                self.fw.field(out, Some(raw));
            }
            n += 1;
            if i >= line.len() {
                break;
            }
            i += 1; // the TAB
        }
        if n != self.ncols {
            return Err(count_msg(n, self.ncols));
        }
        out.push(b'\n');
        Ok(())
    }
}

fn count_msg(got: usize, want: usize) -> String {
    if got > want {
        format!(
            "row has {got} fields but the COPY column list has {want} (extra data after the last column)"
        )
    } else {
        format!(
            "row has {got} fields but the COPY column list has {want} (missing data for a column)"
        )
    }
}

/// De-escapes one COPY text field (which must not end in a lone backslash).
pub fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < raw.len() {
        let Some(k) = memchr::memchr(b'\\', &raw[i..]) else {
            out.extend_from_slice(&raw[i..]);
            return;
        };
        out.extend_from_slice(&raw[i..i + k]);
        i += k + 1;
        let Some(&c) = raw.get(i) else {
            out.push(b'\\');
            return;
        };
        i += 1;
        match c {
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                for _ in 0..2 {
                    match raw.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + (d - b'0') as u32;
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            b'x' if raw.get(i).is_some_and(u8::is_ascii_hexdigit) => {
                let mut v = 0u32;
                for _ in 0..2 {
                    match raw.get(i) {
                        Some(d) if d.is_ascii_hexdigit() => {
                            v = v * 16 + (*d as char).to_digit(16).unwrap_or(0);
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
}

/// Encodes a value the way the server writes COPY text (`CopyAttributeOutText`); the inverse
/// of [`unescape`] for tests and fixtures.
pub fn escape(v: Option<&[u8]>, out: &mut Vec<u8>) {
    let Some(v) = v else {
        out.extend_from_slice(b"\\N");
        return;
    };
    for &b in v {
        match b {
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            11 => out.extend_from_slice(b"\\v"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(ncols: usize, null: &[u8], block: &[u8]) -> Result<(u64, Vec<u8>), RowError> {
        let crlf = block
            .iter()
            .position(|&b| b == b'\n')
            .is_some_and(|k| k > 0 && block[k - 1] == b'\r');
        let c = CopyConverter::new(ncols, FieldWriter::new(null)).with_crlf(crlf);
        let mut out = Vec::new();
        c.convert(block, &mut out).map(|n| (n, out))
    }

    #[test]
    fn rows() {
        let (n, out) = conv(3, b"", b"1\tabc\t\n2\t\\N\tx,y\n3\ta\\tb\\\\c\\nd\t\\\\.\n").unwrap();
        assert_eq!(n, 3);
        assert_eq!(out, b"1,abc,\"\"\n2,,\"x,y\"\n3,\"a\tb\\c\nd\",\"\\.\"\n");
        let (_, out) = conv(2, b"", b"\\\\N\t\\101\\x41\\x4g\\q\r\n").unwrap();
        assert_eq!(out, b"\\N,AA\x04gq\n");
        let (_, out) = conv(2, b"\\N", b"\\N\t\\\\N\n").unwrap();
        assert_eq!(out, b"\\N,\"\\N\"\n");
        let (_, out) = conv(2, b"", b"a\\\tb\tc\n").unwrap();
        assert_eq!(out, b"a\tb,c\n");
        let (_, out) = conv(1, b"", b"\"q\"\n").unwrap();
        assert_eq!(out, b"\"\"\"q\"\"\"\n");
    }

    #[test]
    fn errors() {
        let e = conv(2, b"", b"1\t2\n1\t2\t3\n").unwrap_err();
        assert_eq!((e.row, e.offset), (1, 4));
        assert!(e.msg.contains("extra data"), "{}", e.msg);
        let e = conv(2, b"", b"1\n").unwrap_err();
        assert!(e.msg.contains("missing data"), "{}", e.msg);
        assert!(conv(1, b"", b"ab\\\n").is_err());
        assert!(conv(2, b"", b"a\rb\tc\n").is_err());
        // The first row sets the line end, as in PostgreSQL.
        let e = conv(2, b"", b"1\t2\n3\t4\r\n").unwrap_err();
        assert_eq!(e.row, 1);
        assert!(e.msg.contains("carriage return"), "{}", e.msg);
        let e = conv(2, b"", b"1\t2\r\n3\t4\n").unwrap_err();
        assert!(e.msg.contains("newline"), "{}", e.msg);
        assert_eq!(conv(2, b"", b"1\t2\r\n3\t4\r\n").unwrap().0, 2);
    }

    /// Empty strings are not NULLs, wherever they are in a row: a leading empty string
    /// turning into NULL was caught only by a random property test, in 7 of 8 runs (issue 19,
    /// Tests (b)). Fixed cases for the first field, the last, a one-column row, a row of
    /// empties, and both NULL tokens.
    #[test]
    fn empty_strings_stay_empty_strings() {
        // NULL is the unquoted empty field: an empty string is `""`.
        let cases: [(usize, &[u8], &[u8]); 7] = [
            (2, b"\tx\n", b"\"\",x\n"),
            (2, b"x\t\n", b"x,\"\"\n"),
            (1, b"\n", b"\"\"\n"),
            (3, b"\t\t\n", b"\"\",\"\",\"\"\n"),
            (2, b"\\N\t\n", b",\"\"\n"),
            (2, b"\t\\N\n", b"\"\",\n"),
            (2, b"\tx\n\ty\n", b"\"\",x\n\"\",y\n"),
        ];
        for (n, block, want) in cases {
            let (_, out) = conv(n, b"", block).unwrap();
            assert_eq!(out, want, "{}", String::from_utf8_lossy(block));
        }
        // NULL is `\N`: an empty string is still written quoted, NULL is `\N`.
        let (_, out) = conv(2, b"\\N", b"\t\\N\n").unwrap();
        assert_eq!(out, b"\"\",\\N\n");
        let (_, out) = conv(2, b"\\N", b"\\N\t\n").unwrap();
        assert_eq!(out, b"\\N,\"\"\n");
    }

    #[test]
    fn zero_columns() {
        let (n, out) = conv(0, b"", b"\n\n").unwrap();
        assert_eq!((n, out), (2, b"\n\n".to_vec()));
        assert!(conv(0, b"", b"x\n").is_err());
    }
}
