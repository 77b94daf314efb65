//! What every csvload session sets before it sends anything else, and the one way csvload
//! writes a name or a value into SQL text.
//!
//! The target is not ours: a database or role may carry `standard_conforming_strings = off`
//! (then `'\N'` is the one-character string `N`), another `DateStyle` or `IntervalStyle`, a
//! `statement_timeout` that would cut a long COPY. [`apply`] sets each setting csvload relies
//! on, right after connecting (from `conn::Target::connect`, the one place connections are
//! made), and again after a `--schema`/`--post-data` script, which may change them.
//!
//! `search_path` is deliberately left as the target's default for the role and database:
//! every name csvload builds from a manifest is schema-qualified (pgdump2csv's manifests and
//! the journal always name the schema), every function it calls is a `pg_catalog` one (which
//! is searched first unless a path names it later), and a bare `-t NAME` for a csvsplit
//! manifest is meant to resolve the way psql would resolve it on the same target. pg_dump's
//! scripts set it to `''` themselves; [`apply`] resets it to the default after such a script,
//! so the rest of the run sees the same path as the data connections do.
//!
//! Values travel as bind parameters wherever the protocol allows; where it does not (the
//! options of `COPY`, names), they go through [`quote_literal`] and [`quote_ident`], which
//! give text that reads back as the same value whatever `standard_conforming_strings` is
//! (tested against a server where it is off, and fuzzed with the dump lexer).

use crate::io::error::{Error, Result};
use postgres::Client;

/// The settings and the values csvload relies on, in the order they are sent.
pub const SETTINGS: &[(&str, &str)] = &[
    // `'\N'` in COPY's options must be backslash-N, not N.
    ("standard_conforming_strings", "on"),
    // The files are UTF-8 (pgdump2csv writes UTF-8; COPY converts from client_encoding).
    ("client_encoding", "'UTF8'"),
    // How dates and intervals are read from the files and written for verification's
    // min/max comparison. `ISO, MDY` (PostgreSQL's own default) rather than a bare `ISO`:
    // CockroachDB accepts only the full `ISO, <order>` forms.
    ("DateStyle", "'ISO, MDY'"),
    ("IntervalStyle", "'postgres'"),
    // Floats printed exactly (verification compares key values as text).
    ("extra_float_digits", "3"),
    // A file is one COPY: a role's statement_timeout must not cut it, nor an idle timeout
    // the pause while a slow input is read.
    ("statement_timeout", "0"),
    ("idle_in_transaction_session_timeout", "0"),
];

/// The statements [`apply`] sends, as one simple-query batch.
pub fn sql() -> String {
    let mut s = String::from("RESET search_path;");
    for (k, v) in SETTINGS {
        s.push_str(&format!(" SET {k} = {v};"));
    }
    s
}

/// Sets [`SETTINGS`] on `client` (and resets `search_path` to the target's default).
/// Refused settings are exit 2 with the server's words.
pub fn apply(client: &mut Client) -> Result<()> {
    client.batch_execute(&sql()).map_err(|e| {
        Error::Usage(format!(
            "setting up the session ({}): {}",
            sql(),
            super::server_message(&e)
        ))
    })
}

/// `"name"` with inner quotes doubled: an identifier that reads back as exactly `s`.
pub fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A string literal that reads back as exactly `s` whatever `standard_conforming_strings`
/// is: `'...'` with quotes doubled, or, when `s` holds a backslash, the escape-string form
/// `E'...'` with backslashes doubled too (as libpq's `PQescapeLiteral` writes it). With the
/// plain form only, `standard_conforming_strings = off` turns `'\N'` into `N` and lets a
/// name ending in a backslash close the literal early.
pub fn quote_literal(s: &str) -> String {
    if s.contains('\\') {
        format!("E'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// Refuses text that cannot go into SQL at all: PostgreSQL's text has no NUL character (the
/// protocol ends strings at it).
pub fn check_text(what: &str, s: &str) -> std::result::Result<(), String> {
    if s.contains('\0') {
        return Err(format!(
            "{what} {:?} holds a NUL character, which PostgreSQL text cannot hold",
            s
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::dump::sql::{Tok, tokenize};

    /// Reads `sql` back with the dump lexer: the one token it holds.
    fn one(sql: &str, std: bool) -> Tok {
        let t = tokenize(sql.as_bytes(), std).unwrap();
        assert_eq!(t.len(), 1, "{sql:?} is {t:?}");
        t[0].tok.clone()
    }

    #[test]
    fn quoting_reads_back_under_both_settings() {
        for s in [
            "",
            "\\N",
            "N",
            "it's",
            "a\\",
            "x\\'; DROP TABLE t; --",
            "\\\\'",
            "\"q\"",
            "naïve\n\t",
        ] {
            for std in [true, false] {
                assert_eq!(
                    one(&quote_literal(s), std),
                    Tok::Str(s.as_bytes().to_vec()),
                    "{s:?}"
                );
                assert_eq!(
                    one(&quote_ident(s), std),
                    Tok::Ident {
                        name: s.into(),
                        quoted: true
                    },
                    "{s:?}"
                );
            }
        }
        assert_eq!(quote_literal("\\N"), "E'\\\\N'");
        assert_eq!(quote_literal("it's"), "'it''s'");
    }

    #[test]
    fn nul_refused() {
        assert!(check_text("table", "a\0b").is_err());
        assert!(check_text("table", "a b").is_ok());
    }

    proptest::proptest! {
        /// Any text (no NUL) quoted reads back as one token with exactly that text, with
        /// standard_conforming_strings on and off (the property fuzz/fuzz_targets/sql_quote.rs
        /// fuzzes further).
        #[test]
        fn any_text_reads_back(s in "[^\\x00]{0,40}", bs in "[\\\\'\"ab\n]{0,12}") {
            for t in [&s, &bs] {
                for std in [true, false] {
                    proptest::prop_assert_eq!(one(&quote_literal(t), std), Tok::Str(t.as_bytes().to_vec()));
                    if !t.is_empty() {
                        proptest::prop_assert_eq!(
                            one(&quote_ident(t), std),
                            Tok::Ident { name: t.to_string(), quoted: true }
                        );
                    }
                }
            }
        }
    }
}
