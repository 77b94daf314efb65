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
            let res = if next_cr < end {
                Err("literal carriage return in COPY data (pg_dump writes it as \\r)".into())
            } else if next_sp >= end {
                self.plain_row(line, out)
            } else {
                self.row(line, next_sp - start, out, &mut scratch)
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
        let n = self.clean_fields(line, true, out);
        if n != self.ncols {
            return Err(count_msg(n, self.ncols));
        }
        out.push(b'\n');
        Ok(())
    }

    /// Writes `seg`, whole fields of a row with no backslash, `,` `"` or CR, and returns how
    /// many: with `last` the row's last fields (`a\tb`), else fields each followed by its TAB
    /// (`a\tb\t`, written `a,b,`, the comma before the next field).
    #[inline]
    fn clean_fields(&self, seg: &[u8], last: bool, out: &mut Vec<u8>) -> usize {
        let has_empty = (last && seg.is_empty())
            || seg.first() == Some(&b'\t')
            || (last && seg.last() == Some(&b'\t'))
            || TAB_TAB.find(seg).is_some();
        if has_empty || !self.fw.null().is_empty() {
            // Empty strings must be quoted, and values equal to a NULL token too.
            let mut n = 0usize;
            let mut s = 0usize;
            let tabs = memchr::memchr_iter(b'\t', seg);
            for t in tabs.chain(last.then_some(seg.len())) {
                self.fw.field(out, Some(&seg[s..t]));
                if t < seg.len() {
                    out.push(b',');
                }
                n += 1;
                s = t + 1;
            }
            n
        } else {
            // Two branch-free passes the compiler vectorises: count TABs, copy with
            // TAB -> ','. Much faster than a memchr call per short field.
            let n = seg.iter().filter(|&&b| b == b'\t').count() + usize::from(last);
            out.extend(seg.iter().map(|&b| if b == b'\t' { b',' } else { b }));
            n
        }
    }

    /// A row with a backslash, `,` or `"` (the first at `first`) and no CR. The fields around
    /// the ones holding those bytes are clean and go through [`Self::clean_fields`] in runs:
    /// a quoted name in a row of plain columns costs two searches and that field's quoting,
    /// not a byte-at-a-time walk of the whole row (3.5x the CPU of clean rows before).
    fn row(
        &self,
        line: &[u8],
        first: usize,
        out: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
    ) -> Result<(), String> {
        let mut n = 0usize;
        let mut pos = 0usize; // a field start
        let mut special = Some(first);
        loop {
            let Some(sp) = special else {
                n += self.clean_fields(&line[pos..], true, out);
                break;
            };
            // The field holding `sp` starts after the last TAB before it: no backslash lies
            // between `pos` and `sp`, so every TAB there separates fields.
            let fs = memchr::memrchr(b'\t', &line[pos..sp]).map_or(pos, |t| pos + t + 1);
            n += self.clean_fields(&line[pos..fs], false, out);
            // Its end: the next TAB not taken by a backslash.
            let mut i = fs;
            let mut has_escape = false;
            loop {
                match memchr::memchr2(b'\t', b'\\', &line[i..]) {
                    None => {
                        i = line.len();
                        break;
                    }
                    Some(k) if line[i + k] == b'\t' => {
                        i += k;
                        break;
                    }
                    Some(k) => {
                        has_escape = true;
                        if i + k + 1 >= line.len() {
                            return Err("backslash at the end of a line (damaged COPY data)".into());
                        }
                        i += k + 2;
                    }
                }
            }
            let raw = &line[fs..i];
            if raw == b"\\N" {
                out.extend_from_slice(self.fw.null());
            } else if has_escape {
                scratch.clear();
                unescape(raw, scratch);
                self.fw.field(out, Some(scratch));
            } else {
                // A `,` or `"` is in it: quoted whatever the NULL token.
                crate::csv::csvout::write_quoted(out, raw);
            }
            n += 1;
            if i >= line.len() {
                break;
            }
            out.push(b',');
            pos = i + 1;
            special = memchr::memchr3(b'\\', b',', b'"', &line[pos..]).map(|k| pos + k);
        }
        if n != self.ncols {
            return Err(count_msg(n, self.ncols));
        }
        out.push(b'\n');
        Ok(())
    }

    /// The byte-at-a-time row decoder the fast paths are tested against.
    #[cfg(test)]
    fn row_strict(
        &self,
        line: &[u8],
        out: &mut Vec<u8>,
        scratch: &mut Vec<u8>,
    ) -> Result<(), String> {
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

/// [`CopyConverter::convert`] with every row through the strict decoder: the reference.
#[cfg(test)]
pub(crate) fn convert_strict(
    c: &CopyConverter,
    block: &[u8],
    out: &mut Vec<u8>,
) -> Result<u64, RowError> {
    let mut scratch = Vec::new();
    let mut rows = 0u64;
    let mut start = 0usize;
    for nl in memchr::memchr_iter(b'\n', block) {
        let mut end = nl;
        if c.crlf {
            if end == start || block[end - 1] != b'\r' {
                return Err(RowError {
                    row: rows,
                    offset: start,
                    msg: "row ends in LF where the block's first row ends in CR LF (literal newline in COPY data)".into(),
                });
            }
            end -= 1;
        }
        let line = &block[start..end];
        let plain = memchr::memchr3(b'\\', b',', b'"', line).is_none()
            && memchr::memchr(b'\r', line).is_none();
        let res = if c.ncols == 0 && plain {
            c.plain_row(line, out)
        } else {
            c.row_strict(line, out, &mut scratch)
        };
        res.map_err(|msg| RowError {
            row: rows,
            offset: start,
            msg,
        })?;
        rows += 1;
        start = nl + 1;
    }
    Ok(rows)
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The run-wise row decoder against the byte-at-a-time one, on rows whose TABs,
        /// backslashes, commas, quotes, CRs and 0xff bytes fall anywhere (escaped TABs and
        /// CRs, `\N` and `\.`, damaged rows and wrong field counts included), with each NULL
        /// token and line end: the same CSV, or the same error at the same row.
        #[test]
        fn runs_agree_with_the_strict_decoder(
            rows in proptest::strategy::Strategy::prop_flat_map(1usize..6, |n| proptest::collection::vec(
                proptest::collection::vec(proptest::collection::vec(proptest::sample::select(
                    vec![b'a', b'a', b'\\', b',', b'"', b'N', b'.', b'n', b't', b'\r', b'\t', 0xff]),
                    0..12), n), 1..4)),
            null in proptest::sample::select(vec![&b""[..], b"\\N", b"a"]),
            crlf: bool,
            ncols_off in 0usize..3,
        ) {
            use proptest::prelude::*;
            let mut block = Vec::new();
            for row in &rows {
                block.extend_from_slice(&row.join(&b'\t'));
                block.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            // Mostly the rows' own field count; sometimes one less, or none.
            let ncols = match ncols_off { 0 | 1 => rows[0].len(), _ => rows[0].len() - 1 };
            let c = CopyConverter::new(ncols, FieldWriter::new(null)).with_crlf(crlf);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = c.convert(&block, &mut a);
            let rb = convert_strict(&c, &block, &mut b);
            prop_assert_eq!(&ra, &rb, "{:?}", String::from_utf8_lossy(&block));
            if ra.is_ok() {
                prop_assert_eq!(a, b, "{:?}", String::from_utf8_lossy(&block));
            }
        }
    }

    #[test]
    fn zero_columns() {
        let (n, out) = conv(0, b"", b"\n\n").unwrap();
        assert_eq!((n, out), (2, b"\n\n".to_vec()));
        assert!(conv(0, b"", b"x\n").is_err());
    }
}
