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
//! statement runs on its own and the journal row follows the last. A `--post-data` script on
//! PostgreSQL with `-j` above 1 ([`run_parallel`]) commits each table's index and key builds
//! in a transaction of its own, on several connections, before the rest.

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
/// is a transaction of its own after them. With `skip_built` (a post-data script on
/// PostgreSQL), the builds of the tables that [`run_builds`] or [`run_parallel`] journaled
/// are left out (they exist: running them again would fail).
pub fn run(
    client: &mut Client,
    path: &Path,
    journal: &Journal,
    in_transaction: bool,
    skip_built: bool,
) -> Result<Option<usize>> {
    let script = Script::read(path)?;
    // The script is identified by its statements, wherever it lies: pgdump2csv writes a fresh
    // `\restrict` key into every schema it writes, so the same dump converted again (into
    // another directory) gives another file with the same statements, which must not run twice.
    if seen(client, journal, &script.sum)? {
        return Ok(None);
    }
    let mut built = std::collections::HashSet::new();
    if skip_built {
        for g in plan_groups(&script.stmts).0 {
            if seen(client, journal, &g.sum)? {
                built.extend(g.builds);
            }
        }
    }
    let stmts: Vec<&Stmt> = (script.stmts.iter().enumerate())
        .filter(|(i, _)| !built.contains(i))
        .map(|(_, s)| s)
        .collect();
    let mut tx = client.transaction().map_err(|e| sql_err(&e))?;
    if in_transaction {
        for s in &stmts {
            run_one(&mut tx, s, &script.file)?;
        }
    } else {
        // Each statement on its own (see `Rules::scripts_in_transaction`); the journal row
        // after the last one, so an interrupted script is run again, not taken as done.
        drop(tx);
        for s in &stmts {
            run_one(client, s, &script.file)?;
        }
        tx = client.transaction().map_err(|e| sql_err(&e))?;
    }
    record_script(&mut tx, journal, &script)?;
    tx.commit().map_err(|e| sql_err(&e))?;
    Ok(Some(stmts.len()))
}

/// Writes the whole script's journal row, replacing the rows of its groups.
fn record_script(tx: &mut postgres::Transaction, journal: &Journal, script: &Script) -> Result<()> {
    let j = journal.sql();
    tx.execute(
        &format!("DELETE FROM {j} WHERE table_name = '' AND file = $1"),
        &[&script.key],
    )
    .map_err(|e| sql_err(&e))?;
    tx.execute(
        &format!(
            "INSERT INTO {j} (table_name, file, file_size, checksum, byte_start, byte_end, \
             batch_xxh64, first_record, records, next_line, last) \
             VALUES ('', $1, $2, $3, 0, $2, $4, 0, $5, 0, true)"
        ),
        &[
            &script.key,
            &script.size,
            &format!("xxh64:{}", script.sum),
            &script.sum,
            &(script.stmts.len() as i64),
        ],
    )
    .map_err(|e| sql_err(&e))?;
    Ok(())
}

/// What a statement of a script is to [`run_parallel`].
#[derive(Debug, PartialEq)]
enum Kind {
    /// `SET ...` or `SELECT [pg_catalog.]set_config(...)`: session state, replayed on every
    /// connection before the statements that follow it in the file.
    Session,
    /// Builds an index of one table: `CREATE [UNIQUE] INDEX ... ON [ONLY] TABLE` or `ALTER
    /// TABLE [IF EXISTS] [ONLY] TABLE ADD CONSTRAINT NAME PRIMARY KEY|UNIQUE`; the table as
    /// its name's parts (`schema`, `table`), unquoted. These are the long statements of a
    /// post-data script, and the ones pg_restore -j runs on several connections.
    Build(Vec<String>),
    /// Everything else (foreign keys, triggers, rules, ATTACH PARTITION, comments, grants,
    /// sequence values): run in the file's order, after every build.
    Other,
}

/// Classifies `s` with the dump lexer's tokens (nothing it cannot tokenize is moved).
fn kind(s: &str, std_strings: bool) -> Kind {
    use crate::pg::dump::sql::{Tok, tokenize};
    let Ok(toks) = tokenize(s.as_bytes(), std_strings) else {
        return Kind::Other;
    };
    let word = |i: usize| match toks.get(i).map(|t| &t.tok) {
        Some(Tok::Ident {
            name,
            quoted: false,
        }) => name.as_str(),
        _ => "",
    };
    let op = |i: usize| match toks.get(i).map(|t| &t.tok) {
        Some(Tok::Op(o)) => o.as_str(),
        _ => "",
    };
    // A qualified name starting at token `i`: (its parts, index after it).
    let name_at = |mut i: usize| -> Option<(Vec<String>, usize)> {
        let mut parts = Vec::new();
        loop {
            match toks.get(i).map(|t| &t.tok) {
                Some(Tok::Ident { name, .. }) => parts.push(name.clone()),
                _ => return None,
            }
            i += 1;
            if op(i) != "." {
                return Some((parts, i));
            }
            i += 1;
        }
    };
    if word(0) == "set" {
        return Kind::Session;
    }
    if word(0) == "select"
        && (word(1) == "set_config"
            || (word(1) == "pg_catalog" && op(2) == "." && word(3) == "set_config"))
    {
        return Kind::Session;
    }
    let mut i;
    if word(0) == "create" {
        i = 1;
        if word(i) == "unique" {
            i += 1;
        }
        if word(i) != "index" {
            return Kind::Other;
        }
        i += 1;
        // CONCURRENTLY cannot run in a transaction: left to the script's own order.
        if word(i) == "concurrently" {
            return Kind::Other;
        }
        if word(i) == "if" && word(i + 1) == "not" && word(i + 2) == "exists" {
            i += 3;
        }
        if word(i) != "on" {
            match name_at(i) {
                Some((_, j)) => i = j,
                None => return Kind::Other,
            }
        }
        if word(i) != "on" {
            return Kind::Other;
        }
        i += 1;
        if word(i) == "only" {
            i += 1;
        }
        return match name_at(i) {
            Some((t, _)) => Kind::Build(t),
            None => Kind::Other,
        };
    }
    if word(0) == "alter" && word(1) == "table" {
        i = 2;
        if word(i) == "if" && word(i + 1) == "exists" {
            i += 2;
        }
        if word(i) == "only" {
            i += 1;
        }
        let Some((t, j)) = name_at(i) else {
            return Kind::Other;
        };
        i = j;
        if word(i) != "add" || word(i + 1) != "constraint" {
            return Kind::Other;
        }
        let Some((_, j)) = name_at(i + 2) else {
            return Kind::Other;
        };
        // One action only: a `,` would add more (a foreign key, say) in the same statement.
        if has_paren_commas_only(&toks[j..])
            && ((word(j) == "primary" && word(j + 1) == "key") || word(j) == "unique")
        {
            return Kind::Build(t);
        }
    }
    Kind::Other
}

/// True when every `,` of `toks` is inside parentheses (a column list), so the statement has
/// one action.
fn has_paren_commas_only(toks: &[crate::pg::dump::sql::Spanned]) -> bool {
    use crate::pg::dump::sql::Tok;
    let mut depth = 0i32;
    for t in toks {
        if let Tok::Op(o) = &t.tok {
            match o.as_str() {
                "(" => depth += 1,
                ")" => depth -= 1,
                "," if depth == 0 => return false,
                _ => {}
            }
        }
    }
    true
}

/// The statements of one table's group, with the session statements to replay before each.
struct Group {
    /// The table its statements build on, as its name's parts.
    table: Vec<String>,
    /// Indices of its builds (without the session statements).
    builds: Vec<usize>,
    /// Indices into the script's statements, in order: session statements and builds.
    stmts: Vec<usize>,
    /// Its builds' XXH64 (as [`statements_sum`], with a prefix so it never equals a whole
    /// script's), its journal key.
    sum: String,
    /// Byte offset of its first build: the journal row's `byte_start`.
    byte: i64,
}

/// Splits `stmts` into per-table groups of builds (with the session statements each needs)
/// and the rest, in order. Statements are tokenized as the script's own `SET
/// standard_conforming_strings` lines say, as the splitter does.
fn plan_groups(stmts: &[Stmt]) -> (Vec<Group>, Vec<usize>) {
    // (table, statements, session statements replayed so far, builds)
    type Open = (Vec<String>, Vec<usize>, usize, Vec<usize>);
    let mut groups: Vec<Open> = Vec::new();
    let mut rest = Vec::new();
    let mut sessions: Vec<usize> = Vec::new();
    let mut std_strings = true;
    for (i, s) in stmts.iter().enumerate() {
        match kind(&s.text, std_strings) {
            Kind::Session => {
                let norm = s.text.to_ascii_lowercase().replace(' ', "");
                if norm.starts_with("setstandard_conforming_strings=off")
                    || norm.starts_with("setstandard_conforming_strings='off'")
                {
                    std_strings = false;
                } else if norm.starts_with("setstandard_conforming_strings=on")
                    || norm.starts_with("setstandard_conforming_strings='on'")
                {
                    std_strings = true;
                }
                sessions.push(i);
                rest.push(i);
            }
            Kind::Build(t) => {
                let g = match groups.iter().position(|g| g.0 == t) {
                    Some(g) => g,
                    None => {
                        groups.push((t, Vec::new(), 0, Vec::new()));
                        groups.len() - 1
                    }
                };
                let g = &mut groups[g];
                // The session statements this group has not replayed yet, then the build.
                g.1.extend(sessions[g.2..].iter().copied());
                g.2 = sessions.len();
                g.1.push(i);
                g.3.push(i);
            }
            Kind::Other => rest.push(i),
        }
    }
    let groups = groups
        .into_iter()
        .map(|(table, ix, _, b)| {
            let builds: Vec<&Stmt> = b.iter().map(|&i| &stmts[i]).collect();
            let mut h = twox_hash::XxHash64::with_seed(0);
            std::hash::Hasher::write(&mut h, b"csvload post-data group\0");
            for s in &builds {
                std::hash::Hasher::write(&mut h, s.text.as_bytes());
                std::hash::Hasher::write(&mut h, b"\0");
            }
            Group {
                table,
                byte: builds.first().map_or(0, |s| s.byte as i64),
                builds: b.clone(),
                sum: format!("{:016x}", std::hash::Hasher::finish(&h)),
                stmts: ix,
            }
        })
        .collect();
    (groups, rest)
}

/// [`run`] on up to `jobs` connections (PostgreSQL only; the caller decides): the builds of
/// each table (its indexes, primary key and unique constraints), grouped per table, run as
/// one transaction per table, the tables side by side, each with the script's session
/// statements that precede its builds replayed first; then everything else in the file's
/// order in one transaction on `client`, with the journal row of the whole script. Each
/// table's transaction records its builds in the journal, so a rerun after a failure skips
/// the tables done and runs the rest (as it skips those that [`run_builds`] built after
/// their load). A failing build stops the start of further groups; those running finish
/// (and are journaled); the first failure is returned, named by its line. Foreign keys,
/// which need the keys they reference, are in the rest, so they run after every build.
pub fn run_parallel(
    target: &super::conn::Target,
    rules: &super::target::Rules,
    client: &mut Client,
    path: &Path,
    journal: &Journal,
    jobs: usize,
) -> Result<Option<usize>> {
    let script = Script::read(path)?;
    if seen(client, journal, &script.sum)? {
        return Ok(None);
    }
    let (groups, rest) = plan_groups(&script.stmts);
    let mut todo = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        if !seen(client, journal, &g.sum)? {
            todo.push(gi);
        }
    }
    run_groups(target, rules, &script, &groups, todo, journal, jobs)?;
    let mut tx = client.transaction().map_err(|e| sql_err(&e))?;
    for &i in &rest {
        run_one(&mut tx, &script.stmts[i], &script.file)?;
    }
    record_script(&mut tx, journal, &script)?;
    tx.commit().map_err(|e| sql_err(&e))?;
    Ok(Some(script.stmts.len()))
}

/// The builds (indexes, primary keys, unique constraints: the groups of [`run_parallel`]) of
/// the post-data script at `path` on the tables `tables` (schema, name) only, right after
/// their load, as pg_restore -j builds a table's keys as soon as its data is in, beside the
/// other tables' COPY: each table's in one transaction, journaled as [`run_parallel`]
/// journals them, so a later `--post-data` of the same script skips them and runs the rest.
/// Nothing else of the script runs. Returns the tables built now and those the journal says
/// were built before; a table with no build in the script is in neither.
pub fn run_builds(
    target: &super::conn::Target,
    rules: &super::target::Rules,
    client: &mut Client,
    path: &Path,
    journal: &Journal,
    jobs: usize,
    tables: &[(Option<String>, String)],
) -> Result<(usize, usize)> {
    let script = Script::read(path)?;
    let (groups, _) = plan_groups(&script.stmts);
    let ours = |g: &Group| is_one_of(&g.table, tables);
    let mut todo = Vec::new();
    let mut before = 0;
    if !seen(client, journal, &script.sum)? {
        for (gi, g) in groups.iter().enumerate().filter(|(_, g)| ours(g)) {
            if seen(client, journal, &g.sum)? {
                before += 1;
            } else {
                todo.push(gi);
            }
        }
    } else {
        before = groups.iter().filter(|g| ours(g)).count();
    }
    let now = todo.len();
    run_groups(target, rules, &script, &groups, todo, journal, jobs)?;
    Ok((now, before))
}

/// True when the name `parts` of a build's table is one of `tables` (schema, name). pg_dump
/// qualifies every name in post-data; a table without a schema (a csvsplit manifest's bare
/// name, found through search_path) matches only an unqualified build.
fn is_one_of(parts: &[String], tables: &[(Option<String>, String)]) -> bool {
    tables.iter().any(|(s, n)| match (s, parts) {
        (Some(s), [ps, pn]) => ps == s && pn == n,
        (None, [pn]) => pn == n,
        _ => false,
    })
}

/// A post-data script read and split, with what the journal knows it by.
struct Script {
    stmts: Vec<Stmt>,
    /// Its path, for messages.
    file: String,
    /// Its canonical path: the journal rows' `file`.
    key: String,
    /// [`statements_sum`] of its statements: the whole script's journal key.
    sum: String,
    size: i64,
}

impl Script {
    fn read(path: &Path) -> Result<Script> {
        let sql = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let file = path.display().to_string();
        let stmts = split(&sql, &file)?;
        let key = std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .display()
            .to_string();
        Ok(Script {
            sum: statements_sum(&stmts),
            stmts,
            file,
            key,
            size: sql.len() as i64,
        })
    }
}

/// True when the journal holds a script's or a group's row with this sum.
fn seen(c: &mut Client, journal: &Journal, sum: &str) -> Result<bool> {
    c.query(
        &format!(
            "SELECT 1 FROM {} WHERE table_name = '' AND batch_xxh64 = $1",
            journal.sql()
        ),
        &[&sum],
    )
    .map(|r| !r.is_empty())
    .map_err(|e| sql_err(&e))
}

/// Runs the groups `todo` of `script` on up to `jobs` new connections, one transaction per
/// group with its journal row; stops starting groups after the first failure and returns it.
fn run_groups(
    target: &super::conn::Target,
    rules: &super::target::Rules,
    script: &Script,
    groups: &[Group],
    todo: Vec<usize>,
    journal: &Journal,
    jobs: usize,
) -> Result<()> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};
    let j = journal.sql();
    let workers = jobs.min(todo.len());
    let queue = Mutex::new(std::collections::VecDeque::from(todo));
    let failed = AtomicBool::new(false);
    let first_err: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                let fail = |e: Error| {
                    failed.store(true, Ordering::SeqCst);
                    let mut f = first_err.lock().unwrap();
                    if f.is_none() {
                        *f = Some(e);
                    }
                };
                let mut c = match target.connect().and_then(|mut c| {
                    rules.setup(&mut c)?;
                    Ok(c)
                }) {
                    Ok(c) => c,
                    Err(e) => return fail(e),
                };
                loop {
                    if failed.load(Ordering::SeqCst) {
                        return;
                    }
                    let Some(gi) = queue.lock().unwrap().pop_front() else {
                        return;
                    };
                    let g = &groups[gi];
                    let mut one = || -> Result<()> {
                        let mut tx = c.transaction().map_err(|e| sql_err(&e))?;
                        for &i in &g.stmts {
                            run_one(&mut tx, &script.stmts[i], &script.file)?;
                        }
                        tx.execute(
                            &format!(
                                "DELETE FROM {j} WHERE table_name = '' AND file = $1 \
                                 AND byte_start = $2"
                            ),
                            &[&script.key, &g.byte],
                        )
                        .map_err(|e| sql_err(&e))?;
                        tx.execute(
                            &format!(
                                "INSERT INTO {j} (table_name, file, file_size, checksum, \
                                 byte_start, byte_end, batch_xxh64, first_record, records, \
                                 next_line, last) \
                                 VALUES ('', $1, $2, $3, $4, $4, $5, 0, $6, 0, false)"
                            ),
                            &[
                                &script.key,
                                &script.size,
                                &format!("xxh64:{}", g.sum),
                                &g.byte,
                                &g.sum,
                                &(g.stmts.len() as i64),
                            ],
                        )
                        .map_err(|e| sql_err(&e))?;
                        tx.commit().map_err(|e| sql_err(&e))
                    };
                    if let Err(e) = one() {
                        return fail(e);
                    }
                }
            });
        }
    });
    match first_err.into_inner().unwrap() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Sends one statement of `file`; a refused one is named by its line and byte.
fn run_one<C: postgres::GenericClient>(c: &mut C, s: &Stmt, file: &str) -> Result<()> {
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
    })
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
    fn groups_builds_per_table() {
        let sql = b"SET search_path = '';\n\
            ALTER TABLE ONLY public.a ADD CONSTRAINT a_pkey PRIMARY KEY (x, y);\n\
            CREATE INDEX b_i ON public.b USING btree (z);\n\
            SET default_tablespace = foo;\n\
            CREATE UNIQUE INDEX IF NOT EXISTS a_u ON ONLY public.a (w);\n\
            ALTER TABLE ONLY public.b ADD CONSTRAINT b_fk FOREIGN KEY (z) REFERENCES public.a(x);\n\
            ALTER TABLE public.\"C d\" ADD CONSTRAINT c_u UNIQUE (q);\n\
            ALTER TABLE public.c ADD CONSTRAINT c_pk PRIMARY KEY (q), ADD CONSTRAINT f FOREIGN KEY (q) REFERENCES public.a(x);\n\
            CREATE INDEX CONCURRENTLY c_i ON public.c (q);\n\
            SELECT pg_catalog.setval('public.s', 3, true);\n";
        let stmts = split(sql, "p.sql").unwrap();
        let kinds: Vec<Kind> = stmts.iter().map(|s| kind(&s.text, true)).collect();
        assert_eq!(
            kinds,
            vec![
                Kind::Session,
                Kind::Build(vec!["public".into(), "a".into()]),
                Kind::Build(vec!["public".into(), "b".into()]),
                Kind::Session,
                Kind::Build(vec!["public".into(), "a".into()]),
                Kind::Other,
                Kind::Build(vec!["public".into(), "C d".into()]),
                Kind::Other,
                Kind::Other,
                Kind::Other,
            ]
        );
        let (groups, rest) = plan_groups(&stmts);
        // a: the first SET, its key, the second SET, its unique index.
        assert_eq!(groups[0].stmts, vec![0, 1, 3, 4]);
        assert_eq!(groups[1].stmts, vec![0, 2]);
        assert_eq!(groups[2].stmts, vec![0, 3, 6]);
        assert_eq!(rest, vec![0, 3, 5, 7, 8, 9]);
        assert_ne!(groups[0].sum, statements_sum(&stmts));
    }

    #[test]
    fn builds_match_their_tables_by_schema_and_name() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let t = [
            (Some("public".to_string()), "a".to_string()),
            (None, "b".to_string()),
        ];
        assert!(is_one_of(&p(&["public", "a"]), &t));
        assert!(!is_one_of(&p(&["other", "a"]), &t));
        assert!(!is_one_of(&p(&["a"]), &t));
        assert!(!is_one_of(&p(&["public", "A"]), &t));
        assert!(is_one_of(&p(&["b"]), &t));
        assert!(!is_one_of(&p(&["public", "b"]), &t));
        // A dot inside a quoted name is part of the name, not a schema.
        assert!(!is_one_of(&p(&["public.a"]), &t));
        let (groups, _) = plan_groups(
            &split(
                b"CREATE INDEX i ON \"public.x\".a (q);\nCREATE INDEX j ON public.a (q);\n",
                "p.sql",
            )
            .unwrap(),
        );
        let hits: Vec<bool> = groups.iter().map(|g| is_one_of(&g.table, &t)).collect();
        assert_eq!(hits, vec![false, true]);
    }

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
