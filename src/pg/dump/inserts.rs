//! Reading the data of `--inserts`, `--column-inserts` and `--rows-per-insert` dumps:
//! `INSERT INTO t [(cols)] [OVERRIDING SYSTEM VALUE] VALUES (...), (...) [ON CONFLICT DO
//! NOTHING];` with the literal forms pg_dump writes (`dumpTableData_insert` in pg_dump.c):
//! NULL, DEFAULT (generated columns), bare numbers, `true`/`false`, `B'...'` bit strings and
//! `'...'` strings (with backslash escapes when standard_conforming_strings is off).

use super::ddl::QName;
use super::sql::{Tok, tokenize};

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// `DEFAULT`: pg_dump writes it for generated columns.
    Default,
    /// A value in PostgreSQL's text form.
    Text(Vec<u8>),
}

/// A parsed INSERT statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    /// Target table.
    pub table: QName,
    /// Column list, if the statement has one (`--column-inserts`).
    pub cols: Option<Vec<String>>,
    /// The rows.
    pub rows: Vec<Vec<Value>>,
}

/// The head of an INSERT statement: everything before its first row.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// Target table.
    pub table: QName,
    /// Column list, if the statement has one (`--column-inserts`).
    pub cols: Option<Vec<String>>,
    /// `DEFAULT VALUES`: one row with no values, and no row list follows.
    pub default_values: bool,
}

/// The length of the head at the start of `buf` (through the keyword `VALUES`), or `None`
/// when `buf` does not hold all of it yet. The head holds only names and keywords, so only
/// double-quoted names need care (a column may be called "values").
pub fn head_len(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < buf.len() {
        let b = buf[i];
        if b == b'"' {
            i += memchr::memchr(b'"', &buf[i + 1..])? + 2;
        } else if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            let j = buf[i..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80))
                .map(|k| i + k)?;
            if buf[i..j].eq_ignore_ascii_case(b"values") {
                return Some(j);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    None
}

/// Parses a head (as delimited by [`head_len`]). Errors carry the offset of the problem.
pub fn parse_head(head: &[u8], std_strings: bool) -> Result<Head, (usize, String)> {
    let toks = tokenize(head, std_strings)?;
    let mut i = 0usize;
    let at = |i: usize| toks.get(i).map_or(head.len(), |t| t.start);
    let tok = |i: usize| toks.get(i).map(|t| &t.tok);
    let expect_kw = |i: &mut usize, kw: &str| -> Result<(), (usize, String)> {
        if tok(*i).is_some_and(|t| t.is_kw(kw)) {
            *i += 1;
            Ok(())
        } else {
            Err((at(*i), format!("expected {} in INSERT", kw.to_uppercase())))
        }
    };
    let name = |i: &mut usize| -> Result<String, (usize, String)> {
        match tok(*i) {
            Some(Tok::Ident { name, .. }) => {
                *i += 1;
                Ok(name.clone())
            }
            _ => Err((at(*i), "expected a name in INSERT".to_string())),
        }
    };
    expect_kw(&mut i, "insert")?;
    expect_kw(&mut i, "into")?;
    let first = name(&mut i)?;
    let table = if tok(i).is_some_and(|t| t.is_op(".")) {
        i += 1;
        QName {
            schema: Some(first),
            name: name(&mut i)?,
        }
    } else {
        QName {
            schema: None,
            name: first,
        }
    };
    let mut cols = None;
    if tok(i).is_some_and(|t| t.is_op("(")) {
        i += 1;
        let mut v = Vec::new();
        loop {
            v.push(name(&mut i)?);
            match tok(i) {
                Some(t) if t.is_op(",") => i += 1,
                Some(t) if t.is_op(")") => {
                    i += 1;
                    break;
                }
                _ => {
                    return Err((
                        at(i),
                        "expected ',' or ')' in the INSERT column list".into(),
                    ));
                }
            }
        }
        cols = Some(v);
    }
    if tok(i).is_some_and(|t| t.is_kw("overriding")) {
        i += 1;
        if !tok(i).is_some_and(|t| t.is_kw("system") || t.is_kw("user")) {
            return Err((at(i), "expected SYSTEM or USER after OVERRIDING".into()));
        }
        i += 1;
        expect_kw(&mut i, "value")?;
    }
    let default_values = tok(i).is_some_and(|t| t.is_kw("default"));
    if default_values {
        i += 1;
    }
    expect_kw(&mut i, "values")?;
    if i != toks.len() {
        return Err((at(i), "unexpected text in the INSERT head".into()));
    }
    Ok(Head {
        table,
        cols,
        default_values,
    })
}

/// Finds where a row `( ... )` ends, over a buffer that may grow between calls (the row
/// starts at `buf[0]`; earlier bytes must stay). Holds its place, so a long row is scanned
/// once whatever the refills.
#[derive(Debug, Default)]
pub struct RowScan {
    i: usize,
    depth: u32,
    mode: RowMode,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum RowMode {
    #[default]
    Normal,
    /// In '...'; `true` when backslashes escape.
    Str(bool),
    Ident,
}

impl RowScan {
    /// `Ok(Some(len))`: the row is `buf[..len]`, through its `)`. `Ok(None)`: more input is
    /// needed. A backslash outside quotes is an error (psql would run a meta-command there).
    pub fn scan(
        &mut self,
        buf: &[u8],
        std_strings: bool,
    ) -> Result<Option<usize>, (usize, String)> {
        let n = buf.len();
        while self.i < n {
            let i = self.i;
            match self.mode {
                RowMode::Normal => {
                    match buf[i] {
                        b'(' => self.depth += 1,
                        b')' => {
                            self.depth = self.depth.saturating_sub(1);
                            if self.depth == 0 {
                                self.i = i + 1;
                                return Ok(Some(i + 1));
                            }
                        }
                        b'\'' => {
                            let e = i > 0
                                && (buf[i - 1] == b'E' || buf[i - 1] == b'e')
                                && (i < 2
                                    || !(buf[i - 2].is_ascii_alphanumeric() || buf[i - 2] == b'_'));
                            self.mode = RowMode::Str(e || !std_strings);
                        }
                        b'"' => self.mode = RowMode::Ident,
                        b'\\' => {
                            return Err((
                                i,
                                "backslash outside quotes in INSERT: psql would run it as a meta-command; refusing the dump".into(),
                            ));
                        }
                        _ => {}
                    }
                    self.i = i + 1;
                }
                RowMode::Str(esc) => {
                    let found = if esc {
                        memchr::memchr2(b'\'', b'\\', &buf[i..])
                    } else {
                        memchr::memchr(b'\'', &buf[i..])
                    };
                    let Some(k) = found else {
                        self.i = n;
                        return Ok(None);
                    };
                    let at = i + k;
                    if at + 1 >= n {
                        // A backslash's next byte, or whether a quote is doubled, comes later.
                        self.i = at;
                        return Ok(None);
                    }
                    if buf[at] == b'\\' || buf[at + 1] == b'\'' {
                        self.i = at + 2;
                    } else {
                        self.mode = RowMode::Normal;
                        self.i = at + 1;
                    }
                }
                RowMode::Ident => match memchr::memchr(b'"', &buf[i..]) {
                    None => {
                        self.i = n;
                        return Ok(None);
                    }
                    Some(k) => {
                        self.mode = RowMode::Normal;
                        self.i = i + k + 1;
                    }
                },
            }
        }
        Ok(None)
    }
}

/// Parses one row `( value, ... )` (as delimited by [`RowScan`]).
pub fn parse_row(row: &[u8], std_strings: bool) -> Result<Vec<Value>, (usize, String)> {
    let toks = tokenize(row, std_strings)?;
    let at = |i: usize| toks.get(i).map_or(row.len(), |t| t.start);
    let tok = |i: usize| toks.get(i).map(|t| &t.tok);
    if !tok(0).is_some_and(|t| t.is_op("(")) {
        return Err((at(0), "expected '(' to start a row of VALUES".into()));
    }
    let mut i = 1;
    let mut values = Vec::new();
    loop {
        let v = match tok(i) {
            Some(Tok::Ident {
                name,
                quoted: false,
            }) => {
                i += 1;
                match name.as_str() {
                    "null" => Value::Null,
                    "default" => Value::Default,
                    "true" => Value::Text(b"t".to_vec()),
                    "false" => Value::Text(b"f".to_vec()),
                    _ => return Err((at(i - 1), format!("unexpected '{name}' in VALUES"))),
                }
            }
            Some(Tok::Str(s)) => {
                i += 1;
                Value::Text(s.clone())
            }
            Some(Tok::Num(n)) => {
                i += 1;
                Value::Text(n.clone().into_bytes())
            }
            Some(Tok::Op(o)) if o == "-" || o == "+" => {
                let Some(Tok::Num(n)) = tok(i + 1) else {
                    return Err((at(i), "expected a number after a sign".into()));
                };
                i += 2;
                let mut v = if o == "-" { b"-".to_vec() } else { Vec::new() };
                v.extend_from_slice(n.as_bytes());
                Value::Text(v)
            }
            _ => {
                return Err((
                    at(i),
                    "unexpected token in VALUES (not a literal pg_dump writes)".into(),
                ));
            }
        };
        values.push(v);
        match tok(i) {
            Some(t) if t.is_op(",") => i += 1,
            Some(t) if t.is_op(")") && i + 1 == toks.len() => return Ok(values),
            _ => return Err((at(i), "expected ',' or ')' in a row of VALUES".into())),
        }
    }
}

/// Checks the tail after the last row: `[ON CONFLICT DO NOTHING] ;`.
pub fn parse_tail(tail: &[u8], std_strings: bool) -> Result<(), (usize, String)> {
    let toks = tokenize(tail, std_strings)?;
    let at = |i: usize| toks.get(i).map_or(tail.len(), |t| t.start);
    let mut i = 0;
    if toks.first().is_some_and(|t| t.tok.is_kw("on")) {
        i = 1;
        for kw in ["conflict", "do", "nothing"] {
            if !toks.get(i).is_some_and(|t| t.tok.is_kw(kw)) {
                return Err((at(i), format!("expected {} in INSERT", kw.to_uppercase())));
            }
            i += 1;
        }
    }
    if !toks.get(i).is_some_and(|t| t.tok.is_op(";")) || i + 1 != toks.len() {
        return Err((at(i), "unexpected text at the end of INSERT".into()));
    }
    Ok(())
}

/// Parses one whole INSERT statement held in memory (pgdump2csv reads statements row by row
/// with the pieces above instead). Errors carry the offset of the problem.
pub fn parse(stmt: &[u8], std_strings: bool) -> Result<Insert, (usize, String)> {
    let hl = head_len(stmt).ok_or((stmt.len(), "expected VALUES in INSERT".to_string()))?;
    let head = parse_head(&stmt[..hl], std_strings)?;
    let mut rows = Vec::new();
    let mut i = hl;
    let skip_ws = |i: &mut usize| {
        while *i < stmt.len() && stmt[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    if head.default_values {
        rows.push(Vec::new());
    } else {
        loop {
            skip_ws(&mut i);
            if stmt.get(i) != Some(&b'(') {
                return Err((i, "expected '(' to start a row of VALUES".into()));
            }
            let len = RowScan::default()
                .scan(&stmt[i..], std_strings)
                .map_err(|(o, m)| (i + o, m))?
                .ok_or((i, "unterminated row of VALUES".to_string()))?;
            rows.push(parse_row(&stmt[i..i + len], std_strings).map_err(|(o, m)| (i + o, m))?);
            i += len;
            skip_ws(&mut i);
            if stmt.get(i) == Some(&b',') {
                i += 1;
            } else {
                break;
            }
        }
    }
    parse_tail(&stmt[i..], std_strings).map_err(|(o, m)| (i + o, m))?;
    Ok(Insert {
        table: head.table,
        cols: head.cols,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let ins = parse(b"INSERT INTO public.t (a, \"B\") OVERRIDING SYSTEM VALUE VALUES\n\t(1, 'x''y'),\n\t(-2.5e+3, NULL),\n\t(true, B'0101') ON CONFLICT DO NOTHING;", true).unwrap();
        assert_eq!(ins.table.schema.as_deref(), Some("public"));
        assert_eq!(ins.cols, Some(vec!["a".into(), "B".into()]));
        assert_eq!(ins.rows.len(), 3);
        assert_eq!(
            ins.rows[0],
            vec![Value::Text(b"1".to_vec()), Value::Text(b"x'y".to_vec())]
        );
        assert_eq!(
            ins.rows[1],
            vec![Value::Text(b"-2.5e+3".to_vec()), Value::Null]
        );
        assert_eq!(
            ins.rows[2],
            vec![Value::Text(b"t".to_vec()), Value::Text(b"0101".to_vec())]
        );
        let ins = parse(b"INSERT INTO t VALUES (DEFAULT, 'a\\\\b');", false).unwrap();
        assert_eq!(
            ins.rows[0],
            vec![Value::Default, Value::Text(b"a\\b".to_vec())]
        );
        let ins = parse(b"INSERT INTO t DEFAULT VALUES;", true).unwrap();
        assert_eq!(ins.rows, vec![Vec::<Value>::new()]);
        assert!(parse(b"INSERT INTO t VALUES (1, now());", true).is_err());
        assert!(parse(b"INSERT INTO t VALUES (1) garbage;", true).is_err());
        assert!(parse(b"INSERT INTO t VALUES (1) \\! ls\n;", true).is_err());
        assert!(parse(b"INSERT INTO t VALUES (1 \\! ls\n);", true).is_err());
        let ins = parse(
            b"INSERT INTO t (\"values\", \"a\"\"values\") VALUES ('(', E')\\'');",
            true,
        )
        .unwrap();
        assert_eq!(ins.cols, Some(vec!["values".into(), "a\"values".into()]));
        assert_eq!(
            ins.rows[0],
            vec![Value::Text(b"(".to_vec()), Value::Text(b")'".to_vec())]
        );
    }

    #[test]
    fn rows_scan_across_refills() {
        let row = b"(1, 'a)''b', E'\\')', \"x)\", 'c') , (2)";
        let want = row.len() - b" , (2)".len();
        for cut in 1..row.len() {
            let mut sc = RowScan::default();
            match sc.scan(&row[..cut], true).unwrap() {
                Some(n) => assert_eq!(n, want, "cut {cut}"),
                None => assert_eq!(sc.scan(row, true).unwrap(), Some(want), "cut {cut}"),
            }
        }
    }
}
