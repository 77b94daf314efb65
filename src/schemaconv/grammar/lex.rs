//! The tokens of the project's psql lexer (`pg::dump::sql::tokenize`) turned into the tokens
//! CockroachDB's lexer would make of the same text (pkg/sql/scanner/scan.go and the look-ahead
//! of pkg/sql/parser/lexer.go), as terminals of one release's grammar.
//!
//! What differs from psql's tokens: unquoted words are keywords when the release's keyword
//! table has them (any case); quoted words are always IDENT; the kind of a string depends on
//! its prefix (`b'..'` and `x'..'` are bytes, `B'..'` bits, `e'..'`, `'..'` and dollar quotes
//! strings); psql's lexer splits operators into characters, so touching operator characters
//! are joined again as CockroachDB scans them (`::`, `<=`, `->>`, `@>`, ...); and a keyword
//! may become a look-ahead token (`GENERATED` before `ALWAYS` is `GENERATED_ALWAYS`).
//!
//! Operators and look-ahead tokens are made only when the release's grammar has them: a
//! release whose grammar has no `<->` (DISTANCE) predates it, and its scanner reads `<`, `-`,
//! `>`. The `_LA` tokens of lexer.go (`NOT_LA`, `WITH_LA`, `NULLS_LA`, `AS_LA`, `ON_LA`) are
//! not made: docgen writes them as the plain keyword in the diagrams, so the grammar expects
//! the keyword there. A grammar that uses a look-ahead token this file cannot make is refused
//! when it is loaded (`mod.rs`), so such a release is not judged loosely.

use super::bnf::Compiled;
use crate::pg::dump::sql::{Spanned, Tok};

/// A token for the recognizer: its terminal (`None` when the release's lexer would make a
/// token that no rule has, or an error token) and the psql tokens it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The terminal.
    pub term: Option<u32>,
    /// The first of the psql tokens it was made of.
    pub first: usize,
    /// Its byte span in the statement.
    pub start: usize,
    /// End of the span.
    pub end: usize,
}

/// CockroachDB's multi-character operators: spelling and token class (scan.go).
const OPERATORS: &[(&str, &str)] = &[
    ("..", "DOT_DOT"),
    ("!=", "NOT_EQUALS"),
    ("!~*", "NOT_REGIMATCH"),
    ("!~", "NOT_REGMATCH"),
    ("??", "HELPTOKEN"),
    ("?|", "JSON_SOME_EXISTS"),
    ("?&", "JSON_ALL_EXISTS"),
    ("<<=", "INET_CONTAINED_BY_OR_EQUALS"),
    ("<<", "LSHIFT"),
    ("<>", "NOT_EQUALS"),
    ("<=>", "COS_DISTANCE"),
    ("<=", "LESS_EQUALS"),
    ("<@", "CONTAINED_BY"),
    ("<->", "DISTANCE"),
    ("<#>", "NEG_INNER_PRODUCT"),
    (">>=", "INET_CONTAINS_OR_EQUALS"),
    (">>", "RSHIFT"),
    (">=", "GREATER_EQUALS"),
    (":::", "TYPEANNOTATE"),
    ("::", "TYPECAST"),
    ("||/", "CBRT"),
    ("||", "CONCAT"),
    ("|/", "SQRT"),
    ("//", "FLOORDIV"),
    ("~*", "REGIMATCH"),
    ("@>", "CONTAINS"),
    ("@@", "AT_AT"),
    ("&&", "AND_AND"),
    ("->>", "FETCHTEXT"),
    ("->", "FETCHVAL"),
    ("#>>", "FETCHTEXT_PATH"),
    ("#>", "FETCHVAL_PATH"),
    ("#-", "REMOVE_PATH"),
];

/// The look-ahead tokens this file makes: the token, the keyword it replaces and the
/// keywords that may follow (lexer.go).
pub const LOOKAHEAD: &[(&str, &str, &[&str])] = &[
    ("GENERATED_ALWAYS", "GENERATED", &["ALWAYS"]),
    ("GENERATED_BY_DEFAULT", "GENERATED", &["BY"]),
    ("RESET_ALL", "RESET", &["ALL"]),
    ("ROLE_ALL", "ROLE", &["ALL"]),
    ("USER_ALL", "USER", &["ALL"]),
    ("TENANT_ALL", "TENANT", &["ALL"]),
    ("CLUSTER_ALL", "CLUSTER", &["ALL"]),
    ("OVERRIDING_SYSTEM_VALUE", "OVERRIDING", &["SYSTEM"]),
    ("OVERRIDING_USER_VALUE", "OVERRIDING", &["USER"]),
    ("NOTHING_AFTER_RETURNING", "NOTHING", &[]),
];

/// The token classes the lexer makes from literals and words, besides the operators and the
/// look-ahead tokens.
pub const LITERALS: &[&str] = &[
    "IDENT",
    "SCONST",
    "BCONST",
    "BITCONST",
    "ICONST",
    "FCONST",
    "PLACEHOLDER",
];

/// Whether `class` is a token class this file can make.
pub fn makes(class: &str) -> bool {
    LITERALS.contains(&class)
        || OPERATORS.iter().any(|&(_, c)| c == class)
        || LOOKAHEAD.iter().any(|&(c, _, _)| c == class)
}

/// CockroachDB's tokens for a statement's psql tokens. `sql` is the statement's text, which
/// the spans index.
pub fn tokens(g: &Compiled, sql: &[u8], toks: &[Spanned]) -> Vec<Token> {
    let class = |c: &str| g.classes.get(c).copied();
    let mut out: Vec<Token> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let first = i;
        i += 1;
        let term = match &t.tok {
            Tok::Ident { quoted: true, .. } => class("IDENT"),
            Tok::Ident {
                name,
                quoted: false,
            } => {
                // A word touching the number before it is CockroachDB's "trailing junk after
                // numeric literal" error: handled at the number.
                match g.keywords.get(name.as_str()) {
                    Some(&k) => Some(k),
                    None => class("IDENT"),
                }
            }
            Tok::Str(_) => match sql.get(t.start) {
                Some(b'b' | b'x' | b'X') => class("BCONST"),
                Some(b'B') => class("BITCONST"),
                _ => class("SCONST"),
            },
            Tok::Num(n) => {
                let junk = toks.get(i).is_some_and(|nx| {
                    nx.start == t.end && matches!(nx.tok, Tok::Ident { quoted: false, .. })
                });
                if junk || n.matches('.').count() > 1 {
                    None
                } else if n.contains(['.', 'e', 'E']) {
                    class("FCONST")
                } else {
                    class("ICONST")
                }
            }
            Tok::Op(op) if op == "$" => {
                // `$1`: psql's lexer gives `$` then the number.
                match toks.get(i) {
                    Some(nx)
                        if nx.start == t.end
                            && matches!(&nx.tok, Tok::Num(n) if n.bytes().all(|b| b.is_ascii_digit())) =>
                    {
                        i += 1;
                        class("PLACEHOLDER")
                    }
                    _ => None,
                }
            }
            Tok::Op(_) => {
                // The run of touching operator characters, scanned as CockroachDB does.
                let mut j = first + 1;
                while j < toks.len()
                    && toks[j].start == toks[j - 1].end
                    && matches!(&toks[j].tok, Tok::Op(o) if o != "$")
                {
                    j += 1;
                }
                i = j;
                let run_start = t.start;
                let run = &sql[run_start..toks[j - 1].end];
                let mut k = 0;
                while k < run.len() {
                    let (len, term) = OPERATORS
                        .iter()
                        .filter(|(spell, _)| run[k..].starts_with(spell.as_bytes()))
                        .find_map(|&(spell, c)| class(c).map(|t| (spell.len(), Some(t))))
                        .unwrap_or_else(|| (1, g.punct.get(&(run[k] as char)).copied()));
                    let at = run_start + k;
                    let from = (first..j).rfind(|&x| toks[x].start <= at).unwrap_or(first);
                    out.push(Token {
                        term,
                        first: from,
                        start: at,
                        end: at + len,
                    });
                    k += len;
                }
                continue;
            }
        };
        out.push(Token {
            term,
            first,
            start: t.start,
            end: toks[i - 1].end,
        });
    }
    lookahead(g, &mut out);
    out
}

/// lexer.go's look-ahead: a keyword followed by one of some keywords becomes another token.
fn lookahead(g: &Compiled, out: &mut [Token]) {
    let kw = |t: &Token, k: &str| {
        t.term.is_some() && g.keywords.get(&k.to_ascii_lowercase()).copied() == t.term
    };
    for n in 0..out.len() {
        for &(la, base, next) in LOOKAHEAD {
            let Some(&la_term) = g.classes.get(la) else {
                continue;
            };
            if !kw(&out[n], base) {
                continue;
            }
            let hit = if la == "NOTHING_AFTER_RETURNING" {
                n > 0 && kw(&out[n - 1], "RETURNING")
            } else {
                out.get(n + 1)
                    .is_some_and(|nx| next.iter().any(|k| kw(nx, k)))
            };
            if hit {
                out[n].term = Some(la_term);
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::dump::sql::tokenize;

    fn names(g: &Compiled, sql: &str) -> Vec<String> {
        let toks = tokenize(sql.as_bytes(), true).unwrap();
        tokens(g, sql.as_bytes(), &toks)
            .iter()
            .map(|t| match t.term {
                Some(x) => g.terms[x as usize].to_string(),
                None => "?".into(),
            })
            .collect()
    }

    #[test]
    fn as_cockroachdb_scans() {
        let g = super::super::bnf::compile(
            "s ::= x*\nx ::= IDENT | SCONST | BCONST | BITCONST | ICONST | FCONST | PLACEHOLDER | TYPECAST | LESS_EQUALS | NOT_EQUALS | FETCHTEXT | CONTAINS | '<' | '-' | '>' | '(' | GENERATED_ALWAYS | 'ALWAYS' | 'GENERATED' | 'BY'\nreserved_keyword ::= 'SELECT' | 'GENERATED' | 'ALWAYS' | 'BY'\n",
        )
        .unwrap();
        assert_eq!(
            names(
                &g,
                r#"SeLeCt "select" sel 'a' E'b' b'c' X'0F' B'01' $$d$$ 1 1.5 1e3 $1"#
            ),
            [
                "SELECT",
                "IDENT",
                "IDENT",
                "SCONST",
                "SCONST",
                "BCONST",
                "BCONST",
                "BITCONST",
                "SCONST",
                "ICONST",
                "FCONST",
                "FCONST",
                "PLACEHOLDER"
            ]
        );
        assert_eq!(
            names(&g, "a::b <= c <> d != e ->> f @> g < - > h <->"),
            [
                "IDENT",
                "TYPECAST",
                "IDENT",
                "LESS_EQUALS",
                "IDENT",
                "NOT_EQUALS",
                "IDENT",
                "NOT_EQUALS",
                "IDENT",
                "FETCHTEXT",
                "IDENT",
                "CONTAINS",
                "IDENT",
                "'<'",
                "'-'",
                "'>'",
                "IDENT",
                "'<'",
                "'-'",
                "'>'"
            ],
            "<-> is DISTANCE only where the grammar has it"
        );
        assert_eq!(
            names(&g, "GENERATED ALWAYS GENERATED BY 12abc ! 1.2.3"),
            [
                "GENERATED_ALWAYS",
                "ALWAYS",
                "GENERATED",
                "BY",
                "?",
                "IDENT",
                "?",
                "?"
            ],
            "no GENERATED_BY_DEFAULT in this grammar; 12abc and ! are errors"
        );
    }
}
