//! A small reader of the schema statements in a `pg_dump` schema file, enough for csvcheck to
//! learn a table's columns: `CREATE TABLE`, `CREATE TYPE ... AS ENUM`, `CREATE DOMAIN`,
//! `ALTER TABLE ... ADD CONSTRAINT ... PRIMARY KEY` and `ALTER TABLE ... SET NOT NULL`.
//! Everything else is skipped statement by statement.
//!
//! It has its own minimal lexer (comments, quoted identifiers, string and dollar-quoted
//! literals); once pgdump2csv's statement lexer lands in the library, this should use it.

use crate::pgtypes::{Catalog, Domain, EnumType, PgType, parse_type};
use std::collections::HashSet;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// Unquoted identifier or keyword, lower-cased.
    Word(String),
    /// `"quoted"` identifier, as written.
    Quoted(String),
    /// `'string'` literal, unescaped.
    Str(String),
    /// Number or other literal text.
    Num(String),
    /// One punctuation character.
    P(char),
}

impl Tok {
    fn is_word(&self, w: &str) -> bool {
        matches!(self, Tok::Word(x) if x == w)
    }
    fn ident(&self) -> Option<String> {
        match self {
            Tok::Word(w) | Tok::Quoted(w) => Some(w.clone()),
            _ => None,
        }
    }
    fn text(&self) -> String {
        match self {
            Tok::Word(w) | Tok::Num(w) => w.clone(),
            Tok::Quoted(q) => format!("\"{q}\""),
            Tok::Str(s) => format!("'{s}'"),
            Tok::P(c) => c.to_string(),
        }
    }
}

/// Splits SQL text into statements of tokens.
fn lex(sql: &str) -> Vec<Vec<Tok>> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut cur = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b';' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            i += 1;
        } else if c == b'"' {
            let mut s = Vec::new();
            i += 1;
            while i < b.len() {
                if b[i] == b'"' {
                    if b.get(i + 1) == Some(&b'"') {
                        s.push(b'"');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                s.push(b[i]);
                i += 1;
            }
            cur.push(Tok::Quoted(String::from_utf8_lossy(&s).into_owned()));
        } else if c == b'\'' || ((c == b'E' || c == b'e') && b.get(i + 1) == Some(&b'\'')) {
            let escapes = c != b'\'';
            if escapes {
                i += 1;
            }
            i += 1;
            let mut s = Vec::new();
            while i < b.len() {
                if escapes && b[i] == b'\\' && i + 1 < b.len() {
                    s.push(b[i + 1]);
                    i += 2;
                    continue;
                }
                if b[i] == b'\'' {
                    if b.get(i + 1) == Some(&b'\'') {
                        s.push(b'\'');
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                s.push(b[i]);
                i += 1;
            }
            cur.push(Tok::Str(String::from_utf8_lossy(&s).into_owned()));
        } else if c == b'$' {
            // Dollar quoting: $tag$ ... $tag$.
            let end = b[i + 1..]
                .iter()
                .position(|&x| x == b'$')
                .map(|p| i + 1 + p);
            let tag_ok = end.is_some_and(|e| {
                b[i + 1..e]
                    .iter()
                    .all(|&x| x.is_ascii_alphanumeric() || x == b'_')
            });
            if let (Some(e), true) = (end, tag_ok) {
                let tag = &b[i..=e];
                let body_start = e + 1;
                let close = b[body_start..]
                    .windows(tag.len())
                    .position(|w| w == tag)
                    .map(|p| body_start + p);
                let body_end = close.unwrap_or(b.len());
                cur.push(Tok::Str(
                    String::from_utf8_lossy(&b[body_start..body_end]).into_owned(),
                ));
                i = close.map_or(b.len(), |c| c + tag.len());
            } else {
                cur.push(Tok::P('$'));
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let st = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80)
            {
                i += 1;
            }
            cur.push(Tok::Word(
                String::from_utf8_lossy(&b[st..i]).to_ascii_lowercase(),
            ));
        } else if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
            cur.push(Tok::Num(String::from_utf8_lossy(&b[st..i]).into_owned()));
        } else {
            cur.push(Tok::P(c as char));
            i += 1;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// One column of a table from the DDL.
#[derive(Debug, Clone)]
pub struct DdlColumn {
    /// Name, unquoted.
    pub name: String,
    /// Type as written.
    pub type_text: String,
    /// `NOT NULL` (or primary key).
    pub not_null: bool,
}

/// A table from the DDL.
#[derive(Debug, Clone)]
pub struct DdlTable {
    /// Schema, if the name was qualified.
    pub schema: Option<String>,
    /// Name.
    pub name: String,
    /// Columns in order, generated columns left out (their values are not in the data).
    pub columns: Vec<DdlColumn>,
    /// Primary key columns.
    pub primary_key: Vec<String>,
}

/// What a schema file declares.
#[derive(Debug, Default)]
pub struct Ddl {
    /// Tables in order of appearance.
    pub tables: Vec<DdlTable>,
    /// Enums and domains.
    pub catalog: Catalog,
}

struct P<'a> {
    t: &'a [Tok],
    i: usize,
}

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn word(&mut self, w: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_word(w)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// Consumes the words if all of them come next.
    fn words(&mut self, ws: &[&str]) -> bool {
        let all = ws
            .iter()
            .enumerate()
            .all(|(k, w)| self.t.get(self.i + k).is_some_and(|t| t.is_word(w)));
        if all {
            self.i += ws.len();
        }
        all
    }
    fn punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::P(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    /// A possibly qualified name: returns (schema, name).
    fn qname(&mut self) -> Option<(Option<String>, String)> {
        let first = self.peek()?.ident()?;
        self.i += 1;
        if self.punct('.') {
            let second = self.peek()?.ident()?;
            self.i += 1;
            return Some((Some(first), second));
        }
        Some((None, first))
    }
    /// Skips a balanced parenthesised group starting at `(`.
    fn skip_group(&mut self) {
        let mut depth = 0;
        while let Some(t) = self.peek() {
            match t {
                Tok::P('(') => depth += 1,
                Tok::P(')') => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
    }
    fn ident_list(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.punct('(') {
            return out;
        }
        while let Some(t) = self.peek() {
            match t {
                Tok::P(')') => {
                    self.i += 1;
                    break;
                }
                Tok::P(',') => self.i += 1,
                t => {
                    if let Some(n) = t.ident() {
                        out.push(n);
                    }
                    self.i += 1;
                }
            }
        }
        out
    }
}

const COLUMN_STOP: &[&str] = &[
    "constraint",
    "not",
    "null",
    "default",
    "primary",
    "unique",
    "check",
    "references",
    "collate",
    "generated",
];

/// Reads type tokens up to a column-constraint keyword or `,`/`)` at depth 0.
fn type_text(p: &mut P, stops: &[&str]) -> String {
    let mut text = String::new();
    let mut glue = true; // no space before the next token
    let mut depth = 0;
    while let Some(t) = p.peek() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') if depth == 0 => break,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => break,
            Tok::Word(w) if depth == 0 && stops.contains(&w.as_str()) => break,
            _ => {}
        }
        // `public . mood` is one name: no spaces around the dot.
        let dot = *t == Tok::P('.');
        if !glue && !dot {
            text.push(' ');
        }
        text.push_str(&t.text());
        glue = dot;
        p.i += 1;
    }
    text
}

/// Parses the statements of a schema file.
pub fn parse(sql: &str) -> Ddl {
    let mut ddl = Ddl::default();
    let mut pending_pk: Vec<(Option<String>, String, Vec<String>)> = Vec::new();
    let mut pending_nn: Vec<(Option<String>, String, String)> = Vec::new();
    for st in lex(sql) {
        let mut p = P { t: &st, i: 0 };
        if p.word("create") {
            p.words(&["or", "replace"]);
            while p.word("unlogged") || p.word("temp") || p.word("temporary") || p.word("global") {}
            if p.word("table") {
                p.words(&["if", "not", "exists"]);
                if let Some(t) = create_table(&mut p) {
                    ddl.tables.push(t);
                }
            } else if p.word("type") {
                let Some((schema, name)) = p.qname() else {
                    continue;
                };
                if p.word("as") && p.word("enum") && p.punct('(') {
                    let mut labels = HashSet::new();
                    while let Some(t) = p.peek() {
                        match t {
                            Tok::Str(s) => {
                                labels.insert(s.as_bytes().to_vec());
                            }
                            Tok::P(')') => break,
                            _ => {}
                        }
                        p.i += 1;
                    }
                    let e = Arc::new(EnumType {
                        name: qualified(&schema, &name),
                        labels,
                    });
                    register(&mut ddl.catalog.enums, &schema, &name, e);
                }
            } else if p.word("domain") {
                let Some((schema, name)) = p.qname() else {
                    continue;
                };
                p.word("as");
                let tt = type_text(
                    &mut p,
                    &["constraint", "not", "null", "default", "check", "collate"],
                );
                let mut not_null = false;
                let mut has_check = false;
                while let Some(t) = p.peek().cloned() {
                    p.i += 1;
                    if t.is_word("not") && p.word("null") {
                        not_null = true;
                    } else if t.is_word("check") {
                        has_check = true;
                        p.skip_group();
                    } else if t == Tok::P('(') {
                        p.i -= 1;
                        p.skip_group();
                    }
                }
                let base = parse_type(&tt, &ddl.catalog);
                let d = Arc::new(Domain {
                    name: qualified(&schema, &name),
                    base,
                    not_null,
                    has_check,
                });
                register(&mut ddl.catalog.domains, &schema, &name, d);
            }
        } else if p.word("alter") && p.word("table") {
            p.words(&["if", "exists"]);
            p.word("only");
            let Some((schema, name)) = p.qname() else {
                continue;
            };
            if p.word("add") {
                if p.word("constraint") {
                    p.i += 1; // constraint name
                }
                if p.word("primary") && p.word("key") {
                    pending_pk.push((schema, name, p.ident_list()));
                }
            } else if p.word("alter") {
                p.word("column");
                if let Some(col) = p.peek().and_then(Tok::ident) {
                    p.i += 1;
                    if p.word("set") && p.word("not") && p.word("null") {
                        pending_nn.push((schema, name, col));
                    }
                }
            }
        }
    }
    for (schema, name, cols) in pending_pk {
        if let Some(t) = find_mut(&mut ddl.tables, &schema, &name) {
            for c in &mut t.columns {
                if cols.contains(&c.name) {
                    c.not_null = true;
                }
            }
            t.primary_key = cols;
        }
    }
    for (schema, name, col) in pending_nn {
        if let Some(t) = find_mut(&mut ddl.tables, &schema, &name)
            && let Some(c) = t.columns.iter_mut().find(|c| c.name == col)
        {
            c.not_null = true;
        }
    }
    ddl
}

fn qualified(schema: &Option<String>, name: &str) -> String {
    match schema {
        Some(s) => format!("{s}.{name}"),
        None => name.to_string(),
    }
}

fn register<T>(
    map: &mut std::collections::HashMap<String, Arc<T>>,
    schema: &Option<String>,
    name: &str,
    v: Arc<T>,
) {
    map.insert(name.to_lowercase(), v.clone());
    if let Some(s) = schema {
        map.insert(format!("{s}.{name}").to_lowercase(), v);
    }
}

fn find_mut<'a>(
    tables: &'a mut [DdlTable],
    schema: &Option<String>,
    name: &str,
) -> Option<&'a mut DdlTable> {
    tables
        .iter_mut()
        .find(|t| t.name == name && (schema.is_none() || t.schema == *schema))
}

fn create_table(p: &mut P) -> Option<DdlTable> {
    let (schema, name) = p.qname()?;
    if !p.punct('(') {
        return None; // PARTITION OF, AS SELECT ...: no column list to read
    }
    let mut t = DdlTable {
        schema,
        name,
        columns: Vec::new(),
        primary_key: Vec::new(),
    };
    while let Some(first) = p.peek().cloned() {
        if first == Tok::P(')') {
            p.i += 1;
            break;
        }
        if first == Tok::P(',') {
            p.i += 1;
            continue;
        }
        let table_constraint = [
            "constraint",
            "primary",
            "unique",
            "check",
            "foreign",
            "exclude",
            "like",
        ]
        .iter()
        .any(|w| first.is_word(w));
        if table_constraint {
            // Walk to the end of this element, noting a PRIMARY KEY column list.
            let mut depth = 0;
            while let Some(tok) = p.peek().cloned() {
                match tok {
                    Tok::P('(') => depth += 1,
                    Tok::P(')') if depth == 0 => break,
                    Tok::P(')') => depth -= 1,
                    Tok::P(',') if depth == 0 => break,
                    Tok::Word(ref w) if depth == 0 && w == "primary" => {
                        p.i += 1;
                        if p.word("key") {
                            t.primary_key = p.ident_list();
                        }
                        continue;
                    }
                    _ => {}
                }
                p.i += 1;
            }
            continue;
        }
        let Some(col) = first.ident() else {
            p.i += 1;
            continue;
        };
        p.i += 1;
        let tt = type_text(p, COLUMN_STOP);
        let mut not_null = false;
        let mut generated_stored = false;
        let mut depth = 0;
        while let Some(tok) = p.peek().cloned() {
            match tok {
                Tok::P('(') => depth += 1,
                Tok::P(')') if depth == 0 => break,
                Tok::P(')') => depth -= 1,
                Tok::P(',') if depth == 0 => break,
                Tok::Word(ref w) if depth == 0 => match w.as_str() {
                    "not" => {
                        p.i += 1;
                        if p.word("null") {
                            not_null = true;
                        }
                        continue;
                    }
                    "primary" => {
                        p.i += 1;
                        if p.word("key") {
                            not_null = true;
                            t.primary_key = vec![col.clone()];
                        }
                        continue;
                    }
                    "stored" => generated_stored = true,
                    _ => {}
                },
                _ => {}
            }
            p.i += 1;
        }
        if !generated_stored {
            t.columns.push(DdlColumn {
                name: col,
                type_text: tt,
                not_null,
            });
        }
    }
    Some(t)
}

/// The table `name` (bare or `schema.name`).
pub fn find<'a>(ddl: &'a Ddl, name: &str) -> Result<&'a DdlTable, String> {
    let (schema, bare) = match name.split_once('.') {
        Some((s, n)) => (Some(s), n),
        None => (None, name),
    };
    let found: Vec<&DdlTable> = ddl
        .tables
        .iter()
        .filter(|t| t.name == bare && (schema.is_none() || t.schema.as_deref() == schema))
        .collect();
    match found.as_slice() {
        [t] => Ok(t),
        [] => Err(format!(
            "table '{name}' is not in the schema file (it has: {})",
            ddl.tables
                .iter()
                .map(|t| qualified(&t.schema, &t.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Err(format!(
            "table name '{name}' is ambiguous; qualify it with its schema"
        )),
    }
}

/// Resolves a DDL column's type against the file's enums and domains.
pub fn column_type(ddl: &Ddl, c: &DdlColumn) -> PgType {
    parse_type(&c.type_text, &ddl.catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQL: &str = r#"
-- pg_dump output
SET statement_timeout = 0;
CREATE TYPE public.mood AS ENUM (
    'sad',
    'ok',
    'it''s fine'
);
CREATE DOMAIN public.posint AS integer NOT NULL
	CONSTRAINT posint_check CHECK ((VALUE > 0));
CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $_$ select 1; $_$;
CREATE TABLE public."Items" (
    id bigint NOT NULL,
    "Name" character varying(16) DEFAULT 'a;b'::character varying,
    m public.mood,
    n public.posint,
    price numeric(10, 2),
    tags text[],
    total numeric GENERATED ALWAYS AS ((price * 2)) STORED,
    at timestamp(3) with time zone,
    CONSTRAINT c CHECK ((price > 0))
);
CREATE TABLE other (a int PRIMARY KEY, b text);
ALTER TABLE ONLY public."Items"
    ADD CONSTRAINT items_pkey PRIMARY KEY (id, "Name");
ALTER TABLE public."Items" ALTER COLUMN m SET NOT NULL;
"#;

    #[test]
    fn reads_pg_dump_schema() {
        let d = parse(SQL);
        let t = find(&d, "Items").unwrap();
        assert_eq!(t.schema.as_deref(), Some("public"));
        let names: Vec<_> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["id", "Name", "m", "n", "price", "tags", "at"]);
        assert_eq!(t.primary_key, ["id", "Name"]);
        assert!(t.columns[1].not_null, "pk column is not null");
        assert!(t.columns[2].not_null, "SET NOT NULL applied");
        assert_eq!(column_type(&d, &t.columns[1]), PgType::Varchar(16));
        assert_eq!(
            column_type(&d, &t.columns[4]),
            PgType::Numeric(Some((10, 2)))
        );
        assert_eq!(
            column_type(&d, &t.columns[5]),
            PgType::Array(Box::new(PgType::Text))
        );
        assert_eq!(column_type(&d, &t.columns[6]), PgType::TimestampTz);
        match column_type(&d, &t.columns[2]) {
            PgType::Enum(e) => {
                assert!(e.labels.contains(&b"it's fine"[..]));
                assert_eq!(e.labels.len(), 3);
            }
            other => panic!("not an enum: {other:?}"),
        }
        match column_type(&d, &t.columns[3]) {
            PgType::Domain(dm) => {
                assert!(dm.not_null && dm.has_check);
                assert_eq!(dm.base, PgType::Int4);
            }
            other => panic!("not a domain: {other:?}"),
        }
        let o = find(&d, "public.other").err();
        assert!(o.is_some(), "unqualified table is not public.other");
        let o = find(&d, "other").unwrap();
        assert_eq!(o.primary_key, ["a"]);
        assert!(find(&d, "nope").is_err());
    }
}
