//! Lexing the SQL of a plain dump the way psql does: where a statement ends (a `;` outside
//! quotes, comments, dollar quotes, parentheses and `BEGIN ... END` function bodies), and the
//! tokens of one statement for the DDL and INSERT parsers.
//!
//! Written by hand because no crate lexes psql scripts: SQL parser crates reject PostgreSQL
//! dialect details (dollar quotes with tags, `\restrict` meta-commands, nested comments,
//! `standard_conforming_strings = off`) and would parse far more than we need. The rules
//! follow `src/fe_utils/psqlscan.l` in PostgreSQL.

/// Scanner state that survives buffer refills, so a long statement is scanned once.
#[derive(Debug, Clone, Default)]
pub struct StmtScanner {
    mode: Mode,
    paren: u32,
    begin_depth: u32,
    idents: [u8; 4],
    ident_count: u32,
    dollar_tag: Vec<u8>,
    backslash: Option<usize>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Mode {
    #[default]
    Normal,
    /// Inside '...'; `true` when backslash escapes (E'' or standard_conforming_strings off).
    Str(bool),
    Ident,
    Dollar,
    LineComment,
    Block(u32),
}

/// Outcome of scanning a buffer.
#[derive(Debug, PartialEq, Eq)]
pub enum Scan {
    /// The statement ends just after this offset's `;` (the offset is past the `;`).
    End(usize),
    /// The buffer ended first; call again from the returned offset with more data.
    More(usize),
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident_cont(b: u8) -> bool {
    is_ident_start(b) || b.is_ascii_digit() || b == b'$'
}

impl StmtScanner {
    /// Scans `buf[from..]`. `std_strings` is the dump's `standard_conforming_strings`.
    /// `eof` tells that no more data will come (a trailing identifier can then be judged).
    pub fn scan(&mut self, buf: &[u8], from: usize, std_strings: bool, eof: bool) -> Scan {
        let n = buf.len();
        let mut i = from;
        while i < n {
            match self.mode {
                Mode::Normal => {
                    let b = buf[i];
                    match b {
                        b';' if self.paren == 0 && self.begin_depth == 0 => {
                            return Scan::End(i + 1);
                        }
                        b'(' => self.paren += 1,
                        // psql starts a meta-command at a backslash outside quotes, even in
                        // the middle of a statement; SQL itself never has one there.
                        b'\\' if self.backslash.is_none() => self.backslash = Some(i),
                        b')' => self.paren = self.paren.saturating_sub(1),
                        b'\'' => {
                            // E'...' (and e'...') is an escape string when the E starts a token.
                            let e = i > 0
                                && (buf[i - 1] == b'E' || buf[i - 1] == b'e')
                                && (i < 2 || !is_ident_cont(buf[i - 2]));
                            self.mode = Mode::Str(e || !std_strings);
                        }
                        b'"' => self.mode = Mode::Ident,
                        b'-' if buf.get(i + 1) == Some(&b'-') => {
                            self.mode = Mode::LineComment;
                            i += 1;
                        }
                        b'-' if i + 1 == n && !eof => return Scan::More(i),
                        b'/' if buf.get(i + 1) == Some(&b'*') => {
                            self.mode = Mode::Block(1);
                            i += 1;
                        }
                        b'/' if i + 1 == n && !eof => return Scan::More(i),
                        b'$' => {
                            if i > 0 && is_ident_cont(buf[i - 1]) {
                                // part of an identifier like a$b
                            } else {
                                // $tag$ or $$; a digit after $ is a parameter ($1).
                                let mut j = i + 1;
                                while j < n && (is_ident_start(buf[j]) || buf[j].is_ascii_digit()) {
                                    j += 1;
                                }
                                if j == n && !eof {
                                    return Scan::More(i);
                                }
                                let tag_ok = j < n
                                    && buf[j] == b'$'
                                    && (j == i + 1 || !buf[i + 1].is_ascii_digit());
                                if tag_ok {
                                    self.dollar_tag = buf[i..=j].to_vec();
                                    self.mode = Mode::Dollar;
                                    i = j;
                                }
                            }
                        }
                        b if is_ident_start(b) => {
                            let mut j = i + 1;
                            while j < n && is_ident_cont(buf[j]) {
                                j += 1;
                            }
                            if j == n && !eof {
                                return Scan::More(i);
                            }
                            self.ident(&buf[i..j]);
                            i = j;
                            continue;
                        }
                        b if b.is_ascii_digit() => {
                            // Skip numbers whole so `1e5` is not read as an identifier `e5`.
                            let mut j = i + 1;
                            while j < n && (buf[j].is_ascii_alphanumeric() || buf[j] == b'.') {
                                j += 1;
                            }
                            if j == n && !eof {
                                return Scan::More(i);
                            }
                            i = j;
                            continue;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                Mode::Str(esc) => {
                    let found = if esc {
                        memchr::memchr2(b'\'', b'\\', &buf[i..])
                    } else {
                        memchr::memchr(b'\'', &buf[i..])
                    };
                    match found {
                        None => return Scan::More(n),
                        Some(k) => {
                            let at = i + k;
                            if buf[at] == b'\\' {
                                if at + 1 >= n {
                                    return Scan::More(at);
                                }
                                i = at + 2;
                            } else if at + 1 >= n && !eof {
                                // '' (doubled quote) or end? Need the next byte.
                                return Scan::More(at);
                            } else if buf.get(at + 1) == Some(&b'\'') {
                                i = at + 2;
                            } else {
                                self.mode = Mode::Normal;
                                i = at + 1;
                            }
                        }
                    }
                }
                Mode::Ident => match memchr::memchr(b'"', &buf[i..]) {
                    None => return Scan::More(n),
                    Some(k) => {
                        // A doubled "" re-enters Ident at once, which is the same thing.
                        self.mode = Mode::Normal;
                        self.ident_count += 1;
                        i += k + 1;
                    }
                },
                Mode::Dollar => match memchr::memmem::find(&buf[i..], &self.dollar_tag) {
                    None => {
                        let keep = self.dollar_tag.len().saturating_sub(1);
                        return Scan::More(n.saturating_sub(keep).max(i));
                    }
                    Some(k) => {
                        i += k + self.dollar_tag.len();
                        self.mode = Mode::Normal;
                    }
                },
                Mode::LineComment => match memchr::memchr(b'\n', &buf[i..]) {
                    None => return Scan::More(n),
                    Some(k) => {
                        self.mode = Mode::Normal;
                        i += k + 1;
                    }
                },
                Mode::Block(d) => match memchr::memchr2(b'*', b'/', &buf[i..]) {
                    None => return Scan::More(n),
                    Some(k) => {
                        let at = i + k;
                        if at + 1 >= n {
                            return Scan::More(at);
                        }
                        if buf[at] == b'*' && buf[at + 1] == b'/' {
                            self.mode = if d == 1 {
                                Mode::Normal
                            } else {
                                Mode::Block(d - 1)
                            };
                            i = at + 2;
                        } else if buf[at] == b'/' && buf[at + 1] == b'*' {
                            self.mode = Mode::Block(d + 1);
                            i = at + 2;
                        } else {
                            i = at + 1;
                        }
                    }
                },
            }
        }
        Scan::More(n)
    }

    /// The offset (in the buffers given to [`StmtScanner::scan`]) of the first backslash
    /// outside quotes and comments: psql would run a meta-command from there.
    pub fn meta_command_at(&self) -> Option<usize> {
        self.backslash
    }

    /// psql's heuristic for SQL-standard function bodies: in `CREATE [OR REPLACE]
    /// FUNCTION|PROCEDURE`, `BEGIN` ... `END` (with `CASE` nesting) hides semicolons.
    fn ident(&mut self, word: &[u8]) {
        let lower = |w: &[u8], s: &str| w.eq_ignore_ascii_case(s.as_bytes());
        if self.ident_count < 4 {
            for kw in ["create", "function", "procedure", "or", "replace"] {
                if lower(word, kw) {
                    self.idents[self.ident_count as usize] = kw.as_bytes()[0];
                }
            }
        }
        self.ident_count += 1;
        let id = self.idents;
        let in_routine = id[0] == b'c'
            && (id[1] == b'f'
                || id[1] == b'p'
                || (id[1] == b'o' && id[2] == b'r' && (id[3] == b'f' || id[3] == b'p')));
        if in_routine && self.paren == 0 {
            if lower(word, "begin") {
                self.begin_depth += 1;
            } else if lower(word, "case") {
                if self.begin_depth > 0 {
                    self.begin_depth += 1;
                }
            } else if lower(word, "end") && self.begin_depth > 0 {
                self.begin_depth -= 1;
            }
        }
    }
}

/// The statements of a whole in-memory psql script, for readers of schema files (csvcheck)
/// that do not need pgdump2csv's streaming: each item is a statement's offset and its text
/// through the `;`. Whitespace, comments and psql meta-command lines (`\restrict`,
/// `\connect`) between statements are skipped, and so is a leading UTF-8 BOM. Text after the
/// last `;` comes out as a final statement, as psql runs it at the end of a file.
#[derive(Debug, Clone)]
pub struct Statements<'a> {
    sql: &'a [u8],
    pos: usize,
    /// `standard_conforming_strings` for the statements still to come: the caller follows the
    /// script's `SET`s, since only it classifies them.
    pub std_strings: bool,
}

impl<'a> Statements<'a> {
    /// Statements of `sql`, starting with `standard_conforming_strings = on`.
    pub fn new(sql: &'a [u8]) -> Statements<'a> {
        let pos = if sql.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        Statements {
            sql,
            pos,
            std_strings: true,
        }
    }

    /// Moves past whitespace, comments and meta-command lines; false at the end of input.
    fn skip_trivia(&mut self) -> bool {
        let s = self.sql;
        loop {
            while self.pos < s.len() && s[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            let rest = &s[self.pos..];
            if rest.is_empty() {
                return false;
            }
            if rest.starts_with(b"--") || rest[0] == b'\\' {
                self.pos = memchr::memchr(b'\n', rest).map_or(s.len(), |k| self.pos + k + 1);
            } else if rest.starts_with(b"/*") {
                self.pos = comment_len(rest).map_or(s.len(), |k| self.pos + k);
            } else {
                return true;
            }
        }
    }
}

impl<'a> Iterator for Statements<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        if !self.skip_trivia() {
            return None;
        }
        let start = self.pos;
        let end = match StmtScanner::default().scan(self.sql, start, self.std_strings, true) {
            Scan::End(e) => e,
            Scan::More(_) => self.sql.len(),
        };
        self.pos = end;
        Some((start, &self.sql[start..end]))
    }
}

/// One token of a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// An identifier or keyword: unquoted ones folded to lower case, quoted ones as written
    /// (with `""` undoubled).
    Ident {
        /// The name.
        name: String,
        /// Whether it was written in double quotes.
        quoted: bool,
    },
    /// A string literal's decoded bytes (`'...'`, `E'...'`, `B'...'`, `X'...'`, `$$...$$`).
    Str(Vec<u8>),
    /// A numeric literal, as written.
    Num(String),
    /// Punctuation or an operator, as written.
    Op(String),
}

impl Tok {
    /// True if this is the unquoted keyword `kw` (lower case).
    pub fn is_kw(&self, kw: &str) -> bool {
        matches!(self, Tok::Ident { name, quoted: false } if name == kw)
    }

    /// True if this is the operator or punctuation `op`.
    pub fn is_op(&self, op: &str) -> bool {
        matches!(self, Tok::Op(o) if o == op)
    }
}

/// A token with its byte span in the statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    /// The token.
    pub tok: Tok,
    /// Start offset.
    pub start: usize,
    /// End offset.
    pub end: usize,
}

/// The length of the `/* ... */` comment that `s` starts with, through its closing `*/`:
/// comments nest, as in psql's lexer and PostgreSQL's. `None` when `s` ends inside it. The
/// one comment skipper of the readers that see whole text ([`StmtScanner`] keeps the depth
/// across reads instead).
pub fn comment_len(s: &[u8]) -> Option<usize> {
    debug_assert!(s.starts_with(b"/*"));
    let mut depth = 0u32;
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if s[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return Some(i);
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Splits one statement into tokens, skipping comments. `std_strings` selects how `'...'`
/// treats backslashes. Errors name the offset of the problem.
pub fn tokenize(s: &[u8], std_strings: bool) -> Result<Vec<Spanned>, (usize, String)> {
    let mut out = Vec::new();
    let n = s.len();
    let mut i = 0;
    while i < n {
        let b = s[i];
        let start = i;
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b == b'-' && s.get(i + 1) == Some(&b'-') {
            i = memchr::memchr(b'\n', &s[i..]).map_or(n, |k| i + k + 1);
            continue;
        }
        if b == b'/' && s.get(i + 1) == Some(&b'*') {
            i = comment_len(&s[i..]).map_or(n, |k| i + k);
            continue;
        }
        let tok = if b == b'\'' {
            let (v, end) = string_lit(s, i + 1, !std_strings)?;
            i = end;
            Tok::Str(v)
        } else if (b == b'E' || b == b'e') && s.get(i + 1) == Some(&b'\'') {
            let (v, end) = string_lit(s, i + 2, true)?;
            i = end;
            Tok::Str(v)
        } else if (b == b'B' || b == b'b' || b == b'X' || b == b'x') && s.get(i + 1) == Some(&b'\'')
        {
            // Bit strings: keep the digits as PostgreSQL prints them (B'0101' -> 0101).
            let (v, end) = string_lit(s, i + 2, false)?;
            i = end;
            if b == b'X' || b == b'x' {
                let mut bits = Vec::with_capacity(v.len() * 4);
                for &h in &v {
                    let d = (h as char)
                        .to_digit(16)
                        .ok_or((start, "invalid hex digit in X'' literal".to_string()))?;
                    for k in (0..4).rev() {
                        bits.push(if d >> k & 1 == 1 { b'1' } else { b'0' });
                    }
                }
                Tok::Str(bits)
            } else {
                Tok::Str(v)
            }
        } else if b == b'"' {
            let mut name = Vec::new();
            i += 1;
            loop {
                match memchr::memchr(b'"', &s[i..]) {
                    None => return Err((start, "unterminated quoted identifier".into())),
                    Some(k) => {
                        name.extend_from_slice(&s[i..i + k]);
                        i += k + 1;
                        if s.get(i) == Some(&b'"') {
                            name.push(b'"');
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            Tok::Ident {
                name: String::from_utf8_lossy(&name).into_owned(),
                quoted: true,
            }
        } else if b == b'$'
            && let Some((v, end)) = dollar_lit(s, i)
        {
            i = end;
            Tok::Str(v)
        } else if is_ident_start(b) {
            let mut j = i + 1;
            while j < n && is_ident_cont(s[j]) {
                j += 1;
            }
            let name = String::from_utf8_lossy(&s[i..j]).to_lowercase();
            i = j;
            Tok::Ident {
                name,
                quoted: false,
            }
        } else if b.is_ascii_digit() || (b == b'.' && s.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let mut j = i;
            while j < n && (s[j].is_ascii_digit() || s[j] == b'.') {
                j += 1;
            }
            if j < n && (s[j] == b'e' || s[j] == b'E') {
                let mut k = j + 1;
                if k < n && (s[k] == b'+' || s[k] == b'-') {
                    k += 1;
                }
                if k < n && s[k].is_ascii_digit() {
                    while k < n && s[k].is_ascii_digit() {
                        k += 1;
                    }
                    j = k;
                }
            }
            let t = String::from_utf8_lossy(&s[i..j]).into_owned();
            i = j;
            Tok::Num(t)
        } else if s[i..].starts_with(b"::") {
            i += 2;
            Tok::Op("::".into())
        } else {
            i += 1;
            Tok::Op((b as char).to_string())
        };
        out.push(Spanned { tok, start, end: i });
    }
    Ok(out)
}

/// Decodes a '...' literal whose body starts at `i`; returns the value and the offset past
/// the closing quote. Adjacent literals separated by whitespace with a newline are joined,
/// as SQL says, but pg_dump never writes them, so that is not handled.
fn string_lit(s: &[u8], mut i: usize, escapes: bool) -> Result<(Vec<u8>, usize), (usize, String)> {
    let start = i;
    let mut v = Vec::new();
    loop {
        let found = if escapes {
            memchr::memchr2(b'\'', b'\\', &s[i..])
        } else {
            memchr::memchr(b'\'', &s[i..])
        };
        let Some(k) = found else {
            return Err((start - 1, "unterminated string literal".into()));
        };
        v.extend_from_slice(&s[i..i + k]);
        let at = i + k;
        if s[at] == b'\'' {
            if s.get(at + 1) == Some(&b'\'') {
                v.push(b'\'');
                i = at + 2;
                continue;
            }
            return Ok((v, at + 1));
        }
        // Backslash escape, as in E'' strings (src/backend/parser/scan.l).
        let Some(&c) = s.get(at + 1) else {
            return Err((start - 1, "unterminated string literal".into()));
        };
        i = at + 2;
        match c {
            b'b' => v.push(8),
            b'f' => v.push(12),
            b'n' => v.push(b'\n'),
            b'r' => v.push(b'\r'),
            b't' => v.push(b'\t'),
            b'0'..=b'7' => {
                let mut val = (c - b'0') as u32;
                let mut k = 0;
                while k < 2 && s.get(i).is_some_and(|d| (b'0'..=b'7').contains(d)) {
                    val = val * 8 + (s[i] - b'0') as u32;
                    i += 1;
                    k += 1;
                }
                v.push((val & 0xff) as u8);
            }
            b'x' if s.get(i).is_some_and(u8::is_ascii_hexdigit) => {
                let mut val = 0u32;
                let mut k = 0;
                while k < 2 && s.get(i).is_some_and(u8::is_ascii_hexdigit) {
                    val = val * 16 + (s[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                v.push(val as u8);
            }
            b'u' | b'U' => {
                let len = if c == b'u' { 4 } else { 8 };
                let hex = s
                    .get(i..i + len)
                    .ok_or((at, "bad unicode escape".to_string()))?;
                let cp = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                    .ok_or((at, "bad unicode escape".to_string()))?;
                let mut tmp = [0u8; 4];
                v.extend_from_slice(cp.encode_utf8(&mut tmp).as_bytes());
                i += len;
            }
            other => v.push(other),
        }
    }
}

/// Decodes `$tag$...$tag$` at `i`, if it is one.
fn dollar_lit(s: &[u8], i: usize) -> Option<(Vec<u8>, usize)> {
    let mut j = i + 1;
    while j < s.len() && (is_ident_start(s[j]) || s[j].is_ascii_digit()) {
        j += 1;
    }
    if j >= s.len() || s[j] != b'$' || (j > i + 1 && s[i + 1].is_ascii_digit()) {
        return None;
    }
    let tag = &s[i..=j];
    let body = j + 1;
    let k = memchr::memmem::find(&s[body..], tag)?;
    Some((s[body..body + k].to_vec(), body + k + tag.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(sql: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        let mut sc = StmtScanner::default();
        while let Scan::End(e) = sc.scan(sql, from, true, true) {
            out.push(e);
            from = e;
            sc = StmtScanner::default();
        }
        out
    }

    #[test]
    fn statement_ends() {
        assert_eq!(ends(b"SET a = 1; SET b = 2;"), vec![10, 21]);
        assert_eq!(ends(b"SELECT 'a;b''c;';"), vec![17]);
        assert_eq!(ends(b"SELECT E'\\';x';"), vec![15]);
        assert_eq!(ends(b"SELECT \"a;\"\"b\";"), vec![15]);
        assert_eq!(ends(b"CREATE FUNCTION f() AS $x$ a; $y$ ; $x$;"), vec![40]);
        assert_eq!(ends(b"SELECT 1 -- a;\n;"), vec![16]);
        assert_eq!(ends(b"SELECT /* a /* ; */ ; */ 1;"), vec![27]);
        let r = b"CREATE RULE r AS ON INSERT TO t DO (INSERT INTO a VALUES (1); INSERT INTO b VALUES (2));";
        assert_eq!(ends(r), vec![r.len()]);
        let f = b"CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; SELECT 2; END;";
        assert_eq!(ends(f), vec![f.len()]);
        assert_eq!(ends(b"SELECT $1;"), vec![10]);
    }

    #[test]
    fn backslash_outside_quotes_is_a_meta_command() {
        let at = |sql: &[u8]| {
            let mut sc = StmtScanner::default();
            sc.scan(sql, 0, true, true);
            sc.meta_command_at()
        };
        assert_eq!(at(b"SELECT 1 \\! touch x\n;"), Some(9));
        assert_eq!(
            at(b"SELECT '\\', E'\\'', \"\\\", $$\\$$ /* \\ */ -- \\\n;"),
            None
        );
    }

    #[test]
    fn scanning_resumes_across_refills() {
        let sql = b"INSERT INTO t VALUES ('a;''b', $q$;$q$, E'\\';x'); next";
        let want = sql.len() - b" next".len();
        for cut in 1..sql.len() {
            let mut sc = StmtScanner::default();
            let r = sc.scan(&sql[..cut], 0, true, false);
            let from = match r {
                Scan::More(f) => f,
                Scan::End(e) => {
                    assert_eq!(e, want, "cut {cut}");
                    continue;
                }
            };
            assert_eq!(sc.scan(sql, from, true, true), Scan::End(want), "cut {cut}");
        }
    }

    #[test]
    fn whole_script_statements() {
        let sql = b"\xEF\xBB\xBF\\restrict abc\n-- c;\n/* a /* ; */ ; */SET a = 1;\n\\connect db\nSELECT ';';  \r\nSELECT 2";
        let got: Vec<_> = Statements::new(sql).collect();
        let texts: Vec<&[u8]> = got.iter().map(|&(_, t)| t).collect();
        assert_eq!(
            texts,
            [&b"SET a = 1;"[..], b"SELECT ';';", b"SELECT 2"],
            "{got:?}"
        );
        assert_eq!(&sql[got[1].0..got[1].0 + 6], b"SELECT");
        let mut it = Statements::new(b"SELECT 'a\\';b'; x;");
        it.std_strings = false;
        assert_eq!(it.next(), Some((0, &b"SELECT 'a\\';b';"[..])));
        assert_eq!(Statements::new(b" -- only a comment").next(), None);
    }

    #[test]
    fn nonstandard_strings() {
        let mut sc = StmtScanner::default();
        assert_eq!(sc.scan(b"SELECT 'a\\';b';", 0, false, true), Scan::End(15));
    }

    #[test]
    fn tokens() {
        let t = tokenize(
            b"INSERT INTO \"My\"\"T\" VALUES (-1.5e3, 'it''s', E'a\\tb\\101', B'01', NULL);",
            true,
        )
        .unwrap();
        let toks: Vec<Tok> = t.into_iter().map(|s| s.tok).collect();
        assert_eq!(
            toks[2],
            Tok::Ident {
                name: "My\"T".into(),
                quoted: true
            }
        );
        assert_eq!(toks[5], Tok::Op("-".into()));
        assert_eq!(toks[6], Tok::Num("1.5e3".into()));
        assert_eq!(toks[8], Tok::Str(b"it's".to_vec()));
        assert_eq!(toks[10], Tok::Str(b"a\tbA".to_vec()));
        assert_eq!(toks[12], Tok::Str(b"01".to_vec()));
        assert!(toks[14].is_kw("null"));
        let t = tokenize(b"'a\\'b'", false).unwrap();
        assert_eq!(t[0].tok, Tok::Str(b"a'b".to_vec()));
    }
}
