//! The data phase: each file streamed into `COPY ... FROM STDIN` in batches of whole
//! records, each batch committed together with its journal row, so a rerun loads exactly
//! what is missing.
//!
//! Memory per worker is bounded by the read chunk (1 MiB, or the longest record) plus the input's
//! decompression buffers, whatever the file or batch size: records go to the server as
//! they are read.

use super::plan::{FileJob, Plan, TablePlan, quote_literal};
use super::server_message;
use crate::error::{Error, IoContext, Pos, Result};
use crate::input;
use crate::records::{Chunk, ChunkReader};
use postgres::Client;
use std::io::{Read, Write};
use std::path::Path;

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
        client.batch_execute(&sql).map_err(|e| {
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
    /// The journal.
    pub journal: &'a Journal,
    /// True when the run must stop after the current batch.
    pub stop: &'a dyn Fn(usize) -> bool,
    /// Told the records of each committed batch (for the progress bar).
    pub committed: &'a dyn Fn(u64),
}

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

/// Loads one file (or what of it the journal does not yet record).
pub fn load_file(client: &mut Client, plan: &Plan, job: &FileJob, o: &Opts) -> Result<Outcome> {
    let t = &plan.tables[job.table];
    let tname = t.display();
    let size = std::fs::metadata(&job.path).at(&job.path)?.len() as i64;
    let sum = checksum(job)?;
    let done = journal_batches(client, o.journal, &tname, job)?;
    if done
        .last()
        .is_some_and(|l| l.last && done.iter().all(|b| b.file_sum == sum))
    {
        return Ok(Outcome::Done(0));
    }
    let inp = input::open(Some(&job.path))?;
    let name = inp.name.clone();
    let mut reader = inp.reader;
    let (mut byte, mut record, mut line) = (0u64, 1u64, 1u64);
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
        std::io::copy(&mut (&mut reader).take(first.start), &mut std::io::sink()).at(&name)?;
        let mut buf = vec![0u8; CHUNK];
        for b in &done {
            let mut h = twox_hash::XxHash64::with_seed(0);
            let mut left = b.end - b.start;
            while left > 0 {
                let k = reader
                    .read(&mut buf[..left.min(CHUNK as u64) as usize])
                    .at(&name)?;
                if k == 0 {
                    return Err(changed(b));
                }
                std::hash::Hasher::write(&mut h, &buf[..k]);
                left -= k as u64;
            }
            if hex(&h) != b.hash {
                return Err(changed(b));
            }
        }
        let l = done.last().expect("not empty");
        if l.last {
            // Loaded completely under another checksum (batches committed before and after
            // a fix): done if nothing follows the last batch.
            if reader.read(&mut buf[..1]).at(&name)? == 0 {
                return Ok(Outcome::Done(0));
            }
            return Err(Error::file(
                &name,
                format!(
                    "was loaded completely (journal {}) and has grown since; reload the \
                     table with --truncate",
                    o.journal.sql()
                ),
            ));
        }
        (byte, record, line) = (l.end, l.next_record, l.next_line);
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
                byte += end as u64;
                line += memchr::memchr_iter(b'\n', &c.data[..end]).count() as u64;
                record += 1;
                pending = Some((c, 1));
            }
            _ => eof = true,
        }
        cr.set_target(CHUNK);
    }
    let copy_sql = t.copy_sql();
    let ins = format!(
        "INSERT INTO {} (table_name, file, file_size, checksum, byte_start, byte_end, \
         batch_xxh64, first_record, records, next_line, last) \
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
        o.journal.sql()
    );
    let mut loaded = 0u64;
    loop {
        if (o.stop)(job.table) {
            return Ok(Outcome::Stopped(loaded));
        }
        let start = (byte, record, line);
        let mut tx = client.transaction().map_err(|e| sql_err(&e))?;
        let mut n = 0u64;
        let mut bh = twox_hash::XxHash64::with_seed(0);
        let res: std::result::Result<(), BatchErr> = (|| {
            let mut w = tx.copy_in(&copy_sql).map_err(BatchErr::Pg)?;
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
                w.write_all(slice).map_err(BatchErr::Io)?;
                std::hash::Hasher::write(&mut bh, slice);
                byte += slice.len() as u64;
                line += memchr::memchr_iter(b'\n', slice).count() as u64;
                *i += take as usize;
                n += take;
                if o.batch_rows.is_some_and(|b| n >= b) {
                    break;
                }
            }
            let got = w.finish().map_err(BatchErr::Pg)?;
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
            return match e {
                BatchErr::Other(e) => Err(e),
                BatchErr::Io(e) => match io_pg(&e) {
                    Some(pe) if pe.as_db_error().is_some() => Ok(Outcome::Refused(
                        refused(job, &name, &tname, start, pe),
                        loaded,
                    )),
                    _ => Err(Error::io(&name, e)),
                },
                BatchErr::Pg(pe) if pe.as_db_error().is_some() => Ok(Outcome::Refused(
                    refused(job, &name, &tname, start, &pe),
                    loaded,
                )),
                BatchErr::Pg(pe) => Err(sql_err(&pe)),
            };
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
        .map_err(|e| sql_err(&e))?;
        tx.commit().map_err(|e| sql_err(&e))?;
        record += n;
        loaded += n;
        (o.committed)(n);
        if last {
            return Ok(Outcome::Done(loaded));
        }
    }
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
) -> Result<Vec<Batch>> {
    let q = format!(
        "SELECT byte_start, byte_end, batch_xxh64, first_record + records, next_line, last, \
         checksum FROM {} WHERE table_name = $1 AND file = $2 ORDER BY byte_start",
        j.sql()
    );
    let rows = client
        .query(&q, &[&table, &job.key])
        .map_err(|e| sql_err(&e))?;
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
            ));
        }
        out.push(b);
    }
    Ok(out)
}

/// Builds the message for a row the server refused: the COPY context's `line N` is the Nth
/// record of the batch, which the file is rescanned to locate (error path only).
fn refused(
    job: &FileJob,
    name: &str,
    table: &str,
    start: (u64, u64, u64),
    e: &postgres::Error,
) -> String {
    let db = e.as_db_error();
    let nth = db.and_then(|d| d.where_()).and_then(|w| {
        let k = w.find(", line ")?;
        let rest = &w[k + 7..];
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        rest[..end].parse::<u64>().ok()
    });
    let pos = match nth {
        Some(n) if n > 0 => locate(&job.path, name, start.1 + n - 1).unwrap_or(Pos {
            file: name.into(),
            line: start.2,
            byte: start.0,
            record: Some(start.1),
        }),
        _ => Pos {
            file: name.into(),
            line: start.2,
            byte: start.0,
            record: Some(start.1),
        },
    };
    let what = if nth.is_some() {
        String::new()
    } else {
        " (in the batch starting here)".to_string()
    };
    format!(
        "{pos} table {table}: row refused{what}: {}",
        server_message(e)
    )
}

/// The position of record `record` (1-based, header included) of `path`.
fn locate(path: &Path, name: &str, record: u64) -> Option<Pos> {
    let inp = input::open(Some(path)).ok()?;
    let mut cr = ChunkReader::new(inp.reader, name, CHUNK);
    let mut buf = Vec::new();
    while let Ok(Some(c)) = cr.next_chunk(buf) {
        let last = c.first_record + c.len() as u64;
        if record < last {
            return Some(c.pos((record - c.first_record) as usize, name));
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
        let mut tx = client.transaction().map_err(|e| sql_err(&e))?;
        tx.batch_execute(&format!(
            "TRUNCATE {}; DELETE FROM {} WHERE table_name = {}",
            t.sql_name(),
            j.sql(),
            quote_literal(&t.display())
        ))
        .map_err(|e| Error::Usage(format!("table {}: {}", t.display(), server_message(&e))))?;
        tx.commit().map_err(|e| sql_err(&e))?;
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
