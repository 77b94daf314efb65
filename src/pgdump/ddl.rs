//! Understanding the statements of a dump that matter for conversion and checking: `CREATE
//! TABLE` (columns, types, NOT NULL, generated columns, inline primary keys), `ALTER TABLE ...
//! ADD CONSTRAINT ... PRIMARY KEY`, `ALTER ... SET NOT NULL`, `CREATE TYPE ... AS ENUM`, `CREATE
//! DOMAIN`, `COPY ... FROM stdin`, `INSERT INTO ... VALUES`, and the `SET`s that change how the
//! rest must be read (search_path, standard_conforming_strings, client_encoding).
//! pgdump2csv passes everything but the data through to its schema files untouched; csvcheck
//! reads a schema file's (or a whole dump's) tables, enums and domains with
//! [`StreamStatements`].

use super::sql::{Spanned, Tok, tokenize};
use std::io::Read;

/// A possibly schema-qualified name; `schema` is `None` when the dump did not qualify it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QName {
    /// Schema, if given.
    pub schema: Option<String>,
    /// Object name.
    pub name: String,
}

impl QName {
    /// The one search_path rule of the toolkit (pgdump2csv's file names, csvcheck's tables):
    /// an unqualified name gets the schema it would be created in, the first schema of the
    /// search path other than `pg_catalog` (old dumps `SET search_path = s, pg_catalog` and
    /// write bare names). Without such a schema the name stays unqualified.
    pub fn placed(self, search_path: &[String]) -> QName {
        let schema = self.schema.or_else(|| {
            search_path
                .iter()
                .find(|s| s.as_str() != "pg_catalog")
                .cloned()
        });
        QName {
            schema,
            name: self.name,
        }
    }
}

/// A column as declared in `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    /// Name.
    pub name: String,
    /// Type as written, whitespace-normalised.
    pub type_name: String,
    /// `NOT NULL` (or part of an inline primary key).
    pub not_null: bool,
    /// `GENERATED ALWAYS AS (...) STORED`: pg_dump leaves it out of COPY.
    pub generated: bool,
}

/// What a statement means to the converter.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `CREATE TABLE`.
    CreateTable {
        /// Table.
        table: QName,
        /// Columns in declaration order.
        columns: Vec<ColumnDef>,
        /// Primary key declared inline.
        pk: Vec<String>,
        /// `INHERITS (...)` parents, whose columns come first.
        inherits: Vec<QName>,
        /// `OF type`: a typed table, whose columns are the composite type's attributes.
        of_type: Option<QName>,
    },
    /// `CREATE TYPE name AS (attribute type, ...)`: a composite type.
    CreateComposite {
        /// Type.
        name: QName,
        /// Attributes in order (as columns: never NOT NULL nor generated).
        attributes: Vec<ColumnDef>,
    },
    /// `ALTER TABLE ... ADD [CONSTRAINT x] PRIMARY KEY (cols)`.
    AddPrimaryKey {
        /// Table.
        table: QName,
        /// Key columns.
        cols: Vec<String>,
    },
    /// `ALTER TABLE ... ALTER COLUMN c SET NOT NULL`.
    SetNotNull {
        /// Table.
        table: QName,
        /// Column.
        col: String,
    },
    /// `CREATE TYPE name AS ENUM ('label', ...)`.
    CreateEnum {
        /// Type.
        name: QName,
        /// Labels in declaration order, decoded.
        labels: Vec<String>,
    },
    /// `CREATE DOMAIN name [AS] type [COLLATE c] [DEFAULT e] [[CONSTRAINT n] NOT NULL | NULL |
    /// CHECK (e)] ...`.
    CreateDomain {
        /// Domain.
        name: QName,
        /// Base type as written, whitespace-normalised (may itself be a domain or enum).
        base_type: String,
        /// `NOT NULL` among the constraints.
        not_null: bool,
        /// Has `CHECK` constraints (expressions are not kept: nothing here evaluates them).
        has_check: bool,
    },
    /// `SET search_path = ...` or `SELECT pg_catalog.set_config('search_path', ...)`.
    SearchPath(Vec<String>),
    /// `SET standard_conforming_strings = on|off`.
    StdStrings(bool),
    /// `SET client_encoding = '...'`.
    ClientEncoding(String),
    /// `COPY table [(cols)] FROM stdin`.
    Copy {
        /// Target table.
        table: QName,
        /// Column list; empty when the table has no dumpable columns.
        cols: Vec<String>,
    },
    /// `INSERT INTO ...`: parsed separately by the inserts module.
    Insert,
    /// `COPY` in a form pg_dump does not write (e.g. from a file).
    OtherCopy,
    /// Anything else.
    Other,
}

type PResult<T> = Result<T, (usize, String)>;

/// Reads the first keyword cheaply, without tokenizing the whole statement.
fn first_word(s: &[u8]) -> &[u8] {
    let mut i = 0;
    loop {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        if s[i..].starts_with(b"--") {
            i = memchr::memchr(b'\n', &s[i..]).map_or(s.len(), |k| i + k + 1);
            continue;
        }
        break;
    }
    let j = s[i..]
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .map_or(s.len(), |k| i + k);
    &s[i..j]
}

/// Classifies one statement (from its first significant byte through its `;`).
pub fn classify(stmt: &[u8], std_strings: bool) -> PResult<Stmt> {
    let w = first_word(stmt).to_ascii_lowercase();
    match w.as_slice() {
        b"insert" => return Ok(Stmt::Insert),
        b"create" | b"alter" | b"set" | b"select" | b"copy" => {}
        _ => return Ok(Stmt::Other),
    }
    let toks = tokenize(stmt, std_strings)?;
    let mut p = P {
        t: &toks,
        i: 0,
        src: stmt,
    };
    match w.as_slice() {
        b"create" => p.create(),
        b"alter" => p.alter(),
        b"set" => p.set(),
        b"select" => p.select(),
        b"copy" => p.copy(),
        _ => Ok(Stmt::Other),
    }
}

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
    fn fill(&mut self) -> crate::error::Result<bool> {
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
            .map_err(|e| crate::error::Error::io(&self.name, e))?;
        self.eof = n < STREAM_READ;
        Ok(n > 0)
    }

    /// The error at `buf[at]`.
    fn error(&self, at: usize, msg: String) -> crate::error::Error {
        let pos = crate::error::Pos {
            file: self.name.clone(),
            line: self.line + memchr::memchr_iter(b'\n', &self.buf[..at]).count() as u64,
            byte: self.base + at as u64,
            record: None,
        };
        crate::error::Error::input(pos, msg)
    }

    /// At least `n` bytes after `pos`, unless the input ends first.
    fn want(&mut self, n: usize) -> crate::error::Result<bool> {
        while self.buf.len() - self.pos < n {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Moves past the end of the current line, without keeping it.
    fn skip_line(&mut self) -> crate::error::Result<()> {
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
    fn skip_copy_data(&mut self) -> crate::error::Result<()> {
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
    fn skip_trivia(&mut self) -> crate::error::Result<bool> {
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
    pub fn next_stmt(&mut self) -> crate::error::Result<Option<(u64, Stmt)>> {
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
        let mut scanner = super::sql::StmtScanner::default();
        let mut from = self.pos;
        let end = loop {
            match scanner.scan(&self.buf, from, self.std_strings, self.eof) {
                super::sql::Scan::End(e) => break e,
                super::sql::Scan::More(k) => {
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
    pub fn last_pos(&self) -> crate::error::Pos {
        let line = memchr::memchr_iter(b'\n', &self.buf[..self.last]).count() as u64;
        crate::error::Pos {
            file: self.name.clone(),
            line: self.line + line,
            byte: self.base + self.last as u64,
            record: None,
        }
    }
}

struct P<'a> {
    t: &'a [Spanned],
    i: usize,
    src: &'a [u8],
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.t.get(self.i).map(|s| &s.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.t.get(self.i + k).map(|s| &s.tok)
    }
    fn kw(&mut self, kw: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_kw(kw)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn op(&mut self, op: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_op(op)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn offset(&self) -> usize {
        self.t.get(self.i).map_or(self.src.len(), |s| s.start)
    }
    fn err<T>(&self, msg: &str) -> PResult<T> {
        Err((self.offset(), msg.to_string()))
    }
    fn ident(&mut self) -> PResult<String> {
        match self.peek() {
            Some(Tok::Ident { name, .. }) => {
                self.i += 1;
                Ok(name.clone())
            }
            _ => self.err("expected a name"),
        }
    }
    fn qname(&mut self) -> PResult<QName> {
        let first = self.ident()?;
        if self.peek().is_some_and(|t| t.is_op(".")) {
            self.i += 1;
            let second = self.ident()?;
            // database.schema.table is not valid in pg_dump output; ignore deeper forms.
            Ok(QName {
                schema: Some(first),
                name: second,
            })
        } else {
            Ok(QName {
                schema: None,
                name: first,
            })
        }
    }
    /// `( name, name, ... )`
    fn name_list(&mut self) -> PResult<Vec<String>> {
        if !self.op("(") {
            return self.err("expected '('");
        }
        let mut v = Vec::new();
        if self.op(")") {
            return Ok(v);
        }
        loop {
            v.push(self.ident()?);
            if self.op(")") {
                return Ok(v);
            }
            if !self.op(",") {
                return self.err("expected ',' or ')' in a column list");
            }
        }
    }
    /// Index of the token that closes the parenthesis opened just before `self.i`.
    fn skip_parens(&mut self) {
        let mut depth = 1;
        while let Some(t) = self.peek() {
            self.i += 1;
            if t.is_op("(") {
                depth += 1;
            } else if t.is_op(")") {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    fn create(&mut self) -> PResult<Stmt> {
        self.kw("create");
        // CREATE [ [GLOBAL|LOCAL] {TEMP|TEMPORARY} | UNLOGGED | FOREIGN ] TABLE
        while self.kw("global")
            || self.kw("local")
            || self.kw("temp")
            || self.kw("temporary")
            || self.kw("unlogged")
            || self.kw("foreign")
        {}
        // Types and domains are optional knowledge: a form not understood here (composite,
        // range or base types) is just another statement, never an error, so pgdump2csv keeps
        // passing such statements through as before.
        if self.kw("type") {
            let at = self.i;
            if let Some(e) = self.create_enum() {
                return Ok(e);
            }
            self.i = at;
            return Ok(self.create_composite().unwrap_or(Stmt::Other));
        }
        if self.kw("domain") {
            return Ok(self.create_domain().unwrap_or(Stmt::Other));
        }
        if !self.kw("table") {
            return Ok(Stmt::Other);
        }
        if self.peek().is_some_and(|t| t.is_kw("if")) {
            self.i += 3; // IF NOT EXISTS
        }
        let table = self.qname()?;
        let of_type = if self.kw("of") {
            Some(self.qname()?)
        } else {
            None
        };
        if of_type.is_some() || self.kw("partition") {
            // Typed tables and PARTITION OF: columns come from elsewhere.
            return Ok(Stmt::CreateTable {
                table,
                columns: Vec::new(),
                pk: Vec::new(),
                inherits: Vec::new(),
                of_type,
            });
        }
        if !self.op("(") {
            return Ok(Stmt::Other);
        }
        let mut columns = Vec::new();
        let mut pk = Vec::new();
        // A statement that ends inside the column list is a cut or broken file, not a table
        // with fewer columns: PostgreSQL would refuse it, so it is an error here too.
        let unclosed = || {
            Err((
                0,
                "CREATE TABLE never closes its column list (the statement ends inside it)"
                    .to_string(),
            ))
        };
        loop {
            if self.op(")") {
                break;
            }
            if self.peek().is_none() || self.peek().is_some_and(|t| t.is_op(";")) {
                return unclosed();
            }
            self.element(&mut columns, &mut pk)?;
            if !self.op(",") {
                if self.op(")") {
                    break;
                }
                if self.peek().is_none() || self.peek().is_some_and(|t| t.is_op(";")) {
                    return unclosed();
                }
                return self.err("expected ',' or ')' in CREATE TABLE");
            }
        }
        for c in &mut columns {
            if pk.contains(&c.name) {
                c.not_null = true;
            }
        }
        let mut inherits = Vec::new();
        if self.kw("inherits") && self.op("(") {
            loop {
                inherits.push(self.qname()?);
                if !self.op(",") {
                    break;
                }
            }
        }
        Ok(Stmt::CreateTable {
            table,
            columns,
            pk,
            inherits,
            of_type: None,
        })
    }

    /// After `CREATE TYPE`: `name AS ( attribute type [COLLATE c] [, ...] )`, the attributes
    /// read as columns are (so a typed table's columns look like a table's).
    fn create_composite(&mut self) -> Option<Stmt> {
        let name = self.qname().ok()?;
        if !(self.kw("as") && self.op("(")) {
            return None;
        }
        let (mut attributes, mut pk) = (Vec::new(), Vec::new());
        if !self.op(")") {
            loop {
                self.element(&mut attributes, &mut pk).ok()?;
                if self.op(")") {
                    break;
                }
                if !self.op(",") {
                    return None;
                }
            }
        }
        Some(Stmt::CreateComposite { name, attributes })
    }

    /// After `CREATE TYPE`: `name AS ENUM ( 'label' [, ...] )`.
    fn create_enum(&mut self) -> Option<Stmt> {
        let name = self.qname().ok()?;
        if !(self.kw("as") && self.kw("enum") && self.op("(")) {
            return None;
        }
        let mut labels = Vec::new();
        loop {
            match self.peek()? {
                Tok::Str(s) => labels.push(String::from_utf8_lossy(s).into_owned()),
                t if t.is_op(")") => return Some(Stmt::CreateEnum { name, labels }),
                t if t.is_op(",") => {}
                _ => return None,
            }
            self.i += 1;
        }
    }

    /// After `CREATE DOMAIN`: the name, the base type up to the first constraint keyword, then
    /// the constraints (only NOT NULL and the presence of CHECK matter to a data check).
    fn create_domain(&mut self) -> Option<Stmt> {
        let name = self.qname().ok()?;
        self.kw("as");
        let stop = ["collate", "constraint", "not", "null", "default", "check"];
        let type_start = self.offset();
        let mut type_end = type_start;
        while let Some(t) = self.peek() {
            if t.is_op(";") || stop.iter().any(|k| t.is_kw(k)) {
                break;
            }
            self.i += 1;
            if t.is_op("(") {
                self.skip_parens();
            }
            type_end = self.t[self.i - 1].end;
        }
        let base_type = normalize_ws(&self.src[type_start..type_end]);
        if base_type.is_empty() {
            return None;
        }
        let (mut not_null, mut has_check) = (false, false);
        while let Some(t) = self.peek() {
            if self.kw("not") {
                not_null |= self.kw("null");
                continue;
            }
            has_check |= t.is_kw("check");
            self.i += 1;
            // Skips CHECK and DEFAULT expressions whole, so a NOT inside them is not read.
            if t.is_op("(") {
                self.skip_parens();
            }
        }
        Some(Stmt::CreateDomain {
            name,
            base_type,
            not_null,
            has_check,
        })
    }

    fn table_constraint(&mut self, pk: &mut Vec<String>) -> PResult<()> {
        if self.kw("constraint") {
            self.ident()?;
        }
        if self.kw("primary") {
            self.kw("key");
            *pk = self.name_list()?;
        }
        self.skip_element();
        Ok(())
    }

    /// Skips to the `,` or `)` that ends the current element (not consuming it).
    fn skip_element(&mut self) {
        while let Some(t) = self.peek() {
            if t.is_op(",") || t.is_op(")") {
                return;
            }
            self.i += 1;
            if t.is_op("(") {
                self.skip_parens();
            }
        }
    }

    fn element(&mut self, columns: &mut Vec<ColumnDef>, pk: &mut Vec<String>) -> PResult<()> {
        // EXCLUDE is not a reserved word, so pg_dump leaves a column named `exclude`
        // unquoted: it starts a constraint only when `(` or USING follows.
        let exclude_constraint = self.peek().is_some_and(|t| t.is_kw("exclude"))
            && self
                .peek_at(1)
                .is_some_and(|t| t.is_op("(") || t.is_kw("using"));
        let starts_constraint = exclude_constraint
            || matches!(self.peek(), Some(t) if ["constraint", "primary", "unique", "check", "foreign", "like"].iter().any(|k| t.is_kw(k)));
        if starts_constraint {
            return self.table_constraint(pk);
        }
        let name = self.ident()?;
        let type_start = self.offset();
        let mut type_end = type_start;
        let stop = [
            "collate",
            "constraint",
            "not",
            "null",
            "default",
            "primary",
            "unique",
            "check",
            "references",
            "generated",
        ];
        while let Some(t) = self.peek() {
            if t.is_op(",") || t.is_op(")") || stop.iter().any(|k| t.is_kw(k)) {
                break;
            }
            self.i += 1;
            if t.is_op("(") {
                self.skip_parens();
            }
            type_end = self.t[self.i - 1].end;
        }
        let type_name = normalize_ws(&self.src[type_start..type_end.max(type_start)]);
        let mut col = ColumnDef {
            name,
            type_name,
            not_null: false,
            generated: false,
        };
        // Column constraints.
        while let Some(t) = self.peek() {
            if t.is_op(",") || t.is_op(")") {
                break;
            }
            if self.kw("not") {
                if self.kw("null") {
                    col.not_null = true;
                }
                continue;
            }
            if self.kw("primary") {
                self.kw("key");
                col.not_null = true;
                *pk = vec![col.name.clone()];
                continue;
            }
            if self.kw("generated") {
                // GENERATED ALWAYS AS (expr) STORED vs GENERATED ... AS IDENTITY.
                let save = self.i;
                self.kw("always");
                if self.kw("as") && self.peek().is_some_and(|t| t.is_op("(")) {
                    col.generated = true;
                }
                self.i = save;
                continue;
            }
            self.i += 1;
            if t.is_op("(") {
                self.skip_parens();
            }
        }
        columns.push(col);
        Ok(())
    }

    fn alter(&mut self) -> PResult<Stmt> {
        self.kw("alter");
        self.kw("foreign");
        if !self.kw("table") {
            return Ok(Stmt::Other);
        }
        if self.peek().is_some_and(|t| t.is_kw("if")) {
            self.i += 2; // IF EXISTS
        }
        self.kw("only");
        let table = self.qname()?;
        if self.kw("add") {
            if self.kw("constraint") {
                self.ident()?;
            }
            if self.kw("primary") && self.kw("key") {
                let cols = self.name_list()?;
                return Ok(Stmt::AddPrimaryKey { table, cols });
            }
            return Ok(Stmt::Other);
        }
        if self.kw("alter") {
            self.kw("column");
            let col = self.ident()?;
            if self.kw("set")
                && self.kw("not")
                && self.kw("null")
                && self.peek().is_some_and(|t| t.is_op(";"))
            {
                return Ok(Stmt::SetNotNull { table, col });
            }
        }
        Ok(Stmt::Other)
    }

    fn set(&mut self) -> PResult<Stmt> {
        self.kw("set");
        self.kw("session");
        let Ok(var) = self.ident() else {
            return Ok(Stmt::Other);
        };
        if !(self.op("=") || self.kw("to")) {
            return Ok(Stmt::Other);
        }
        let mut vals = Vec::new();
        while let Some(t) = self.peek() {
            self.i += 1;
            match t {
                Tok::Ident { name, .. } => vals.push(name.clone()),
                Tok::Str(s) => vals.push(String::from_utf8_lossy(s).into_owned()),
                _ => {}
            }
        }
        Ok(match var.as_str() {
            "search_path" => Stmt::SearchPath(vals),
            "standard_conforming_strings" => Stmt::StdStrings(vals.first().is_none_or(|v| {
                matches!(v.to_ascii_lowercase().as_str(), "on" | "true" | "yes" | "1")
            })),
            "client_encoding" => Stmt::ClientEncoding(vals.first().cloned().unwrap_or_default()),
            _ => Stmt::Other,
        })
    }

    /// `SELECT pg_catalog.set_config('search_path', '...', false);`
    fn select(&mut self) -> PResult<Stmt> {
        self.kw("select");
        let _ = self.qname();
        if !self.op("(") {
            return Ok(Stmt::Other);
        }
        if let (Some(Tok::Str(var)), Some(Tok::Op(_)), Some(Tok::Str(val))) =
            (self.peek(), self.peek_at(1), self.peek_at(2))
            && var == b"search_path"
        {
            let path = String::from_utf8_lossy(val)
                .split(',')
                .map(|s| s.trim().trim_matches('"').to_string())
                .filter(|s| !s.is_empty())
                .collect();
            return Ok(Stmt::SearchPath(path));
        }
        Ok(Stmt::Other)
    }

    fn copy(&mut self) -> PResult<Stmt> {
        self.kw("copy");
        let table = self.qname()?;
        let cols = if self.peek().is_some_and(|t| t.is_op("(")) {
            self.name_list()?
        } else {
            Vec::new()
        };
        if self.kw("from") && self.kw("stdin") {
            Ok(Stmt::Copy { table, cols })
        } else {
            Ok(Stmt::OtherCopy)
        }
    }
}

/// Columns of a table in physical order, given the full column lists of its `INHERITS`
/// parents (in declaration order) and its own declared columns: the parents' columns come
/// first (pg_dump declares only the child's own), and a column declared again is kept once,
/// with NOT NULL merged.
pub fn merge_inherited(
    parents: impl IntoIterator<Item = Vec<ColumnDef>>,
    own: &[ColumnDef],
) -> Vec<ColumnDef> {
    let mut cols: Vec<ColumnDef> = Vec::new();
    for parent in parents {
        for c in parent {
            if !cols.iter().any(|x| x.name == c.name) {
                cols.push(c);
            }
        }
    }
    for c in own {
        match cols.iter_mut().find(|x| x.name == c.name) {
            Some(x) => {
                x.not_null |= c.not_null;
                // The child's own definition wins: PostgreSQL lets a child compute a column
                // its parent stores (`b int GENERATED ALWAYS AS (a*2) STORED` under a plain
                // parent `b`), and then the child's data leaves it out. A parent's generated
                // column stays generated in every child (PostgreSQL requires it).
                x.generated |= c.generated;
            }
            None => cols.push(c.clone()),
        }
    }
    cols
}

/// Collapses runs of whitespace to one space.
fn normalize_ws(s: &[u8]) -> String {
    String::from_utf8_lossy(s)
        .split_ascii_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
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

    #[test]
    fn typed_tables_and_composite_types() {
        let Stmt::CreateComposite { name, attributes } = classify(
            b"CREATE TYPE s.ct AS (a integer, \"B\" character varying(3) COLLATE pg_catalog.\"C\", c numeric(5,2));",
            true,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(name, q(Some("s"), "ct"));
        let cols: Vec<_> = attributes
            .iter()
            .map(|c| (c.name.as_str(), c.type_name.as_str()))
            .collect();
        assert_eq!(
            cols,
            [
                ("a", "integer"),
                ("B", "character varying(3)"),
                ("c", "numeric(5,2)")
            ]
        );
        assert!(matches!(
            classify(b"CREATE TYPE e AS ENUM ('x');", true).unwrap(),
            Stmt::CreateEnum { .. }
        ));
        assert_eq!(
            classify(b"CREATE TYPE r AS RANGE (subtype = int4);", true).unwrap(),
            Stmt::Other
        );
        let Stmt::CreateTable { of_type, .. } =
            classify(b"CREATE TABLE public.t OF s.ct;", true).unwrap()
        else {
            panic!()
        };
        assert_eq!(of_type, Some(q(Some("s"), "ct")));
    }

    #[test]
    fn create_table() {
        let sql = b"CREATE TABLE public.\"Order\" (\n    id bigint NOT NULL,\n    \"weird \"\"col\"\", name\" character varying(20) DEFAULT 'a,b'::character varying,\n    total numeric(10,2),\n    tags text[] COLLATE pg_catalog.\"C\",\n    g integer GENERATED ALWAYS AS ((id * 2)) STORED,\n    ident integer GENERATED BY DEFAULT AS IDENTITY,\n    CONSTRAINT c CHECK ((total > (0)::numeric))\n);";
        let Stmt::CreateTable {
            table, columns, pk, ..
        } = classify(sql, true).unwrap()
        else {
            panic!()
        };
        assert_eq!(table, q(Some("public"), "Order"));
        assert!(pk.is_empty());
        let names: Vec<_> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["id", "weird \"col\", name", "total", "tags", "g", "ident"]
        );
        assert_eq!(columns[1].type_name, "character varying(20)");
        assert_eq!(columns[2].type_name, "numeric(10,2)");
        assert_eq!(columns[3].type_name, "text[]");
        assert!(columns[0].not_null && !columns[1].not_null);
        assert!(columns[4].generated && !columns[5].generated);
        let sql = b"CREATE TABLE t (a int PRIMARY KEY, b timestamp with time zone, PRIMARY KEY (a, b)) INHERITS (public.p, q);";
        let Stmt::CreateTable {
            columns,
            pk,
            inherits,
            ..
        } = classify(sql, true).unwrap()
        else {
            panic!()
        };
        assert_eq!(inherits, [q(Some("public"), "p"), q(None, "q")]);
        assert_eq!(pk, ["a", "b"]);
        assert_eq!(columns[1].type_name, "timestamp with time zone");
        assert!(columns[1].not_null);
    }

    #[test]
    fn enums_and_domains() {
        assert_eq!(
            classify(
                b"CREATE TYPE public.\"Mood\" AS ENUM (\n    'sad',\n    'it''s fine',\n    ''\n);",
                true
            )
            .unwrap(),
            Stmt::CreateEnum {
                name: q(Some("public"), "Mood"),
                labels: vec!["sad".into(), "it's fine".into(), String::new()]
            }
        );
        assert_eq!(
            classify(b"CREATE TYPE e AS ENUM ();", true).unwrap(),
            Stmt::CreateEnum {
                name: q(None, "e"),
                labels: vec![]
            }
        );
        // Other kinds of types (composite ones aside: typed tables take their attributes,
        // see typed_tables_and_composite_types) are just other statements.
        for sql in [
            &b"CREATE TYPE public.r AS RANGE (subtype = integer);"[..],
            b"CREATE TYPE public.shell;",
        ] {
            assert_eq!(classify(sql, true).unwrap(), Stmt::Other);
        }
        assert_eq!(
            classify(
                b"CREATE DOMAIN public.posint AS integer NOT NULL\n\tCONSTRAINT posint_check CHECK ((VALUE > 0));",
                true
            )
            .unwrap(),
            Stmt::CreateDomain {
                name: q(Some("public"), "posint"),
                base_type: "integer".into(),
                not_null: true,
                has_check: true
            }
        );
        assert_eq!(
            classify(
                b"CREATE DOMAIN d numeric(10, 2)[] COLLATE \"C\" DEFAULT (1 IS NOT NULL) NULL;",
                true
            )
            .unwrap(),
            Stmt::CreateDomain {
                name: q(None, "d"),
                base_type: "numeric(10, 2)[]".into(),
                not_null: false,
                has_check: false
            }
        );
        assert_eq!(
            classify(b"CREATE DOMAIN s.d2 AS s.d CONSTRAINT nn NOT NULL;", true).unwrap(),
            Stmt::CreateDomain {
                name: q(Some("s"), "d2"),
                base_type: "s.d".into(),
                not_null: true,
                has_check: false
            }
        );
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

    /// The child's own definition of a column wins over the parent's: its own generated
    /// column is generated (and not in its data) even where the parent stores it.
    #[test]
    fn child_generated_column_wins() {
        let col = |n: &str, generated: bool| ColumnDef {
            name: n.into(),
            type_name: "integer".into(),
            not_null: false,
            generated,
        };
        let merged = merge_inherited(
            vec![vec![col("a", false), col("b", false)]],
            &[col("a", false), col("b", true)],
        );
        assert_eq!(merged, [col("a", false), col("b", true)]);
        let merged = merge_inherited(vec![vec![col("g", true)]], &[col("g", false)]);
        assert_eq!(
            merged,
            [col("g", true)],
            "a parent's generated column stays generated"
        );
    }

    #[test]
    fn a_column_named_exclude() {
        let sql = b"CREATE TABLE t (\n    id integer,\n    exclude text,\n    EXCLUDE USING gist (id WITH =)\n);";
        let Stmt::CreateTable { columns, .. } = classify(sql, true).unwrap() else {
            panic!()
        };
        let names: Vec<_> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["id", "exclude"]);
    }

    #[test]
    fn others() {
        assert_eq!(
            classify(
                b"ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (a, \"B\");",
                true
            )
            .unwrap(),
            Stmt::AddPrimaryKey {
                table: q(Some("public"), "t"),
                cols: vec!["a".into(), "B".into()]
            }
        );
        assert_eq!(
            classify(b"COPY public.t (a, \"b c\") FROM stdin;", true).unwrap(),
            Stmt::Copy {
                table: q(Some("public"), "t"),
                cols: vec!["a".into(), "b c".into()]
            }
        );
        assert_eq!(
            classify(b"COPY public.t  FROM stdin;", true).unwrap(),
            Stmt::Copy {
                table: q(Some("public"), "t"),
                cols: vec![]
            }
        );
        assert_eq!(
            classify(b"SET search_path = sales, pg_catalog;", true).unwrap(),
            Stmt::SearchPath(vec!["sales".into(), "pg_catalog".into()])
        );
        assert_eq!(
            classify(
                b"SELECT pg_catalog.set_config('search_path', '', false);",
                true
            )
            .unwrap(),
            Stmt::SearchPath(vec![])
        );
        assert_eq!(
            classify(b"SET standard_conforming_strings = off;", true).unwrap(),
            Stmt::StdStrings(false)
        );
        assert_eq!(
            classify(b"SET client_encoding = 'UTF8';", true).unwrap(),
            Stmt::ClientEncoding("UTF8".into())
        );
        assert_eq!(
            classify(b"-- c\nINSERT INTO t VALUES (1);", true).unwrap(),
            Stmt::Insert
        );
        assert_eq!(
            classify(b"CREATE INDEX i ON t (a);", true).unwrap(),
            Stmt::Other
        );
        assert_eq!(
            classify(
                b"ALTER TABLE ONLY public.t ALTER COLUMN a SET NOT NULL;",
                true
            )
            .unwrap(),
            Stmt::SetNotNull {
                table: q(Some("public"), "t"),
                col: "a".into()
            }
        );
    }
}
