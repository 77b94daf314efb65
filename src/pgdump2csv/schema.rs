//! The schema builder: what the dump's DDL declares about each table (columns with inherited ones,
//! composite types of typed tables), names placed by the search path.

use super::Converter;
use crate::pgdump::ddl::{self, ColumnDef, QName};

impl Converter<'_> {
    /// Schema and name of a table as the dump names it, qualified by the search path.
    pub(super) fn resolve(&self, q: &QName) -> (String, String) {
        // A file needs a schema: where the search path gives none, the name is PostgreSQL's
        // default creation schema.
        let q = q.clone().placed(&self.search_path);
        (q.schema.unwrap_or_else(|| "public".into()), q.name)
    }

    /// All columns of a table in physical order: inherited ones first (pg_dump declares only
    /// the local ones in the child's CREATE TABLE), a column declared in both kept once.
    pub(super) fn all_columns(&self, key: &(String, String), depth: u32) -> Option<Vec<ColumnDef>> {
        let def = self.defs.get(key)?;
        // The depth bound stops inheritance cycles, which PostgreSQL refuses anyway.
        let parents: Vec<Vec<ColumnDef>> = if depth < 32 {
            def.inherits
                .iter()
                .map(|p| self.all_columns(p, depth + 1))
                .collect::<Option<_>>()?
        } else {
            Vec::new()
        };
        Some(ddl::merge_inherited(parents, &def.columns))
    }
}

/// `CREATE TYPE name AS (attr type, ...)`: the composite type and its attributes in order.
pub(super) fn composite_type(stmt: &[u8], std_strings: bool) -> Option<(QName, Vec<ColumnDef>)> {
    use crate::pgdump::sql::{Tok, tokenize};
    let toks = tokenize(stmt, std_strings).ok()?;
    let t = |i: usize| toks.get(i).map(|s| &s.tok);
    if !(t(0)?.is_kw("create") && t(1)?.is_kw("type")) {
        return None;
    }
    let (name, mut i) = qname_at(&toks, 2)?;
    if !(t(i)?.is_kw("as") && t(i + 1)?.is_op("(")) {
        return None;
    }
    i += 2;
    let mut cols = Vec::new();
    loop {
        let Tok::Ident { name: attr, .. } = t(i)? else {
            return None;
        };
        i += 1;
        // The type runs to the next ',' or ')' outside parentheses.
        let start = toks.get(i)?.start;
        let mut depth = 0u32;
        while !(depth == 0 && (t(i)?.is_op(",") || t(i)?.is_op(")"))) {
            if t(i)?.is_op("(") {
                depth += 1;
            } else if t(i)?.is_op(")") {
                depth -= 1;
            }
            i += 1;
        }
        let type_name = String::from_utf8_lossy(&stmt[start..toks.get(i)?.start])
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        cols.push(ColumnDef {
            name: attr.clone(),
            type_name,
            not_null: false,
            generated: false,
        });
        i += 1;
        if t(i - 1)?.is_op(")") {
            return Some((name, cols));
        }
    }
}

/// `CREATE TABLE name OF type ...`: the type.
pub(super) fn typed_table_type(stmt: &[u8], std_strings: bool) -> Option<QName> {
    let toks = crate::pgdump::sql::tokenize(stmt, std_strings).ok()?;
    let mut i = toks.iter().position(|s| s.tok.is_kw("table"))? + 1;
    if toks.get(i)?.tok.is_kw("if") {
        i += 3;
    }
    let (_, i) = qname_at(&toks, i)?;
    if !toks.get(i)?.tok.is_kw("of") {
        return None;
    }
    qname_at(&toks, i + 1).map(|(q, _)| q)
}

/// A `[schema.]name` at token `i`, and the index after it.
pub(super) fn qname_at(toks: &[crate::pgdump::sql::Spanned], i: usize) -> Option<(QName, usize)> {
    use crate::pgdump::sql::Tok;
    let Tok::Ident { name: first, .. } = &toks.get(i)?.tok else {
        return None;
    };
    if toks.get(i + 1).is_some_and(|s| s.tok.is_op("."))
        && let Some(Tok::Ident { name, .. }) = toks.get(i + 2).map(|s| &s.tok)
    {
        return Some((
            QName {
                schema: Some(first.clone()),
                name: name.clone(),
            },
            i + 3,
        ));
    }
    Some((
        QName {
            schema: None,
            name: first.clone(),
        },
        i + 1,
    ))
}
