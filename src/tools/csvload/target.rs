//! What csvload does differently per kind of target (`--target-kind postgresql|cockroachdb|
//! yugabytedb`, by default read from `SELECT version()`): the one place these choices live.
//!
//! Each kind is a [`Rules`] value: its default batch size, the statements its sessions send
//! after the common ones of [`super::session`], whether its advisory locks lock, and the
//! spelling of COPY's options. The loader and the session setup read these fields; nothing
//! else asks which kind it is. Why each value is what it is, with the documentation pages it
//! rests on, is in docs/cockroachdb.md and docs/yugabytedb.md.

use super::plan::{TablePlan, quote_literal};
use crate::io::error::{Error, Result};
use crate::schemaconv::version::{TargetVersion, read_header};
use postgres::Client;

/// The kind of server csvload loads into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetKind {
    /// PostgreSQL (and servers that answer `version()` as it does).
    Postgresql,
    /// CockroachDB: `version()` starts with `CockroachDB`.
    Cockroachdb,
    /// YugabyteDB (YSQL): `version()` contains `-YB-`.
    Yugabytedb,
}

/// How COPY's options are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyOptions {
    /// PostgreSQL's own form: `WITH (FORMAT csv, NULL '...')`.
    Parenthesized,
    /// The keyword form `WITH CSV NULL '...'`: the one CockroachDB documents (its COPY page
    /// lists `CSV`, `NULL`, `DELIMITER`, `ESCAPE`, `HEADER` as options, and some versions
    /// refuse `FORMAT`). PostgreSQL still accepts it (its pre-9.0 COPY syntax).
    Keywords,
    /// COPY's text format, `COPY t (cols) FROM STDIN`: csvload rewrites each batch's CSV as
    /// text (crate::csv::totext), which PostgreSQL 15's COPY parses with 10-22% less CPU
    /// than the same rows as CSV (docs/benchmarks.md, "What csvload sends"), or, where every
    /// column's type has an encoder, as binary COPY (crate::pg::types::binary; load/batch.rs
    /// decides per file and falls back to text).
    /// The values are the same: the rewrite reads fields as COPY's CSV mode does.
    Text,
}

/// The choices that differ per kind.
#[derive(Debug, PartialEq, Eq)]
pub struct Rules {
    /// The kind these rules are for.
    pub kind: TargetKind,
    /// Records per batch (transaction) when `--batch-rows` is not given; `None`: one file,
    /// one transaction.
    pub default_batch_rows: Option<u64>,
    /// Statements every session sends after the common settings (session.rs), in order.
    pub session_sql: &'static [&'static str],
    /// True when `pg_try_advisory_lock` really locks; false where it is a stub that always
    /// answers true (CockroachDB), so calling it would promise a protection that is not
    /// there. Where locks are off, the journal's primary key is what stops two runs from
    /// committing one batch twice.
    pub advisory_locks: bool,
    /// How COPY's options are written.
    pub copy_options: CopyOptions,
    /// True when `--truncate` may empty the table and forget its journal rows in one
    /// transaction; false where TRUNCATE is a schema change that is not transactional
    /// (CockroachDB): then the journal rows go first, in their own transaction, and the
    /// TRUNCATE runs on its own (interrupted between the two, the table holds rows the journal
    /// does not account for: refused in words, and a rerun with --truncate empties it).
    pub truncate_in_transaction: bool,
    /// True when a `--schema`/`--post-data` script runs in one transaction with its journal
    /// row (as `psql -1`); false where DDL in an explicit transaction is not what it is on
    /// PostgreSQL (CockroachDB: since v25.1 `autocommit_before_ddl` commits the open
    /// transaction before each DDL statement, and schema changes are not transactional): then
    /// each statement runs on its own and the journal row follows the last.
    pub scripts_in_transaction: bool,
    /// Settings turned off for the session when the server has them and they are on (read
    /// with `current_setting(name, true)`, which is NULL where the setting does not exist),
    /// with a warning naming each.
    pub off_if_on: &'static [&'static str],
}

const POSTGRESQL: Rules = Rules {
    kind: TargetKind::Postgresql,
    default_batch_rows: None,
    session_sql: &[],
    advisory_locks: true,
    copy_options: CopyOptions::Text,
    truncate_in_transaction: true,
    scripts_in_transaction: true,
    off_if_on: &[],
};

const COCKROACHDB: Rules = Rules {
    kind: TargetKind::Cockroachdb,
    // Its performance best practices: large multi-row writes make long transactions that end
    // in retry errors (40001 "transaction deadline exceeded"); try 10, 100, 1000 rows. Each
    // batch is an explicit transaction with its journal row either way.
    default_batch_rows: Some(1000),
    // Every setting of session.rs is accepted (pkg/sql/vars.go: standard_conforming_strings
    // on, client_encoding UTF8, DateStyle 'ISO, MDY', IntervalStyle postgres,
    // extra_float_digits 3, statement_timeout and idle_in_transaction_session_timeout 0), so
    // none is skipped; nothing CockroachDB-only is needed, since a COPY in an explicit
    // transaction is atomic in every version (copy_from_atomic_enabled only matters outside).
    session_sql: &[],
    advisory_locks: false,
    copy_options: CopyOptions::Keywords,
    // Its TRUNCATE page: "TRUNCATE is a schema change, and as such is not transactional".
    truncate_in_transaction: false,
    scripts_in_transaction: false,
    off_if_on: &[],
};

const YUGABYTEDB: Rules = Rules {
    kind: TargetKind::Yugabytedb,
    // YugabyteDB's own COPY default (yb_default_copy_from_rows_per_transaction) and
    // yb-voyager's batch size.
    default_batch_rows: Some(20_000),
    session_sql: &[
        // COPY would otherwise commit every 20,000 rows on its own, apart from the journal row.
        "SET yb_default_copy_from_rows_per_transaction = 0",
        // On, writes skip the transaction and are applied at once: a batch that failed half-way
        // would leave rows behind while its journal row rolled back. A role's or database's
        // default may have turned it on; the journal needs it off.
        "SET yb_disable_transactional_writes = off",
    ],
    // Advisory locks came in v2.25 as a preview behind ysql_yb_enable_advisory_locks (default
    // true in the current flag reference); a server without them refuses the call, which
    // super::lock takes as "no locks" (0A000, 42883) and goes on.
    advisory_locks: true,
    copy_options: CopyOptions::Parenthesized,
    truncate_in_transaction: true,
    // "Each DDL statement is a transaction in YSQL" up to 2025.2: transactional DDL
    // (ysql_yb_ddl_transaction_block_enabled, preview in 2025.1) is off by default before
    // 2026.1, which turns it on; it is a server flag csvload cannot see reliably, so on every
    // release a failed script may leave the statements before it, as on CockroachDB: run
    // statement by statement, journal row last
    // (https://docs.yugabyte.com/stable/architecture/transactions/transactional-ddl/).
    scripts_in_transaction: false,
    // On (older releases offered it before advisory locks existed), pg_try_advisory_lock
    // answers true without locking, so csvload would believe it holds a lock it does not.
    // Off, a release without advisory locks refuses the call, which super::lock takes as
    // "no locks" and the journal's primary key guards instead; a release with them locks.
    off_if_on: &["yb_silence_advisory_locks_not_supported_error"],
};

impl TargetKind {
    /// The kind `version()`'s text names: `CockroachDB ...` at its start, `-YB-` anywhere
    /// (`PostgreSQL 11.2-YB-2.20.1.0-b0 on ...`), PostgreSQL otherwise.
    pub fn detect(version: &str) -> TargetKind {
        if version.starts_with("CockroachDB") {
            TargetKind::Cockroachdb
        } else if version.contains("-YB-") {
            TargetKind::Yugabytedb
        } else {
            TargetKind::Postgresql
        }
    }

    /// This kind's rules.
    pub fn rules(self) -> &'static Rules {
        match self {
            TargetKind::Postgresql => &POSTGRESQL,
            TargetKind::Cockroachdb => &COCKROACHDB,
            TargetKind::Yugabytedb => &YUGABYTEDB,
        }
    }

    /// The name `--target-kind` takes.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Postgresql => "postgresql",
            TargetKind::Cockroachdb => "cockroachdb",
            TargetKind::Yugabytedb => "yugabytedb",
        }
    }
}

impl Rules {
    /// Sends [`Rules::session_sql`] on `client` (after session.rs's settings, which
    /// `conn::Target::connect` sends). A refused statement is exit 2 with the server's words.
    pub fn setup(&self, client: &mut Client) -> Result<()> {
        for name in self.off_if_on {
            // A simple query with the name as a literal: the setting need not exist.
            let q = format!(
                "SELECT pg_catalog.current_setting({}, true)",
                quote_literal(name)
            );
            let on = client
                .simple_query(&q)
                .map_err(|e| {
                    Error::Usage(format!(
                        "reading {name} for --target-kind {}: {}",
                        self.kind.name(),
                        super::server_message(&e)
                    ))
                })?
                .iter()
                .any(|m| {
                    matches!(m, postgres::SimpleQueryMessage::Row(r)
                        if r.get(0).is_some_and(|v| v.eq_ignore_ascii_case("on")))
                });
            if on {
                let set = format!("SET {name} = off");
                client
                    .batch_execute(&set)
                    .map_err(|e| Error::Usage(format!("{set}: {}", super::server_message(&e))))?;
                // Every connection checks; the warning is said once.
                static SAID: std::sync::atomic::AtomicBool =
                    std::sync::atomic::AtomicBool::new(false);
                if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    eprintln!(
                        "csvload: warning: {name} was on for this role or database (advisory \
                         locks would answer true without locking); set off for csvload's \
                         sessions"
                    );
                }
            }
        }
        for s in self.session_sql {
            client.batch_execute(s).map_err(|e| {
                Error::Usage(format!(
                    "setting up the session for --target-kind {} ({s}): {}",
                    self.kind.name(),
                    super::server_message(&e)
                ))
            })?;
        }
        Ok(())
    }

    /// Records per batch: `--batch-rows` when given, else this kind's default.
    pub fn batch_rows(&self, given: Option<u64>) -> Option<u64> {
        given.or(self.default_batch_rows)
    }

    /// The `COPY ... FROM STDIN` statement of `t` for this kind.
    pub fn copy_sql(&self, t: &TablePlan) -> String {
        match self.copy_options {
            CopyOptions::Parenthesized => t.copy_sql(),
            CopyOptions::Text => format!("COPY {}{} FROM STDIN", t.sql_name(), t.column_list()),
            CopyOptions::Keywords => format!(
                "COPY {}{} FROM STDIN WITH CSV NULL {}",
                t.sql_name(),
                t.column_list(),
                quote_literal(&t.null)
            ),
        }
    }

    /// True when batches go as COPY text, rewritten from the CSV ([`CopyOptions::Text`]).
    pub fn sends_text(&self) -> bool {
        self.copy_options == CopyOptions::Text
    }

    /// What a run says on stderr about this kind (unless `-q`): `None` for PostgreSQL.
    pub fn note(&self, batch_rows: Option<u64>) -> Option<String> {
        let batches = match batch_rows {
            Some(n) => format!("batches of {n} records"),
            None => "one transaction per file".into(),
        };
        match self.kind {
            TargetKind::Postgresql => None,
            TargetKind::Cockroachdb => Some(format!(
                "target kind cockroachdb: {batches}, each COPY in an explicit transaction with \
                 its journal row; no advisory locks (CockroachDB's are stubs): two runs on one \
                 table at once are kept apart by the journal's primary key (the second fails, \
                 nothing is loaded twice)"
            )),
            TargetKind::Yugabytedb => Some(format!(
                "target kind yugabytedb: {batches}, each COPY in an explicit transaction with \
                 its journal row (yb_default_copy_from_rows_per_transaction = 0, \
                 yb_disable_transactional_writes = off)"
            )),
        }
    }
}

/// Refuses a script converted for a newer release than the server: `script` is the target
/// its first lines name (pgdump2csv's `-- dumpshard-target:` line), `server` the server's
/// `version()` text. A script for another kind, or a server whose release is not read from
/// `version()`, is not compared (tests load CockroachDB schemas into PostgreSQL).
pub fn script_fits(
    script: Option<TargetVersion>,
    server: &str,
    path: &str,
) -> std::result::Result<(), String> {
    let (Some(want), Some(have)) = (script, TargetVersion::from_server(server)) else {
        return Ok(());
    };
    if want.kind != have.kind || want.key() <= have.key() {
        return Ok(());
    }
    Err(format!(
        "{path} was converted for {} (its first lines say so), but the server is {} ({}): \
         convert the dump again with pgdump2csv --target-version {}",
        want.label(),
        have.label(),
        crate::io::names::Escaped(server.chars().take(80).collect::<String>().as_str()),
        have.label()
    ))
}

/// [`script_fits`] for each script, against the server's `version()`.
pub fn check_scripts<'a>(
    client: &mut Client,
    scripts: impl Iterator<Item = &'a std::path::PathBuf>,
) -> Result<()> {
    let scripts: Vec<_> = scripts.collect();
    if scripts.is_empty() {
        return Ok(());
    }
    let v: String = client
        .query_one("SELECT version()", &[])
        .map_err(|e| Error::Usage(super::server_message(&e)))?
        .get(0);
    for p in scripts {
        let head = read_head(p).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?;
        script_fits(read_header(&head), &v, &p.display().to_string()).map_err(Error::Usage)?;
    }
    Ok(())
}

/// The first 4 KiB of a file (where pgdump2csv's header line is).
fn read_head(p: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut b = Vec::with_capacity(4096);
    std::fs::File::open(p)?.take(4096).read_to_end(&mut b)?;
    Ok(b)
}

/// The kind to load with: `given` (`--target-kind`) or the one `version()` names. When both
/// are there and differ, `given` wins (a proxy may rewrite `version()`; tests load PostgreSQL
/// with another kind's rules) and a warning says what the server answered.
pub fn resolve(client: &mut Client, given: Option<TargetKind>) -> Result<TargetKind> {
    let v: String = client
        .query_one("SELECT version()", &[])
        .map_err(|e| Error::Usage(super::server_message(&e)))?
        .get(0);
    Ok(choose(given, &v, |w| eprintln!("csvload: warning: {w}")))
}

/// [`resolve`]'s choice for a `version()` text `v`; `warn` is told of a mismatch.
pub fn choose(given: Option<TargetKind>, v: &str, warn: impl FnOnce(String)) -> TargetKind {
    let seen = TargetKind::detect(v);
    match given {
        None => seen,
        Some(k) => {
            if k != seen {
                warn(format!(
                    "--target-kind {} but the server's version() ({}) looks like {}; loading \
                     with {}'s rules as asked",
                    k.name(),
                    crate::io::names::Escaped(v.chars().take(80).collect::<String>().as_str()),
                    seen.name(),
                    k.name()
                ));
            }
            k
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: &[&str], null: &str) -> TablePlan {
        TablePlan {
            schema: Some("s".into()),
            name: "t".into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            types: Vec::new(),
            null: null.into(),
            expected_rows: 0,
            key_range: None,
            given: None,
            key: Vec::new(),
        }
    }

    #[test]
    fn detected_from_version_text() {
        for (v, k) in [
            (
                "PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu",
                TargetKind::Postgresql,
            ),
            (
                "CockroachDB CCL v24.1.0 (x86_64-pc-linux-gnu, built 2024/05/15, go1.22.2)",
                TargetKind::Cockroachdb,
            ),
            (
                "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang",
                TargetKind::Yugabytedb,
            ),
            (
                "PostgreSQL 15.2-YB-2025.1.0.0-b0 on x86_64-pc-linux-gnu",
                TargetKind::Yugabytedb,
            ),
            // Only at the start: a PostgreSQL built by someone who likes the name is not one.
            (
                "PostgreSQL 16.1 (CockroachDB fan build)",
                TargetKind::Postgresql,
            ),
            ("", TargetKind::Postgresql),
        ] {
            assert_eq!(TargetKind::detect(v), k, "{v}");
        }
    }

    #[test]
    fn given_kind_wins_with_a_warning_on_mismatch() {
        let crdb = "CockroachDB CCL v24.1.0";
        let mut warned = None;
        let k = choose(Some(TargetKind::Yugabytedb), crdb, |w| warned = Some(w));
        assert_eq!(k, TargetKind::Yugabytedb);
        let w = warned.unwrap();
        assert!(
            w.contains("--target-kind yugabytedb") && w.contains("cockroachdb"),
            "{w}"
        );
        let mut warned = false;
        assert_eq!(
            choose(Some(TargetKind::Cockroachdb), crdb, |_| warned = true),
            TargetKind::Cockroachdb
        );
        assert!(!warned);
        assert_eq!(choose(None, crdb, |_| panic!()), TargetKind::Cockroachdb);
    }

    #[test]
    fn batch_rows_per_kind_and_given_wins() {
        assert_eq!(TargetKind::Postgresql.rules().batch_rows(None), None);
        assert_eq!(TargetKind::Cockroachdb.rules().batch_rows(None), Some(1000));
        assert_eq!(
            TargetKind::Yugabytedb.rules().batch_rows(None),
            Some(20_000)
        );
        for k in [
            TargetKind::Postgresql,
            TargetKind::Cockroachdb,
            TargetKind::Yugabytedb,
        ] {
            assert_eq!(k.rules().batch_rows(Some(7)), Some(7));
            assert_eq!(k.rules().kind, k);
        }
    }

    #[test]
    fn session_statements_per_kind() {
        assert!(TargetKind::Postgresql.rules().session_sql.is_empty());
        assert!(TargetKind::Cockroachdb.rules().session_sql.is_empty());
        assert_eq!(
            TargetKind::Yugabytedb.rules().session_sql,
            [
                "SET yb_default_copy_from_rows_per_transaction = 0",
                "SET yb_disable_transactional_writes = off"
            ]
        );
        // Never turned on: with it the journal row and the batch would not commit together.
        for k in [
            TargetKind::Postgresql,
            TargetKind::Cockroachdb,
            TargetKind::Yugabytedb,
        ] {
            for s in k.rules().session_sql {
                assert!(!s.contains("transactional_writes = on"), "{s}");
            }
        }
    }

    #[test]
    fn advisory_locks_per_kind() {
        assert!(TargetKind::Postgresql.rules().advisory_locks);
        assert!(!TargetKind::Cockroachdb.rules().advisory_locks);
        assert!(TargetKind::Yugabytedb.rules().advisory_locks);
    }

    #[test]
    fn truncate_per_kind() {
        assert!(TargetKind::Postgresql.rules().truncate_in_transaction);
        assert!(!TargetKind::Cockroachdb.rules().truncate_in_transaction);
        assert!(TargetKind::Yugabytedb.rules().truncate_in_transaction);
        assert!(TargetKind::Postgresql.rules().scripts_in_transaction);
        assert!(!TargetKind::Cockroachdb.rules().scripts_in_transaction);
        // YSQL's DDL is not transactional by default: statement by statement.
        assert!(!TargetKind::Yugabytedb.rules().scripts_in_transaction);
    }

    /// A script converted for a newer release is refused; the same release, an older one,
    /// another kind or an unreadable version() pass.
    #[test]
    fn script_newer_than_server_refused() {
        let v = |s| Some(TargetVersion::parse(s, None).unwrap());
        let crdb = "CockroachDB CCL v24.3.2 (x86_64-pc-linux-gnu)";
        let e = script_fits(v("cockroachdb:25.2"), crdb, "s.sql").unwrap_err();
        assert!(
            e.contains("s.sql was converted for cockroachdb:25.2")
                && e.contains("the server is cockroachdb:24.3")
                && e.contains("--target-version cockroachdb:24.3"),
            "{e}"
        );
        assert!(script_fits(v("cockroachdb:24.3"), crdb, "s.sql").is_ok());
        assert!(script_fits(v("cockroachdb:24.1"), crdb, "s.sql").is_ok());
        assert!(script_fits(v("cockroachdb:26.2"), "PostgreSQL 15.8 on x", "s.sql").is_ok());
        assert!(script_fits(None, crdb, "s.sql").is_ok());
        let yb = "PostgreSQL 11.2-YB-2024.2.3.0-b0 on x86_64";
        assert!(script_fits(v("yugabytedb:2025.1"), yb, "s.sql").is_err());
        // 2.25 came out after 2024.2: a 2.25 server takes a 2024.2 schema.
        assert!(
            script_fits(
                v("yugabytedb:2024.2"),
                "PostgreSQL 15.2-YB-2.25.0.0-b489",
                "s.sql"
            )
            .is_ok()
        );
        assert!(script_fits(v("yugabytedb:2.25"), yb, "s.sql").is_err());
    }

    #[test]
    fn copy_statement_per_kind() {
        let t = table(&["a", "b\"c"], "\\N");
        // PostgreSQL: COPY text, the batches rewritten from the CSV (NULL is then `\N`).
        assert_eq!(
            TargetKind::Postgresql.rules().copy_sql(&t),
            r#"COPY "s"."t" ("a", "b""c") FROM STDIN"#
        );
        assert!(TargetKind::Postgresql.rules().sends_text());
        assert_eq!(
            TargetKind::Yugabytedb.rules().copy_sql(&t),
            r#"COPY "s"."t" ("a", "b""c") FROM STDIN WITH (FORMAT csv, NULL E'\\N')"#
        );
        assert!(!TargetKind::Yugabytedb.rules().sends_text());
        assert!(!TargetKind::Cockroachdb.rules().sends_text());
        assert_eq!(
            TargetKind::Cockroachdb.rules().copy_sql(&t),
            r#"COPY "s"."t" ("a", "b""c") FROM STDIN WITH CSV NULL E'\\N'"#
        );
        assert_eq!(
            TargetKind::Cockroachdb.rules().copy_sql(&table(&[], "")),
            r#"COPY "s"."t" FROM STDIN WITH CSV NULL ''"#
        );
    }

    #[test]
    fn notes_say_the_batches() {
        assert!(TargetKind::Postgresql.rules().note(None).is_none());
        let n = TargetKind::Cockroachdb.rules().note(Some(1000)).unwrap();
        assert!(
            n.contains("batches of 1000") && n.contains("no advisory locks"),
            "{n}"
        );
        let n = TargetKind::Yugabytedb.rules().note(None).unwrap();
        assert!(n.contains("one transaction per file"), "{n}");
    }
}
