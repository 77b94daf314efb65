//! The `--schema` and `--post-data` phases: a SQL script run statement by statement, split
//! with pgdump2csv's psql-compatible lexer, so a failing statement can be named by line.
//!
//! csvload is not psql: the only meta-commands accepted are pg_dump's `\restrict` and
//! `\unrestrict` guard lines (ignored; they only matter to psql, and csvload sends no
//! meta-command to anything). Every other backslash command (`\connect`, `\!`, `\copy`, ...)
//! is refused before any statement runs.
//!
//! A script runs in one transaction (as `psql -1`): PostgreSQL's DDL is transactional, so a
//! failed or interrupted phase leaves nothing half-created and a rerun starts it afresh. Not
//! on CockroachDB, whose DDL is not (`target::Rules::scripts_in_transaction`): there each
//! statement runs on its own and the journal row follows the last.

use super::journal::Journal;
use super::sql_err;
use crate::io::error::{Error, Pos, Result};
use crate::pg::dump::sql::Statements;
use postgres::Client;
use std::path::Path;

/// A statement and where it starts.
#[derive(Debug, PartialEq)]
pub struct Stmt {
    /// 1-based line of its first character.
    pub line: u64,
    /// Byte offset of its first character.
    pub byte: u64,
    /// Its text, through the `;`.
    pub text: String,
}

/// Splits `sql` (named `file`) into statements; refuses meta-commands other than
/// `\restrict`/`\unrestrict`.
pub fn split(sql: &[u8], file: &str) -> Result<Vec<Stmt>> {
    let mut out = Vec::new();
    let mut stmts = Statements::new(sql);
    let mut prev_end = if sql.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let line_at = |off: usize| 1 + memchr::memchr_iter(b'\n', &sql[..off]).count() as u64;
    let check_gap = |from: usize, to: usize| -> Result<()> {
        for (off, cmd) in meta_commands(&sql[from..to]) {
            let word = cmd.split(|c: char| c.is_whitespace()).next().unwrap_or("");
            if word != "\\restrict" && word != "\\unrestrict" {
                let at = from + off;
                return Err(Error::input(
                    Pos {
                        file: file.to_string(),
                        line: line_at(at),
                        byte: at as u64,
                        record: None,
                    },
                    format!(
                        "psql meta-command {word} refused: csvload runs SQL statements only \
                         (remove the line, or run the script with psql)"
                    ),
                ));
            }
        }
        Ok(())
    };
    // Not a `for`: the loop follows `SET standard_conforming_strings` as psql's lexer does.
    while let Some((start, text)) = stmts.next() {
        check_gap(prev_end, start)?;
        prev_end = start + text.len();
        let s = String::from_utf8_lossy(text).into_owned();
        let norm = s.to_ascii_lowercase().replace(' ', "");
        if norm.starts_with("setstandard_conforming_strings=off")
            || norm.starts_with("setstandard_conforming_strings='off'")
        {
            stmts.std_strings = false;
        } else if norm.starts_with("setstandard_conforming_strings=on")
            || norm.starts_with("setstandard_conforming_strings='on'")
        {
            stmts.std_strings = true;
        }
        out.push(Stmt {
            line: line_at(start),
            byte: start as u64,
            text: s,
        });
    }
    check_gap(prev_end, sql.len())?;
    Ok(out)
}

/// Meta-command lines (`\...` after whitespace, outside comments) of the text between
/// statements, with their offsets. The same trivia rules as the lexer's statement skipping.
fn meta_commands(gap: &[u8]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < gap.len() {
        let rest = &gap[i..];
        if rest[0].is_ascii_whitespace() {
            i += 1;
        } else if rest.starts_with(b"--") || rest[0] == b'\\' {
            let end = memchr::memchr(b'\n', rest).map_or(gap.len(), |k| i + k);
            if rest[0] == b'\\' {
                out.push((i, String::from_utf8_lossy(&gap[i..end]).trim().to_string()));
            }
            i = end;
        } else if rest.starts_with(b"/*") {
            i = crate::pg::dump::sql::comment_len(rest).map_or(gap.len(), |k| i + k);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads and splits the script at `path` without running it, so a refused meta-command
/// stops the run before anything is connected to or changed.
pub fn check(path: &Path) -> Result<()> {
    let sql = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    split(&sql, &path.display().to_string()).map(|_| ())
}

/// Runs the script at `path` on `client`, statement by statement, in one transaction that
/// also records the script (path and checksum) in the journal, so a rerun of the same
/// command skips a phase that completed and redoes one that did not. Returns the number of
/// statements run, or `None` when the journal says this script already ran.
/// A failing statement is reported as `FILE:LINE: (byte B) server message`. Without
/// `in_transaction` (CockroachDB) the statements run each on its own and only the journal row
/// is a transaction of its own after them.
pub fn run(
    client: &mut Client,
    path: &Path,
    journal: &Journal,
    in_transaction: bool,
) -> Result<Option<usize>> {
    let sql = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    let stmts = split(&sql, &file)?;
    let key = std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string();
    let sum = statements_sum(&stmts);
    let j = journal.sql();
    // The script is identified by its statements, wherever it lies: pgdump2csv writes a fresh
    // `\restrict` key into every schema it writes, so the same dump converted again (into
    // another directory) gives another file with the same statements, which must not run twice.
    let seen = client
        .query(
            &format!("SELECT 1 FROM {j} WHERE table_name = '' AND batch_xxh64 = $1"),
            &[&sum],
        )
        .map_err(|e| sql_err(&e))?;
    if !seen.is_empty() {
        return Ok(None);
    }
    let size = sql.len() as i64;
    let record = |c: &mut postgres::Transaction| -> Result<()> {
        c.execute(
            &format!("DELETE FROM {j} WHERE table_name = '' AND file = $1"),
            &[&key],
        )
        .map_err(|e| sql_err(&e))?;
        c.execute(
            &format!(
                "INSERT INTO {j} (table_name, file, file_size, checksum, byte_start, byte_end, \
                 batch_xxh64, first_record, records, next_line, last) \
                 VALUES ('', $1, $2, $3, 0, $2, $4, 0, $5, 0, true)"
            ),
            &[
                &key,
                &size,
                &format!("xxh64:{sum}"),
                &sum,
                &(stmts.len() as i64),
            ],
        )
        .map_err(|e| sql_err(&e))?;
        Ok(())
    };
    let mut tx = client.transaction().map_err(|e| sql_err(&e))?;
    if in_transaction {
        run_all(&mut tx, &stmts, &file)?;
    } else {
        // Each statement on its own (see `Rules::scripts_in_transaction`); the journal row
        // after the last one, so an interrupted script is run again, not taken as done.
        drop(tx);
        run_all(client, &stmts, &file)?;
        tx = client.transaction().map_err(|e| sql_err(&e))?;
    }
    record(&mut tx)?;
    tx.commit().map_err(|e| sql_err(&e))?;
    Ok(Some(stmts.len()))
}

/// Sends `stmts` of `file` one by one; a refused one is named by its line and byte.
fn run_all<C: postgres::GenericClient>(c: &mut C, stmts: &[Stmt], file: &str) -> Result<()> {
    for s in stmts {
        c.batch_execute(&s.text).map_err(|e| {
            Error::input(
                Pos {
                    file: file.into(),
                    line: s.line,
                    byte: s.byte,
                    record: None,
                },
                super::server_message(&e),
            )
        })?;
    }
    Ok(())
}

/// XXH64 of the statements' texts (each followed by a NUL), which leaves out comments,
/// blank lines and the `\restrict` guard lines between them.
fn statements_sum(stmts: &[Stmt]) -> String {
    let mut h = twox_hash::XxHash64::with_seed(0);
    for s in stmts {
        std::hash::Hasher::write(&mut h, s.text.as_bytes());
        std::hash::Hasher::write(&mut h, b"\0");
    }
    format!("{:016x}", std::hash::Hasher::finish(&h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_guards() {
        let sql = b"\\restrict abc\n-- c\nCREATE TABLE t (a text);\n/* x\n\\connect */\nINSERT INTO t VALUES ('a;\n\\.');\n\\unrestrict abc\n";
        let s = split(sql, "f.sql").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].line, 3);
        assert_eq!(s[1].line, 6);
        assert!(s[1].text.contains("\\."));
        for bad in [
            &b"SELECT 1;\n\\! rm -rf /\n"[..],
            b"\\connect other\nSELECT 1;",
        ] {
            let e = split(bad, "f.sql").unwrap_err().to_string();
            assert!(e.contains("refused"), "{e}");
        }
        let e = split(b"SELECT 1;\n\n  \\! id\n", "f.sql")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f.sql:3:"), "{e}");
    }
}
