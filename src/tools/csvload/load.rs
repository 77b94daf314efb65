//! The data phase: each file loaded (one try at it: `load/batch.rs`), on a new connection
//! again when a batch loses its connection or the server asks for a retry, and each table
//! checked against its journal before its files load.
//!
//! Memory per worker is bounded by the read chunk (1 MiB, or the longest record) plus the input's
//! decompression buffers, whatever the file or batch size: records go to the server as
//! they are read.

use super::conn::Target;
use super::journal::Journal;
use super::plan::{FileJob, Plan, TablePlan};
use super::{server_message, sql_err};
use crate::io::error::{Error, Result};
use postgres::Client;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

mod batch;
pub mod check;

use batch::load_once;

/// How one file ended.
#[derive(Debug)]
pub enum Outcome {
    /// Loaded to the end (rows loaded by this run).
    Done(u64),
    /// Stopped before the end because another file failed.
    Stopped(u64),
    /// The server refused a row: the message (already positioned), rows loaded before.
    Refused(String, u64),
}

/// Loading options shared by the workers.
pub struct Opts<'a> {
    /// Records per transaction; `None` = one file, one transaction.
    pub batch_rows: Option<u64>,
    /// The target kind's choices (COPY syntax, session statements of a new connection).
    pub rules: &'static super::target::Rules,
    /// The journal.
    pub journal: &'a Journal,
    /// True when the run must stop after the current batch.
    pub stop: &'a dyn Fn(usize) -> bool,
    /// Told the records of each committed batch (for the progress bar).
    pub committed: &'a dyn Fn(u64),
    /// Tries after the first when a batch loses its connection or fails with a retryable
    /// SQLSTATE (see [`retryable`]).
    pub retries: u32,
    /// No notes (resuming) on stderr.
    pub quiet: bool,
    /// `--commit-gate`: every COMMIT waits for this file and commits only if it holds `0`.
    pub gate: Option<&'a Path>,
    /// `--check-records`: the tables' keys seen so far.
    pub check: Option<&'a check::Keys>,
}

/// How often a COMMIT held by `--commit-gate` looks at the gate file.
const GATE_POLL: Duration = Duration::from_millis(20);

/// Waits until the `--commit-gate` file `gate` exists and is not empty (a writer that does
/// not rename a finished file into place is read once it has written), then: `Ok(true)` when
/// it holds `0` (commit), an error (exit 1) when it holds anything else, the batch then
/// rolled back. `Ok(false)` when the run stops meanwhile (another file failed). Polled: the
/// writer is another process (make's recipe) and a wait costs a stat every 20 ms.
fn gate_open(gate: &Path, stop: impl Fn() -> bool, file: &str) -> Result<bool, Fail> {
    loop {
        match std::fs::read(gate) {
            Ok(b) if !b.trim_ascii().is_empty() => {
                let said = b.trim_ascii();
                if said == b"0" {
                    return Ok(true);
                }
                return Err(Error::Found(format!(
                    "{file}: not committed (rolled back): the commit gate {} says `{}`, not \
                     `0` (the check of the records failed)",
                    crate::io::names::display_path(gate),
                    crate::io::names::Escaped(&String::from_utf8_lossy(said))
                ))
                .into());
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(gate, e).into()),
        }
        if stop() {
            return Ok(false);
        }
        std::thread::sleep(GATE_POLL);
    }
}

/// Rows and batches this run has committed, for the words printed on SIGINT/SIGTERM.
pub static COMMITTED_ROWS: AtomicU64 = AtomicU64::new(0);
/// Batches this run has committed.
pub static COMMITTED_BATCHES: AtomicU64 = AtomicU64::new(0);

/// True for an error after which the same batch may well succeed on a new connection: the
/// connection broke (no server error), or the server asked for a retry: serialization
/// failure 40001 (CockroachDB's "restart transaction"), deadlock 40P01, class 08
/// (connection exception), 57P01..57P03 (shut down by the administrator, crash, starting up).
pub fn retryable(e: &postgres::Error) -> bool {
    match e.as_db_error() {
        Some(d) => {
            let c = d.code().code();
            matches!(c, "40001" | "40P01" | "57P01" | "57P02" | "57P03") || c.starts_with("08")
        }
        None => {
            e.is_closed() || std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
        }
    }
}

/// Why one try at a file ended before its end.
enum Fail {
    /// The connection broke or the server asked for a retry: what it said.
    Retry(String),
    /// Anything else: stop as before.
    Fatal(Error),
    /// A batch held a value the binary COPY encoders leave to the server's text input: it
    /// was rolled back, and the file goes again from its last committed batch as COPY text.
    AsText,
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Fatal(e)
    }
}

fn pg_fail(e: postgres::Error) -> Fail {
    pg_fail_ref(&e)
}

/// Loads one file (or what of it the journal does not yet record), on `client`, which is
/// replaced by a new connection to `target` when a batch loses it or fails with a retryable
/// SQLSTATE. A retry starts from the journal: a batch whose COMMIT was sent but not
/// answered is found there (committed) or not (rolled back) before anything is sent again,
/// so each batch commits exactly once. At most `o.retries` tries in a row without a
/// committed batch between them, waiting 0.5 s, 1 s, 2 s ... (at most 30 s) before each.
pub fn load_file(
    target: &Target,
    client: &mut Client,
    plan: &Plan,
    job: &FileJob,
    o: &Opts,
) -> Result<Outcome> {
    let mut loaded = 0u64;
    let mut tries = 0u32;
    let mut checked = false;
    let mut binary = true;
    loop {
        let before = loaded;
        let why = match load_once(client, plan, job, o, &mut loaded, &mut checked, binary) {
            Ok(out) => return Ok(out),
            Err(Fail::Fatal(e)) => return Err(e),
            // Not a failure: the same connection, at once, without counting a retry.
            Err(Fail::AsText) => {
                if !o.quiet {
                    eprintln!(
                        "csvload: {}: a value not in the form PostgreSQL prints its type in \
                         (binary COPY takes only that); the file goes on as COPY text from its \
                         last committed batch, where the server reads it by its own rules",
                        crate::io::names::display_path(&job.path)
                    );
                }
                binary = false;
                continue;
            }
            // A connection cut by the --io-timeout watchdog is said as such.
            Err(Fail::Retry(why)) => super::stall::explain(why),
        };
        if loaded > before {
            tries = 0;
        }
        let mut why = why;
        loop {
            tries += 1;
            if tries > o.retries {
                return Err(Error::file(
                    job.path.display().to_string(),
                    format!(
                        "gave up after {} retr{}: {why}",
                        o.retries,
                        if o.retries == 1 { "y" } else { "ies" }
                    ),
                ));
            }
            let wait = Duration::from_millis(500u64 << (tries - 1).min(6)).min(MAX_WAIT);
            eprintln!(
                "csvload: {}: {}; retry {tries} of {} in {:.1} s on a new connection",
                crate::io::names::display_path(&job.path),
                crate::io::names::terminal_safe(&why),
                o.retries,
                wait.as_secs_f64()
            );
            std::thread::sleep(wait);
            if (o.stop)(job.table) {
                return Ok(Outcome::Stopped(loaded));
            }
            // A new connection is set up as the worker's first one was (and the server
            // process of the lost one is ended, so the journal's answer is final).
            let fresh = target.reconnect().and_then(|mut c| {
                o.rules.setup(&mut c)?;
                Ok(c)
            });
            match fresh {
                Ok(c) => {
                    *client = c;
                    break;
                }
                Err(e) => why = e.to_string(),
            }
        }
    }
}

/// The longest wait between two tries.
const MAX_WAIT: Duration = Duration::from_secs(30);

fn pg_fail_ref(e: &postgres::Error) -> Fail {
    if retryable(e) && e.as_db_error().is_none() {
        Fail::Retry(format!("lost the connection to the server ({e})"))
    } else if retryable(e) {
        Fail::Retry(server_message(e))
    } else {
        Fail::Fatal(sql_err(e))
    }
}

/// The way out when a table holds rows other than this run's files (issue 34: `--truncate`
/// alone was named, which fails on a table that foreign keys reference, and under migrate.mk
/// an empty database is the remedy that always works).
pub const RELOAD: &str = "to reload it, load into an empty table (a new database, or \
     --truncate, which cannot empty a table that other tables' foreign keys reference)";

/// Refuses a table holding rows the journal does not account for, or empties it (and its
/// journal rows) with `truncate`, which also empties a table loaded from a file that changed
/// since (its journaled bytes differ from the file's now: issue 61, a record deleted by hand
/// and put back after the load was refused at every rerun, `--truncate` named as the way out
/// and doing nothing). Returns the unaccounted rows kept (with `append`).
///
/// Rows the journal records as loaded from files that are not among `files` (this run's files
/// of the table, by journal key) count as unaccounted too: they come from another manifest or
/// from the same data converted again or moved, and loading this run's files on top of them
/// would load those records twice.
pub fn prepare_table(
    client: &mut Client,
    j: &Journal,
    t: &TablePlan,
    jobs: &[&FileJob],
    truncate: bool,
    append: bool,
    rules: &super::target::Rules,
) -> Result<i64> {
    let files: Vec<&str> = jobs.iter().map(|f| f.key.as_str()).collect();
    // The table's count and its journal from one snapshot: read apart, a batch that another
    // run (or a retried connection of this one) committed between the two reads made the
    // journal look ahead of the table ("rows were deleted since", which was false).
    // (The FROM item is found before: its catalog look-up of a missing table fails, which
    // would abort the transaction before the count could say what is missing.)
    let from = from_item(client, t);
    client
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .map_err(|e| sql_err(&e))?;
    let read = (|| -> Result<_> {
        let count = count_from(client, &from).map_err(|e| {
            Error::Usage(format!(
                "table {}: {}{}",
                t.display(),
                server_message(&e),
                t.missing_hint(&e)
            ))
        })?;
        let journaled = j.rows_of(client, &t.display())?;
        let foreign = client
            .query(
                &format!(
                    "SELECT file, sum(records)::bigint FROM {} WHERE table_name = $1 \
                     AND NOT (file = ANY($2)) GROUP BY file HAVING sum(records) > 0 ORDER BY file",
                    j.sql()
                ),
                &[&t.display(), &files],
            )
            .map_err(|e| sql_err(&e))?;
        Ok((count, journaled, foreign))
    })();
    let _ = client.batch_execute(if read.is_ok() { "COMMIT" } else { "ROLLBACK" });
    let (count, journaled, foreign) = read?;
    let foreign_rows: i64 = foreign.iter().map(|r| r.get::<_, i64>(1)).sum();
    let extra = count - journaled + foreign_rows;
    let changed = if truncate && extra == 0 && journaled > 0 {
        let mut changed = None;
        for job in jobs {
            if !batch::journal_still_matches(client, j, &t.display(), job)? {
                changed = Some(job);
                break;
            }
        }
        changed
    } else {
        None
    };
    if extra == 0 && changed.is_none() {
        return Ok(0);
    }
    if truncate {
        if let Some(job) = changed {
            eprintln!(
                "csvload: table {}: {} changed since it was loaded (journal {}); --truncate \
                 empties the table and loads it again",
                crate::io::names::display_name(&t.display()),
                crate::io::names::display_path(&job.path),
                j.sql()
            );
        }
        // The table's name is quoted by the one quoting function; the journal key travels
        // as a bind parameter (once built with doubled quotes only, a hostile table name
        // ran SQL here on a server with standard_conforming_strings = off).
        // A table other tables' foreign keys reference cannot be emptied (0A000): said with
        // what does work.
        let in_words = |e: postgres::Error| {
            let fk = e.code() == Some(&postgres::error::SqlState::FEATURE_NOT_SUPPORTED)
                && server_message(&e).contains("foreign key");
            Error::Usage(format!(
                "table {}: {}{}",
                t.display(),
                server_message(&e),
                if fk {
                    "; --truncate cannot empty a table that other tables' foreign keys \
                     reference: load into an empty database instead (or drop those foreign \
                     keys, which post-data creates again)"
                } else {
                    ""
                }
            ))
        };
        let truncate = format!("TRUNCATE {}", t.sql_name());
        let forget = format!("DELETE FROM {} WHERE table_name = $1", j.sql());
        if rules.truncate_in_transaction {
            let mut tx = client.transaction().map_err(|e| sql_err(&e))?;
            tx.execute(&truncate, &[]).map_err(in_words)?;
            tx.execute(&forget, &[&t.display()]).map_err(in_words)?;
            tx.commit().map_err(|e| sql_err(&e))?;
        } else {
            // Journal rows first: stopped between the two, the table's rows are unaccounted
            // for (refused, or emptied by the next --truncate), never taken as loaded.
            client.execute(&forget, &[&t.display()]).map_err(in_words)?;
            client.execute(&truncate, &[]).map_err(in_words)?;
        }
        return Ok(0);
    }
    if append && extra > 0 {
        return Ok(extra);
    }
    if let Some(first) = foreign.first() {
        return Err(Error::Usage(format!(
            "table {} holds {foreign_rows} rows that journal {} records as loaded from {} \
             file(s) this run does not load (first: {}): the table was loaded from another \
             manifest, or its files were converted again or moved; {RELOAD}, or use --append \
             to add this run's files to it",
            t.display(),
            j.sql(),
            foreign.len(),
            first.get::<_, String>(0)
        )));
    }
    if extra < 0 {
        // Fewer rows than loaded: not "loaded some other way" (csvload loaded them).
        return Err(Error::Usage(format!(
            "table {} holds {count} rows but journal {} records {journaled} as loaded: rows \
             were deleted since; {RELOAD}",
            t.display(),
            j.sql()
        )));
    }
    Err(Error::Usage(format!(
        "table {} holds {count} rows but journal {} accounts for {journaled}: {} rows were \
         written some other way; {RELOAD}, or use --append to add this run's rows to them",
        t.display(),
        j.sql(),
        count - journaled
    )))
}

/// The table as a `FROM` item for counting its own rows: `ONLY`, so an inheritance parent
/// does not count its children's rows (which the manifest lists as tables of their own); a
/// partitioned table as is, since its rows live in its partitions. Servers without
/// `pg_class` or `ONLY` (CockroachDB) get the plain name.
pub fn from_item(client: &mut Client, t: &TablePlan) -> String {
    let partitioned: Option<bool> = client
        .query_opt(
            "SELECT relkind::text = 'p' FROM pg_catalog.pg_class WHERE oid = $1::text::regclass",
            &[&t.sql_name()],
        )
        .ok()
        .flatten()
        .map(|r| r.get(0));
    match partitioned {
        Some(false) => format!("ONLY {}", t.sql_name()),
        _ => t.sql_name(),
    }
}

/// Rows of the table itself (see [`from_item`]).
pub fn count_rows(client: &mut Client, t: &TablePlan) -> std::result::Result<i64, postgres::Error> {
    let from = from_item(client, t);
    count_from(client, &from)
}

/// Rows of the FROM item `from` (from [`from_item`]).
fn count_from(client: &mut Client, from: &str) -> std::result::Result<i64, postgres::Error> {
    Ok(client
        .query_one(&format!("SELECT count(*) FROM {from}"), &[])?
        .get(0))
}
