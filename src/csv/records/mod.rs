//! Quote-aware CSV record scanning that never copies or re-encodes a record.
//!
//! [`ChunkReader`] cuts a stream into large chunks of whole records and notes where each
//! record ends, so tools can sort, split or check records in parallel and write them back
//! byte for byte. [`split_fields`] finds the fields of one record when a tool needs values.
//!
//! Record boundaries are found by quote parity with `memchr2` rather than csv-core's DFA: in
//! RFC 4180 a newline ends a record exactly when an even number of `"` precede it in the
//! record, and a SIMD search for two bytes runs several times faster than a byte-at-a-time
//! state machine; where quoted fields come close together, 64-byte quote and newline masks
//! instead ([`DENSE_SPAN`]), by AVX2 where the CPU has it ([`wide`]). Quoting mistakes that
//! parity cannot see (a bare `"` inside an unquoted field) are caught by [`split_fields`]
//! when the fields are looked at.
//!
//! The parts: `map.rs` reads a regular file mapped in place ([`MapChunks`]), `scan.rs` finds
//! record ends (the SIMD block scanners and their scalar reference), `split.rs` finds the
//! fields of one record; the record types and the stream reader are here.

use crate::io::error::{Error, IoContext, Pos, Result};
use std::borrow::Cow;
use std::io::Read;

mod map;
mod scan;
mod split;

pub use map::{FileMap, MapChunks, MapView};
#[cfg(target_arch = "x86_64")]
pub use scan::wide;
pub use scan::{
    DENSE_SPAN, QuotedNewlines, byte_masks, dense_after, prefix_xor, scan_ends, scan_ends_counting,
};
pub use split::{split_fields, split_fields_fast, split_fields_upto, strip_terminator};

/// A run of whole records, with the end offset of each: the one record-buffer type of the
/// toolkit. `D` holds the bytes: a `Vec` read by [`ChunkReader`], or a borrowed slice of a
/// larger buffer (csvsplit's mapped file), where record 0 starts at `begin`.
#[derive(Debug, Default)]
pub struct Chunk<D = Vec<u8>> {
    /// The records' bytes, exactly as read.
    pub data: D,
    /// Offset in `data` where record 0 starts (0 for [`ChunkReader`]'s chunks).
    pub begin: usize,
    /// `ends[i]` is the offset just past record `i` (past its `\n`, or the end of data for
    /// a last record without one).
    pub ends: Vec<usize>,
    /// 1-based number of the first record in the stream.
    pub first_record: u64,
    /// 1-based line number at `data[0]`.
    pub first_line: u64,
    /// Offset of `data[0]` in the (decompressed) stream.
    pub first_byte: u64,
}

impl<D> Chunk<D> {
    /// The same records over bytes held another way (`f` turns the old holder into the new).
    pub fn map_data<E>(self, f: impl FnOnce(D) -> E) -> Chunk<E> {
        Chunk {
            data: f(self.data),
            begin: self.begin,
            ends: self.ends,
            first_record: self.first_record,
            first_line: self.first_line,
            first_byte: self.first_byte,
        }
    }
}

impl<D: AsRef<[u8]>> Chunk<D> {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when the chunk holds no record.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Offset in `data` where record `i` starts.
    #[inline]
    pub fn start(&self, i: usize) -> usize {
        if i == 0 { self.begin } else { self.ends[i - 1] }
    }

    /// Byte range of record `i` within `data`.
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start(i)..self.ends[i]
    }

    /// Raw bytes of record `i`, terminator included.
    #[inline]
    pub fn record(&self, i: usize) -> &[u8] {
        &self.data.as_ref()[self.range(i)]
    }

    /// Iterates over the raw records.
    pub fn records(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.record(i))
    }

    /// The position of record `i`, for messages. Counts newlines, so it is meant for the
    /// error path, not for every record.
    pub fn pos(&self, i: usize, file: &str) -> Pos {
        let start = self.start(i);
        let lines = memchr::memchr_iter(b'\n', &self.data.as_ref()[..start]).count() as u64;
        Pos {
            file: file.to_string(),
            line: self.first_line + lines,
            byte: self.first_byte + start as u64,
            record: Some(self.first_record + i as u64),
        }
    }

    /// Number of newlines in the records (the lines they take).
    pub fn newlines(&self) -> u64 {
        let end = self.ends.last().copied().unwrap_or(self.begin);
        memchr::memchr_iter(b'\n', &self.data.as_ref()[self.begin..end]).count() as u64
    }
}

impl ChunkReader<Box<dyn Read + Send>> {
    /// Reads an opened input (named by its name), counting the bytes read for the progress
    /// bar where the input's reader does not ([`crate::io::input::open_records`]).
    pub fn for_input(inp: crate::io::input::Input, target: usize) -> Self {
        let mut r = ChunkReader::new(inp.reader, &inp.name, target);
        r.count = !inp.counted;
        r
    }
}

/// Reads a stream as chunks of whole CSV records.
pub struct ChunkReader<R> {
    r: R,
    name: String,
    target: usize,
    carry: Vec<u8>,
    record: u64,
    line: u64,
    byte: u64,
    eof: bool,
    keep_unterminated: bool,
    /// Adds the bytes it reads to the progress bar's (its reader does not).
    count: bool,
}

impl<R: Read> ChunkReader<R> {
    /// Reads `r` (named `name` in messages) in chunks of about `target` bytes.
    pub fn new(r: R, name: &str, target: usize) -> ChunkReader<R> {
        ChunkReader {
            r,
            name: name.to_string(),
            target: target.max(1),
            carry: Vec::new(),
            record: 1,
            line: 1,
            byte: 0,
            eof: false,
            keep_unterminated: false,
            count: false,
        }
    }

    /// Numbers the records from `pos` on: the reader starts there in a larger file (a part
    /// of it, see csvload's plan), so positions in messages are the file's own.
    pub fn starting_at(mut self, byte: u64, record: u64, line: u64) -> ChunkReader<R> {
        (self.byte, self.record, self.line) = (byte, record, line);
        self
    }

    /// The input's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Changes the chunk size for the following chunks (e.g. a small first chunk for the
    /// header).
    pub fn set_target(&mut self, target: usize) {
        self.target = target.max(1);
    }

    /// When set, input that ends inside quotes yields its tail as a last record (which
    /// [`split_fields`] reports as [`Malformed::Unterminated`]) instead of an error, for
    /// tools that report bad records rather than stop (csvcheck).
    pub fn keep_unterminated(&mut self, yes: bool) {
        self.keep_unterminated = yes;
    }

    /// Position of the next record to be returned.
    pub fn next_pos(&self) -> Pos {
        Pos {
            file: self.name.clone(),
            line: self.line,
            byte: self.byte,
            record: Some(self.record),
        }
    }

    /// Returns the next chunk, reusing `buf`'s allocation. `None` at end of input.
    pub fn next_chunk(&mut self, buf: Vec<u8>) -> Result<Option<Chunk>> {
        self.next_chunk_into(Chunk {
            data: buf,
            ..Chunk::default()
        })
    }

    /// Like [`next_chunk`](Self::next_chunk), reusing both allocations of an old chunk.
    pub fn next_chunk_into(&mut self, mut c: Chunk) -> Result<Option<Chunk>> {
        c.data.clear();
        c.ends.clear();
        c.data.extend_from_slice(&self.carry);
        self.carry.clear();
        let mut scan = 0usize;
        let mut in_quote = false;
        let mut qn = QuotedNewlines::default();
        let mut want = self.target;
        loop {
            while c.data.len() < want && !self.eof {
                self.fill(&mut c.data, want)?;
            }
            scan_ends_counting(
                &c.data,
                &mut scan,
                &mut in_quote,
                usize::MAX,
                &mut c.ends,
                &mut qn,
            );
            if !c.ends.is_empty() || self.eof {
                break;
            }
            // One record longer than the chunk: grow until it ends.
            want = c.data.len() * 2;
        }
        let last = c.ends.last().copied().unwrap_or(0);
        let mut lines = c.ends.len() as u64 + qn.before_last_end;
        if self.eof {
            let here = self.next_pos();
            end_tail(
                &c.data,
                &mut c.ends,
                in_quote,
                self.keep_unterminated,
                &here,
            )?;
            lines += memchr::memchr_iter(b'\n', &c.data[last..]).count() as u64;
        } else if last < c.data.len() {
            self.carry.extend_from_slice(&c.data[last..]);
            c.data.truncate(last);
        }
        if c.ends.is_empty() {
            return Ok(None);
        }
        c.first_record = self.record;
        c.first_line = self.line;
        c.first_byte = self.byte;
        self.record += c.ends.len() as u64;
        debug_assert_eq!(lines, c.newlines());
        self.line += lines;
        self.byte += c.data.len() as u64;
        Ok(Some(c))
    }

    fn fill(&mut self, data: &mut Vec<u8>, want: usize) -> Result<()> {
        let grow = (want - data.len()).max(64 << 10);
        // `read_to_end` reads into the vector's spare capacity without zeroing it first (a
        // `resize(.., 0)` before each read was 2% of a typed csvcheck, all of it memset), and
        // stops at `grow` bytes or the end of the input, retrying interrupted reads. On an
        // error `data` keeps what was read before it.
        data.reserve(grow);
        match (&mut self.r).take(grow as u64).read_to_end(data) {
            Ok(n) => {
                if self.count {
                    crate::io::progress::add_read(n as u64);
                }
                if n < grow {
                    self.eof = true;
                }
                Ok(())
            }
            Err(e) => Err(e).at(&self.name),
        }
    }
}

/// At the end of the input: bytes after the last record end of `data` (whose first byte is at
/// `here`) are a last record without a terminator, unless they end inside quotes, which is
/// an error (the mark of a failed upstream tool, or a quote never closed); with `keep`, such
/// a tail is still a record (for csvcheck, which reports it), but never a failed tool's mark.
fn end_tail(
    data: &[u8],
    ends: &mut Vec<usize>,
    in_quote: bool,
    keep: bool,
    here: &Pos,
) -> Result<()> {
    let last = ends.last().copied().unwrap_or(0);
    if last == data.len() {
        return Ok(());
    }
    let tail = &data[last..];
    if in_quote && (!keep || tail.ends_with(crate::io::stream::INCOMPLETE)) {
        let at = |off: usize| Pos {
            file: here.file.clone(),
            line: here.line + memchr::memchr_iter(b'\n', &data[..off]).count() as u64,
            byte: here.byte + off as u64,
            record: Some(here.record.unwrap_or(1) + ends.len() as u64),
        };
        return Err(unterminated(tail, last, at));
    }
    ends.push(data.len());
    Ok(())
}

/// The error for a last record `tail` (at offset `base`) that ends inside quotes: the mark of
/// a failed upstream tool, a `"` inside an unquoted field, or a quoted field never closed.
pub fn unterminated(tail: &[u8], base: usize, at: impl Fn(usize) -> Pos) -> Error {
    if tail.ends_with(crate::io::stream::INCOMPLETE) {
        return Error::input(
            at(base),
            "the input is incomplete: the tool that wrote it failed (see its error)",
        );
    }
    // Find the quote that opened the field still open at the end.
    let mut open = 0;
    let mut q = false;
    for (i, &b) in tail.iter().enumerate() {
        if b == b'"' {
            q = !q;
            if q {
                open = i;
            }
        }
    }
    let field_start = open == 0 || matches!(tail[open - 1], b',' | b'\n');
    if field_start {
        Error::input(
            at(base),
            format!(
                "unterminated quoted field: the quote at byte {} is never closed",
                at(base + open).byte
            ),
        )
    } else {
        let p = at(base + open);
        Error::input(
            at(base),
            format!(
                "bare quote in unquoted field at line {}, byte {} (quote the field and double the quote)",
                p.line, p.byte
            ),
        )
    }
}

/// The names a header record `rec` gives, its fields already split into `fields` (lossy
/// UTF-8): the one header-names helper of the tools.
pub fn field_names(rec: &[u8], fields: &[Field]) -> Vec<String> {
    fields
        .iter()
        .map(|f| String::from_utf8_lossy(&f.value(rec)).into_owned())
        .collect()
}

/// The names of the header record `header` ([`field_names`] after [`split_fields`]).
pub fn header_names(header: &[u8]) -> Result<Vec<String>, Malformed> {
    let mut f = Vec::new();
    split_fields(header, &mut f)?;
    Ok(field_names(header, &f))
}

/// The loop of a read-ahead thread: makes items with `next` (handing it back an item the
/// consumer returned through `back`, so buffers are recycled and memory stays flat) and sends
/// them on `tx` until the input ends, an error (which is sent on) or the consumer hangs up.
pub fn read_ahead<T, B>(
    mut next: impl FnMut(Option<B>) -> Result<Option<T>>,
    tx: &std::sync::mpsc::SyncSender<Result<T>>,
    back: &std::sync::mpsc::Receiver<B>,
) {
    loop {
        match next(back.try_recv().ok()) {
            Ok(Some(item)) => {
                if tx.send(Ok(item)).is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

/// One field of a record, as a span of the raw record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Start of the raw field (at the opening quote if quoted).
    pub start: usize,
    /// End of the raw field (past the closing quote if quoted).
    pub end: usize,
    /// Whether the field was quoted. An unquoted empty field is NULL in the contract.
    pub quoted: bool,
}

impl Field {
    /// The raw bytes, quotes included.
    #[inline]
    pub fn raw<'a>(&self, rec: &'a [u8]) -> &'a [u8] {
        &rec[self.start..self.end]
    }

    /// Whether the field is NULL by COPY's CSV rule: unquoted and equal to the NULL string
    /// `null` (a quoted field is never NULL).
    #[inline]
    pub fn is_null(&self, rec: &[u8], null: &[u8]) -> bool {
        !self.quoted && self.raw(rec) == null
    }

    /// The value: quotes removed and `""` undoubled. Borrows when nothing needs undoubling.
    pub fn value<'a>(&self, rec: &'a [u8]) -> Cow<'a, [u8]> {
        if !self.quoted {
            return Cow::Borrowed(&rec[self.start..self.end]);
        }
        let inner = &rec[self.start + 1..self.end - 1];
        if memchr::memchr(b'"', inner).is_none() {
            return Cow::Borrowed(inner);
        }
        let mut v = Vec::with_capacity(inner.len());
        let mut i = 0;
        while i < inner.len() {
            v.push(inner[i]);
            i += if inner[i] == b'"' { 2 } else { 1 };
        }
        Cow::Owned(v)
    }

    /// [`Field::value`] without an allocation per field: a value with doubled quotes is
    /// undoubled into `scratch` (reused across fields), in runs between the quotes. Content
    /// verification reads every field of every record twice, and a jsonb document or a
    /// composite always has doubled quotes (issue 35, item 8).
    #[inline]
    pub fn value_in<'a>(&self, rec: &'a [u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
        if !self.quoted {
            return &rec[self.start..self.end];
        }
        let inner = &rec[self.start + 1..self.end - 1];
        let Some(first) = memchr::memchr(b'"', inner) else {
            return inner;
        };
        scratch.clear();
        #[cfg(target_arch = "x86_64")]
        if wide::available() {
            // SAFETY: the CPU has AVX2; the split leaves quotes in pairs inside a field.
            unsafe { wide::undouble(inner, scratch) };
            return scratch;
        }
        let mut from = 0;
        let mut q = first;
        loop {
            // `inner[q]` opens a doubled pair: keep one quote, skip the other.
            scratch.extend_from_slice(&inner[from..=q]);
            from = q + 2;
            match inner.get(from..).and_then(|t| memchr::memchr(b'"', t)) {
                Some(n) => q = from + n,
                None => break,
            }
        }
        if from < inner.len() {
            scratch.extend_from_slice(&inner[from..]);
        }
        scratch
    }

    /// True for an unquoted empty field.
    #[inline]
    pub fn is_empty_unquoted(&self) -> bool {
        !self.quoted && self.start == self.end
    }
}

/// What is wrong with a record's quoting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// A `"` inside an unquoted field, at this offset in the record.
    BareQuote(usize),
    /// Something other than `,` or the record end after a closing quote.
    TextAfterQuote(usize),
    /// The record ends inside quotes.
    Unterminated,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Malformed::BareQuote(_) => write!(f, "bare '\"' in an unquoted field"),
            Malformed::TextAfterQuote(_) => write!(f, "text after the closing quote of a field"),
            Malformed::Unterminated => write!(f, "unterminated quoted field"),
        }
    }
}

/// csvcheck's words (and csvload `--check-records`'s) for a blank line in a table of more than
/// one column.
pub const BLANK_LINE_WORDS: &str =
    "blank line (CockroachDB skips it, PostgreSQL reads it as a record)";

/// csvcheck's words (and csvload `--check-records`'s) for an unquoted line `\.`.
pub const END_MARKER_WORDS: &str =
    "unquoted \\. line: PostgreSQL's COPY takes it as the end of data";

impl Malformed {
    /// What is wrong, with where in the record: csvcheck's words, and csvload
    /// `--check-records`'s.
    pub fn words(self) -> String {
        match self {
            Malformed::Unterminated => {
                "unterminated quoted field: the input ends inside quotes".to_string()
            }
            Malformed::BareQuote(at) | Malformed::TextAfterQuote(at) => {
                format!("{self} at byte {at} of the record")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `value_in` gives `value`'s bytes for quoted fields with and without doubled quotes,
    /// at the ends and in runs, and for unquoted fields.
    #[test]
    fn value_in_agrees_with_value() {
        let mut scratch = Vec::new();
        for rec in [
            &b"a,\"\",\"\"\"\",\"x\"\"\",\"\"\"y\",\"a\"\"\"\"b\",\"{\"\"k\"\": 1}\",\"plain\"\n"[..],
            b"\"\"\"\"\"\"\"\",z",
        ] {
            let mut fields = Vec::new();
            split_fields(rec, &mut fields).unwrap();
            let body = strip_terminator(rec);
            for f in &fields {
                assert_eq!(f.value_in(body, &mut scratch), &*f.value(body), "{f:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// `value_in` (sixteen bytes at a time with AVX2) gives back any value quoted with
        /// its quotes doubled: quotes in runs, at every place in and across the blocks, and
        /// in the tail; into a scratch that held a longer value before.
        #[test]
        fn value_in_undoubles_any_value(v in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'a', b'"', b'"', b',', b'\n', 0xff]), 0..90)) {
            let mut rec = b"x,\"".to_vec();
            for &b in &v {
                rec.extend_from_slice(if b == b'"' { b"\"\"" } else { std::slice::from_ref(&b) });
            }
            rec.extend_from_slice(b"\",y\n");
            let mut fields = Vec::new();
            split_fields(&rec, &mut fields).unwrap();
            let mut scratch = vec![b'z'; 200];
            proptest::prop_assert_eq!(fields[1].value_in(&rec, &mut scratch), &v[..]);
        }
    }

    fn chunks(input: &[u8], target: usize) -> Result<Vec<Vec<u8>>> {
        let mut r = ChunkReader::new(input, "t", target);
        let mut out = Vec::new();
        while let Some(c) = r.next_chunk(Vec::new())? {
            for rec in c.records() {
                out.push(rec.to_vec());
            }
        }
        Ok(out)
    }

    /// A pipe's reader: a few bytes per read, an interruption between reads, and optionally
    /// an error after `fail_at` bytes.
    struct Trickle<'a> {
        data: &'a [u8],
        at: usize,
        step: usize,
        interrupt: bool,
        fail_at: Option<usize>,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(std::io::Error::other("device gone"));
            }
            let n = self.step.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            self.step = self.step % 7 + 1;
            Ok(n)
        }
    }

    /// Short reads and interruptions (a pipe, a signal) cut the same records as one read of
    /// everything; a read error is reported under the input's name, with nothing taken for
    /// the end of the input.
    #[test]
    fn short_and_interrupted_reads_cut_the_same_records() {
        let mut input = Vec::new();
        for i in 0..30_000u32 {
            input.extend_from_slice(
                format!("{i},\"a\nb\",{}\n", "z".repeat((i % 31) as usize)).as_bytes(),
            );
        }
        for target in [1, 100, 65_536, 1 << 20] {
            let trickle = Trickle {
                data: &input,
                at: 0,
                step: 1,
                interrupt: false,
                fail_at: None,
            };
            let mut r = ChunkReader::new(trickle, "t", target);
            let mut got = Vec::new();
            while let Some(c) = r.next_chunk(Vec::new()).unwrap() {
                got.extend(c.records().map(<[u8]>::to_vec));
            }
            assert_eq!(got, chunks(&input, target).unwrap(), "target {target}");
            assert_eq!(got.len(), 30_000);
        }
        let failing = Trickle {
            data: &input,
            at: 0,
            step: 1,
            interrupt: false,
            fail_at: Some(200_000),
        };
        let mut r = ChunkReader::new(failing, "pipe.csv", 1 << 16);
        let err = loop {
            match r.next_chunk(Vec::new()) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("a failed read ended the input"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(
            err.contains("pipe.csv") && err.contains("device gone"),
            "{err}"
        );
    }

    #[test]
    fn records_survive_any_chunk_size() {
        let input = b"a,b\n\"x\ny\",2\r\n\"\"\"q\",\n,\nlast";
        for t in [1, 2, 3, 5, 8, 1000] {
            let recs = chunks(input, t).unwrap();
            assert_eq!(
                recs,
                vec![
                    b"a,b\n".to_vec(),
                    b"\"x\ny\",2\r\n".to_vec(),
                    b"\"\"\"q\",\n".to_vec(),
                    b",\n".to_vec(),
                    b"last".to_vec()
                ],
                "target {t}"
            );
        }
        assert!(chunks(b"", 10).unwrap().is_empty());
    }

    #[test]
    fn unterminated_quote_is_reported_with_position() {
        let err = chunks(b"a\nb\n\"open,\nmore", 4).unwrap_err().to_string();
        assert!(err.contains("t:3:"), "{err}");
        assert!(err.contains("record 3"), "{err}");
        assert!(err.contains("byte 4"), "{err}");
    }

    #[test]
    fn bare_quote_and_failed_upstream_are_named() {
        let err = chunks(b"id,v\n1,ab\"c\n2,x\n", 4).unwrap_err().to_string();
        assert!(
            err.contains("bare quote in unquoted field at line 2, byte 9"),
            "{err}"
        );
        let mut s = b"1,a\n2,\"".to_vec();
        s.extend_from_slice(crate::io::stream::INCOMPLETE);
        let mut r = ChunkReader::new(&s[..], "t", 1 << 20);
        r.keep_unterminated(true);
        let err = r.next_chunk(Vec::new()).unwrap_err().to_string();
        assert!(err.contains("the tool that wrote it failed"), "{err}");
    }

    #[test]
    fn positions() {
        let mut r = ChunkReader::new(&b"a\n\"b\nc\"\nd\n"[..], "f", 1 << 20);
        let c = r.next_chunk(Vec::new()).unwrap().unwrap();
        let p = c.pos(2, "f");
        assert_eq!((p.line, p.byte, p.record), (4, 8, Some(3)));
    }
}
