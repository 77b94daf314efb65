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

/// Parses one INSERT statement. Errors carry the offset of the problem.
pub fn parse(stmt: &[u8], std_strings: bool) -> Result<Insert, (usize, String)> {
    let toks = tokenize(stmt, std_strings)?;
    let mut i = 0usize;
    let at = |i: usize| toks.get(i).map_or(stmt.len(), |t| t.start);
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
    let mut rows = Vec::new();
    if tok(i).is_some_and(|t| t.is_kw("default")) {
        i += 1;
        expect_kw(&mut i, "values")?;
        rows.push(Vec::new());
    } else {
        expect_kw(&mut i, "values")?;
        loop {
            if !tok(i).is_some_and(|t| t.is_op("(")) {
                return Err((at(i), "expected '(' to start a row of VALUES".into()));
            }
            i += 1;
            let mut row = Vec::new();
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
                row.push(v);
                match tok(i) {
                    Some(t) if t.is_op(",") => i += 1,
                    Some(t) if t.is_op(")") => {
                        i += 1;
                        break;
                    }
                    _ => return Err((at(i), "expected ',' or ')' in a row of VALUES".into())),
                }
            }
            rows.push(row);
            if tok(i).is_some_and(|t| t.is_op(",")) {
                i += 1;
                continue;
            }
            break;
        }
    }
    if tok(i).is_some_and(|t| t.is_kw("on")) {
        // ON CONFLICT DO NOTHING
        i += 1;
        for kw in ["conflict", "do", "nothing"] {
            expect_kw(&mut i, kw)?;
        }
    }
    if !tok(i).is_some_and(|t| t.is_op(";")) || i + 1 != toks.len() {
        return Err((at(i), "unexpected text at the end of INSERT".into()));
    }
    Ok(Insert { table, cols, rows })
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
    }
}
