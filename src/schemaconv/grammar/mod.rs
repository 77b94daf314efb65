//! The CockroachDB referee (issue 59): each release's statement grammar, and a recognizer
//! that tells whether a statement is in it and, when not, where it stops and what the
//! grammar expected there.
//!
//! The grammars (`crdb-NN.N.bnf` beside this file) are derived by `derive_crdb.py` from the
//! railroad diagrams that cockroachdb/docs publishes for each release, with a short list of
//! corrections where the diagrams are known to differ from the release's sql.y; each file's
//! header names its source commit and the corrections. The grammar is the documented one:
//! what sql.y parses but the docs leave out (`SKIP DOC`, or refused as "unimplemented") is
//! refused here too, so the referee errs on the strict side.
//!
//! Tokens come from the project's psql lexer ([`crate::pg::dump::sql::tokenize`]) and are
//! mapped to CockroachDB's token classes as its scanner would make them (`lex.rs`).
//!
//! The recognizer is written here (`earley.rs`, with `bnf.rs` compiling each rule to an
//! automaton), not taken from a crate: the Rust Earley crates that take a grammar at run time
//! (earlgrey, tiny-earley, frithu) take plain BNF, build parse forests this referee does not
//! need, and none reports the terminals expected where a parse stops; the maintained parser
//! generators (lalrpop, pest) want the grammar at build time and an unambiguous grammar, which
//! the diagrams' grammar is not. Compiling each rule's regular right-hand side to a small
//! deterministic automaton and running Earley items over its states keeps the rules as the
//! diagrams draw them and the recognizer near 200 lines.
//!
//! Each grammar is read and compiled once, when first asked for ([`crdb`]).

mod bnf;
mod earley;
mod lex;

use crate::pg::dump::sql::{Spanned, tokenize};
use std::sync::OnceLock;

/// The CockroachDB releases with a grammar here, oldest first, and their grammar files.
const CRDB: &[((u32, u32), &str)] = &[
    ((24, 1), include_str!("crdb-24.1.bnf")),
    ((24, 3), include_str!("crdb-24.3.bnf")),
    ((25, 1), include_str!("crdb-25.1.bnf")),
    ((25, 2), include_str!("crdb-25.2.bnf")),
    ((25, 3), include_str!("crdb-25.3.bnf")),
    ((25, 4), include_str!("crdb-25.4.bnf")),
    ((26, 1), include_str!("crdb-26.1.bnf")),
    ((26, 2), include_str!("crdb-26.2.bnf")),
];

/// One release's statement grammar.
#[derive(Debug)]
pub struct Grammar {
    release: String,
    g: bnf::Compiled,
}

/// Why a statement is not in a release's grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The release, as "CockroachDB 24.3".
    pub release: String,
    /// The index, in the tokens given, of the token where the grammar stopped; the number of
    /// tokens when the statement ended before the grammar allowed.
    pub index: usize,
    /// The byte span of that token in the statement (empty at the end).
    pub start: usize,
    /// End of the span.
    pub end: usize,
    /// The text there: the token refused and the one after it, or "the end".
    pub found: String,
    /// What the grammar could have taken there: punctuation as `','`, keywords as `NULL`,
    /// token classes as `IDENT`, `SCONST`, `TYPECAST`. Keywords allowed there only as names
    /// (the keyword lists of the grammar) are left out: `IDENT` stands for them.
    pub expected: Vec<String>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.found == "the end" {
            write!(f, "{}'s grammar refuses this at its end", self.release)?;
        } else {
            write!(
                f,
                "{}'s grammar refuses this at `{}` (byte {})",
                self.release, self.found, self.start
            )?;
        }
        const SHOWN: usize = 8;
        match self.expected.len() {
            0 => Ok(()),
            1 => write!(f, ": expected {}", self.expected[0]),
            n => {
                let list = self.expected[..n.min(SHOWN)].join(", ");
                write!(f, ": expected one of {list}")?;
                if n > SHOWN {
                    write!(f, " (and {} more)", n - SHOWN)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The grammar of CockroachDB `major.minor`, or `None` when no grammar of that release is
/// here (see [`crdb_releases`]). Read and compiled on first use, then kept.
pub fn crdb(major: u32, minor: u32) -> Option<&'static Grammar> {
    static LOADED: [OnceLock<Grammar>; CRDB.len()] = [const { OnceLock::new() }; CRDB.len()];
    let i = CRDB.iter().position(|&(v, _)| v == (major, minor))?;
    Some(LOADED[i].get_or_init(|| {
        let name = format!("CockroachDB {major}.{minor}");
        // The files are part of the build and every one is loaded by the tests.
        Grammar::load(&name, CRDB[i].1).unwrap_or_else(|e| panic!("{name}'s grammar: {e}"))
    }))
}

/// The CockroachDB releases that [`crdb`] has a grammar of, oldest first.
pub fn crdb_releases() -> impl Iterator<Item = (u32, u32)> {
    CRDB.iter().map(|&(v, _)| v)
}

impl Grammar {
    /// Reads a grammar file (the format `derive_crdb.py` writes) for a release named
    /// `release`. Refused: a malformed file, and a grammar with a token class CockroachDB's
    /// lexer makes that `lex.rs` cannot make (it would be judged without it).
    pub fn load(release: &str, text: &str) -> Result<Grammar, String> {
        let g = bnf::compile(text)?;
        if let Some(c) = g.classes.keys().find(|c| !lex::makes(c)) {
            return Err(format!("token class {c} is not made by the lexer here"));
        }
        Ok(Grammar {
            release: release.to_string(),
            g,
        })
    }

    /// The release, as "CockroachDB 24.3".
    pub fn release(&self) -> &str {
        &self.release
    }

    /// Whether the statement `sql`, whose tokens (by [`tokenize`], spans into `sql`) are
    /// `toks`, is in the grammar. The statement is one, without its final `;` (a `;` as its
    /// last token is ignored).
    pub fn check(&self, sql: &[u8], toks: &[Spanned]) -> Result<(), Refusal> {
        let toks = match toks.last() {
            Some(t) if t.tok.is_op(";") => &toks[..toks.len() - 1],
            _ => toks,
        };
        let mine = lex::tokens(&self.g, sql, toks);
        let terms: Vec<Option<u32>> = mine.iter().map(|t| t.term).collect();
        let stop = match earley::recognize(&self.g, &terms) {
            Ok(()) => return Ok(()),
            Err(stop) => stop,
        };
        let (index, start, end, found) = match mine.get(stop.at) {
            Some(t) => {
                let upto = mine.get(stop.at + 1).map_or(t.end, |n| n.end);
                let text = String::from_utf8_lossy(&sql[t.start..upto]);
                (t.first, t.start, t.end, shorten(&text))
            }
            None => {
                let at = toks.last().map_or(0, |t| t.end);
                (toks.len(), at, at, "the end".to_string())
            }
        };
        Err(Refusal {
            release: self.release.clone(),
            index,
            start,
            end,
            found,
            expected: self.expected(&stop.expected),
        })
    }

    /// [`Grammar::check`] of a statement's text, tokenized here (with
    /// `standard_conforming_strings` on, as pg_dump writes). Text psql's lexer cannot read is
    /// refused at the offset of the problem.
    pub fn check_sql(&self, sql: &[u8]) -> Result<(), Refusal> {
        match tokenize(sql, true) {
            Ok(toks) => self.check(sql, &toks),
            Err((at, msg)) => Err(Refusal {
                release: self.release.clone(),
                index: 0,
                start: at,
                end: sql.len(),
                found: msg,
                expected: Vec::new(),
            }),
        }
    }

    /// The terminals to name, punctuation and token classes before keywords.
    fn expected(&self, terms: &[u32]) -> Vec<String> {
        let mut out: Vec<&bnf::Term> = terms.iter().map(|&t| &self.g.terms[t as usize]).collect();
        out.sort_by_key(|t| (matches!(t, bnf::Term::Keyword(_)), t.to_string()));
        out.iter().map(|t| t.to_string()).collect()
    }
}

fn shorten(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &one_line[..i]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_loads() {
        let releases: Vec<(u32, u32)> = crdb_releases().collect();
        assert_eq!(releases, super::super::version::CRDB_SERIES);
        for (a, b) in releases {
            let g = crdb(a, b).unwrap();
            assert_eq!(g.release(), format!("CockroachDB {a}.{b}"));
            assert!(g.g.keywords.contains_key("select") && !g.g.keywords.contains_key("date"));
        }
        assert!(crdb(23, 2).is_none());
    }

    #[test]
    fn refusal_names_the_place() {
        let g = crdb(24, 3).unwrap();
        let sql = b"CREATE TABLE t (a int CHECK (a > 0) NO INHERIT)";
        let r = g.check_sql(sql).unwrap_err();
        assert_eq!(&sql[r.start..r.end], b"NO");
        assert_eq!(r.found, "NO INHERIT");
        assert_eq!(r.index, 12);
        assert!(r.expected.contains(&"')'".to_string()), "{r}");
        let text = r.to_string();
        assert!(
            text.starts_with(
                "CockroachDB 24.3's grammar refuses this at `NO INHERIT` (byte 36): expected one of"
            ),
            "{text}"
        );
        let r = g.check_sql(b"CREATE TABLE t (a int").unwrap_err();
        assert_eq!((r.index, r.found.as_str()), (6, "the end"));
        assert!(g.check_sql(b"CREATE TABLE t (a int);").is_ok());
    }

    #[test]
    fn loading_refuses_a_token_class_the_lexer_cannot_make() {
        let e = Grammar::load("x", "s ::= INDEX_BEFORE_PAREN\n").unwrap_err();
        assert!(e.contains("INDEX_BEFORE_PAREN"), "{e}");
        assert!(Grammar::load("x", "s ::= GENERATED_ALWAYS 'ALWAYS'\n").is_ok());
    }
}
