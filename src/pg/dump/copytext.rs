//! Decoding COPY text rows (what pg_dump writes between `COPY ... FROM stdin;` and `\.`) into
//! CSV rows under the dumpshard contract. This is the hot loop of `pgdump2csv`.
//!
//! Rules (PostgreSQL `CopyReadAttributesText`): fields are split on unescaped TAB; a field
//! that is exactly `\N` before de-escaping is NULL; `\b \f \n \r \t \v` are control
//! characters, `\` + 1-3 octal digits and `\x` + 1-2 hex digits are bytes, any other `\c` is
//! `c`. pg_dump never writes a backslash at the end of a line, so that is reported as damage.

use crate::csv::csvout::FieldWriter;

/// The error of a row with a CR byte in it (pg_dump writes a CR as `\r`).
const LITERAL_CR: &str = "literal carriage return in COPY data (pg_dump writes it as \\r)";

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
    /// The CPU has what [`CopyConverter::convert_wide`] is compiled for.
    wide: bool,
}

impl CopyConverter {
    /// For a table with `ncols` columns, writing NULL as `fw`'s token.
    pub fn new(ncols: usize, fw: FieldWriter) -> CopyConverter {
        CopyConverter {
            ncols,
            fw,
            crlf: false,
            #[cfg(target_arch = "x86_64")]
            wide: crate::csv::records::wide::available(),
            #[cfg(not(target_arch = "x86_64"))]
            wide: false,
        }
    }

    /// Only the row-at-a-time path, so that tests on an AVX2 machine still check it.
    #[cfg(test)]
    fn rows_only(mut self) -> CopyConverter {
        self.wide = false;
        self
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
    /// Returns the number of rows.
    pub fn convert(&self, block: &[u8], out: &mut Vec<u8>) -> Result<u64, RowError> {
        // The 64-byte path writes NULL only as the empty field and rows ending in LF; it
        // hands every row with an escape to the row path below.
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            // SAFETY: `wide` is set only where the CPU has the features (`new`).
            return unsafe {
                if !self.crlf && self.ncols > 0 && self.fw.null().is_empty() {
                    self.convert_wide(block, out)
                } else {
                    self.convert_rows_wide(block, out)
                }
            };
        }
        self.convert_rows::<false>(block, out)
    }

    /// [`CopyConverter::convert`] a row at a time: rows found by a search for their newline,
    /// each row's fields by searches for the bytes that need work.
    /// `WIDE`: compiled for AVX2 (the caller is), which the quoting of runs uses.
    #[inline(always)]
    fn convert_rows<const WIDE: bool>(
        &self,
        block: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<u64, RowError> {
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
                Err(LITERAL_CR.into())
            } else if next_sp >= end {
                self.plain_row(line, out)
            } else {
                self.row::<WIDE>(line, next_sp - start, out)
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
        let edge_empty = (last && seg.is_empty())
            || seg.first() == Some(&b'\t')
            || (last && seg.last() == Some(&b'\t'));
        if !edge_empty && self.fw.null().is_empty() {
            // One pass counts the TABs, writes them as commas and notes two TABs in a row
            // (an empty string between them, which must be quoted): rare, so that case is
            // written again below.
            let mark = out.len();
            let (tabs, adjacent) = tabs_to_commas(seg, out);
            if !adjacent {
                return tabs + usize::from(last);
            }
            out.truncate(mark);
        }
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
    }

    /// A row with a backslash, `,` or `"` (the first at `first`) and no CR. The fields around
    /// the ones holding those bytes are clean and go through [`Self::clean_fields`] in runs:
    /// a quoted name in a row of plain columns costs two searches and that field's quoting,
    /// not a byte-at-a-time walk of the whole row (3.5x the CPU of clean rows before).
    #[inline(always)]
    fn row<const WIDE: bool>(
        &self,
        line: &[u8],
        first: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        self.row_from::<WIDE>(line, 0, 0, Some(first), out)
    }

    /// Writes the fields of `line` from `pos` (a field start; `n` fields before it), the
    /// first backslash, comma or quote at or after it at `special`, and checks the count.
    #[inline(always)]
    fn row_from<const WIDE: bool>(
        &self,
        line: &[u8],
        mut pos: usize,
        mut n: usize,
        mut special: Option<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        loop {
            let Some(sp) = special else {
                n += self.clean_fields(&line[pos..], true, out);
                break;
            };
            // The field holding `sp` starts after the last TAB before it: no backslash lies
            // between `pos` and `sp`, so every TAB there separates fields.
            let fs = memchr::memrchr(b'\t', &line[pos..sp]).map_or(pos, |t| pos + t + 1);
            n += self.clean_fields(&line[pos..fs], false, out);
            let i = fs + self.special_field::<WIDE>(&line[fs..], out)?;
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

    /// Writes the field at the start of `rest` (up to the first TAB not taken by a backslash,
    /// a newline, or the end) as CSV and returns its length in `rest`. Escapes are decoded,
    /// quotes doubled and the need to quote found in one pass, straight into `out`: the
    /// field is written after an opening quote, which is taken back if the value turns out
    /// not to need one. Multi-line notes (an escape every few bytes) took four passes
    /// before: the search for the field's end, one search per escape to decode, the search
    /// for a byte that forces quoting, and the quoting.
    ///
    /// `rest` may run past the row's end (the 64-byte path hands over the rest of its
    /// block, so that the row's newline is not searched for first): the field then ends at
    /// the newline, and a CR, or a backslash before a newline, is the row's error, as the
    /// byte-at-a-time decoder has it.
    #[inline(always)]
    fn special_field<const WIDE: bool>(
        &self,
        rest: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<usize, String> {
        if rest.starts_with(b"\\N") && rest.get(2).is_none_or(|&b| b == b'\t' || b == b'\n') {
            out.extend_from_slice(self.fw.null());
            return Ok(2);
        }
        // The run is copied a window at a time, so that what is reserved for it (each input
        // byte adds at most two, a doubled quote, and `quote_run` stores sixteen bytes past
        // what it keeps) stays small when `rest` is the rest of a block.
        const WINDOW: usize = 4096;
        let mut needs = false;
        let mut i = 0usize;
        let old = out.len();
        out.push(b'"');
        let end = loop {
            let window = &rest[i..rest.len().min(i + WINDOW)];
            out.reserve(2 * window.len() + 16);
            // The next TAB, newline, CR or backslash left to `decode_escape` at or after
            // `i`, the bytes before it copied (each quote doubled) on the way.
            let (read, wrote) = quote_run::<WIDE>(window, out.spare_capacity_mut(), &mut needs);
            // SAFETY: `quote_run` wrote `wrote` bytes of the spare capacity.
            unsafe { out.set_len(out.len() + wrote) };
            i += read;
            if read == window.len() && i < rest.len() {
                continue;
            }
            match rest.get(i) {
                None | Some(b'\t' | b'\n') => break i,
                Some(b'\r') => return Err(LITERAL_CR.into()),
                _ => {}
            }
            let (v, len) = match (rest.get(i + 1), decode_escape(&rest[i + 1..])) {
                (Some(b'\r'), _) => return Err(LITERAL_CR.into()),
                (Some(b'\n'), _) | (_, None) => {
                    return Err("backslash at the end of a line (damaged COPY data)".into());
                }
                (_, Some(e)) => e,
            };
            i += 1 + len;
            out.push(v);
            match v {
                b'"' => {
                    out.push(b'"');
                    needs = true;
                }
                b',' | b'\r' | b'\n' => needs = true,
                _ => {}
            }
        };
        let value = &out[old + 1..];
        // A value with no quote in it is written as it is: the doubling did not apply.
        if !needs && (value == b"\\." || value == self.fw.null() || value.is_empty()) {
            needs = true;
        }
        if needs {
            out.push(b'"');
        } else {
            out.copy_within(old + 1.., old);
            out.truncate(out.len() - 1);
        }
        Ok(end)
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
            return Err(LITERAL_CR.into());
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

/// Appends `seg` to `out` with each TAB written as a comma; returns how many TABs, and
/// whether two of them are next to each other. Sixteen bytes at a time on x86_64: the
/// compiler's vectorisation of a count and a map (two passes) widened every byte to 64
/// bits, about two thirds of the conversion of a clean dump (perf, 2026-12-03).
#[inline]
fn tabs_to_commas(seg: &[u8], out: &mut Vec<u8>) -> (usize, bool) {
    out.reserve(seg.len() + 16);
    let dst = out.spare_capacity_mut();
    let (mut i, mut n, mut adjacent) = (0usize, 0usize, false);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_loadu_si128,
            _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_storeu_si128,
        };
        assert!(dst.len() >= seg.len() + 16);
        let mut carry = 0u32; // 1 when the block before ended in a TAB
        // SAFETY: SSE2 is in x86_64's baseline. Each load reads `seg[i..i + 16]`, inside
        // `seg`; each store writes `dst[i..i + 16]`, inside `dst` by the assert above.
        unsafe {
            let (t, c) = (_mm_set1_epi8(b'\t' as i8), _mm_set1_epi8(b',' as i8));
            while i + 16 <= seg.len() {
                let x = _mm_loadu_si128(seg.as_ptr().add(i).cast::<__m128i>());
                let m = _mm_cmpeq_epi8(x, t);
                let y = _mm_or_si128(_mm_andnot_si128(m, x), _mm_and_si128(m, c));
                _mm_storeu_si128(dst.as_mut_ptr().add(i).cast::<__m128i>(), y);
                let bits = _mm_movemask_epi8(m) as u32;
                n += bits.count_ones() as usize;
                adjacent |= (bits & ((bits << 1) | carry)) != 0;
                carry = bits >> 15;
                i += 16;
            }
        }
    }
    let mut prev_tab = i > 0 && seg[i - 1] == b'\t';
    for (k, &b) in seg.iter().enumerate().skip(i) {
        let tab = b == b'\t';
        n += usize::from(tab);
        adjacent |= tab && prev_tab;
        prev_tab = tab;
        dst[k].write(if tab { b',' } else { b });
    }
    let len = out.len() + seg.len();
    // SAFETY: `dst[..seg.len()]`, the spare capacity just past the length, was written above:
    // the blocks up to `i` and every byte from `i` on.
    unsafe { out.set_len(len) };
    (n, adjacent)
}

/// Row `m`: the shuffle that writes eight bytes with those whose bit is set in `m` twice.
#[cfg(target_arch = "x86_64")]
static EXPAND: [[u8; 16]; 256] = {
    let mut t = [[0x80u8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut i, mut j) = (0, 0);
        while i < 8 {
            t[m][j] = i as u8;
            j += 1;
            if m >> i & 1 == 1 {
                t[m][j] = i as u8;
                j += 1;
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// Copies the bytes of `src` up to its first TAB, backslash, CR or newline into `dst`,
/// each quote doubled, and returns how many bytes it read and how many it wrote; sets
/// `needs` if a comma or quote was among them. `dst` must hold `2 * src.len() + 16` bytes: on x86_64
/// a run is copied sixteen bytes at a time, in pieces ending at each quote as
/// [`crate::csv::csvout::write_quoted`] does (a jsonb document has a quote every few
/// bytes), a block's bytes past what is kept included.
///
/// With `SHUFFLE` (only where the caller is compiled for AVX2), each eight bytes holding a
/// quote are written by one shuffle (SSSE3's `pshufb`, a row of [`EXPAND`]) instead of a
/// piece per quote: a jsonb document has a quote every five bytes or so. And the run goes
/// on past escapes other than `\` with a digit, `x`, CR or newline ([`escapes_block`],
/// or [`escapes_block_32`] where 32 bytes are left and they are not all plain, decodes
/// them, and sets `needs` for those that stand for a comma, quote, CR or newline):
/// it stops at a TAB, a CR or newline, one of those escapes, or the end. With `SHUFFLE`
/// every step stops at a CR or newline, so that a `src` running past its row's end (as
/// `finish_row` hands it) ends there. Without it, `src` is part of one line whose CRs were
/// refused before (the row-at-a-time path), and the sixteen-byte step does not look for
/// them.
#[inline(always)]
fn quote_run<const SHUFFLE: bool>(
    src: &[u8],
    dst: &mut [std::mem::MaybeUninit<u8>],
    needs: &mut bool,
) -> (usize, usize) {
    let (mut i, mut d) = (0usize, 0usize);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_storeu_si128,
        };
        assert!(dst.len() >= 2 * src.len() + 16);
        let out = dst.as_mut_ptr().cast::<u8>();
        let mut tmp = [0u8; 32];
        // SAFETY: SSE2 is in x86_64's baseline. Each load reads `src[i..i + 16]` (inside
        // `src`), `src[i + from..i + from + 16]` when `i + 32 <= src.len()` (`from <= 16`,
        // inside `src`) or `tmp[from..from + 16]` (inside `tmp`). Each store writes
        // `dst[d..d + 16]`: `d <= 2 * i` (a byte read adds at most two written) and
        // `i + 16 <= src.len()`, so that lies within `2 * src.len() + 16`, the assert above.
        // Unaligned loads and stores are what these intrinsics allow.
        unsafe {
            let (t, b, q, c) = (
                _mm_set1_epi8(b'\t' as i8),
                _mm_set1_epi8(b'\\' as i8),
                _mm_set1_epi8(b'"' as i8),
                _mm_set1_epi8(b',' as i8),
            );
            let (lf, cr) = (_mm_set1_epi8(b'\n' as i8), _mm_set1_epi8(b'\r' as i8));
            while i + 16 <= src.len() {
                if SHUFFLE && i + 32 <= src.len() {
                    use std::arch::x86_64::{
                        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
                        _mm256_or_si256, _mm256_set1_epi8,
                    };
                    // The stops of 32 bytes, compared once for both steps below (a note's
                    // run tried the plain step first and compared them again after).
                    let y = _mm256_loadu_si256(src.as_ptr().add(i).cast::<__m256i>());
                    let eq = |c: u8| _mm256_cmpeq_epi8(y, _mm256_set1_epi8(c as i8));
                    let line_ends = _mm256_or_si256(eq(b'\n'), eq(b'\r'));
                    let (bsl, seps) = (eq(b'\\'), _mm256_or_si256(eq(b'\t'), line_ends));
                    if _mm256_movemask_epi8(_mm256_or_si256(bsl, seps)) == 0 {
                        // SAFETY: as below, for the 32-byte store (`d + 32 <= 2 * i + 32 <=
                        // 2 * src.len() - 32`) and the four 16-byte ones (each at most
                        // sixteen past the one before).
                        d += plain_32(y, 32, out.add(d), needs);
                        i += 32;
                        continue;
                    }
                    let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32);
                    let (bsl, seps) = (bits(bsl), bits(seps));
                    if bsl == 0 {
                        // The run's last bytes, before its TAB or line end, no escape
                        // among them (a note's last line, most fields' ends): the plain
                        // step, counting only those (same bounds as above).
                        let keep = seps.trailing_zeros();
                        d += plain_32(y, keep, out.add(d), needs);
                        return (i + keep as usize, d);
                    }
                    // The same 32 bytes, escapes decoded, rather than sixteen at a time:
                    // `dst[d..]` holds `2 * 32 + 16` bytes (`d <= 2 * i`, `i + 32 <=
                    // src.len()` and the assert).
                    let (read, wrote) =
                        escapes_block_32(y, line_ends, bsl, seps, out.add(d), needs);
                    i += read;
                    d += wrote;
                    if read < 32 {
                        return (i, d);
                    }
                    continue;
                }
                let x = _mm_loadu_si128(src.as_ptr().add(i).cast::<__m128i>());
                // Only `finish_row` (AVX2, so `SHUFFLE`) hands a run bytes past its row's
                // end; the row-at-a-time callers hand one line, CR already refused.
                let ends = if SHUFFLE {
                    _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr))
                } else {
                    _mm_setzero_si128()
                };
                let stop = _mm_movemask_epi8(_mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(x, t), _mm_cmpeq_epi8(x, b)),
                    ends,
                )) as u32;
                if SHUFFLE && stop != 0 {
                    // SAFETY: `dst[d..]` holds `2 * 16 + 16` bytes (`d <= 2 * i`, `i + 16 <=
                    // src.len()` and the assert).
                    let (read, wrote) = escapes_block(x, 16, out.add(d), needs);
                    i += read;
                    d += wrote;
                    if read < 16 {
                        return (i, d);
                    }
                    continue;
                }
                // The bytes of this run in the block: up to the stop, or all sixteen.
                let keep = if stop == 0 { 16 } else { stop.trailing_zeros() };
                let within = (1u32 << keep) - 1;
                let mut quotes = _mm_movemask_epi8(_mm_cmpeq_epi8(x, q)) as u32 & within;
                let commas = _mm_movemask_epi8(_mm_cmpeq_epi8(x, c)) as u32 & within;
                *needs |= (quotes | commas) != 0;
                if quotes == 0 {
                    _mm_storeu_si128(out.add(d).cast::<__m128i>(), x);
                    d += keep as usize;
                } else if SHUFFLE {
                    use std::arch::x86_64::_mm_srli_si128;
                    // Each half expanded by its row of `EXPAND` into sixteen bytes, of which
                    // those of the bytes kept count; `quotes` holds only those.
                    let lo = (quotes & 0xff) as usize;
                    let row = _mm_loadu_si128(EXPAND[lo].as_ptr().cast::<__m128i>());
                    _mm_storeu_si128(out.add(d).cast::<__m128i>(), _mm_shuffle_epi8(x, row));
                    d += keep.min(8) as usize + lo.count_ones() as usize;
                    if keep > 8 {
                        let hi = (quotes >> 8) as usize;
                        let row = _mm_loadu_si128(EXPAND[hi].as_ptr().cast::<__m128i>());
                        let y = _mm_shuffle_epi8(_mm_srli_si128::<8>(x), row);
                        _mm_storeu_si128(out.add(d).cast::<__m128i>(), y);
                        d += keep as usize - 8 + hi.count_ones() as usize;
                    }
                } else {
                    // Pieces are loaded from `src` itself where sixteen bytes past the block
                    // are there: a load from `tmp` just after storing it there waits for the
                    // store (it cannot be forwarded), which cost more than the rest of a
                    // jsonb document's conversion.
                    let at = if i + 32 <= src.len() {
                        src.as_ptr().add(i)
                    } else {
                        _mm_storeu_si128(tmp.as_mut_ptr().cast::<__m128i>(), x);
                        tmp.as_ptr()
                    };
                    let mut from = 0usize;
                    while quotes != 0 {
                        let k = quotes.trailing_zeros() as usize;
                        let piece = _mm_loadu_si128(at.add(from).cast::<__m128i>());
                        _mm_storeu_si128(out.add(d).cast::<__m128i>(), piece);
                        d += k + 1 - from;
                        *out.add(d) = b'"';
                        d += 1;
                        from = k + 1;
                        quotes &= quotes - 1;
                    }
                    let piece = _mm_loadu_si128(at.add(from).cast::<__m128i>());
                    _mm_storeu_si128(out.add(d).cast::<__m128i>(), piece);
                    d += keep as usize - from;
                }
                i += keep as usize;
                if stop != 0 {
                    return (i, d);
                }
            }
            if SHUFFLE && i < src.len() && src.len() >= 16 {
                // The last bytes, fewer than sixteen: the sixteen that end `src`, moved to
                // the front, rather than a byte at a time (a note's every line ends so).
                let rem = src.len() - i;
                let last = _mm_loadu_si128(src.as_ptr().add(src.len() - 16).cast::<__m128i>());
                let row = _mm_loadu_si128(TAIL[rem].as_ptr().cast::<__m128i>());
                let x = _mm_shuffle_epi8(last, row);
                // SAFETY: `dst[d..]` holds `2 * rem + 16` bytes (`d <= 2 * i`).
                let (read, wrote) = escapes_block(x, rem as u32, out.add(d), needs);
                return (i + read, d + wrote);
            }
        }
    }
    while let Some(&v) = src.get(i) {
        match v {
            b'\t' | b'\\' | b'\n' | b'\r' => break,
            b'"' => {
                dst[d].write(b'"');
                d += 1;
                *needs = true;
            }
            b',' => *needs = true,
            _ => {}
        }
        dst[d].write(v);
        d += 1;
        i += 1;
    }
    (i, d)
}

/// [`quote_run`]'s step for the first `keep` (0 to 32) of 32 bytes `y`, none of which is a
/// TAB, backslash, CR or newline (the caller looked): writes them to `dst`, each quote
/// doubled (by a row of [`EXPAND`] per eight bytes holding one), and returns how many bytes
/// it wrote for them (it stores more: what follows is not counted). A jsonb document's
/// runs between escapes are long and quote-dense, and 32 bytes a step halves the masks'
/// cost per byte of the sixteen-byte step.
///
/// # Safety
/// The CPU has AVX2 (the caller is compiled for it); `dst` points to 64 writable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn plain_32(
    y: std::arch::x86_64::__m256i,
    keep: u32,
    dst: *mut u8,
    needs: &mut bool,
) -> usize {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_loadu_si128, _mm_shuffle_epi8, _mm_srli_si128, _mm_storeu_si128,
        _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_extracti128_si256, _mm256_movemask_epi8,
        _mm256_set1_epi8, _mm256_storeu_si256,
    };
    // SAFETY: AVX2 is the caller's; the stores are within the bounds above (each eight
    // bytes written as at most sixteen); the table loads read a row of `EXPAND`.
    unsafe {
        let eq =
            |c: u8| _mm256_movemask_epi8(_mm256_cmpeq_epi8(y, _mm256_set1_epi8(c as i8))) as u32;
        let within = if keep >= 32 {
            u32::MAX
        } else {
            (1 << keep) - 1
        };
        let quotes = eq(b'"') & within;
        // Once a value must be quoted, its commas no longer matter.
        if !*needs {
            *needs = (quotes | eq(b',') & within) != 0;
        }
        if quotes == 0 {
            _mm256_storeu_si256(dst.cast::<__m256i>(), y);
            return keep as usize;
        }
        let quarter = |h: __m128i, m: u32, at: *mut u8| {
            let row = _mm_loadu_si128(EXPAND[m as usize].as_ptr().cast::<__m128i>());
            _mm_storeu_si128(at.cast::<__m128i>(), _mm_shuffle_epi8(h, row));
            8 + m.count_ones() as usize
        };
        let (lo, hi) = (_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
        let mut d = quarter(lo, quotes & 0xff, dst);
        d += quarter(_mm_srli_si128::<8>(lo), quotes >> 8 & 0xff, dst.add(d));
        d += quarter(hi, quotes >> 16 & 0xff, dst.add(d));
        quarter(_mm_srli_si128::<8>(hi), quotes >> 24, dst.add(d));
        // Past the kept bytes the quarters wrote what is not counted.
        (keep + quotes.count_ones()) as usize
    }
}

/// The letters that a backslash makes a byte of in COPY text, and those bytes (as
/// [`decode_escape`] has them), for the tables below.
#[cfg(target_arch = "x86_64")]
const LETTER_ESCAPES: [(u8, u8); 6] = [
    (b'b', 8),
    (b'f', 12),
    (b'n', b'\n'),
    (b'r', b'\r'),
    (b't', b'\t'),
    (b'v', 11),
];

/// By a letter's high nibble less 6 and its low nibble: the byte that a backslash and the
/// letter stand for (`b f n` in row 0, `r t v` in row 1), 0 where no letter is.
#[cfg(target_arch = "x86_64")]
static LETTERS: [[u8; 16]; 2] = {
    let mut t = [[0u8; 16]; 2];
    let pairs = LETTER_ESCAPES;
    let mut k = 0;
    while k < pairs.len() {
        let (c, v) = pairs[k];
        t[(c >> 4) as usize - 6][(c & 15) as usize] = v;
        k += 1;
    }
    t
};

/// Row `r` (1 to 15): the shuffle that moves the last `r` of sixteen bytes to the front and
/// zeroes the rest, for a run's last bytes loaded as the sixteen that end it.
#[cfg(target_arch = "x86_64")]
static TAIL: [[u8; 16]; 16] = {
    let mut t = [[0x80u8; 16]; 16];
    let mut r = 1;
    while r < 16 {
        let mut j = 0;
        while j < r {
            t[r][j] = (16 - r + j) as u8;
            j += 1;
        }
        r += 1;
    }
    t
};

/// Of sixteen or thirty-two bytes whose backslashes are `bsl` (below bit 32) and whose first
/// byte no backslash escapes: the bytes that a backslash escapes (bit 16 or 32: the byte
/// after them), and the backslashes that start an escape. In a run of backslashes every
/// second one escapes the next; simdjson's subtraction finds the runs of odd length without
/// a loop.
#[cfg(target_arch = "x86_64")]
#[inline]
fn escapes(bsl: u64) -> (u64, u64) {
    let (escaped, starts) = escapes_64(bsl);
    (escaped & 0x1_ffff_ffff, starts)
}

/// [`escapes`] for sixty-four bytes whose backslashes are `bsl`: the byte that a backslash
/// at bit 63 escapes lies past them and is not reported.
#[cfg(target_arch = "x86_64")]
#[inline]
fn escapes_64(bsl: u64) -> (u64, u64) {
    const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;
    let codes = ((bsl << 1) | ODD).wrapping_sub(bsl) ^ ODD;
    (codes ^ bsl, codes & bsl)
}

/// Row `c`: the byte that a backslash and `c` stand for in COPY text ([`decode_escape`]'s
/// one-byte escapes), with bit 8 set when that byte must be quoted in CSV (a newline, CR,
/// comma or quote) and bit 9 when it is written twice (a quote); 0 for the escapes the
/// 64-byte path leaves to the row path: an octal or hex escape (`c` a digit 0-7 or `x`),
/// a backslash before a TAB, CR or newline (the row's error, or a TAB that is a byte of
/// the value), and before a NUL byte.
#[cfg(target_arch = "x86_64")]
static UNESCAPED: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = c as u16;
        c += 1;
    }
    let letters = LETTER_ESCAPES;
    let mut k = 0;
    while k < letters.len() {
        let (c, v) = letters[k];
        t[c as usize] = v as u16 | if v == b'\n' || v == b'\r' { 1 << 8 } else { 0 };
        k += 1;
    }
    t[b',' as usize] |= 1 << 8;
    t[b'"' as usize] |= 3 << 8;
    let hard = *b"01234567x\t\r\n";
    let mut k = 0;
    while k < hard.len() {
        t[hard[k] as usize] = 0;
        k += 1;
    }
    t
};

/// Packs the eight bytes at the bottom of `h` whose bits are set in `m` to `at`, each quote
/// doubled: a row of `records::wide::PACK`, then, where the packed bytes hold a quote, a row
/// of [`EXPAND`]. Returns how many bytes it wrote; it stores sixteen.
///
/// # Safety
/// The CPU has SSSE3 (the callers are compiled for AVX2); `at` points to sixteen writable
/// bytes; `m < 256`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pack_8(h: std::arch::x86_64::__m128i, m: u32, at: *mut u8) -> usize {
    use crate::csv::records::wide::PACK;
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadl_epi64, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_set1_epi8, _mm_shuffle_epi8, _mm_storel_epi64, _mm_storeu_si128,
    };
    // SAFETY: the caller's; the table loads read a row of `PACK` or `EXPAND` whole.
    unsafe {
        let n = m.count_ones() as usize;
        let pack = _mm_loadl_epi64(PACK[m as usize].as_ptr().cast::<__m128i>());
        let p = _mm_shuffle_epi8(h, pack);
        let quotes =
            _mm_movemask_epi8(_mm_cmpeq_epi8(p, _mm_set1_epi8(b'"' as i8))) as u32 & ((1 << n) - 1);
        if quotes == 0 {
            _mm_storel_epi64(at.cast::<__m128i>(), p);
            n
        } else {
            let row = _mm_loadu_si128(EXPAND[quotes as usize].as_ptr().cast::<__m128i>());
            _mm_storeu_si128(at.cast::<__m128i>(), _mm_shuffle_epi8(p, row));
            n + quotes.count_ones() as usize
        }
    }
}

/// [`pack_8`] for bytes with no quote among those kept: the packing alone. Returns how many
/// bytes it wrote; it stores eight.
///
/// # Safety
/// The CPU has SSSE3 (the callers are compiled for AVX2); `at` points to eight writable
/// bytes; `m < 256`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pack_8_plain(h: std::arch::x86_64::__m128i, m: u32, at: *mut u8) -> usize {
    use crate::csv::records::wide::PACK;
    use std::arch::x86_64::{__m128i, _mm_loadl_epi64, _mm_shuffle_epi8, _mm_storel_epi64};
    // SAFETY: the caller's; the table load reads a row of `PACK` whole.
    unsafe {
        let pack = _mm_loadl_epi64(PACK[m as usize].as_ptr().cast::<__m128i>());
        _mm_storel_epi64(at.cast::<__m128i>(), _mm_shuffle_epi8(h, pack));
        m.count_ones() as usize
    }
}

/// [`quote_run`]'s step for the first `limit` (1 to 16) of sixteen bytes `x` whose first
/// byte no backslash escapes: writes them to `dst` up to the run's end (an unescaped TAB,
/// CR or newline, the end of the `limit` bytes, or an escape left to [`decode_escape`]: a
/// backslash and a digit, `x`, CR, newline or nothing), each escape decoded and each quote
/// doubled, and returns how many
/// bytes it read and wrote. An escaped TAB is a byte of the value, as `decode_escape` has
/// it. `dst` has room for `2 * limit + 16` bytes.
///
/// Multi-line notes hold an escape (`\n`, `\\` in a path) every 30-40 bytes, and a return
/// from the run, a decoding and a new run per escape was most of their conversion. Here the
/// escaped letters are looked up by a shuffle per nibble row and swapped in by a blend;
/// each eight bytes are packed by a shuffle (a row of `records::wide::PACK`) that leaves
/// the escaping backslashes out, and, where the packed bytes hold a quote, expanded by one
/// more (a row of [`EXPAND`]) that doubles it.
///
/// # Safety
/// The CPU has AVX2 (the caller is compiled for it); `dst` points to `2 * limit + 16`
/// writable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn escapes_block(
    x: std::arch::x86_64::__m128i,
    limit: u32,
    dst: *mut u8,
    needs: &mut bool,
) -> (usize, usize) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_andnot_si128, _mm_blendv_epi8, _mm_cmpeq_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_set1_epi16, _mm_setr_epi8,
        _mm_setzero_si128, _mm_shuffle_epi8, _mm_srli_si128,
    };
    // SAFETY: the intrinsics need SSE4.1 at most, which AVX2 implies (the caller's); the
    // table loads read a row of `LETTERS`, `PACK` or `EXPAND` whole. The first half's
    // store writes `dst[..16]`; the second half's, only when `limit > 8`, sixteen bytes
    // from at most sixteen in (eight bytes written at most twice): within `2 * limit + 16`.
    unsafe {
        let eq = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
        let bits = |v: __m128i| _mm_movemask_epi8(v) as u32;
        let line_ends = _mm_or_si128(eq(b'\n'), eq(b'\r'));
        let bsl = bits(eq(b'\\'));
        let seps = bits(_mm_or_si128(eq(b'\t'), line_ends));
        let (escaped, starts) = escapes(u64::from(bsl));
        let (escaped, starts) = (escaped as u32, starts as u32);
        let numeric = _mm_cmpeq_epi8(
            _mm_and_si128(x, _mm_set1_epi8(0xf8u8 as i8)),
            _mm_set1_epi8(b'0' as i8),
        );
        let hard_byte = bits(_mm_or_si128(_mm_or_si128(numeric, eq(b'x')), line_ends));
        // The escapes left to `decode_escape`, by their backslash; one at the last byte.
        let hard = ((hard_byte & escaped) >> 1) | (starts & (1 << (limit - 1)));
        let keep = ((seps & !escaped) | hard | (1 << limit)).trailing_zeros();
        let within = (1u32 << keep) - 1;
        let drop = starts & within;
        // The escaped letters swapped for their bytes: lanes whose bit of `escaped` is set.
        let lo = _mm_and_si128(x, _mm_set1_epi8(15));
        let hi = _mm_and_si128(x, _mm_set1_epi8(0xf0u8 as i8));
        let row = |k: usize| _mm_loadu_si128(LETTERS[k].as_ptr().cast::<__m128i>());
        let v = _mm_or_si128(
            _mm_and_si128(
                _mm_cmpeq_epi8(hi, _mm_set1_epi8(0x60)),
                _mm_shuffle_epi8(row(0), lo),
            ),
            _mm_and_si128(
                _mm_cmpeq_epi8(hi, _mm_set1_epi8(0x70)),
                _mm_shuffle_epi8(row(1), lo),
            ),
        );
        let lane_bits = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
        let spread = _mm_shuffle_epi8(
            _mm_set1_epi16(escaped as u16 as i16),
            _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
        );
        let escaped_v = _mm_cmpeq_epi8(_mm_and_si128(spread, lane_bits), lane_bits);
        let letter = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_setzero_si128()), escaped_v);
        let y = _mm_blendv_epi8(x, v, letter);
        let yeq = |c: u8| _mm_cmpeq_epi8(y, _mm_set1_epi8(c as i8));
        let quoting = _mm_or_si128(
            _mm_or_si128(yeq(b','), yeq(b'"')),
            _mm_or_si128(yeq(b'\n'), yeq(b'\r')),
        );
        *needs |= bits(quoting) & within != 0;
        let kept = !drop & within;
        let mut wrote = pack_8(y, kept & 0xff, dst);
        if kept > 0xff {
            wrote += pack_8(_mm_srli_si128::<8>(y), kept >> 8, dst.add(wrote));
        }
        (keep as usize, wrote)
    }
}

/// [`escapes_block`] for the thirty-two bytes `x`, with AVX2: the same step over twice the
/// bytes, for the same cost of masks. The caller compared them already: `line_ends` (a
/// lane per byte), `bsl` (backslashes) and `seps` (TABs and line ends) are its results. A
/// note's run meets an escape every 30-40 bytes, so most of its steps met one in sixteen
/// bytes anyway, and it took two sixteen-byte steps where this takes one. The steps are `escapes_block`'s, written again with 256-bit
/// intrinsics: a trait over both widths would hide the very instructions this is about,
/// and the property tests hold both to the byte-at-a-time decoder.
///
/// # Safety
/// The CPU has AVX2 (the caller is compiled for it); `dst` points to 80 writable bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn escapes_block_32(
    x: std::arch::x86_64::__m256i,
    line_ends: std::arch::x86_64::__m256i,
    bsl: u64,
    seps: u64,
    dst: *mut u8,
    needs: &mut bool,
) -> (usize, usize) {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_loadu_si128, _mm_srli_si128, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_blendv_epi8, _mm256_broadcastsi128_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi8,
        _mm256_extracti128_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
        _mm256_set1_epi32, _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
    };
    // SAFETY: AVX2 is the caller's; the table loads read a row of `LETTERS` whole. The
    // quarters' stores write sixteen bytes each from at most `2 * 8 * q` in, the `q`-th
    // (0 to 3) only when the run keeps more than `8 * q` bytes: within `2 * 24 + 16 = 64`.
    unsafe {
        let eq = |c: u8| _mm256_cmpeq_epi8(x, _mm256_set1_epi8(c as i8));
        let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32);
        let (escaped, starts) = escapes(bsl);
        let numeric = _mm256_cmpeq_epi8(
            _mm256_and_si256(x, _mm256_set1_epi8(0xf8u8 as i8)),
            _mm256_set1_epi8(b'0' as i8),
        );
        let hard_byte = bits(_mm256_or_si256(
            _mm256_or_si256(numeric, eq(b'x')),
            line_ends,
        ));
        // The escapes left to `decode_escape`, by their backslash; one at the last byte.
        let hard = ((hard_byte & escaped) >> 1) | (starts & (1 << 31));
        let keep = ((seps & !escaped) | hard | (1 << 32)).trailing_zeros();
        let within = (1u64 << keep) - 1;
        let drop = starts & within;
        // The escaped letters swapped for their bytes: lanes whose bit of `escaped` is set.
        let lo = _mm256_and_si256(x, _mm256_set1_epi8(15));
        let hi = _mm256_and_si256(x, _mm256_set1_epi8(0xf0u8 as i8));
        let row = |k: usize| {
            _mm256_broadcastsi128_si256(_mm_loadu_si128(LETTERS[k].as_ptr().cast::<__m128i>()))
        };
        let v = _mm256_or_si256(
            _mm256_and_si256(
                _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(0x60)),
                _mm256_shuffle_epi8(row(0), lo),
            ),
            _mm256_and_si256(
                _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(0x70)),
                _mm256_shuffle_epi8(row(1), lo),
            ),
        );
        // Byte `j` gets byte `j / 8` of the mask (a lane's shuffle picks within its lane,
        // and every lane holds the mask's four bytes), then its own bit of it.
        let lane_bits = _mm256_setr_epi8(
            1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64,
            -128, 1, 2, 4, 8, 16, 32, 64, -128,
        );
        let spread = _mm256_shuffle_epi8(
            _mm256_set1_epi32(escaped as u32 as i32),
            _mm256_setr_epi8(
                0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3,
                3, 3, 3, 3,
            ),
        );
        let escaped_v = _mm256_cmpeq_epi8(_mm256_and_si256(spread, lane_bits), lane_bits);
        let letter = _mm256_andnot_si256(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()), escaped_v);
        let y = _mm256_blendv_epi8(x, v, letter);
        let yeq = |c: u8| _mm256_cmpeq_epi8(y, _mm256_set1_epi8(c as i8));
        let quotes = bits(yeq(b'"')) & within;
        // Once a value must be quoted (a note, after its first `\n`), what else would make
        // it so no longer matters.
        if !*needs {
            let quoting = _mm256_or_si256(yeq(b','), _mm256_or_si256(yeq(b'\n'), yeq(b'\r')));
            *needs = (quotes | bits(quoting) & within) != 0;
        }
        let kept = !drop & within;
        let (a, b) = (_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
        // Without a quote among them, the kept bytes are only packed: a look for quotes
        // in each packed eight cost more than the packing.
        let pack = |h: __m128i, q: u32, at: *mut u8| {
            let m = (kept >> (8 * q) & 0xff) as u32;
            if quotes == 0 {
                pack_8_plain(h, m, at)
            } else {
                pack_8(h, m, at)
            }
        };
        let mut wrote = pack(a, 0, dst);
        if keep > 8 {
            wrote += pack(_mm_srli_si128::<8>(a), 1, dst.add(wrote));
        }
        if keep > 16 {
            wrote += pack(b, 2, dst.add(wrote));
        }
        if keep > 24 {
            wrote += pack(_mm_srli_si128::<8>(b), 3, dst.add(wrote));
        }
        (keep as usize, wrote)
    }
}

/// Decodes the escape whose backslash precedes `after`: the byte and how many bytes of
/// `after` it took, or `None` for a backslash at the end. The one decoder of escapes, for
/// the converter and for [`unescape`].
#[inline]
fn decode_escape(after: &[u8]) -> Option<(u8, usize)> {
    let c = *after.first()?;
    Some(match c {
        b'b' => (8, 1),
        b'f' => (12, 1),
        b'n' => (b'\n', 1),
        b'r' => (b'\r', 1),
        b't' => (b'\t', 1),
        b'v' => (11, 1),
        b'0'..=b'7' => {
            let mut v = u32::from(c - b'0');
            let mut len = 1;
            while len < 3 {
                match after.get(len) {
                    Some(&d @ b'0'..=b'7') => {
                        v = v * 8 + u32::from(d - b'0');
                        len += 1;
                    }
                    _ => break,
                }
            }
            ((v & 0xff) as u8, len)
        }
        b'x' if after.get(1).is_some_and(u8::is_ascii_hexdigit) => {
            let mut v = 0u32;
            let mut len = 1;
            while len < 3 {
                match after.get(len) {
                    Some(d) if d.is_ascii_hexdigit() => {
                        v = v * 16 + (*d as char).to_digit(16).unwrap_or(0);
                        len += 1;
                    }
                    _ => break,
                }
            }
            (v as u8, len)
        }
        other => (other, 1),
    })
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
        let Some((v, len)) = decode_escape(&raw[i..]) else {
            out.push(b'\\');
            return;
        };
        out.push(v);
        i += len;
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

/// The converter's 64-byte path: rows of plain fields and fields with commas and quotes
/// converted without a search per row or per field. Hand-written: no crate rewrites COPY
/// text, and memchr gives positions, not the masks this works from.
#[cfg(target_arch = "x86_64")]
mod blocks {
    use super::{CopyConverter, RowError, count_msg};
    use crate::csv::records::wide;
    use std::arch::x86_64::{
        __m256i, _bzhi_u64, _mm_loadu_si128, _mm256_blendv_epi8, _mm256_broadcastsi128_si256,
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_set1_epi8, _mm256_shuffle_epi8,
        _mm256_storeu_si256,
    };

    /// What a 64-byte block of COPY text holds, a bit per byte.
    struct Masks {
        tabs: u64,
        newlines: u64,
        /// Backslashes and CRs.
        escapes: u64,
        quotes: u64,
        commas: u64,
    }

    impl Masks {
        /// # Safety
        /// `at` points to 64 readable bytes; the CPU has AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn of(at: *const u8) -> Masks {
            // SAFETY: the caller's.
            let (lo, hi) = unsafe { wide::load(at) };
            let eq = |b: u8| wide::eq(lo, hi, _mm256_set1_epi8(b as i8));
            Masks {
                tabs: eq(b'\t'),
                newlines: eq(b'\n'),
                escapes: eq(b'\\') | eq(b'\r'),
                quotes: eq(b'"'),
                commas: eq(b','),
            }
        }

        /// The backslashes of the 64 bytes at `at` and their `N`s (a NULL is `\N`): asked
        /// for only when a block has an escape.
        ///
        /// # Safety
        /// `at` points to 64 readable bytes; the CPU has AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn backslashes(at: *const u8) -> (u64, u64) {
            // SAFETY: the caller's.
            let (lo, hi) = unsafe { wide::load(at) };
            let eq = |b: u8| wide::eq(lo, hi, _mm256_set1_epi8(b as i8));
            (eq(b'\\'), eq(b'N'))
        }
    }

    /// Copies `len` (at most 64) bytes from `src` to `dst`, each TAB written as a comma; 64
    /// bytes are read and written whatever `len`.
    ///
    /// # Safety
    /// `src` has 64 readable bytes and `dst` 64 writable ones; the CPU has AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn copy_fields(src: *const u8, dst: *mut u8, len: usize) {
        let (tab, comma) = (_mm256_set1_epi8(b'\t' as i8), _mm256_set1_epi8(b',' as i8));
        // SAFETY: the caller's; the second half only when the bytes are wanted.
        unsafe {
            let x = _mm256_loadu_si256(src.cast::<__m256i>());
            let y = _mm256_blendv_epi8(x, comma, _mm256_cmpeq_epi8(x, tab));
            _mm256_storeu_si256(dst.cast::<__m256i>(), y);
            if len > 32 {
                let x = _mm256_loadu_si256(src.add(32).cast::<__m256i>());
                let y = _mm256_blendv_epi8(x, comma, _mm256_cmpeq_epi8(x, tab));
                _mm256_storeu_si256(dst.add(32).cast::<__m256i>(), y);
            }
        }
    }

    /// The end of the field starting at `p` (its TAB or newline) when no backslash or CR
    /// comes first, and whether it holds a comma or quote; `None` when one does, or when
    /// the block ends within 64 bytes of the field's end. 64 bytes at a time.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn field_end(block: &[u8], p: usize) -> Option<(usize, bool)> {
        let (mut q, mut seen) = (p, false);
        while q + 64 <= block.len() {
            // SAFETY: `block[q..q + 64]` is readable; the features are the caller's.
            let m = unsafe { Masks::of(block[q..q + 64].as_ptr()) };
            let stop = m.tabs | m.newlines | m.escapes;
            let special = m.quotes | m.commas;
            if stop != 0 {
                let k = stop.trailing_zeros();
                // The stop's own byte says whether it is an escape: asking `m.escapes` here
                // made LLVM rebuild that mask a byte at a time (60 `vpinsrb` per long field:
                // 11.6% of pgdump2csv's instructions on bench/gen_customer.py's dump).
                if matches!(block[q + k as usize], b'\\' | b'\r') {
                    return None;
                }
                let before = (1u64 << k) - 1;
                return Some((q + k as usize, seen || special & before != 0));
            }
            seen |= special != 0;
            q += 64;
        }
        None
    }

    /// Writes `value` (a field without TAB, backslash, CR or newline) quoted, its quotes
    /// doubled. Not inlined: the run's steps and their constants, inlined into
    /// [`CopyConverter::convert_wide`]'s loop for this rare branch, cost every clean row
    /// 2% more instructions.
    #[target_feature(enable = "avx2,popcnt,lzcnt")]
    #[inline(never)]
    fn quote_long(value: &[u8], out: &mut Vec<u8>) {
        out.reserve(2 * value.len() + 2 + 16);
        out.push(b'"');
        let mut needs = true;
        let (read, wrote) = super::quote_run::<true>(value, out.spare_capacity_mut(), &mut needs);
        debug_assert_eq!(read, value.len(), "no TAB or backslash in the field");
        let n = out.len() + wrote;
        // SAFETY: `quote_run` wrote `wrote` bytes of the spare capacity.
        unsafe { out.set_len(n) };
        out.push(b'"');
    }

    /// Row 0: for each low nibble, the one byte with that nibble that ends a COPY text
    /// field (TAB, newline, CR), and for the others a byte whose low nibble differs: a
    /// shuffle by each byte's low nibble then a compare finds the three in two steps, not
    /// five. (A shuffle gives 0 for a byte with the high bit set, which then differs.)
    static STOPS: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut i = 0;
        while i < 16 {
            t[i] = ((i + 1) & 15) as u8;
            i += 1;
        }
        t[b'\t' as usize] = b'\t';
        t[b'\n' as usize] = b'\n';
        t[b'\r' as usize] = b'\r';
        t
    };

    /// Copies 64 bytes from `src` to `dst`.
    ///
    /// # Safety
    /// `src` has 64 readable bytes and `dst` 64 writable ones; the CPU has AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn copy_64(src: *const u8, dst: *mut u8) {
        // SAFETY: the caller's.
        unsafe {
            let (a, b) = wide::load(src);
            _mm256_storeu_si256(dst.cast::<__m256i>(), a);
            _mm256_storeu_si256(dst.add(32).cast::<__m256i>(), b);
        }
    }

    /// Writes the field at `p` of `block`, which holds a backslash that is not a NULL's (a
    /// multi-line note, a path), as CSV, 64 bytes a step, and returns its end (its TAB or
    /// newline); `None`, with `out` as it was, for what it leaves to the row path: an
    /// octal or hex escape, a backslash before a TAB, CR or newline, a CR, a field that
    /// does not end 128 bytes or more before the block does, and one that starts with `{`
    /// or `[` (a json document). On `Some`, `out` has room for 64 bytes more.
    ///
    /// Each step finds the field's end and its escapes by masks, then copies the bytes
    /// between the points where the output differs from the input (an escape, written as
    /// its byte; a quote, doubled) 64 at a time; the field is written after an opening
    /// quote that is taken back if the value turns out not to need one. A note's lines
    /// are 30-40 bytes, so a step meets two or three escapes: the row path decoded them
    /// 32 bytes a step with shuffles and packs per eight bytes, and a note cost 1.77x a
    /// clean row's instructions per byte (issue 36). Called from
    /// [`CopyConverter::finish_row`], not from the 64-byte loop: any more code in that
    /// loop cost clean rows 2-8% more instructions (its registers). The step is written
    /// for few values kept through its loop (pointers, not indexes; the step's length
    /// found again after it): each value more was spilled to the stack and read back
    /// every step (issue 36, thirteenth run).
    ///
    /// # Safety
    /// The CPU has AVX2, BMI1, BMI2, POPCNT and LZCNT (`records::wide::available`).
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    #[inline]
    unsafe fn escaped_field(block: &[u8], p: usize, out: &mut Vec<u8>) -> Option<usize> {
        // A step writes at most 64 bytes and a quote before each, and 64 past its end.
        const ROOM: usize = 4 * 64;
        // A json document (an object or an array) has a quote every five bytes or so: its
        // runs are copied faster by shuffles (the row path's) than a piece per quote; a
        // note's lines quote a few words. Told by its first byte: counting the quotes of
        // its first 64 bytes, as before, cost a note 2% more instructions.
        if p + 128 > block.len() {
            return None;
        }
        // SAFETY: `p < block.len()`, above.
        if matches!(unsafe { *block.get_unchecked(p) }, b'{' | b'[') {
            return None;
        }
        let mark = out.len();
        out.reserve(ROOM + 1);
        // Bit 8: a byte that must be quoted, from `UNESCAPED` or the masks.
        let mut needs = 0u32;
        // SAFETY: the features are the caller's; the bounds are said at each step.
        unsafe {
            // Pointers, not indexes, for the step's input and output, with the last step
            // start and the last output position that leaves `ROOM`: the fewer values a step
            // keeps, the fewer it spills to the stack (at first it spilled three).
            let (input, mut base) = (block.as_ptr(), out.as_mut_ptr());
            *base.add(mark) = b'"';
            let mut wp = base.add(mark + 1); // the next byte written: `out[..wp]` is written
            let mut lim = base.add(out.capacity() - ROOM);
            let mut at = input.add(p);
            let last = input.add(block.len() - 128); // `p + 128 <= block.len()`, above
            let stops_row = _mm256_broadcastsi128_si256(_mm_loadu_si128(STOPS.as_ptr().cast()));
            let end = loop {
                // 128 bytes are readable at `at` (`at <= last`: at first, by the check above,
                // then by the one at the step's end).
                let (lo, hi) = wide::load(at);
                let stop = |x: __m256i| _mm256_cmpeq_epi8(x, _mm256_shuffle_epi8(stops_row, x));
                let eq = |b: u8| wide::eq(lo, hi, _mm256_set1_epi8(b as i8));
                let stops = wide::mask(stop(lo), stop(hi));
                let quotes = eq(b'"');
                // A step starts on a byte no backslash escapes: the field's first, or a
                // backslash the step before left (below).
                let (escaped, starts) = super::escapes_64(eq(b'\\'));
                // A TAB, CR or newline that a backslash escapes is not the end, but is taken
                // as it all the same: its escape lies below it, and `UNESCAPED` leaves it to
                // the row path.
                let k = stops.trailing_zeros();
                // Without the field's end, an escape whose backslash is the step's last
                // byte is left to the next step, which starts on it. Only `k` and `starts`
                // are kept through the loop below: each value more was a spill.
                let cut = k - (k >> 6 & (starts >> 63) as u32);
                let mut ins = _bzhi_u64(starts | (quotes & !escaped), cut);
                if wp > lim {
                    let w = wp.offset_from_unsigned(base);
                    out.set_len(w);
                    out.reserve(ROOM);
                    base = out.as_mut_ptr();
                    (wp, lim) = (base.add(w), base.add(out.capacity() - ROOM));
                }
                // The input byte `j` (from `from` on) goes to `wq + j`: each escape takes
                // `wq` back a byte (two bytes become one), each doubled quote on. `wq` may
                // point before `out` (wrapping arithmetic); `wq + from` never does.
                // Reads are of `at[from..from + 64]` with `from <= 64`, and of `at[j + 1]`
                // with `j < cut <= 64`, inside the 128 bytes; writes are of 64 bytes at
                // `wq + from` and two at `wq + j`, at most `2 * 64` past `wp`, inside the
                // `ROOM` reserved.
                let (mut wq, mut from) = (wp, 0usize);
                while ins != 0 {
                    let j = ins.trailing_zeros() as usize;
                    copy_64(at.add(from), wq.wrapping_add(from));
                    if starts >> j & 1 != 0 {
                        let e = super::UNESCAPED[usize::from(*at.add(j + 1))];
                        if e == 0 {
                            out.set_len(mark);
                            return None;
                        }
                        needs |= u32::from(e);
                        *wq.wrapping_add(j) = e as u8;
                        *wq.wrapping_add(j + 1) = b'"';
                        wq = wq.wrapping_add(usize::from(e >> 9)).wrapping_sub(1);
                        from = j + 2;
                    } else {
                        needs |= 1 << 8;
                        *wq.wrapping_add(j) = b'"';
                        wq = wq.wrapping_add(1);
                        from = j;
                    }
                    ins &= ins - 1;
                }
                // Once the value must be quoted (a note, after its first line), its commas
                // no longer matter; a quote or an escaped newline has said so above.
                // (A comma at bit 63 after a step's last backslash is the field's all the
                // same: counted here or in the next step.)
                if needs & (1 << 8) == 0 && _bzhi_u64(eq(b','), k) != 0 {
                    needs = 1 << 8;
                }
                copy_64(at.add(from), wq.wrapping_add(from));
                if k < 64 {
                    wp = wq.wrapping_add(k as usize);
                    break at.offset_from_unsigned(input) + k as usize;
                }
                let len = 64 - (starts >> 63) as usize;
                wp = wq.wrapping_add(len);
                at = at.add(len);
                if at > last {
                    out.set_len(mark);
                    return None;
                }
            };
            // The field ends at `end < block.len() - 64` (the last step's start is at most
            // `block.len() - 128`).
            if *input.add(end) == b'\r' {
                out.set_len(mark);
                return None;
            }
            // An empty value is quoted (unquoted it is the NULL), and `\.` alone, which
            // would end the data. The closing quote fits: a step starts with `ROOM` free
            // and writes at most 128 bytes.
            if needs >> 8 & 1 != 0 {
                *wp = b'"';
                out.set_len(wp.offset_from_unsigned(base) + 1);
                return Some(end);
            }
            // `out[mark..]` up to `wp` was written above.
            out.set_len(wp.offset_from_unsigned(base));
            let value = &out[mark + 1..];
            if value.is_empty() || value == b"\\." {
                out.push(b'"');
            } else {
                out.copy_within(mark + 1.., mark);
                out.truncate(out.len() - 1);
            }
            Some(end)
        }
    }

    /// Bits `0..=k`.
    #[inline]
    fn upto(k: u32) -> u64 {
        u64::MAX >> (63 - k)
    }

    impl CopyConverter {
        /// [`CopyConverter::convert`] 64 bytes at a time: each step takes the bytes up to
        /// the block's last TAB or newline, so it ends on a field boundary and knows every
        /// field it writes whole. A field with a comma or quote gets a quote before and
        /// after it and its quotes doubled, an empty one `""`, a NULL (`\N`) nothing, and
        /// the rest is copied with TABs as commas; each newline checks its row's field
        /// count. A field with another backslash or a CR, and a field longer than a block
        /// with one, go with the rest of their row to the row path
        /// ([`CopyConverter::row_from`]); the last 128 bytes or so to
        /// [`CopyConverter::convert_rows`].
        ///
        /// # Safety
        /// The CPU has AVX2, POPCNT and LZCNT (`records::wide::available`).
        #[target_feature(enable = "avx2,popcnt,lzcnt")]
        pub(super) unsafe fn convert_wide(
            &self,
            block: &[u8],
            out: &mut Vec<u8>,
        ) -> Result<u64, RowError> {
            let mut rows = 0u64;
            let mut line = 0usize; // the start of the row being written
            let mut p = 0usize; // the next field's start, in that row
            let mut fields = 0usize; // the row's fields before `p`
            // 128 bytes: a step reads 64, and writes the window's pieces from the input
            // 64 bytes at a time, from anywhere in the first 64.
            while p + 128 <= block.len() {
                let at = block[p..p + 128].as_ptr();
                // SAFETY: `at` has 128 readable bytes; the features are the caller's.
                let m = unsafe { Masks::of(at) };
                let sep = m.tabs | m.newlines;
                // A field that is exactly `\N` (a NULL, written as the empty field) is
                // taken here when its separator is in the block; any other backslash, and
                // a CR, is an escape.
                let (mut nulls, mut escapes) = (0u64, m.escapes);
                if escapes != 0 {
                    // SAFETY: as for `Masks::of`.
                    let (bs, ns) = unsafe { Masks::backslashes(at) };
                    nulls = bs & ((sep << 1) | 1) & (ns >> 1) & (sep >> 2);
                    escapes &= !nulls;
                }
                let last = if escapes != 0 {
                    // The fields before the field holding the first escape are written
                    // here, the rest of its row by the row path.
                    let before = (escapes & escapes.wrapping_neg()) - 1;
                    let ends = sep & before;
                    if ends == 0 {
                        // SAFETY: the features are the caller's (`available` has BMI).
                        p = unsafe { self.finish_row(block, line, p, fields, rows, out) }?;
                        (rows, line, fields) = (rows + 1, p, 0);
                        continue;
                    }
                    63 - ends.leading_zeros()
                } else if sep == 0 {
                    // A field longer than the block (a description, a document): found
                    // whole by blocks, then copied (quoted if it must be).
                    // SAFETY: the features are the caller's.
                    let Some((end, special)) = (unsafe { field_end(block, p) }) else {
                        // SAFETY: as above.
                        p = unsafe { self.finish_row(block, line, p, fields, rows, out) }?;
                        (rows, line, fields) = (rows + 1, p, 0);
                        continue;
                    };
                    let value = &block[p..end];
                    if special {
                        quote_long(value, out);
                    } else {
                        out.extend_from_slice(value);
                    }
                    fields += 1;
                    if block[end] == b'\t' {
                        out.push(b',');
                        p = end + 1;
                    } else {
                        if fields != self.ncols {
                            return Err(RowError {
                                row: rows,
                                offset: line,
                                msg: count_msg(fields, self.ncols),
                            });
                        }
                        out.push(b'\n');
                        p = end + 1;
                        (rows, line, fields) = (rows + 1, p, 0);
                    }
                    continue;
                } else {
                    63 - sep.leading_zeros()
                };
                let win = upto(last);
                let len = last as usize + 1;

                // The rows that end in the window: their field counts.
                let mut tabs = m.tabs & win;
                let mut ends = m.newlines & win;
                while ends != 0 {
                    let k = ends.trailing_zeros();
                    let below = (1u64 << k) - 1;
                    let n = fields + (tabs & below).count_ones() as usize + 1;
                    if n != self.ncols {
                        return Err(RowError {
                            row: rows,
                            offset: line,
                            msg: count_msg(n, self.ncols),
                        });
                    }
                    tabs &= !below;
                    (rows, line, fields) = (rows + 1, p + k as usize + 1, 0);
                    ends &= ends - 1;
                }
                fields += tabs.count_ones() as usize;

                // Where quotes go: before each field that needs them and its end, before
                // each quote (doubled), two for an empty field.
                let sep = sep & win;
                let starts = ((sep << 1) | 1) & win;
                let empty = starts & sep;
                let quotes = m.quotes & win;
                let (mut open, mut close) = (0u64, 0u64);
                let mut special = (quotes | m.commas) & win;
                while special != 0 {
                    let k = special.trailing_zeros();
                    // A start is at or before `k` (bit 0 at least), a separator after it
                    // (the window ends with one and `k` is not one).
                    let start = 63 - (starts & upto(k)).leading_zeros();
                    let end = (sep & !upto(k)).trailing_zeros();
                    open |= 1 << start;
                    close |= 1 << end;
                    special &= !upto(end);
                }
                let twice = (quotes & open) | empty;
                // A NULL's two bytes are left out (its separator lies in the window, since
                // the window ends with the last separator before any escape).
                let nulls = nulls & win;
                let mut ins = quotes | open | close | empty | nulls;

                // At most 64 bytes and two quotes before each, and 64 written past the end.
                out.reserve(4 * 64);
                let (mut d, mut from) = (0usize, 0usize);
                let dst = out.spare_capacity_mut().as_mut_ptr().cast::<u8>();
                // SAFETY: reads are of `at[from..from + 64]`, `from < 64`, inside the 128
                // bytes; writes are of `dst[d..d + 64]` and `dst[d..d + 2]` with `d` at most
                // `3 * 64` (a byte and two quotes per byte read), inside the capacity
                // reserved. Features: the caller's.
                unsafe {
                    while ins != 0 {
                        let k = ins.trailing_zeros() as usize;
                        copy_fields(at.add(from), dst.add(d), k - from);
                        d += k - from;
                        if nulls >> k & 1 != 0 {
                            from = k + 2;
                        } else {
                            *dst.add(d) = b'"';
                            *dst.add(d + 1) = b'"';
                            d += 1 + (twice >> k & 1) as usize;
                            from = k;
                        }
                        ins &= ins - 1;
                    }
                    copy_fields(at.add(from), dst.add(d), len - from);
                    d += len - from;
                    let n = out.len() + d;
                    // SAFETY: `dst[..d]` was written above.
                    out.set_len(n);
                }
                p += len;
            }
            if p > line {
                // SAFETY: the features are the caller's (`available` has BMI).
                p = unsafe { self.finish_row(block, line, p, fields, rows, out) }?;
                (rows, line) = (rows + 1, p);
            }
            let n = self
                .convert_rows::<true>(&block[line..], out)
                .map_err(|e| RowError {
                    row: rows + e.row,
                    offset: line + e.offset,
                    msg: e.msg,
                })?;
            Ok(rows + n)
        }

        /// [`CopyConverter::convert_rows`] compiled for AVX2, for what the 64-byte path
        /// does not take (rows ending in CR LF, a NULL token that is not empty).
        ///
        /// # Safety
        /// The CPU has AVX2, POPCNT and LZCNT (`records::wide::available`).
        #[target_feature(enable = "avx2,popcnt,lzcnt")]
        pub(super) unsafe fn convert_rows_wide(
            &self,
            block: &[u8],
            out: &mut Vec<u8>,
        ) -> Result<u64, RowError> {
            self.convert_rows::<true>(block, out)
        }

        /// Writes the rest of the row starting at `line` from its field start `p` (after
        /// `fields` fields), by the row path; returns where the next row starts. Compiled
        /// for BMI1/BMI2 as well (`bzhi`, `andn`, `blsr`; `records::wide::available` asks
        /// for them): 2.6% fewer instructions on notes; the same for the 64-byte loop cost
        /// clean rows 1.2% more, so that loop is not.
        #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
        fn finish_row(
            &self,
            block: &[u8],
            line_start: usize,
            p: usize,
            fields: usize,
            row: u64,
            out: &mut Vec<u8>,
        ) -> Result<usize, RowError> {
            // The field at `p` holds the escape (or is a long one): it goes to
            // `escaped_field` at once, without a search for its first special byte, nor for
            // the row's end (a jsonb document's row ends a kilobyte on). A note is its row's
            // last field: that row ends here; the rest goes to `rest_of_row`, out of line,
            // which keeps this function's entry and exit short (fewer registers to save).
            // SAFETY: the features are the caller's.
            let done = unsafe { escaped_field(block, p, out) };
            if let Some(end) = done {
                // SAFETY: `escaped_field` ends 64 bytes or more before the block does, and
                // leaves room for a byte more in `out`.
                unsafe {
                    if *block.get_unchecked(end) == b'\n' && fields + 1 == self.ncols {
                        let n = out.len();
                        *out.as_mut_ptr().add(n) = b'\n';
                        out.set_len(n + 1);
                        return Ok(end + 1);
                    }
                }
            }
            self.rest_of_row(block, line_start, p, done, fields, row, out)
        }

        /// [`CopyConverter::finish_row`] for what `escaped_field` did not write (`done` is
        /// `None`) or did not end the row: the field at `p` by the row path, then the fields
        /// after it, or the row's wrong field count.
        #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
        #[inline(never)]
        #[allow(clippy::too_many_arguments)]
        fn rest_of_row(
            &self,
            block: &[u8],
            line_start: usize,
            p: usize,
            done: Option<usize>,
            fields: usize,
            row: u64,
            out: &mut Vec<u8>,
        ) -> Result<usize, RowError> {
            let err = |msg| RowError {
                row,
                offset: line_start,
                msg,
            };
            // The field ends at its TAB or the row's newline, and a CR in it is the row's
            // error, as in the row path, since the bytes before `p` had none.
            let rest = &block[line_start..];
            let at = p - line_start;
            let i = match done {
                Some(end) => end - line_start,
                None => at + self.special_field::<true>(&rest[at..], out).map_err(err)?,
            };
            if rest.get(i) != Some(&b'\t') {
                if fields + 1 != self.ncols {
                    return Err(err(count_msg(fields + 1, self.ncols)));
                }
                out.push(b'\n');
                // A block ends with a newline; were it cut, the rows path gets nothing more.
                return Ok((line_start + i + 1).min(block.len()));
            }
            // Fields after it: the rest of the row, to its end or a CR before it.
            let end = memchr::memchr2(b'\n', b'\r', &rest[i..]).map_or(rest.len(), |k| i + k);
            if rest.get(end) == Some(&b'\r') {
                return Err(err(super::LITERAL_CR.into()));
            }
            out.push(b',');
            let (line, pos) = (&rest[..end], i + 1);
            let special = memchr::memchr3(b'\\', b',', b'"', &line[pos..]).map(|k| pos + k);
            self.row_from::<true>(line, pos, fields + 1, special, out)
                .map_err(err)?;
            Ok((line_start + end + 1).min(block.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy as _;

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

    /// `c` converts `block` as the strict decoder does: the same CSV, or the same error at
    /// the same row.
    fn agree(c: &CopyConverter, block: &[u8]) -> Result<(), proptest::test_runner::TestCaseError> {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let rb = convert_strict(c, block, &mut b);
        for c in [c.clone(), c.clone().rows_only()] {
            a.clear();
            let ra = c.convert(block, &mut a);
            proptest::prop_assert_eq!(&ra, &rb, "{:?}", String::from_utf8_lossy(block));
            if ra.is_ok() {
                proptest::prop_assert_eq!(&a, &b, "{:?}", String::from_utf8_lossy(block));
            }
        }
        Ok(())
    }

    /// COPY text of `rows` (each a row's fields), each field after the first behind a TAB and
    /// each row ending in LF.
    fn lines(rows: &[Vec<Vec<u8>>]) -> Vec<u8> {
        let mut block = Vec::new();
        for row in rows {
            block.extend_from_slice(&row.join(&b'\t'));
            block.push(b'\n');
        }
        block
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
            let mut block = Vec::new();
            for row in &rows {
                block.extend_from_slice(&row.join(&b'\t'));
                block.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            // Mostly the rows' own field count; sometimes one less, or none.
            let ncols = match ncols_off { 0 | 1 => rows[0].len(), _ => rows[0].len() - 1 };
            let c = CopyConverter::new(ncols, FieldWriter::new(null)).with_crlf(crlf);
            agree(&c, &block)?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The same on fields long enough for the sixteen-byte runs of `quote_run` (mostly
        /// plain bytes, with escapes, quotes, commas and TABs falling on and across block
        /// edges, and escapes cut at the line's end).
        #[test]
        fn long_fields_agree_with_the_strict_decoder(
            rows in proptest::strategy::Strategy::prop_flat_map(1usize..4, |n| proptest::collection::vec(
                proptest::collection::vec(proptest::collection::vec(proptest::sample::select(
                    vec![b'a', b'a', b'a', b'a', b'a', b'a', b'\\', b',', b'"', b'N', b'.',
                         b'n', b'r', b'x', b'4', b'1', b'\r', b'\t', 0xff]),
                    0..60), n), 1..4)),
            null in proptest::sample::select(vec![&b""[..], b"\\N", b"aaaa"]),
        ) {
            let c = CopyConverter::new(rows[0].len(), FieldWriter::new(null));
            agree(&c, &lines(&rows))?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The same on fields made of escapes as pg_dump writes them and some it does not
        /// (every letter, `\\`, runs of backslashes, escaped quotes, commas and TABs,
        /// octal and hex bytes, a backslash cut by the line's end) between plain bytes,
        /// quotes and commas, long enough for `escapes_block`'s sixteen-byte steps and its
        /// shifted last step to meet each kind at every offset.
        #[test]
        fn escape_dense_fields_agree_with_the_strict_decoder(
            rows in proptest::strategy::Strategy::prop_flat_map(1usize..4, |n| proptest::collection::vec(
                proptest::collection::vec(escape_field(0..40), n), 1..4)),
            null in proptest::sample::select(vec![&b""[..], b"\\N"]),
        ) {
            let c = CopyConverter::new(rows[0].len(), FieldWriter::new(null));
            agree(&c, &lines(&rows))?;
        }
    }

    /// A field made of escapes as pg_dump writes them and some it does not (every letter,
    /// `\\`, runs of backslashes, escaped quotes, commas and TABs, octal and hex bytes),
    /// between plain bytes, quotes, commas and UTF-8; `parts` pieces of them. A lone
    /// backslash may end it (then escaping the TAB or newline after it), and a CR be in it.
    fn escape_field(
        parts: std::ops::Range<usize>,
    ) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::strategy::Strategy;
        proptest::collection::vec(
            proptest::sample::select(vec![
                &b"a"[..],
                b"a",
                b"a",
                b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                b"\\n",
                b"\\r",
                b"\\t",
                b"\\b",
                b"\\f",
                b"\\v",
                b"\\\\",
                b"\\\\\\\\",
                b"\\\"",
                b"\\,",
                b"\\q",
                b"\\\t",
                b"\\x41",
                b"\\x4",
                b"\\101",
                b"\\7",
                b"\\8",
                b"\\N",
                b"\"",
                b",",
                b"\xc3\xa9",
                b"\\",
            ]),
            parts,
        )
        .prop_map(|parts| parts.concat())
        .prop_flat_map(|f| {
            (proptest::strategy::Just(f), 0u8..40).prop_map(|(mut f, r)| {
                // One field in forty with a CR somewhere, one with a CR at its end.
                match r {
                    0 => {
                        let at = f.len() / 2;
                        f.insert(at, b'\r');
                    }
                    1 => f.push(b'\r'),
                    _ => {}
                }
                f
            })
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Blocks long enough for the 64-byte path, whose rows each hold an escape-dense
        /// field among plain ones (first, last or between): the row path is handed the
        /// rest of the block from that field on and must end the field, and the row, at
        /// the row's newline, with a CR or a backslash before the newline the row's error.
        #[test]
        fn escape_rows_in_blocks_agree_with_the_strict_decoder(
            rows in proptest::collection::vec(
                (proptest::collection::vec(field(), 0..4), escape_field(0..30), 0usize..4), 2..30),
            ncols_off in 0usize..4,
        ) {
            let rows: Vec<Vec<Vec<u8>>> = rows.into_iter().map(|(mut plain, esc, at)| {
                plain.insert(at.min(plain.len()), esc);
                plain
            }).collect();
            let ncols = match ncols_off { 0 => rows[0].len() + 1, _ => rows[0].len() };
            let c = CopyConverter::new(ncols, FieldWriter::new(b""));
            agree(&c, &lines(&rows))?;
        }
    }

    /// A note as pg_dump writes it (lines joined by `\n`, some by `\r\n`; TABs, paths,
    /// quotes, commas and UTF-8 in them), its pieces' lengths such that escapes fall on
    /// every offset of a 64-byte step; now and then what the 64-byte path leaves to the
    /// row path (an octal or hex escape, an escaped TAB, a CR, a backslash at its end) or
    /// a value that must be quoted only for what it is (`\\.`).
    fn note() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::strategy::Strategy;
        let piece = proptest::strategy::Union::new_weighted(vec![
            (
                40,
                proptest::collection::vec(
                    proptest::sample::select(b"aaaaaaab \xc3\xa9".to_vec()),
                    1..70,
                )
                .boxed(),
            ),
            (12, proptest::strategy::Just(b"\\n".to_vec()).boxed()),
            (2, proptest::strategy::Just(b"\\r\\n".to_vec()).boxed()),
            (3, proptest::strategy::Just(b"\\t".to_vec()).boxed()),
            (3, proptest::strategy::Just(b"\\\\".to_vec()).boxed()),
            (3, proptest::strategy::Just(b"\"".to_vec()).boxed()),
            (3, proptest::strategy::Just(b",".to_vec()).boxed()),
            // A note that starts like a json document goes to the row path; runs of
            // quotes.
            (
                2,
                proptest::sample::select(vec![
                    b"{".to_vec(),
                    b"[".to_vec(),
                    b"\"\"\"\"\"\"\"\"".to_vec(),
                ])
                .boxed(),
            ),
            (
                1,
                proptest::sample::select(vec![
                    b"\\b".to_vec(),
                    b"\\f".to_vec(),
                    b"\\v".to_vec(),
                    b"\\\"".to_vec(),
                    b"\\,".to_vec(),
                    b"\\N".to_vec(),
                    b"\\q".to_vec(),
                    b"\\\\\\\\".to_vec(),
                ])
                .boxed(),
            ),
            (
                1,
                proptest::sample::select(vec![
                    b"\\101".to_vec(),
                    b"\\x41".to_vec(),
                    b"\\\t".to_vec(),
                    b"\r".to_vec(),
                    b"\\".to_vec(),
                ])
                .boxed(),
            ),
        ]);
        proptest::strategy::Union::new_weighted(vec![
            (
                60,
                proptest::collection::vec(piece, 1..14)
                    .prop_map(|p| p.concat())
                    .boxed(),
            ),
            (1, proptest::strategy::Just(b"\\\\.".to_vec()).boxed()),
            (1, proptest::strategy::Just(b"\\\\\\.".to_vec()).boxed()),
        ])
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Blocks of rows like the notes table's (a key, a timestamp, a NULL or a number,
        /// then a note, or the note first): the notes are written 64 bytes a step with
        /// their escapes decoded in the step, and must come out as the byte-at-a-time
        /// decoder writes them, or fail at the same row.
        #[test]
        fn notes_agree_with_the_strict_decoder(
            rows in proptest::collection::vec(
                (0u32..100_000, proptest::option::of(0u32..1000), note(), proptest::bool::weighted(0.2)),
                2..40),
            ncols_off in 0usize..6,
        ) {
            let rows: Vec<Vec<Vec<u8>>> = rows.into_iter().map(|(id, score, body, first)| {
                let score = score.map_or(b"\\N".to_vec(), |s| s.to_string().into_bytes());
                let mut row = vec![id.to_string().into_bytes(), b"2026-12-05 07:00:00+00".to_vec(), score];
                if first {
                    row.insert(0, body);
                } else {
                    row.push(body);
                }
                row
            }).collect();
            let ncols = match ncols_off { 0 => 5, _ => 4 };
            let c = CopyConverter::new(ncols, FieldWriter::new(b""));
            agree(&c, &lines(&rows))?;
        }
    }

    /// The escaped bytes and escaping backslashes of the first `width` bytes whose
    /// backslashes are `bsl`, a byte at a time (an escaped byte past 64 is not kept).
    #[cfg(target_arch = "x86_64")]
    fn escapes_walk(bsl: u64, width: u32) -> (u64, u64) {
        let (mut escaped, mut starts, mut k) = (0u64, 0u64, 0);
        while k < width {
            if bsl >> k & 1 == 1 {
                starts |= 1 << k;
                if k < 63 {
                    escaped |= 1 << (k + 1);
                }
                k += 2;
            } else {
                k += 1;
            }
        }
        (escaped, starts)
    }

    /// `escapes_64` against a walk of sixty-four bytes' backslashes: runs of every length
    /// at every offset, and masks at random.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn escapes_64_agrees_with_a_walk() {
        let walk = |bsl: u64| escapes_walk(bsl, 64);
        let mut masks = Vec::new();
        for len in 1..=64u32 {
            for at in 0..=64 - len {
                let run = if len == 64 {
                    u64::MAX
                } else {
                    ((1u64 << len) - 1) << at
                };
                masks.extend([run, run | 1, run | 1 << 63, run ^ 0x5555_5555_5555_5555]);
            }
        }
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            masks.extend([r, r & r.rotate_left(7), r | r.rotate_left(3)]);
        }
        for bsl in masks {
            assert_eq!(escapes_64(bsl), walk(bsl), "{bsl:064b}");
        }
    }

    /// `escapes` against a walk of every mask of sixteen backslashes.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn escapes_agrees_with_a_walk() {
        let walk = |bsl: u64| escapes_walk(bsl, 32);
        // Every mask of sixteen, alone and in the upper half after a run of backslashes;
        // thirty-two bits at random (an xorshift, seeded).
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for m in 0u64..1 << 16 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            for bsl in [m, m << 16 | 0xffff, m << 16 | 0x7fff, r & 0xffff_ffff] {
                assert_eq!(escapes(bsl), walk(bsl), "{bsl:032b}");
            }
        }
    }

    /// A field of the block test: mostly plain bytes, commas and quotes, short or longer than
    /// a block, or a NULL (`\N`); one in sixty may hold any byte (a backslash, CR or TAB).
    fn field() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::strategy::Strategy;
        let plain = [vec![b'a'; 12], vec![b',', b'"', b'N', b'.', 0xff]].concat();
        let any = [plain.clone(), vec![b'\\', b'\r', b'\t', b'n', b'x', b'4']].concat();
        let pick = |bytes: &Vec<u8>, len: std::ops::Range<usize>| {
            proptest::collection::vec(proptest::sample::select(bytes.clone()), len).boxed()
        };
        proptest::strategy::Union::new_weighted(vec![
            (30, proptest::strategy::Just(b"\\N".to_vec()).boxed()),
            (540, pick(&plain, 0..12)),
            (60, pick(&plain, 60..140)),
            (9, pick(&any, 0..12)),
            (1, pick(&any, 60..140)),
        ])
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The same on blocks of many rows, long enough for the 64-byte path: plain fields
        /// mostly, with commas, quotes, empty fields, escapes, CRs, fields longer than a
        /// block and rows with a field too many or too few anywhere in the block.
        #[test]
        fn blocks_agree_with_the_strict_decoder(
            rows in (1usize..7).prop_flat_map(|n| proptest::collection::vec(
                proptest::collection::vec(field(), n), 1..40)),
            null in proptest::sample::select(vec![&b""[..], &b""[..], &b""[..], b"\\N"]),
            ncols_off in 0usize..4,
        ) {
            let ncols = match ncols_off { 0 => rows[0].len() + 1, _ => rows[0].len() };
            let c = CopyConverter::new(ncols, FieldWriter::new(null));
            agree(&c, &lines(&rows))?;
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The block TAB rewrite against a byte-at-a-time count, map and search for two TABs
        /// in a row, with TABs at every place in and across sixteen-byte blocks.
        #[test]
        fn tabs_to_commas_agrees_with_a_byte_count(seg in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'a', b'a', b'\t', b',', 0xff]), 0..80)) {
            let mut out = b"x".to_vec();
            let (n, adjacent) = tabs_to_commas(&seg, &mut out);
            let want: Vec<u8> = seg.iter().map(|&b| if b == b'\t' { b',' } else { b }).collect();
            proptest::prop_assert_eq!(&out[1..], &want[..]);
            proptest::prop_assert_eq!(n, seg.iter().filter(|&&b| b == b'\t').count());
            proptest::prop_assert_eq!(adjacent, seg.windows(2).any(|w| w == b"\t\t"));
        }
    }

    #[test]
    fn zero_columns() {
        let (n, out) = conv(0, b"", b"\n\n").unwrap();
        assert_eq!((n, out), (2, b"\n\n".to_vec()));
        assert!(conv(0, b"", b"x\n").is_err());
    }
}
