//! The classifier's parser: a cursor over one statement's tokens that reads the statements
//! [`super::classify`] recognises (`CREATE TABLE`/`TYPE`/`DOMAIN`, `ALTER TABLE`, `SET`,
//! `SELECT pg_catalog.set_config`, `COPY`) into a [`Stmt`].

use super::{ColumnDef, PResult, QName, Stmt};
use crate::pg::dump::sql::{Spanned, Tok};

pub(super) struct P<'a> {
    pub(super) t: &'a [Spanned],
    pub(super) i: usize,
    pub(super) src: &'a [u8],
}

impl<'a> P<'a> {
    pub(super) fn peek(&self) -> Option<&'a Tok> {
        self.t.get(self.i).map(|s| &s.tok)
    }
    pub(super) fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.t.get(self.i + k).map(|s| &s.tok)
    }
    pub(super) fn kw(&mut self, kw: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_kw(kw)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn op(&mut self, op: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_op(op)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn offset(&self) -> usize {
        self.t.get(self.i).map_or(self.src.len(), |s| s.start)
    }
    pub(super) fn err<T>(&self, msg: &str) -> PResult<T> {
        Err((self.offset(), msg.to_string()))
    }
    pub(super) fn ident(&mut self) -> PResult<String> {
        match self.peek() {
            Some(Tok::Ident { name, .. }) => {
                self.i += 1;
                Ok(name.clone())
            }
            _ => self.err("expected a name"),
        }
    }
    pub(super) fn qname(&mut self) -> PResult<QName> {
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
    pub(super) fn name_list(&mut self) -> PResult<Vec<String>> {
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
    pub(super) fn skip_parens(&mut self) {
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

    pub(super) fn create(&mut self) -> PResult<Stmt> {
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
    pub(super) fn create_composite(&mut self) -> Option<Stmt> {
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
    pub(super) fn create_enum(&mut self) -> Option<Stmt> {
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
    pub(super) fn create_domain(&mut self) -> Option<Stmt> {
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

    pub(super) fn table_constraint(&mut self, pk: &mut Vec<String>) -> PResult<()> {
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
    pub(super) fn skip_element(&mut self) {
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

    pub(super) fn element(
        &mut self,
        columns: &mut Vec<ColumnDef>,
        pk: &mut Vec<String>,
    ) -> PResult<()> {
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

    pub(super) fn alter(&mut self) -> PResult<Stmt> {
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

    pub(super) fn set(&mut self) -> PResult<Stmt> {
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
    pub(super) fn select(&mut self) -> PResult<Stmt> {
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

    pub(super) fn copy(&mut self) -> PResult<Stmt> {
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

/// Collapses runs of whitespace to one space.
fn normalize_ws(s: &[u8]) -> String {
    String::from_utf8_lossy(s)
        .split_ascii_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
