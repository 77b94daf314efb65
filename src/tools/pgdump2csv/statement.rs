//! The dump's script, statement by statement: trivia and TOC comments, psql meta-commands, and each
//! SQL statement classified and handled (DDL to the schema outputs, data to the tables).

use super::{CUT_OFF, Converter, Phase};
use crate::io::error::Result;
use crate::pg::dump::ddl::{self, Stmt};
use crate::pg::dump::psql;
use crate::pg::dump::sql::{Scan, StmtScanner};

impl Converter<'_> {
    /// Finds the first byte of the next statement or meta-command, relative to `pos`, noting
    /// pg_dump's footer comment on the way. `None` at end of input.
    pub(super) fn skip_trivia(&mut self) -> Result<Option<usize>> {
        let mut i = 0usize;
        loop {
            let avail = self.buf.avail();
            while i < avail.len() && avail[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= avail.len() {
                if !self.buf.fill()? {
                    return Ok(None);
                }
                continue;
            }
            if avail[i] == b'-' || avail[i] == b'/' {
                if i + 1 >= avail.len() && !self.buf.eof {
                    self.buf.fill()?;
                    continue;
                }
                if avail[i..].starts_with(b"--") {
                    match memchr::memchr(b'\n', &avail[i..]) {
                        Some(k) => {
                            let text = &avail[i..i + k];
                            let text = text.strip_suffix(b"\r").unwrap_or(text);
                            if text == b"-- PostgreSQL database dump complete"
                                || text == b"-- PostgreSQL database cluster dump complete"
                            {
                                self.footer_seen = true;
                            }
                            let toc = toc_table_data(text);
                            i += k + 1;
                            if let Some(t) = toc {
                                self.flush_pending()?;
                                self.pending_data = Some(t);
                            }
                        }
                        None if self.buf.eof => {
                            i = avail.len();
                        }
                        None => {
                            self.buf.fill()?;
                        }
                    }
                    continue;
                }
                if avail[i..].starts_with(b"/*") {
                    // Comments nest, as in psql.
                    match crate::pg::dump::sql::comment_len(&avail[i..]) {
                        Some(k) => i += k,
                        None if self.buf.eof => {
                            return Err(self.err(i, "unterminated /* comment"));
                        }
                        None => {
                            self.buf.fill()?;
                        }
                    }
                    continue;
                }
            }
            return Ok(Some(i));
        }
    }

    /// A psql meta-command line (`\connect`, `\restrict`, `\unrestrict`).
    pub(super) fn meta_command(&mut self, sig: usize) -> Result<()> {
        let eol = loop {
            if let Some(k) = memchr::memchr(b'\n', &self.buf.avail()[sig..]) {
                break sig + k + 1;
            }
            if !self.buf.fill()? {
                break self.buf.avail().len();
            }
        };
        let line = self.buf.avail()[sig..eol].to_vec();
        let lead = self.buf.avail()[..sig].to_vec();
        self.emit(&lead)?;
        // The dump's \restrict/\unrestrict pairs are followed as psql would (a wrong key is a
        // cut or tampered dump) and replaced by our own keys in the outputs. A \connect pg_dump
        // writes is kept, outside our restricted mode as pg_dump does it. Anything else could
        // run commands on restore (`\!`, `\o |cmd`): no pg_dump writes it, so it is refused.
        match psql::classify(&line) {
            psql::Meta::Restrict(k) if self.dump_key.is_none() => self.dump_key = Some(k.to_vec()),
            psql::Meta::Unrestrict(k) if self.dump_key.as_deref() == Some(k) => {
                self.dump_key = None;
            }
            psql::Meta::Unrestrict(_) | psql::Meta::Restrict(_) => {
                return Err(self.err(
                    sig,
                    "\\restrict/\\unrestrict line that does not match the dump's restricted mode (psql refuses it): the dump is cut or was altered",
                ));
            }
            psql::Meta::Connect if self.dump_key.is_none() => {
                let key = self.emit_key();
                let mut text = format!("\\unrestrict {key}\n").into_bytes();
                text.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(&line));
                text.extend_from_slice(format!("\n\\restrict {key}\n").as_bytes());
                self.emit(&text)?;
            }
            psql::Meta::Connect => {
                return Err(self.err(
                    sig,
                    "\\connect inside the dump's restricted mode (psql refuses it): the dump was altered",
                ));
            }
            psql::Meta::BadConnect(why) => {
                return Err(self.err(sig, format!("refusing the dump's \\connect line: {why}")));
            }
            psql::Meta::Other(cmd) => {
                return Err(self.err(
                    sig,
                    format!(
                        "psql meta-command {cmd} in the dump: pg_dump writes only \\connect, \\restrict and \\unrestrict, and passing it on could run commands on restore; refusing the dump"
                    ),
                ));
            }
        }
        self.buf.advance(eol);
        Ok(())
    }

    /// Scans, classifies and handles one SQL statement starting at `sig`.
    pub(super) fn statement(&mut self, sig: usize) -> Result<()> {
        while self.buf.avail().len() < sig + 7 && self.buf.fill()? {}
        if let Some(w) = self.buf.avail().get(sig..sig + 7)
            && w[..6].eq_ignore_ascii_case(b"insert")
            && !w[6].is_ascii_alphabetic()
        {
            return self.insert_statement(sig);
        }
        let mut sc = StmtScanner::default();
        let mut from = sig;
        let end = loop {
            match sc.scan(self.buf.avail(), from, self.std_strings, self.buf.eof) {
                Scan::End(e) => break e,
                Scan::More(f) => {
                    from = f;
                    if self.buf.eof {
                        return Err(self.err(
                            sig,
                            "statement cut off: the dump ends inside it (truncated dump?)",
                        ));
                    }
                    // At end of input this only sets `eof`; the scan then decides with it.
                    self.buf.fill()?;
                }
            }
        };
        if let Some(at) = sc.meta_command_at() {
            return Err(self.err(
                at,
                "backslash outside quotes in a statement: psql would run it as a meta-command, which no pg_dump writes there; refusing the dump",
            ));
        }
        // The unit runs to the end of the statement's line.
        let unit_end = self.line_end(end)?;
        self.footer_seen = false;
        let stmt = self.buf.avail()[sig..end].to_vec();
        let kind = ddl::classify(&stmt, self.std_strings)
            .map_err(|(off, msg)| self.err(sig + off, msg))?;
        if matches!(kind, Stmt::Copy { .. } | Stmt::Insert) {
            self.pending_data = None;
        } else {
            self.flush_pending()?;
        }
        match kind {
            // The comments before a data statement are its TOC entry ("Data for Name: ..."),
            // which means nothing without the data: they are dropped.
            Stmt::Copy { table, cols } => {
                self.buf.advance(unit_end);
                let key = self.resolve(&table);
                match self.take_deferred(&stmt) {
                    Some(i) => self.defer_copy(key, cols, i),
                    None => self.copy_data(key, cols),
                }
            }
            // Read row by row before the statement is buffered whole (above).
            Stmt::Insert => Err(self.err(sig, "internal error: INSERT not streamed")),
            other => {
                self.close_open()?;
                let mut session_setting = false;
                match &other {
                    Stmt::CreateTable { .. } => {
                        if let Some(t) = self.defs.apply(&other) {
                            let key = (
                                t.name.schema.clone().unwrap_or_default(),
                                t.name.name.clone(),
                            );
                            self.seen.insert(key);
                        }
                    }
                    Stmt::AddPrimaryKey { .. }
                    | Stmt::SetNotNull { .. }
                    | Stmt::CreateComposite { .. } => {
                        self.defs.apply(&other);
                    }
                    Stmt::SearchPath(_) => {
                        self.defs.apply(&other);
                        session_setting = true;
                    }
                    // Kept for the manifest (csvcheck -m checks enum labels and domain bases
                    // with it), and written to the schema as any other statement.
                    Stmt::CreateEnum { name, labels } => {
                        let q = self.defs.place(name);
                        self.enums.push(crate::manifest::EnumDef {
                            schema: q.schema,
                            name: q.name,
                            labels: labels.clone(),
                        });
                    }
                    Stmt::CreateDomain {
                        name,
                        base_type,
                        not_null,
                        has_check,
                    } => {
                        let q = self.defs.place(name);
                        self.domains.push(crate::manifest::DomainDef {
                            schema: q.schema,
                            name: q.name,
                            base_type: base_type.clone(),
                            not_null: *not_null,
                            has_check: *has_check,
                        });
                    }
                    Stmt::StdStrings(on) => {
                        self.std_strings = *on;
                        session_setting = true;
                    }
                    Stmt::ClientEncoding(enc) => {
                        let e = enc.to_ascii_uppercase().replace(['-', '_'], "");
                        if e != "UTF8" && e != "SQLASCII" && e != "UNICODE" {
                            return Err(self.err(
                                sig,
                                format!("client_encoding {enc} is not supported: CSV output is UTF-8; re-dump with `pg_dump -E UTF8`"),
                            ));
                        }
                        session_setting = true;
                    }
                    Stmt::OtherCopy => {
                        return Err(self.err(
                            sig,
                            "COPY that does not read FROM stdin: not something pg_dump writes",
                        ));
                    }
                    // Everything else goes to the schema as written.
                    _ => {
                        let w = stmt
                            .iter()
                            .take(4)
                            .map(u8::to_ascii_uppercase)
                            .collect::<Vec<_>>();
                        session_setting = w.starts_with(b"SET ");
                    }
                }
                if session_setting
                    && self.phase == Phase::Pre
                    && self.conv.keeps(&stmt, self.std_strings)
                {
                    self.preamble
                        .extend_from_slice(&self.buf.avail()[sig..unit_end]);
                }
                // The target's rules decide what is written (crate::schemaconv).
                self.route(sig, end, unit_end, &other)?;
                self.buf.advance(unit_end);
                Ok(())
            }
        }
    }

    /// Writes an empty CSV for a table whose TOC data entry had no rows (INSERT dumps).
    pub(super) fn flush_pending(&mut self) -> Result<()> {
        let Some(key) = self.pending_data.take() else {
            return Ok(());
        };
        if self.by_name.contains_key(&key) {
            return Ok(());
        }
        let Some(cols) = self.all_columns(&key) else {
            return Ok(());
        };
        let cols: Vec<String> = cols
            .into_iter()
            .filter(|c| !c.generated)
            .map(|c| c.name)
            .collect();
        self.enter_data()?;
        if self.open_table(&key, &cols)? {
            self.close_open()?;
        }
        Ok(())
    }

    /// Offset of the next non-whitespace byte from `pos`, reading more as needed.
    pub(super) fn skip_ws(&mut self) -> Result<usize> {
        let mut i = 0;
        loop {
            let avail = self.buf.avail();
            while i < avail.len() && avail[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < avail.len() {
                return Ok(i);
            }
            if !self.buf.fill()? {
                return Err(self.err(i, CUT_OFF));
            }
        }
    }

    /// Offset just past the line that `end` (relative to `pos`) is on, when only blanks
    /// follow it there: a statement's unit runs to the end of its line.
    pub(super) fn line_end(&mut self, end: usize) -> Result<usize> {
        let mut unit_end = end;
        loop {
            let avail = self.buf.avail();
            while unit_end < avail.len() && matches!(avail[unit_end], b' ' | b'\t' | b'\r') {
                unit_end += 1;
            }
            if unit_end < avail.len() || self.buf.eof {
                break;
            }
            if !self.buf.fill()? {
                break;
            }
        }
        if self.buf.avail().get(unit_end) == Some(&b'\n') {
            unit_end += 1;
        }
        Ok(unit_end)
    }

    /// Moves past the rest of a statement without interpreting it (a table not selected).
    pub(super) fn skip_statement(&mut self) -> Result<()> {
        let mut sc = StmtScanner::default();
        let mut from = 0;
        let end = loop {
            match sc.scan(self.buf.avail(), from, self.std_strings, self.buf.eof) {
                Scan::End(e) => break e,
                Scan::More(f) => {
                    if self.buf.eof {
                        return Err(self.err(0, CUT_OFF));
                    }
                    // What was scanned is let go, so memory stays flat; the scanner may look
                    // one byte back (E'...'), so that byte stays.
                    let keep = f.saturating_sub(1);
                    self.buf.advance(keep);
                    from = f - keep;
                    self.buf.fill()?;
                }
            }
        };
        if sc.meta_command_at().is_some() {
            return Err(self.err(
                0,
                "backslash outside quotes in a statement: psql would run it as a meta-command, which no pg_dump writes there; refusing the dump",
            ));
        }
        let end = self.line_end(end)?;
        self.buf.advance(end);
        Ok(())
    }
}

/// Schema and table of a `-- Data for Name: T; Type: TABLE DATA; Schema: S; Owner: O` TOC
/// comment. The names in these comments are not quoted, so one containing `; ` cannot be
/// read back; such a table simply gets no empty file.
pub(super) fn toc_table_data(line: &[u8]) -> Option<(String, String)> {
    let rest = line.strip_prefix(b"-- Data for Name: ")?;
    let s = std::str::from_utf8(rest).ok()?;
    let (name, rest) = s.split_once("; Type: TABLE DATA; Schema: ")?;
    let schema = rest.split("; ").next()?;
    if name.contains("; ") || schema == "-" {
        return None;
    }
    Some((schema.to_string(), name.to_string()))
}

#[cfg(test)]
mod tests {
    use crate::manifest::Manifest;

    /// Comments between statements nest, as psql reads them: the one after the first `*/`
    /// is still inside the outer comment, and the CREATE TABLE after it is seen.
    #[test]
    fn nested_comments_between_statements() {
        let d = tempfile::tempdir().unwrap();
        let sql = d.path().join("in.sql");
        std::fs::write(
            &sql,
            "/* outer /* inner */ still a comment; */\n\
             CREATE TABLE t (id integer NOT NULL, v text);\n\
             COPY t (id, v) FROM stdin;\n1\ta\n\\.\n",
        )
        .unwrap();
        let (out, m) = (d.path().join("out"), d.path().join("m.json"));
        super::super::convert_for_test(&sql, &out, &m).unwrap();
        let m = Manifest::read(&m).unwrap();
        let t = m.table("public.t").unwrap();
        assert_eq!(t.columns[0].type_name.as_deref(), Some("integer"));
        assert!(t.columns[0].not_null);
        assert_eq!(std::fs::read(out.join("public.t.csv")).unwrap(), b"1,a\n");
    }
}
