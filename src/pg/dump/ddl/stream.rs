//! The statements of a psql script read from a stream, one at a time in bounded memory, each
//! classified by [`super::classify`].

use super::parse::P;
use super::{QName, Stmt, classify};
use crate::pg::dump::sql::tokenize;
use std::io::Read;

/// The statements of a psql script read from a stream (a schema file or a whole plain dump,
/// possibly compressed), classified, with the data of `COPY ... FROM stdin` blocks skipped
/// unread: memory is bounded by the largest statement (plus a 1 MiB read buffer), not by
/// the file. Between statements it skips whitespace, comments, psql meta-command lines and
/// a leading BOM; it follows `SET standard_conforming_strings`, and returns text after the
/// last `;` as a final statement, as psql runs it at the end of a file.
pub struct StreamStatements<R> {
    r: R,
    name: String,
    buf: Vec<u8>,
    pos: usize,
    /// Stream offset and line number of `buf[0]`.
    base: u64,
    line: u64,
    eof: bool,
    std_strings: bool,
    /// The last statement was `COPY ... FROM stdin`: its data comes next.
    in_copy: bool,
    started: bool,
    /// Where in `buf` the statement last returned starts.
    last: usize,
}

const STREAM_READ: usize = 1 << 20;

impl<R: std::io::Read> StreamStatements<R> {
    /// Statements of `r`, named `name` in errors.
    pub fn new(r: R, name: impl Into<String>) -> Self {
        StreamStatements {
            r,
            name: name.into(),
            buf: Vec::new(),
            pos: 0,
            base: 0,
            line: 1,
            eof: false,
            std_strings: true,
            in_copy: false,
            started: false,
            last: 0,
        }
    }

    /// Drops `buf[..pos]` (counting its lines) and reads more. False when nothing more came.
    fn fill(&mut self) -> crate::io::error::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.line += memchr::memchr_iter(b'\n', &self.buf[..self.pos]).count() as u64;
            self.base += self.pos as u64;
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        // Up to one read size more (fewer only at the end of input).
        let n = (&mut self.r)
            .take(STREAM_READ as u64)
            .read_to_end(&mut self.buf)
            .map_err(|e| crate::io::error::Error::io(&self.name, e))?;
        self.eof = n < STREAM_READ;
        Ok(n > 0)
    }

    /// The error at `buf[at]`.
    fn error(&self, at: usize, msg: String) -> crate::io::error::Error {
        let pos = crate::io::error::Pos {
            file: self.name.clone(),
            line: self.line + memchr::memchr_iter(b'\n', &self.buf[..at]).count() as u64,
            byte: self.base + at as u64,
            record: None,
        };
        crate::io::error::Error::input(pos, msg)
    }

    /// At least `n` bytes after `pos`, unless the input ends first.
    fn want(&mut self, n: usize) -> crate::io::error::Result<bool> {
        while self.buf.len() - self.pos < n {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Moves past the end of the current line, without keeping it.
    fn skip_line(&mut self) -> crate::io::error::Result<()> {
        loop {
            if let Some(k) = memchr::memchr(b'\n', &self.buf[self.pos..]) {
                self.pos += k + 1;
                return Ok(());
            }
            self.pos = self.buf.len();
            if !self.fill()? {
                return Ok(());
            }
        }
    }

    /// Skips a `COPY ... FROM stdin` block: the rest of the COPY line, then data lines
    /// through the `\.` line.
    fn skip_copy_data(&mut self) -> crate::io::error::Result<()> {
        self.skip_line()?;
        loop {
            self.want(4)?;
            let rest = &self.buf[self.pos..];
            if rest.is_empty() {
                return Ok(());
            }
            let end = rest.starts_with(b"\\.\n")
                || rest.starts_with(b"\\.\r\n")
                || (self.eof && (rest == b"\\." || rest == b"\\.\r"));
            self.skip_line()?;
            if end {
                return Ok(());
            }
        }
    }

    /// Moves past whitespace, comments and meta-command lines; false at the end of input.
    fn skip_trivia(&mut self) -> crate::io::error::Result<bool> {
        loop {
            while self.pos < self.buf.len() && self.buf[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if !self.want(2)? && self.pos == self.buf.len() {
                return Ok(false);
            }
            let rest = &self.buf[self.pos..];
            if rest.starts_with(b"--") || rest[0] == b'\\' {
                self.skip_line()?;
            } else if rest.starts_with(b"/*") {
                // Comments nest, as in psql.
                let mut depth = 0u32;
                loop {
                    if !self.want(2)? {
                        self.pos = self.buf.len();
                        return Ok(false);
                    }
                    let two = &self.buf[self.pos..self.pos + 2];
                    if two == b"/*" {
                        depth += 1;
                        self.pos += 2;
                    } else if two == b"*/" {
                        depth -= 1;
                        self.pos += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        self.pos += 1;
                    }
                }
            } else if rest[0].is_ascii_whitespace() {
                continue;
            } else {
                return Ok(true);
            }
        }
    }

    /// The next statement's stream offset and meaning, `None` at the end.
    pub fn next_stmt(&mut self) -> crate::io::error::Result<Option<(u64, Stmt)>> {
        if !self.started {
            self.started = true;
            if self.want(3)? && self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
            }
        }
        if self.in_copy {
            self.in_copy = false;
            self.skip_copy_data()?;
        }
        if !self.skip_trivia()? {
            return Ok(None);
        }
        let mut scanner = crate::pg::dump::sql::StmtScanner::default();
        let mut from = self.pos;
        let end = loop {
            match scanner.scan(&self.buf, from, self.std_strings, self.eof) {
                crate::pg::dump::sql::Scan::End(e) => break e,
                crate::pg::dump::sql::Scan::More(k) => {
                    if self.eof {
                        break self.buf.len();
                    }
                    let start = self.pos;
                    self.fill()?;
                    from = k - start;
                }
            }
        };
        let start = self.pos;
        let r = classify(&self.buf[start..end], self.std_strings);
        let st = r.map_err(|(off, msg)| self.error(start + off, msg))?;
        match &st {
            Stmt::StdStrings(on) => self.std_strings = *on,
            Stmt::Copy { .. } => self.in_copy = true,
            _ => {}
        }
        self.pos = end;
        self.last = start;
        Ok(Some((self.base + start as u64, st)))
    }

    /// The table and column list of the statement last returned by [`Self::next_stmt`]
    /// when it is an `INSERT INTO t (columns) ...` (pg_dump's `--column-inserts`, columns in
    /// the table's physical order, as in COPY). Only the statement's head is read.
    pub fn last_insert_columns(&self) -> Option<(QName, Vec<String>)> {
        let stmt = &self.buf[self.last..self.pos];
        // The head ends at the first `)` outside double quotes; a `)` inside a string
        // literal of a statement without a column list leaves a head that does not parse.
        let mut quoted = false;
        let end = stmt.iter().position(|&b| {
            quoted ^= b == b'"';
            b == b')' && !quoted
        })?;
        let head = &stmt[..=end];
        let toks = tokenize(head, self.std_strings).ok()?;
        let mut p = P {
            t: &toks,
            i: 0,
            src: head,
        };
        if !(p.kw("insert") && p.kw("into")) {
            return None;
        }
        let table = p.qname().ok()?;
        let cols = p.name_list().ok()?;
        Some((table, cols))
    }

    /// Where the statement last returned by [`Self::next_stmt`] starts.
    pub fn last_pos(&self) -> crate::io::error::Pos {
        let line = memchr::memchr_iter(b'\n', &self.buf[..self.last]).count() as u64;
        crate::io::error::Pos {
            file: self.name.clone(),
            line: self.line + line,
            byte: self.base + self.last as u64,
            record: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: Option<&str>, n: &str) -> QName {
        QName {
            schema: s.map(Into::into),
            name: n.into(),
        }
    }

    /// A reader that hands out a few bytes per call, so every statement, comment and COPY
    /// block crosses buffer refills.
    struct Trickle<'a>(&'a [u8], usize);

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 = self.1 % 3 + 1;
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn stream_matches_in_memory_and_skips_copy_data() {
        let sql = b"\xEF\xBB\xBF\\restrict k\n-- c;\n/* a /* nested; */ b; */\n\
            SET standard_conforming_strings = off;\n\
            CREATE TYPE e AS ENUM ('a\\'b;');\n\
            COPY public.t (a, b) FROM stdin;\n\
            CREATE TABLE no (x int);\n\\.x\n\\.\n\
            CREATE TABLE public.t (a int, b text);\r\n\
            COPY t FROM stdin;\r\n1\r\n\\.\r\n\
            ALTER TABLE ONLY public.t ADD CONSTRAINT k PRIMARY KEY (a);\n\
            \\unrestrict k\n";
        let mut got = Vec::new();
        let mut st = StreamStatements::new(Trickle(sql, 0), "f");
        while let Some((off, s)) = st.next_stmt().unwrap() {
            got.push((off, s));
        }
        let kinds: Vec<String> = got
            .iter()
            .map(|(_, s)| {
                format!("{s:?}")
                    .split([' ', '(', '{'])
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "StdStrings",
                "CreateEnum",
                "Copy",
                "CreateTable",
                "Copy",
                "AddPrimaryKey"
            ]
        );
        assert_eq!(
            got[1].1,
            Stmt::CreateEnum {
                name: q(None, "e"),
                labels: vec!["a'b;".into()]
            }
        );
        // Offsets are stream offsets of each statement's first byte.
        assert_eq!(&sql[got[3].0 as usize..][..12], b"CREATE TABLE");
        // The text after the last `;` is a statement, and errors carry line and byte.
        let mut st =
            StreamStatements::new(Trickle(b"SET a = 1;\n\nCREATE TABLE \"t (a int);", 0), "f");
        st.next_stmt().unwrap();
        let e = st.next_stmt().unwrap_err().to_string();
        assert_eq!(e, "f:3: (byte 25) unterminated quoted identifier", "{e}");
    }

    /// A reader of a dump with a 16 MiB COPY block of 64 KiB lines, made up as it is read.
    struct BigDump {
        at: usize,
    }

    const BIG: usize = 16 << 20;
    const HEAD: &[u8] = b"CREATE TABLE t (a text);\nCOPY t (a) FROM stdin;\n";
    const TAIL: &[u8] = b"\\.\nCREATE TABLE u (b int);\n";

    impl std::io::Read for BigDump {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let total = HEAD.len() + BIG + TAIL.len();
            let n = buf.len().min(total - self.at);
            for (k, b) in buf[..n].iter_mut().enumerate() {
                let i = self.at + k;
                *b = if i < HEAD.len() {
                    HEAD[i]
                } else if i - HEAD.len() < BIG {
                    if (i - HEAD.len()) % 65536 == 65535 {
                        b'\n'
                    } else {
                        b'x'
                    }
                } else {
                    TAIL[i - HEAD.len() - BIG]
                };
            }
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn insert_column_lists() {
        let sql = b"INSERT INTO public.t (a, \"b)c\") VALUES (1, 'x)');\n\
            INSERT INTO t VALUES ('a)b', 1);\nINSERT INTO t VALUES (1);\n";
        let mut st = StreamStatements::new(&sql[..], "f");
        let mut got = Vec::new();
        while let Some((_, s)) = st.next_stmt().unwrap() {
            assert_eq!(s, Stmt::Insert);
            got.push(st.last_insert_columns());
        }
        assert_eq!(
            got,
            [
                Some((
                    q(Some("public"), "t"),
                    vec!["a".to_string(), "b)c".to_string()]
                )),
                None,
                None
            ]
        );
    }

    /// COPY data is skipped without being held: the buffer stays near one read's size.
    #[test]
    fn copy_data_is_not_kept_in_memory() {
        let mut st = StreamStatements::new(BigDump { at: 0 }, "big");
        let mut tables = Vec::new();
        while let Some((_, s)) = st.next_stmt().unwrap() {
            if let Stmt::CreateTable { table, .. } = s {
                tables.push(table.name);
            }
            assert!(
                st.buf.capacity() <= 4 * STREAM_READ,
                "{}",
                st.buf.capacity()
            );
        }
        assert_eq!(tables, ["t", "u"]);
    }
}
