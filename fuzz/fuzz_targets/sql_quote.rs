//! Fuzzes csvload's quoting of names and values (`csvload::session`): whatever the text, its
//! quoted form reads back, with the dump lexer (`dump::sql::tokenize`), as one token with
//! exactly that text, both with `standard_conforming_strings` on and off; and the COPY
//! statement built from a table, columns and a NULL token read from a manifest holds exactly
//! those names and that token, nothing else.
//!
//! Input: the bytes as UTF-8 (lossily), split at `\x1f` into schema, table, NULL token and
//! columns.
#![no_main]

use dumpshard::tools::csvload::session::{quote_ident, quote_literal};
use dumpshard::pg::dump::sql::{Tok, tokenize};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).replace('\0', "");
    for std in [true, false] {
        let lit = tokenize(quote_literal(&text).as_bytes(), std).expect("literal lexes");
        assert_eq!(lit.len(), 1, "{text:?} -> {lit:?}");
        assert_eq!(lit[0].tok, Tok::Str(text.as_bytes().to_vec()));
        if !text.is_empty() {
            let id = tokenize(quote_ident(&text).as_bytes(), std).expect("identifier lexes");
            assert_eq!(id.len(), 1, "{text:?} -> {id:?}");
            assert_eq!(
                id[0].tok,
                Tok::Ident {
                    name: text.clone(),
                    quoted: true
                }
            );
        }
    }
    // A COPY built from the parts: the tokens are exactly the statement's own words, the
    // names and the token, in order.
    let parts: Vec<&str> = text.split('\x1f').collect();
    let [schema, table, null, cols @ ..] = parts.as_slice() else {
        return;
    };
    if [schema, table].iter().any(|s| s.is_empty()) || cols.iter().any(|c| c.is_empty()) {
        return;
    }
    let cols_sql: Vec<String> = cols.iter().map(|c| quote_ident(c)).collect();
    let list = if cols.is_empty() {
        String::new()
    } else {
        format!(" ({})", cols_sql.join(", "))
    };
    let sql = format!(
        "COPY {}.{}{list} FROM STDIN WITH (FORMAT csv, NULL {})",
        quote_ident(schema),
        quote_ident(table),
        quote_literal(null)
    );
    for std in [true, false] {
        let toks = tokenize(sql.as_bytes(), std).expect("COPY lexes");
        let idents: Vec<&str> = toks
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Ident { name, quoted: true } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let mut want = vec![*schema, *table];
        want.extend(cols.iter().copied());
        assert_eq!(idents, want);
        let strs: Vec<&Tok> = toks.iter().map(|t| &t.tok).filter(|t| matches!(t, Tok::Str(_))).collect();
        assert_eq!(strs, [&Tok::Str(null.as_bytes().to_vec())]);
        assert!(toks.last().unwrap().tok.is_op(")"));
    }
});
