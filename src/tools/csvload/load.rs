//! The data phase: each file streamed into `COPY ... FROM STDIN` in batches of whole
//! records, each batch committed together with its journal row, so a rerun loads exactly
//! what is missing.
//!
//! Memory per worker is bounded by the read chunk (1 MiB, or the longest record) plus the input's
//! decompression buffers, whatever the file or batch size: records go to the server as
//! they are read.

use super::conn::Target;
use super::plan::{FileJob, Plan, TablePlan};
use super::server_message;
use super::stall::net;
use crate::csv::records::{Chunk, ChunkReader};
use crate::io::error::{Error, IoContext, Pos, Result};
use crate::io::input;
use postgres::Client;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Bytes read per chunk.
const CHUNK: usize = 1 << 20;

/// The journal table, as `schema.table` (both quoted) and its parts.
#[derive(Debug, Clone)]
pub struct Journal {
    /// Schema, unquoted.
    pub schema: String,
    /// Table, unquoted.
    pub table: String,
}

impl Journal {
    /// Parses `SCHEMA.TABLE`.
    pub fn parse(s: &str) -> Result<Journal> {
        match s.split_once('.') {
            Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok(Journal {
                schema: a.into(),
                table: b.into(),
            }),
            _ => Err(Error::Usage(format!(
                "--journal '{s}': give it as SCHEMA.TABLE"
            ))),
        }
    }

    /// Quoted qualified name.
    pub fn sql(&self) -> String {
        format!(
            "{}.{}",
            super::plan::quote_ident(&self.schema),
            super::plan::quote_ident(&self.table)
        )
    }

    /// Creates the schema and table if missing. One row per committed batch; the primary key
    /// makes a second commit of the same batch (e.g. two loaders at once) fail instead of
    /// duplicating rows.
    pub fn ensure(&self, client: &mut Client) -> Result<()> {
        let sql = format!(
            "CREATE SCHEMA IF NOT EXISTS {schema};
             CREATE TABLE IF NOT EXISTS {t} (
                table_name text NOT NULL,
                file text NOT NULL,
                file_size bigint NOT NULL,
                checksum text NOT NULL,
                byte_start bigint NOT NULL,
                byte_end bigint NOT NULL,
                batch_xxh64 text NOT NULL,
                first_record bigint NOT NULL,
                records bigint NOT NULL,
                next_line bigint NOT NULL,
                last boolean NOT NULL,
                loaded_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (table_name, file, byte_start))",
            schema = super::plan::quote_ident(&self.schema),
            t = self.sql()
        );
        // Two runs starting at once may both find the schema or table missing; IF NOT EXISTS
        // does not make that safe, and the slower one fails on the catalog's unique index
        // (23505) or with 42P07/42P06. By then the other has created it: try once more.
        let mut res = client.batch_execute(&sql);
        if let Err(e) = &res
            && e.as_db_error()
                .is_some_and(|d| matches!(d.code().code(), "23505" | "42P07" | "42P06"))
        {
            res = client.batch_execute(&sql);
        }
        res.map_err(|e| {
            Error::Usage(format!(
                "creating journal {}: {}",
                self.sql(),
                server_message(&e)
            ))
        })
    }

    /// Rows the journal accounts for in `table`.
    pub fn rows_of(&self, client: &mut Client, table: &str) -> Result<i64> {
        let q = format!(
            "SELECT coalesce(sum(records), 0)::bigint FROM {} WHERE table_name = $1",
            self.sql()
        );
        let row = client.query_one(&q, &[&table]).map_err(|e| sql_err(&e))?;
        Ok(row.get(0))
    }
}

/// A server or connection error outside any file: exit 2.
pub fn sql_err(e: &postgres::Error) -> Error {
    Error::Usage(server_message(e))
}

/// One committed batch as the journal records it.
struct Batch {
    start: u64,
    end: u64,
    hash: String,
    next_record: u64,
    next_line: u64,
    last: bool,
    file_sum: String,
}

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
}

/// Rows and batches this run has committed, for the words printed on SIGINT/SIGTERM.
pub static COMMITTED_ROWS: AtomicU64 = AtomicU64::new(0);
/// Batches this run has committed.
pub static COMMITTED_BATCHES: AtomicU64 = AtomicU64::new(0);

/// The checksum that identifies `job`'s file in the journal.
fn checksum(job: &FileJob) -> Result<String> {
    if let Some(c) = &job.checksum {
        return Ok(c.clone());
    }
    let mut f = std::fs::File::open(&job.path).at(&job.path)?;
    let mut h = twox_hash::XxHash64::with_seed(0);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).at(&job.path)?;
        if n == 0 {
            break;
        }
        std::hash::Hasher::write(&mut h, &buf[..n]);
    }
    Ok(format!("xxh64:{:016x}", std::hash::Hasher::finish(&h)))
}

fn hex(h: &twox_hash::XxHash64) -> String {
    format!("{:016x}", std::hash::Hasher::finish(h))
}

/// The CRC-32 a csvsplit manifest gives for the file (of its uncompressed content).
fn manifest_crc(job: &FileJob) -> Option<&str> {
    job.checksum.as_deref()?.strip_prefix("crc32:")
}

/// What the file turned out to hold against what its manifest says: `crc` of all its
/// (uncompressed) bytes and `records` with the header. `None` when they agree.
fn facts_differ(job: &FileJob, crc: u32, records: Option<u64>) -> Option<String> {
    if let Some(want) = manifest_crc(job)
        && !want.eq_ignore_ascii_case(&format!("{crc:08x}"))
    {
        return Some(format!(
            "its CRC-32 is {crc:08x} but its manifest says {want}: the file changed after it \
             was written (restore it, or split again); nothing of it was committed"
        ));
    }
    let data = records?.saturating_sub(job.header as u64);
    if data != job.records {
        return Some(format!(
            "it holds {data} records{} but its manifest says {}: the file changed after it \
             was written, or the manifest's header facts are wrong; nothing of it was committed",
            if job.header { " after its header" } else { "" },
            job.records
        ));
    }
    None
}

/// Checks a file against its manifest before the first of several transactions commits:
/// the CRC-32 when the manifest gives one (bytes only, no CSV parsing), else the record
/// count.
fn precheck(job: &FileJob) -> Result<()> {
    let inp = input::open(Some(&job.path))?;
    let name = inp.name.clone();
    let (crc, records) = if manifest_crc(job).is_some() {
        let mut r = inp.reader;
        let mut buf = vec![0u8; CHUNK];
        let mut crc = 0u32;
        loop {
            let n = r.read(&mut buf).at(&name)?;
            if n == 0 {
                break;
            }
            crc = zlib_rs::crc32::crc32(crc, &buf[..n]);
        }
        (crc, None)
    } else {
        let mut cr = ChunkReader::new(inp.reader, &name, CHUNK);
        let mut n = 0u64;
        let mut buf = Vec::new();
        while let Some(c) = cr.next_chunk(buf)? {
            n += c.len() as u64;
            buf = c.data;
        }
        (0, Some(n))
    };
    match facts_differ(job, crc, records) {
        Some(m) => Err(Error::file(&name, m)),
        None => Ok(()),
    }
}

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
    loop {
        let before = loaded;
        let why = match load_once(client, plan, job, o, &mut loaded, &mut checked) {
            Ok(out) => return Ok(out),
            Err(Fail::Fatal(e)) => return Err(e),
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

/// One try at a file: resumes after what the journal holds of it. `loaded` counts the
/// records this run committed; `checked` is set once the file matched its manifest.
fn load_once(
    client: &mut Client,
    plan: &Plan,
    job: &FileJob,
    o: &Opts,
    loaded: &mut u64,
    checked: &mut bool,
) -> std::result::Result<Outcome, Fail> {
    let t = &plan.tables[job.table];
    let tname = t.display();
    let size = std::fs::metadata(&job.path).at(&job.path)?.len() as i64;
    let sum = checksum(job)?;
    let done = net(|| journal_batches(client, o.journal, &tname, job))?;
    if done
        .last()
        .is_some_and(|l| l.last && done.iter().all(|b| b.file_sum == sum))
    {
        return Ok(Outcome::Done(*loaded));
    }
    // Several transactions: the file must match its manifest before the first commits.
    if o.batch_rows.is_some() && !*checked {
        precheck(job)?;
        *checked = true;
    }
    let inp = input::open(Some(&job.path))?;
    let name = inp.name.clone();
    let mut reader = inp.reader;
    let (mut byte, mut record, mut line) = (0u64, 1u64, 1u64);
    // The CRC-32 of everything read, checked against the manifest before the last COMMIT.
    let mut crc = 0u32;
    if let Some(first) = done.first() {
        // Resume: the committed batches must be what the file still holds there.
        let changed = |b: &Batch| {
            Error::file(
                &name,
                format!(
                    "bytes {}..{} differ from what journal {} says was loaded from this file: it \
                     changed within the loaded part (restore it, or reload the table with \
                     --truncate)",
                    b.start,
                    b.end,
                    o.journal.sql()
                ),
            )
        };
        let mut buf = vec![0u8; CHUNK];
        let mut left = first.start;
        while left > 0 {
            let k = reader
                .read(&mut buf[..left.min(CHUNK as u64) as usize])
                .at(&name)?;
            if k == 0 {
                return Err(changed(first).into());
            }
            crc = zlib_rs::crc32::crc32(crc, &buf[..k]);
            left -= k as u64;
        }
        for b in &done {
            let mut h = twox_hash::XxHash64::with_seed(0);
            let mut left = b.end - b.start;
            while left > 0 {
                let k = reader
                    .read(&mut buf[..left.min(CHUNK as u64) as usize])
                    .at(&name)?;
                if k == 0 {
                    return Err(changed(b).into());
                }
                std::hash::Hasher::write(&mut h, &buf[..k]);
                crc = zlib_rs::crc32::crc32(crc, &buf[..k]);
                left -= k as u64;
            }
            if hex(&h) != b.hash {
                return Err(changed(b).into());
            }
        }
        let l = done.last().expect("not empty");
        if l.last {
            // Loaded completely under another checksum (batches committed before and after
            // a fix): done if nothing follows the last batch.
            if reader.read(&mut buf[..1]).at(&name)? == 0 {
                return Ok(Outcome::Done(*loaded));
            }
            return Err(Error::file(
                &name,
                format!(
                    "was loaded completely (journal {}) and has grown since; reload the \
                     table with --truncate",
                    o.journal.sql()
                ),
            )
            .into());
        }
        (byte, record, line) = (l.end, l.next_record, l.next_line);
        if !o.quiet {
            eprintln!(
                "csvload: {}: resuming at line {line} (record {record}, byte {byte}): \
                 {} batch(es) of it already committed (journal {})",
                crate::io::names::display_name(&name),
                done.len(),
                o.journal.sql()
            );
        }
    }
    let resumed = !done.is_empty();
    let mut cr = ChunkReader::new(reader, &name, CHUNK);
    // The chunk being sent and the index of its next record. Each batch runs even when
    // nothing is left, so an empty file gets its (empty) journal row too.
    let mut pending: Option<(Chunk, usize)> = None;
    let mut eof = false;
    if job.header && !resumed {
        cr.set_target(1);
        match cr.next_chunk(Vec::new())? {
            Some(c) if !c.is_empty() => {
                let end = c.ends[0];
                crc = zlib_rs::crc32::crc32(crc, &c.data[..end]);
                byte += end as u64;
                line += memchr::memchr_iter(b'\n', &c.data[..end]).count() as u64;
                record += 1;
                pending = Some((c, 1));
            }
            _ => eof = true,
        }
        cr.set_target(CHUNK);
    }
    let copy_sql = o.rules.copy_sql(t);
    let ins = format!(
        "INSERT INTO {} (table_name, file, file_size, checksum, byte_start, byte_end, \
         batch_xxh64, first_record, records, next_line, last) \
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
        o.journal.sql()
    );
    loop {
        if (o.stop)(job.table) {
            return Ok(Outcome::Stopped(*loaded));
        }
        let start = (byte, record, line);
        let mut tx = net(|| client.transaction()).map_err(pg_fail)?;
        let mut n = 0u64;
        let mut bh = twox_hash::XxHash64::with_seed(0);
        let res: std::result::Result<(), BatchErr> = (|| {
            let mut w = net(|| tx.copy_in(&copy_sql)).map_err(BatchErr::Pg)?;
            loop {
                if pending.as_ref().is_none_or(|(c, i)| *i >= c.len()) {
                    if eof {
                        break;
                    }
                    let buf = pending.take().map(|(c, _)| c.data).unwrap_or_default();
                    match cr.next_chunk(buf).map_err(BatchErr::Other)? {
                        Some(c) => pending = Some((c, 0)),
                        None => {
                            eof = true;
                            break;
                        }
                    }
                    continue;
                }
                let Some((c, i)) = pending.as_mut() else {
                    break;
                };
                let avail = (c.len() - *i) as u64;
                let take = match o.batch_rows {
                    Some(b) => avail.min(b - n),
                    None => avail,
                };
                let from = c.range(*i).start;
                let to = c.ends[*i + take as usize - 1];
                let slice = &c.data[from..to];
                // In pieces, so the --io-timeout measures a stall, not a slow server.
                for piece in slice.chunks(64 << 10) {
                    net(|| w.write_all(piece)).map_err(BatchErr::Io)?;
                }
                std::hash::Hasher::write(&mut bh, slice);
                crc = zlib_rs::crc32::crc32(crc, slice);
                byte += slice.len() as u64;
                line += memchr::memchr_iter(b'\n', slice).count() as u64;
                *i += take as usize;
                n += take;
                if o.batch_rows.is_some_and(|b| n >= b) {
                    break;
                }
            }
            let got = net(|| w.finish()).map_err(BatchErr::Pg)?;
            if got != n {
                return Err(BatchErr::Other(Error::file(
                    &name,
                    format!("the server took {got} rows of a batch of {n} records"),
                )));
            }
            Ok(())
        })();
        if let Err(e) = res {
            drop(tx);
            let pe = match e {
                BatchErr::Other(e) => return Err(e.into()),
                BatchErr::Io(e) => match io_pg(&e) {
                    Some(pe) if pe.as_db_error().is_some() && !retryable(pe) => {
                        return Ok(Outcome::Refused(
                            refused(job, &name, &tname, start, pe),
                            *loaded,
                        ));
                    }
                    Some(pe) => return Err(pg_fail_ref(pe)),
                    // Writing to the server failed: the connection is gone.
                    None => return Err(Fail::Retry(format!("sending to the server: {e}"))),
                },
                BatchErr::Pg(pe) => pe,
            };
            if pe.as_db_error().is_some() && !retryable(&pe) {
                return Ok(Outcome::Refused(
                    refused(job, &name, &tname, start, &pe),
                    *loaded,
                ));
            }
            return Err(pg_fail(pe));
        }
        // The batch is the last when the input has nothing after it.
        if pending.as_ref().is_none_or(|(c, i)| *i >= c.len()) && !eof {
            let buf = pending.take().map(|(c, _)| c.data).unwrap_or_default();
            match cr.next_chunk(buf)? {
                Some(c) => pending = Some((c, 0)),
                None => eof = true,
            }
        }
        let last = pending.as_ref().is_none_or(|(c, i)| *i >= c.len()) && eof;
        if last && let Some(m) = facts_differ(job, crc, Some(record + n - 1)) {
            drop(tx);
            return Err(Error::file(&name, m).into());
        }
        net(|| {
            tx.execute(
                &ins,
                &[
                    &tname,
                    &job.key,
                    &size,
                    &sum,
                    &(start.0 as i64),
                    &(byte as i64),
                    &hex(&bh),
                    &(start.1 as i64),
                    &(n as i64),
                    &(line as i64),
                    &last,
                ],
            )
        })
        .map_err(|e| journal_conflict(&e, o.journal, &name).unwrap_or_else(|| pg_fail(e)))?;
        // An error here leaves the outcome unknown: the next try reads the journal.
        net(|| tx.commit()).map_err(pg_fail)?;
        record += n;
        *loaded += n;
        COMMITTED_ROWS.fetch_add(n, Ordering::SeqCst);
        COMMITTED_BATCHES.fetch_add(1, Ordering::SeqCst);
        (o.committed)(n);
        if last {
            return Ok(Outcome::Done(*loaded));
        }
    }
}

fn pg_fail_ref(e: &postgres::Error) -> Fail {
    if retryable(e) && e.as_db_error().is_none() {
        Fail::Retry(format!("lost the connection to the server ({e})"))
    } else if retryable(e) {
        Fail::Retry(server_message(e))
    } else {
        Fail::Fatal(sql_err(e))
    }
}

/// The journal's primary key refused a batch: another loader committed the same batch of
/// the same file meanwhile (two runs at once on one table without the advisory lock, as on
/// a server without advisory locks). Said in words, not as a raw duplicate key.
fn journal_conflict(e: &postgres::Error, j: &Journal, name: &str) -> Option<Fail> {
    let d = e.as_db_error()?;
    if d.code() != &postgres::error::SqlState::UNIQUE_VIOLATION {
        return None;
    }
    Some(Fail::Fatal(Error::file(
        name,
        format!(
            "another loader committed this batch of the file at the same time (journal {} \
             already records it; nothing of this try was committed): two loads of one table \
             ran at once; rerun the same command when the other has finished",
            j.sql()
        ),
    )))
}

enum BatchErr {
    Pg(postgres::Error),
    Io(std::io::Error),
    Other(Error),
}

fn io_pg(e: &std::io::Error) -> Option<&postgres::Error> {
    e.get_ref()?.downcast_ref::<postgres::Error>()
}

/// The journal rows of this file, in order; they must form one run.
fn journal_batches(
    client: &mut Client,
    j: &Journal,
    table: &str,
    job: &FileJob,
) -> std::result::Result<Vec<Batch>, Fail> {
    let q = format!(
        "SELECT byte_start, byte_end, batch_xxh64, first_record + records, next_line, last, \
         checksum FROM {} WHERE table_name = $1 AND file = $2 ORDER BY byte_start",
        j.sql()
    );
    let rows = client.query(&q, &[&table, &job.key]).map_err(pg_fail)?;
    let mut out: Vec<Batch> = Vec::with_capacity(rows.len());
    for row in &rows {
        let b = Batch {
            start: row.get::<_, i64>(0) as u64,
            end: row.get::<_, i64>(1) as u64,
            hash: row.get(2),
            next_record: row.get::<_, i64>(3) as u64,
            next_line: row.get::<_, i64>(4) as u64,
            last: row.get(5),
            file_sum: row.get(6),
        };
        if out.last().is_some_and(|p| p.end != b.start || p.last) {
            return Err(Error::file(
                job.path.display().to_string(),
                format!(
                    "journal {} has a gap or overlap at byte {} for this file (edited by hand?)",
                    j.sql(),
                    b.start
                ),
            )
            .into());
        }
        out.push(b);
    }
    Ok(out)
}

/// The server's COPY line number: `line N` in the error's context (`COPY t, line 3, column
/// v: "x"`), the Nth physical line of the data the batch sent.
fn copy_line(e: &postgres::Error) -> Option<u64> {
    let w = e.as_db_error()?.where_()?;
    let k = w.find(", line ")?;
    let rest = &w[k + 7..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse::<u64>().ok().filter(|&n| n > 0)
}

/// Builds the message for a row the server refused. The server numbers the lines of the
/// COPY data it read (see [`locate`]), so its `line N` is mapped through the records of the
/// batch, reread from the file (error path only), to the record holding that line, and named
/// by the file's own line, record and byte.
fn refused(
    job: &FileJob,
    name: &str,
    table: &str,
    start: (u64, u64, u64),
    e: &postgres::Error,
) -> String {
    let at_start = Pos {
        file: name.into(),
        line: start.2,
        byte: start.0,
        record: Some(start.1),
    };
    let found = copy_line(e).and_then(|n| {
        let inp = input::open(Some(&job.path)).ok()?;
        let mut r = inp.reader;
        std::io::copy(&mut (&mut r).take(start.0), &mut std::io::sink()).ok()?;
        locate(r, name, start, n)
    });
    let what = if found.is_some() {
        ""
    } else {
        " (in the batch starting here)"
    };
    format!(
        "{} table {table}: row refused{what}: {}",
        found.unwrap_or(at_start),
        server_message(e)
    )
}

/// The record of a batch (read from `r`, which starts at the batch's first record; `start`
/// is its byte, record and line in the file) that holds the server's COPY line `n`.
///
/// The server counts lines as PostgreSQL's COPY FROM (copyfromparse.c) does: one per record,
/// plus, inside quotes, each character that is the stream's line terminator, which it learns
/// at the end of the first record: `\n` for `\n`-terminated data, `\r` for `\r\n`; before
/// that (inside the first record) only `\r` counts. So the first record of a batch with a
/// quoted newline takes one server line, and later ones as many as they have lines.
pub fn locate<R: Read>(r: R, name: &str, start: (u64, u64, u64), n: u64) -> Option<Pos> {
    let mut cr = ChunkReader::new(r, name, CHUNK);
    let mut buf = Vec::new();
    // The server's line where the next record starts; the file's line, byte and record.
    let (mut sl, mut line, mut byte, mut rec) = (1u64, start.2, start.0, start.1);
    let mut eol: Option<u8> = None;
    while let Ok(Some(c)) = cr.next_chunk(buf) {
        for i in 0..c.len() {
            let r = c.record(i);
            let term = if r.ends_with(b"\r\n") {
                2
            } else {
                r.ends_with(b"\n") as usize
            };
            let body = &r[..r.len() - term];
            let counted = memchr::memchr_iter(eol.unwrap_or(b'\r'), body).count() as u64;
            if n <= sl + counted {
                return Some(Pos {
                    file: name.into(),
                    line,
                    byte,
                    record: Some(rec),
                });
            }
            if eol.is_none() && term > 0 {
                eol = Some(if term == 2 { b'\r' } else { b'\n' });
            }
            sl += 1 + counted;
            line += memchr::memchr_iter(b'\n', r).count() as u64;
            byte += r.len() as u64;
            rec += 1;
        }
        buf = c.data;
    }
    None
}

/// Refuses a table holding rows the journal does not account for, or empties it (and its
/// journal rows) with `truncate`. Returns the unaccounted rows kept (with `append`).
///
/// Rows the journal records as loaded from files that are not among `files` (this run's files
/// of the table, by journal key) count as unaccounted too: they come from another manifest or
/// from the same data converted again or moved, and loading this run's files on top of them
/// would load those records twice.
pub fn prepare_table(
    client: &mut Client,
    j: &Journal,
    t: &TablePlan,
    files: &[String],
    truncate: bool,
    append: bool,
    rules: &super::target::Rules,
) -> Result<i64> {
    let count = count_rows(client, t)
        .map_err(|e| Error::Usage(format!("table {}: {}", t.display(), server_message(&e))))?;
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
    let foreign_rows: i64 = foreign.iter().map(|r| r.get::<_, i64>(1)).sum();
    let extra = count - journaled + foreign_rows;
    if extra == 0 {
        return Ok(0);
    }
    if truncate {
        // The table's name is quoted by the one quoting function; the journal key travels
        // as a bind parameter (once built with doubled quotes only, a hostile table name
        // ran SQL here on a server with standard_conforming_strings = off).
        let in_words = |e: postgres::Error| {
            Error::Usage(format!("table {}: {}", t.display(), server_message(&e)))
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
             manifest, or its files were converted again or moved; use --truncate to reload \
             it from this run's files, or --append to add them",
            t.display(),
            j.sql(),
            foreign.len(),
            first.get::<_, String>(0)
        )));
    }
    Err(Error::Usage(format!(
        "table {} holds {count} rows but journal {} accounts for {journaled}: it was loaded \
         some other way (use --truncate to empty it first, or --append to add to it)",
        t.display(),
        j.sql()
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
    Ok(client
        .query_one(&format!("SELECT count(*) FROM {from}"), &[])?
        .get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server's COPY line numbers (as PostgreSQL 15 reported them for this data) map to
    /// the records holding them: a quoted newline in the batch's first record is not counted
    /// by the server, later ones are.
    #[test]
    fn server_lines_map_to_records() {
        let data = b"7,\"a\nb\",1\n8,x,2\n9,\"c\nd\",3\n10,y,4\n";
        let at = |n| {
            let p = locate(&data[..], "f", (100, 7, 20), n).unwrap();
            (p.record.unwrap(), p.line, p.byte)
        };
        assert_eq!(at(1), (7, 20, 100));
        assert_eq!(at(2), (8, 22, 110));
        assert_eq!(at(3), (9, 23, 116));
        assert_eq!(at(4), (9, 23, 116));
        assert_eq!(at(5), (10, 25, 126));
        assert!(locate(&data[..], "f", (0, 1, 1), 6).is_none());
        // CRLF data: the terminator is \r\n, so quoted \r\n pairs count once each.
        let crlf = b"1,x\r\n2,\"a\r\nb\",1\r\n3,y\r\n";
        let p = locate(&crlf[..], "f", (0, 1, 1), 4).unwrap();
        assert_eq!((p.record, p.line), (Some(3), 4));
    }

    /// The manifest's facts against the file's: CRC-32 first (csvsplit), then records
    /// (header excluded); an empty file that was to have a header holds 0 records.
    #[test]
    fn facts_checked() {
        let job = |header, records, crc: Option<&str>| FileJob {
            table: 0,
            path: "f".into(),
            key: "f".into(),
            header,
            records,
            checksum: crc.map(|c| format!("crc32:{c}")),
        };
        let crc = zlib_rs::crc32::crc32(0, b"a\n");
        assert!(facts_differ(&job(false, 1, Some(&format!("{crc:08x}"))), crc, Some(1)).is_none());
        assert!(facts_differ(&job(false, 1, Some(&format!("{crc:08X}"))), crc, None).is_none());
        let e = facts_differ(&job(false, 1, Some("00000000")), crc, Some(1)).unwrap();
        assert!(e.contains("CRC-32"), "{e}");
        let e = facts_differ(&job(true, 2, None), 0, Some(2)).unwrap();
        assert!(e.contains("holds 1 records after its header"), "{e}");
        assert!(facts_differ(&job(true, 0, None), 0, Some(0)).is_none());
    }
}
