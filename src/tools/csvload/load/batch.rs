//! One try at one file: the batch loop. The file is checked against its manifest, then
//! streamed into `COPY ... FROM STDIN` in batches of whole records, each committed together
//! with its journal row; a row the server refuses is named by the file's own line, record
//! and byte.

use super::check::Checker;
use super::{
    COMMITTED_BATCHES, COMMITTED_ROWS, Fail, Opts, Outcome, pg_fail, pg_fail_ref, retryable,
};
use crate::csv::records::{Chunk, ChunkReader, Field};
use crate::io::error::{Error, IoContext, Pos, Result};
use crate::io::input;
use crate::pg::types::binary::{self, BinType};
use crate::tools::csvload::journal::Journal;
use crate::tools::csvload::plan::{FileJob, Plan, TablePlan};
use crate::tools::csvload::server_message;
use crate::tools::csvload::stall::net;
use postgres::Client;
use std::io::{Read, Write};
use std::sync::atomic::Ordering;

/// Bytes read per chunk.
const CHUNK: usize = 1 << 20;

/// What is kept of every byte read: the CRC-32 when the manifest gives one to check, and the
/// xxh64 that identifies the file in the journal when it is taken while loading.
struct Sums {
    crc: Option<u32>,
    file: Option<twox_hash::XxHash64>,
}

impl Sums {
    fn add(&mut self, b: &[u8]) {
        if let Some(c) = &mut self.crc {
            *c = zlib_rs::crc32::crc32(*c, b);
        }
        if let Some(h) = &mut self.file {
            std::hash::Hasher::write(h, b);
        }
    }

    /// The CRC-32 for [`facts_differ`] (which looks at it only when the manifest gives one).
    fn crc(&self) -> u32 {
        self.crc.unwrap_or(0)
    }
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

/// The checksum that identifies `job`'s file (or part) in the journal.
fn checksum(job: &FileJob) -> Result<String> {
    if let Some(c) = &job.checksum {
        return Ok(c.clone());
    }
    // A whole file's raw bytes (compressed, as they are on disk), a part's range.
    let mut f: Box<dyn Read + Send> = match &job.part {
        Some(_) => open_job(job)?.1,
        None => Box::new(std::fs::File::open(&job.path).at(&job.path)?),
    };
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

/// The job's bytes as a stream (decompressed), the file's name for messages, and whether
/// the bytes are the file's own (not compressed): a part's bytes are read from its file at
/// its start (a part is only made of a regular uncompressed file).
fn open_job(job: &FileJob) -> Result<(String, Box<dyn Read + Send>, bool)> {
    let Some(p) = &job.part else {
        // A plain file read by its `File` (no zeroing or extra copy of each chunk); csvload's
        // bar counts rows, not bytes read, so nothing here adds to the bytes read.
        let inp = input::open_records(Some(&job.path))?;
        let plain = inp.compression == input::Compression::None;
        return Ok((inp.name, inp.reader, plain));
    };
    use std::io::Seek;
    let mut f = std::fs::File::open(&job.path).at(&job.path)?;
    f.seek(std::io::SeekFrom::Start(p.start)).at(&job.path)?;
    Ok((
        job.path.display().to_string(),
        Box::new(f.take(p.end - p.start)),
        true,
    ))
}

/// Whether the table's rows may be loaded by `COPY .. FREEZE` in `tx`: it was empty with no
/// other session holding a lock on it, and was truncated in `tx` (which FREEZE requires).
/// Frozen rows need no later hint-bit writes or anti-wraparound vacuum: on the issue-36
/// bench tables (bench/freeze.sh) the primary keys' builds after the load took 0.76 s
/// instead of 0.84 s and the counts 0.16 s instead of 0.23 s (`wal_level = minimal` also
/// skips the COPY's WAL).
///
/// The truncate destroys nothing and runs nothing: the table is locked (NOWAIT: a session
/// holding any lock on it means no FREEZE, never a wait) and then found empty, and it is not
/// done to a table with a trigger of its own (a TRUNCATE trigger would run; an extension's
/// table, such as a TimescaleDB hypertable, has one), with children (inheritance), with a
/// foreign key pointing at it, or in a publication (whose subscribers would be sent the
/// TRUNCATE), nor without the privilege; any refusal is rolled back to the savepoint and
/// the load goes on without FREEZE.
/// `Err` only when the connection fails.
fn freeze_ready(
    tx: &mut postgres::Transaction<'_>,
    t: &TablePlan,
) -> std::result::Result<bool, postgres::Error> {
    const SAFE: &str = "SELECT c.relkind = 'r' \
        AND pg_catalog.has_table_privilege(c.oid, 'TRUNCATE') \
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger g \
            WHERE g.tgrelid = c.oid AND NOT g.tgisinternal) \
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.oid) \
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k \
            WHERE k.confrelid = c.oid AND k.contype = 'f') \
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_publication_tables p \
            WHERE p.schemaname = n.nspname AND p.tablename = c.relname) \
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
        WHERE c.oid = $1::text::regclass";
    let name = t.sql_name();
    tx.batch_execute("SAVEPOINT dumpshard_freeze")?;
    let tried = (|| -> std::result::Result<bool, postgres::Error> {
        tx.batch_execute(&format!(
            "LOCK TABLE ONLY {name} IN ACCESS EXCLUSIVE MODE NOWAIT"
        ))?;
        if !tx.query_one(SAFE, &[&name])?.get::<_, bool>(0) {
            return Ok(false);
        }
        let empty = format!("SELECT NOT EXISTS (SELECT 1 FROM ONLY {name})");
        if !tx.query_one(&empty, &[])?.get::<_, bool>(0) {
            return Ok(false);
        }
        tx.batch_execute(&format!("TRUNCATE ONLY {name}"))?;
        Ok(true)
    })();
    match tried {
        Ok(true) => {
            tx.batch_execute("RELEASE SAVEPOINT dumpshard_freeze")?;
            Ok(true)
        }
        Err(e) if e.as_db_error().is_none() => Err(e),
        _ => {
            tx.batch_execute(
                "ROLLBACK TO SAVEPOINT dumpshard_freeze; RELEASE SAVEPOINT dumpshard_freeze",
            )?;
            Ok(false)
        }
    }
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
    if let Some(p) = job.part.as_ref().filter(|_| data != job.records) {
        return Some(format!(
            "bytes {}..{} of it (a part loaded beside the others) hold {data} records but \
             its manifest leaves {} to them: the file changed after this run read it, or the \
             manifest's count is wrong; nothing of it was committed",
            p.start, p.end, job.records
        ));
    }
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

/// One try at a file: resumes after what the journal holds of it. `loaded` counts the
/// records this run committed; `checked` is set once the file matched its manifest.
/// `binary`: batches for PostgreSQL may go as binary COPY (see [`column_types`]); a batch
/// with a value the encoders leave to text ends the try with [`Fail::AsText`], rolled back.
pub(super) fn load_once(
    client: &mut Client,
    plan: &Plan,
    job: &FileJob,
    o: &Opts,
    loaded: &mut u64,
    checked: &mut bool,
    binary: bool,
) -> std::result::Result<Outcome, Fail> {
    let t = &plan.tables[job.table];
    let tname = t.display();
    let size = std::fs::metadata(&job.path).at(&job.path)?.len() as i64;
    let done = net(|| journal_batches(client, o.journal, &tname, job))?;
    // A file the journal holds batches of is compared with its checksum before anything
    // is read (and may be done).
    let mut sum = if done.is_empty() {
        None
    } else {
        Some(checksum(job)?)
    };
    if let Some(sum) = &sum
        && done
            .last()
            .is_some_and(|l| l.last && done.iter().all(|b| &b.file_sum == sum))
    {
        return Ok(Outcome::Done(*loaded));
    }
    // Several transactions: the file must match its manifest before the first commits.
    if o.batch_rows.is_some() && !*checked {
        precheck(job)?;
        *checked = true;
    }
    let (name, mut reader, plain) = open_job(job)?;
    // The file's checksum for its journal rows: taken from the bytes as they are loaded when
    // they are the file's own and go in one batch, whose journal row is written after the
    // last of them (a separate read of the whole file before its load cost 0.05 s of each
    // part of the issue-36 bench table); read first otherwise (several batches each name it).
    let stream = sum.is_none() && o.batch_rows.is_none() && job.checksum.is_none() && plain;
    // Without a header the one batch is every byte of the file (or part) from its start, so
    // the batch's own xxh64 is the file's: one hash of the bytes, not two (0.035 s of CPU
    // per 339 MB of the issue-36 bench table).
    let batch_is_file = stream && !job.header;
    if sum.is_none() && !stream {
        sum = Some(checksum(job)?);
    }
    // A part starts inside its file: its bytes, records and lines are the file's.
    let base = job
        .part
        .as_ref()
        .map_or((0, 1, 1), |p| (p.start, p.record, p.line));
    let (mut byte, mut record, mut line) = base;
    // The CRC-32 of everything read, checked against the manifest before the last COMMIT.
    let mut sums = Sums {
        crc: manifest_crc(job).map(|_| 0),
        file: (stream && !batch_is_file).then(|| twox_hash::XxHash64::with_seed(0)),
    };
    if let Some(first) = done.first() {
        // Resume: the committed batches must be what the file still holds there.
        let changed = |b: &Batch| {
            Error::file(
                &name,
                format!(
                    "bytes {}..{} differ from what journal {} says was loaded from this file: it \
                     changed within the loaded part (restore it; {})",
                    b.start,
                    b.end,
                    o.journal.sql(),
                    super::RELOAD
                ),
            )
        };
        let mut buf = vec![0u8; CHUNK];
        let mut left = first.start.saturating_sub(base.0);
        while left > 0 {
            let k = reader
                .read(&mut buf[..left.min(CHUNK as u64) as usize])
                .at(&name)?;
            if k == 0 {
                return Err(changed(first).into());
            }
            sums.add(&buf[..k]);
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
                sums.add(&buf[..k]);
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
                    "was loaded completely (journal {}) and has grown since; {}",
                    o.journal.sql(),
                    super::RELOAD
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
    let mut cr = ChunkReader::new(reader, &name, CHUNK).starting_at(byte, record, line);
    // The chunk being sent and the index of its next record. Each batch runs even when
    // nothing is left, so an empty file gets its (empty) journal row too.
    let mut pending: Option<(Chunk, usize)> = None;
    let mut eof = false;
    if job.header && !resumed {
        cr.set_target(1);
        match cr.next_chunk(Vec::new())? {
            Some(c) if !c.is_empty() => {
                let end = c.ends[0];
                sums.add(&c.data[..end]);
                byte += end as u64;
                line += memchr::memchr_iter(b'\n', &c.data[..end]).count() as u64;
                record += 1;
                pending = Some((c, 1));
            }
            _ => eof = true,
        }
        cr.set_target(CHUNK);
    }
    // PostgreSQL gets COPY text, rewritten here batch by batch (see target::CopyOptions::Text),
    // or binary COPY where every column has an encoder; the hashes, the CRC and the
    // positions stay the CSV's.
    let text = o.rules.sends_text();
    let bin = if text && binary {
        column_types(client, t)
    } else {
        None
    };
    // The table's whole load in this one transaction (one file, not in parts, not resumed,
    // one batch): loaded frozen when it is empty and ours alone ([`freeze_ready`]).
    let sole = text
        && o.batch_rows.is_none()
        && job.part.is_none()
        && !resumed
        && plan.files.iter().filter(|f| f.table == job.table).count() == 1;
    // COPY's options (PostgreSQL's plain `COPY .. FROM STDIN` takes them in parentheses).
    let copy_with = |freeze: bool| {
        let opts: Vec<&str> = [
            bin.is_some().then_some("FORMAT binary"),
            freeze.then_some("FREEZE"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if opts.is_empty() {
            o.rules.copy_sql(t)
        } else {
            format!("{} ({})", o.rules.copy_sql(t), opts.join(", "))
        }
    };
    let mut rewritten = Vec::new();
    let (mut fields, mut scratch) = (Vec::new(), Vec::new());
    // --check-records: this file's records checked as they go (`check.rs`).
    let file_no = plan
        .files
        .iter()
        .position(|f| std::ptr::eq(f, job))
        .unwrap_or(0);
    let file_name = |i: u64| {
        plan.files
            .get(i as usize)
            .map_or_else(String::new, |f| crate::io::names::display_path(&f.path))
    };
    let mut checker = o.check.map(|keys| {
        Checker::new(
            keys,
            job.table,
            &t.key,
            &t.columns,
            t.null.as_bytes(),
            t.columns.len(),
            file_no,
            &file_name,
        )
    });
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
        let freeze = sole && net(|| freeze_ready(&mut tx, t)).map_err(pg_fail)?;
        let copy_sql = copy_with(freeze);
        let mut n = 0u64;
        let mut bh = twox_hash::XxHash64::with_seed(0);
        let res: std::result::Result<(), BatchErr> = (|| {
            let mut w = net(|| tx.copy_in(&copy_sql)).map_err(BatchErr::Pg)?;
            if bin.is_some() {
                net(|| w.write_all(binary::HEADER)).map_err(BatchErr::Io)?;
            }
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
                let i0 = *i;
                let refused = |k: usize, why: String| BatchErr::Refused(c.pos(i0 + k, &name), why);
                if let Some(ch) = checker.as_mut() {
                    ch.base = c.first_record + i0 as u64;
                    // Binary COPY checks each record's form as it splits it, below.
                    if bin.is_none() {
                        for k in 0..take as usize {
                            ch.form(k, c.record(i0 + k))
                                .map_err(|why| refused(k, why))?;
                        }
                    }
                }
                let send = if let Some(types) = &bin {
                    rewritten.clear();
                    let records = (i0..i0 + take as usize).map(|k| c.record(k));
                    let null = t.null.as_bytes();
                    let mut each = checker
                        .as_mut()
                        .map(|ch| move |k: usize, r: &[u8], f: &[Field]| ch.record(k, r, f));
                    let done = binary::csv_to_binary(
                        records,
                        null,
                        types,
                        &mut rewritten,
                        &mut fields,
                        &mut scratch,
                        each.as_mut().map(|e| e as &mut binary::RecordCheck),
                    );
                    match done {
                        Ok(()) => {}
                        Err(binary::Stop::Text) => return Err(BatchErr::AsText),
                        Err(binary::Stop::Refused(k, why)) => return Err(refused(k, why)),
                    }
                    &rewritten[..]
                } else if text {
                    rewritten.clear();
                    if let Err(at) = crate::csv::totext::csv_to_copy_text(
                        slice,
                        t.null.as_bytes(),
                        &mut rewritten,
                    ) {
                        // The record scanner stops at an unclosed quote before this; kept
                        // so a record of that kind is refused here and not sent.
                        let k = (*i..*i + take as usize)
                            .find(|&k| c.ends[k] > from + at)
                            .unwrap_or(*i);
                        return Err(BatchErr::Other(Error::input(
                            c.pos(k, &name),
                            "unterminated CSV quoted field",
                        )));
                    }
                    &rewritten[..]
                } else {
                    slice
                };
                // The keys go into the table's set once their records' form passed.
                if let Some(ch) = checker.as_mut() {
                    ch.keys(|k| c.record(i0 + k))
                        .map_err(|(k, why)| refused(k, why))?;
                }
                // In pieces, so the --io-timeout measures a stall, not a slow server.
                for piece in send.chunks(64 << 10) {
                    net(|| w.write_all(piece)).map_err(BatchErr::Io)?;
                }
                std::hash::Hasher::write(&mut bh, slice);
                sums.add(slice);
                byte += slice.len() as u64;
                line += memchr::memchr_iter(b'\n', slice).count() as u64;
                *i += take as usize;
                n += take;
                if o.batch_rows.is_some_and(|b| n >= b) {
                    break;
                }
            }
            if bin.is_some() {
                net(|| w.write_all(binary::TRAILER)).map_err(BatchErr::Io)?;
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
                BatchErr::AsText => return Err(Fail::AsText),
                BatchErr::Refused(at, why) => {
                    return Ok(Outcome::Refused(
                        format!("{at} table {tname}: record refused (--check-records): {why}"),
                        *loaded,
                    ));
                }
                BatchErr::Other(e) => return Err(e.into()),
                BatchErr::Io(e) => match io_pg(&e) {
                    Some(pe) if pe.as_db_error().is_some() && !retryable(pe) => {
                        return Ok(Outcome::Refused(
                            refused(job, &name, &tname, start, pe, text),
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
                    refused(job, &name, &tname, start, &pe, text),
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
        if last && let Some(m) = facts_differ(job, sums.crc(), Some(record + n - base.1)) {
            drop(tx);
            return Err(Error::file(&name, m).into());
        }
        // Streamed: every byte of the file was read by the end of its one batch.
        let sum = match (&sum, &sums.file) {
            (Some(s), _) => s.clone(),
            (None, Some(h)) if last => format!("xxh64:{}", hex(h)),
            (None, None) if last && batch_is_file && start.0 == base.0 => {
                format!("xxh64:{}", hex(&bh))
            }
            (None, _) => checksum(job)?,
        };
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
        // A part of a file split by this run: held here until every part has read its end
        // with the records it was to hold (a part is one batch: `last`).
        if let Some(b) = job
            .part
            .as_ref()
            .and_then(|p| Some((p.index, p.barrier.as_ref()?)))
        {
            if last {
                b.1.arrive(b.0);
            }
            if !b.1.wait(|| (o.stop)(job.table)) {
                drop(tx);
                return Ok(Outcome::Stopped(*loaded));
            }
        }
        // --commit-gate: held here, the batch sent and journaled, until the gate says.
        if let Some(g) = o.gate
            && !super::gate_open(g, || (o.stop)(job.table), &name)?
        {
            drop(tx);
            return Ok(Outcome::Stopped(*loaded));
        }
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
    /// A value outside the binary encoders' forms (the COPY is aborted, the batch rolled back).
    AsText,
    /// `--check-records` refused the record here, in these words (the batch rolled back).
    Refused(Pos, String),
}

/// The binary encoders of `t`'s COPY columns, by the target's own column types (binary data
/// is read by the column's receive function, so the type must be the column's, not what a
/// manifest says); `None` (send COPY text) when any column's type has none, when the
/// plan names no columns (COPY's implicit list leaves out generated columns, which the
/// catalog query would have to know by server version), or when the query fails (the COPY
/// then says why in its own words).
fn column_types(client: &mut Client, t: &TablePlan) -> Option<Vec<BinType>> {
    if t.columns.is_empty() {
        return None;
    }
    let rows = net(|| {
        client.query(
            "SELECT a.attname::text, a.atttypid FROM pg_catalog.pg_attribute a \
             WHERE a.attrelid = $1::text::pg_catalog.regclass AND a.attnum > 0 \
             AND NOT a.attisdropped",
            &[&t.sql_name()],
        )
    })
    .ok()?;
    let types: std::collections::HashMap<String, u32> =
        rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    t.columns
        .iter()
        .map(|c| BinType::from_oid(*types.get(c)?))
        .collect()
}

fn io_pg(e: &std::io::Error) -> Option<&postgres::Error> {
    e.get_ref()?.downcast_ref::<postgres::Error>()
}

/// Whether what the journal records as loaded from `job` (each committed batch's bytes, and
/// nothing after a last one) is what the file holds now: `false` for a file changed since
/// its load (a record deleted by hand and then put back), which `--truncate` then empties
/// and loads again instead of refusing it at every rerun. A file without journal rows
/// matches. Reads the loaded part of the file.
pub(super) fn journal_still_matches(
    client: &mut Client,
    j: &Journal,
    table: &str,
    job: &FileJob,
) -> Result<bool> {
    let done = match journal_batches(client, j, table, job) {
        Ok(d) => d,
        Err(Fail::Fatal(e)) => return Err(e),
        Err(Fail::Retry(why)) => return Err(Error::Usage(why)),
        Err(Fail::AsText) => return Ok(false),
    };
    let Some(first) = done.first() else {
        return Ok(true);
    };
    let (name, mut reader, _) = open_job(job)?;
    let base = job.part.as_ref().map_or(0, |p| p.start);
    let mut buf = vec![0u8; CHUNK];
    // Reads exactly `n` bytes into `h` (when given); false at an early end.
    let mut take = |n: u64, mut h: Option<&mut twox_hash::XxHash64>| -> Result<bool> {
        let mut left = n;
        while left > 0 {
            let k = reader
                .read(&mut buf[..left.min(CHUNK as u64) as usize])
                .at(&name)?;
            if k == 0 {
                return Ok(false);
            }
            if let Some(h) = h.as_deref_mut() {
                std::hash::Hasher::write(h, &buf[..k]);
            }
            left -= k as u64;
        }
        Ok(true)
    };
    if !take(first.start.saturating_sub(base), None)? {
        return Ok(false);
    }
    for b in &done {
        let mut h = twox_hash::XxHash64::with_seed(0);
        if !take(b.end - b.start, Some(&mut h))? || hex(&h) != b.hash {
            return Ok(false);
        }
    }
    // Loaded to its end: nothing may follow (a record put back at the end grows the file).
    let grown = done.last().is_some_and(|l| l.last) && take(1, None)?;
    Ok(!grown)
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
    text: bool,
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
        locate(r, name, start, n, text)
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
/// `text`: the batch went as COPY text, where every record is one line (its newlines are
/// escapes), so line `n` is the batch's record `n`. As CSV, the server counts lines as
/// PostgreSQL's COPY FROM (copyfromparse.c) does: one per record, plus, inside quotes, each
/// character that is the stream's line terminator, which it learns at the end of the first
/// record: `\n` for `\n`-terminated data, `\r` for `\r\n`; before that (inside the first
/// record) only `\r` counts. So the first record of a batch with a
/// quoted newline takes one server line, and later ones as many as they have lines.
pub fn locate<R: Read>(
    r: R,
    name: &str,
    start: (u64, u64, u64),
    n: u64,
    text: bool,
) -> Option<Pos> {
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
            let counted = if text {
                0
            } else {
                memchr::memchr_iter(eol.unwrap_or(b'\r'), body).count() as u64
            };
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
            let p = locate(&data[..], "f", (100, 7, 20), n, false).unwrap();
            (p.record.unwrap(), p.line, p.byte)
        };
        assert_eq!(at(1), (7, 20, 100));
        assert_eq!(at(2), (8, 22, 110));
        assert_eq!(at(3), (9, 23, 116));
        assert_eq!(at(4), (9, 23, 116));
        assert_eq!(at(5), (10, 25, 126));
        assert!(locate(&data[..], "f", (0, 1, 1), 6, false).is_none());
        // CRLF data: the terminator is \r\n, so quoted \r\n pairs count once each.
        let crlf = b"1,x\r\n2,\"a\r\nb\",1\r\n3,y\r\n";
        let p = locate(&crlf[..], "f", (0, 1, 1), 4, false).unwrap();
        assert_eq!((p.record, p.line), (Some(3), 4));
        // As COPY text, line n is record n of the batch.
        let at = |n| {
            let p = locate(&data[..], "f", (100, 7, 20), n, true).unwrap();
            (p.record.unwrap(), p.line, p.byte)
        };
        assert_eq!(at(2), (8, 22, 110));
        assert_eq!(at(3), (9, 23, 116));
        assert_eq!(at(4), (10, 25, 126));
        assert!(locate(&data[..], "f", (0, 1, 1), 5, true).is_none());
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
            part: None,
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
