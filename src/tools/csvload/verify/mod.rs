//! `csvload --verify content`: proves that every value arrived, not only that the row counts
//! agree. Each table gets an order-independent digest of its records from the CSV files and
//! another from the target (read back with `COPY (SELECT ...) TO STDOUT`); equal digests mean
//! equal multisets of records, value by value in each type's canonical form
//! ([`crate::pg::types::canon`]).
//!
//! The digest of a record is a 128-bit xxh3 of its canonical form (per field: NULL, or the
//! value's canonical bytes with their length, so NULL and '' differ). A table's digest is the
//! wrapping sum of its records' hashes and their count (a multiset digest: order and shard
//! boundaries do not matter, and a record loaded twice counts twice), kept also per bucket
//! of the primary key's hash (every record of one key lands in one bucket, so an `UPDATE`d
//! row shows as one bucket whose two sides differ). Differences are localized by a second
//! pass over the differing buckets only, which prints the records of both sides.
//!
//! The CSV side is read in a pass of its own, concurrently with the target's read (one
//! thread each per table, `-j` tables at once), rather than inside the load loop: the
//! figure is the same, and the load path stays as it is. Memory is flat: the records stream
//! through fixed buffers; the digests are a fixed table per table being compared.
//!
//! The parts: `catalog.rs` (a table's [`Shape`] from the target's catalog), `digest.rs`
//! (records hashed into digests), `sides.rs` (reading the CSV files and the target),
//! `diff.rs` (the second pass's tally and its lines), `compare.rs` (one table's passes); the
//! run over all tables and its report are here.

use super::conn::Target;
use super::plan::Plan;
use super::server_message;
use crate::io::error::{Error, Result};
use crate::io::names::Escaped;
use std::io::Write;
use std::sync::Mutex;

mod catalog;
mod compare;
mod diff;
mod digest;
mod sides;

pub use catalog::{Shape, shape};
use compare::{Report, table};
pub use digest::{Digest, Hashed, Hasher, Mode};

/// What verification compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Verify {
    /// Row counts (and a csvsplit key's min and max) against the manifests.
    Count,
    /// Counts, then a digest of every value, from the CSV files and from the target.
    Content,
    /// Each table exists and its journal rows add up to the manifests' rows: what a run with
    /// nothing left to do checks, without counting a large database again.
    Journal,
    /// Nothing after the load (each file's COPY must still take every record its manifest
    /// counts): for a run verified later, as examples/migrate.mk verifies every table once
    /// after the post-data.
    None,
}

/// Key buckets per table: fine enough that the second pass reads few records.
pub const BUCKETS: usize = 1 << 16;

/// Most records held in memory by the second pass (over the differing buckets).
const DIFF_RECORDS: u64 = 50_000;

/// Session settings for reading values back, as pg_dump sets them for its own session
/// (DateStyle ISO, IntervalStyle postgres, extra_float_digits 3), plus hex bytea and UTC.
/// pg_dump writes timestamptz in its session's zone, which the dump does not record; the
/// values carry their offset, so both sides are compared as UTC instants anyway.
pub const SESSION: &str = "SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; \
     SET extra_float_digits = 3; SET bytea_output = 'hex'; SET TimeZone = 'UTC'";

/// `--verify content`: every table of the plan, `jobs` at once, each on its own connection
/// with [`SESSION`] settings. Prints a line per table (and the differences) on stdout; exit 1
/// when any table differs.
pub fn content(target: &Target, plan: &Plan, jobs: usize, diff: u64, quiet: bool) -> Result<()> {
    let n = plan.tables.len();
    let next = Mutex::new(0usize);
    let reports: Mutex<Vec<Option<Report>>> = Mutex::new((0..n).map(|_| None).collect());
    let fatal: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            s.spawn(|| {
                let fail = |e: Error| {
                    fatal.lock().unwrap().get_or_insert(e);
                };
                let mut client = match target.connect() {
                    Ok(c) => c,
                    Err(e) => return fail(e),
                };
                if let Err(e) = client.batch_execute(SESSION) {
                    return fail(Error::Usage(format!(
                        "setting up the verification session: {}",
                        server_message(&e)
                    )));
                }
                loop {
                    if fatal.lock().unwrap().is_some() {
                        return;
                    }
                    let ti = {
                        let mut k = next.lock().unwrap();
                        if *k >= n {
                            return;
                        }
                        *k += 1;
                        *k - 1
                    };
                    match table(&mut client, plan, ti, diff) {
                        Ok(r) => reports.lock().unwrap()[ti] = Some(r),
                        Err(e) => return fail(e),
                    }
                }
            });
        }
    });
    if let Some(e) = fatal.into_inner().unwrap() {
        return Err(e);
    }
    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| Error::io("<stdout>", e);
    let mut bad = Vec::new();
    if !quiet && n > 0 {
        writeln!(
            out,
            "{:<40} {:>12} {:>12}  content",
            "table", "csv records", "target rows"
        )
        .map_err(w)?;
    }
    for (t, r) in plan.tables.iter().zip(reports.into_inner().unwrap()) {
        let r = r.expect("every table reported");
        if !r.ok {
            bad.push(t.display());
        }
        if !quiet || !r.ok {
            writeln!(out, "{}", table_row(&t.display(), r.csv, r.target, r.ok)).map_err(w)?;
        }
        for l in &r.lines {
            // Keys and values from the files and the target: one line each on the terminal,
            // their control characters escaped (a value cannot repaint a row as "ok").
            writeln!(out, "{}", Escaped(l)).map_err(w)?;
        }
        if !r.retyped.is_empty() {
            // Not only without -q: this says why a table differs, or that it was compared
            // by types the target does not have.
            eprintln!(
                "csvload: warning: {}: compared by the manifest's types, which the target's columns do not have (a value the target's type does not keep exactly is a difference): {}",
                Escaped(t.display()),
                Escaped(r.retyped.join(", "))
            );
        }
        if !quiet && !r.text_cols.is_empty() {
            eprintln!(
                "csvload: {}: compared as exact text (no canonical form for the type): {}",
                Escaped(t.display()),
                Escaped(r.text_cols.join(", "))
            );
        }
    }
    out.flush().map_err(w)?;
    if !bad.is_empty() {
        return Err(Error::Found(format!(
            "content verification failed: {} table(s) differ from the CSV files: {}",
            bad.len(),
            bad.join(", ")
        )));
    }
    Ok(())
}

/// One row of the content verification table, the table's name escaped for the terminal
/// (a name from a hostile dump cannot move the cursor or forge a row of its own).
fn table_row(name: &str, csv: u64, target: u64, ok: bool) -> String {
    format!(
        "{:<40} {:>12} {:>12}  {}",
        Escaped(name),
        csv,
        target,
        if ok { "ok" } else { "DIFFERENT" }
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_rows_escape_control_characters() {
        // Issue 19 item 17: the content table printed names raw (ESC and CR reached the
        // terminal).
        let row = super::table_row("public.t\x1b[1A\rx", 2, 2, false);
        assert!(!row.chars().any(|c| c.is_control()), "{row:?}");
        assert!(row.contains("\\x1b") && row.contains("\\r") && row.ends_with("DIFFERENT"));
    }
}
