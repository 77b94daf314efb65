//! Parts: one large CSV file loaded on several connections at once, each part a byte range
//! of it that starts at a record, so that a table in one file loads in parallel without
//! being cut into files first (a cut writes the table a second time: issue 36). The parts of
//! a file commit together: every part's COMMIT waits until each part has read its end and
//! held the records the file's manifest leaves to it, so nothing of a file commits unless the
//! whole file matched, as when it loads in one transaction.
//!
//! A part is a file of its own to the journal (`FILE#bytes=START-END`), so a rerun resumes
//! it as it resumes a file; a rerun takes the parts the journal already holds as they were,
//! whatever `-j` it has.

use super::plan::{Barrier, FileJob, Part, Plan};
use crate::csv::records::ChunkReader;
use crate::io::error::{Error, IoContext, Result};
use crate::io::input::Compression;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

/// The default smallest file loaded in parts (`--parts-from`): a part is at least half of
/// it (a part costs a connection, a transaction and a scan of the file before it).
pub const PARTS_FROM: u64 = 16 << 20;

/// Splits the plan's files into parts when the plan has fewer files than `jobs`
/// connections: each file of at least `from` bytes into up to `jobs / files` parts of about
/// equal size, each at least `from / 2`, so that every part has a connection of its own (the parts of a
/// file wait for each other before they commit). Only a regular, uncompressed file without
/// a manifest CRC (a CRC covers the whole file) is split. `journal_files(t)` gives the
/// journal keys of table `t`: a file the journal holds whole loads whole, and a file of which
/// it holds parts is split where those parts are. Returns the notes to print.
pub fn split(
    plan: &mut Plan,
    jobs: usize,
    from: u64,
    journal_files: &mut dyn FnMut(usize) -> Result<Vec<String>>,
) -> Result<Vec<String>> {
    let files = plan.files.len();
    if files == 0 || jobs / files < 2 {
        return Ok(Vec::new());
    }
    let per = jobs / files;
    let mut out = Vec::with_capacity(jobs);
    let mut notes = Vec::new();
    for job in std::mem::take(&mut plan.files) {
        match parts_of(&job, per, from, journal_files)? {
            Some(parts) => {
                notes.push(format!(
                    "{}: {} bytes, loaded as {} parts side by side",
                    crate::io::names::display_path(&job.path),
                    parts
                        .last()
                        .and_then(|p| p.part.as_ref())
                        .map_or(0, |p| p.end),
                    parts.len()
                ));
                out.extend(parts);
            }
            None => out.push(job),
        }
    }
    plan.files = out;
    Ok(notes)
}

/// The parts of `job`'s file (at most `per`), or `None` to load it whole.
fn parts_of(
    job: &FileJob,
    per: usize,
    from: u64,
    journal_files: &mut dyn FnMut(usize) -> Result<Vec<String>>,
) -> Result<Option<Vec<FileJob>>> {
    if job.checksum.is_some() || job.part.is_some() {
        return Ok(None);
    }
    // A file that cannot be looked at loads whole, and the load says why.
    let Ok(meta) = std::fs::metadata(&job.path) else {
        return Ok(None);
    };
    let size = meta.len();
    let n = per.min((size / (from / 2).max(1)) as usize);
    if !meta.is_file() || size < from || n < 2 {
        return Ok(None);
    }
    let mut f = std::fs::File::open(&job.path).at(&job.path)?;
    let mut head = Vec::with_capacity(6);
    (&mut f).take(6).read_to_end(&mut head).at(&job.path)?;
    if Compression::sniff(&head) != Compression::None {
        return Ok(None);
    }
    let known = journal_files(job.table)?;
    if known.contains(&job.key) {
        return Ok(None);
    }
    let prefix = format!("{}#bytes=", job.key);
    let mut held: Vec<u64> = known
        .iter()
        .filter_map(|k| k.strip_prefix(&prefix)?.split_once('-'))
        .flat_map(|(s, e)| [s.parse().ok(), e.parse().ok()])
        .flatten()
        .collect();
    let resumed = !held.is_empty();
    let name = job.path.display().to_string();
    let cuts: Vec<u64> = if resumed {
        held.sort_unstable();
        held.dedup();
        // The journal need not hold the last part (a rerun loads it), but none past the end.
        if held.last().is_some_and(|&e| e > size) {
            return Err(Error::file(
                &name,
                format!(
                    "is {size} bytes, but the journal holds a part of it that ends at byte {}: it \
                     changed since that part was loaded (restore it; {})",
                    held.last().unwrap_or(&0),
                    super::load::RELOAD
                ),
            ));
        }
        held.retain(|&c| c != 0 && c != size);
        held
    } else {
        (1..n as u64).map(|k| size / n as u64 * k).collect()
    };
    f.seek(SeekFrom::Start(0)).at(&job.path)?;
    let mut at = find_cuts(f, &name, &cuts, resumed)?;
    // A cut that met the file's last record starts no part.
    at.retain(|b| b.0 < size);
    if at.is_empty() {
        return Ok(None);
    }
    let mut bounds = vec![(0u64, 1u64, 1u64)];
    bounds.extend(at);
    let barrier = (!resumed).then(|| Arc::new(Barrier::new(bounds.len())));
    let mut parts = Vec::with_capacity(bounds.len());
    let mut before = 0u64;
    for (i, &(start, record, line)) in bounds.iter().enumerate() {
        let header = job.header && i == 0;
        let records = match bounds.get(i + 1) {
            Some(next) => next.1 - record - header as u64,
            None => job.records.checked_sub(before).ok_or_else(|| {
                Error::file(
                    &name,
                    format!(
                        "holds {before} records before byte {start}, more than the {} its \
                         manifest says: the file changed after it was written, or the \
                         manifest's header facts are wrong; nothing of it was committed",
                        job.records
                    ),
                )
            })?,
        };
        before += records;
        let end = bounds.get(i + 1).map_or(size, |b| b.0);
        parts.push(FileJob {
            table: job.table,
            path: job.path.clone(),
            key: format!("{prefix}{start}-{end}"),
            header,
            records,
            checksum: None,
            part: Some(Part {
                start,
                end,
                record,
                line,
                index: i,
                barrier: barrier.clone(),
            }),
        });
    }
    Ok(Some(parts))
}

/// Reads `r` from its start to the last of `cuts` (ascending byte offsets) and returns, for
/// each, the byte, record and line where the record there starts: with `exact`, a cut must
/// be where a record starts (else the file changed); otherwise the first record starting at
/// or after it, cuts that meet the same record (or the end) dropped.
fn find_cuts<R: Read>(r: R, name: &str, cuts: &[u64], exact: bool) -> Result<Vec<(u64, u64, u64)>> {
    let mut out: Vec<(u64, u64, u64)> = Vec::with_capacity(cuts.len());
    let mut cr = ChunkReader::new(r, name, 1 << 20);
    let mut buf = Vec::new();
    let mut next = 0;
    while next < cuts.len() {
        let Some(c) = cr.next_chunk(buf)? else {
            break;
        };
        let base = c.first_byte;
        while let Some(&cut) = cuts.get(next) {
            // The first record end at or after the cut: the next record starts there.
            let j = c.ends.partition_point(|&e| base + (e as u64) < cut);
            let Some(&e) = c.ends.get(j) else {
                break;
            };
            let byte = base + e as u64;
            if exact && byte != cut {
                return Err(Error::file(
                    name,
                    format!(
                        "no record starts at byte {cut}, where the journal holds a part of it \
                         as starting or ending: it changed since that part was loaded \
                         (restore it; {})",
                        super::load::RELOAD
                    ),
                ));
            }
            let line = c.first_line + memchr::memchr_iter(b'\n', &c.data[..e]).count() as u64;
            if out.last().is_none_or(|l| l.0 < byte) {
                out.push((byte, c.first_record + j as u64 + 1, line));
            }
            next += 1;
        }
        buf = c.data;
    }
    if exact && next < cuts.len() {
        return Err(Error::file(
            name,
            format!(
                "ends before byte {}, where the journal holds a part of it: it changed since \
                 that part was loaded (restore it; {})",
                cuts[next],
                super::load::RELOAD
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cuts land where records start, quoted newlines and all, with the file's own record
    /// and line numbers; an exact cut inside a record is refused.
    #[test]
    fn cuts_land_on_records() {
        let data = b"h,x\n1,\"a\nb\"\n2,c\n3,\"d\n\ne\"\n4,f\n";
        // Byte 6 is inside record 2 (quoted newline at 8): the next record starts at 12.
        let at = find_cuts(&data[..], "f", &[6, 13, 28], false).unwrap();
        assert_eq!(at, vec![(12, 3, 4), (16, 4, 5), (29, 6, 9)]);
        assert_eq!(&data[12..16], b"2,c\n");
        assert_eq!(&data[16..20], b"3,\"d");
        assert_eq!(
            find_cuts(&data[..], "f", &[12, 16], true).unwrap(),
            vec![(12, 3, 4), (16, 4, 5)]
        );
        let e = find_cuts(&data[..], "f", &[13], true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no record starts at byte 13"), "{e}");
        let e = find_cuts(&data[..], "f", &[12, 99], true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ends before byte 99"), "{e}");
        // Two cuts in one record: one part boundary; a cut in the last record: its end.
        assert_eq!(
            find_cuts(&data[..], "f", &[5, 6], false).unwrap(),
            vec![(12, 3, 4)]
        );
        assert_eq!(
            find_cuts(&data[..], "f", &[27], false).unwrap(),
            vec![(29, 6, 9)]
        );
    }

    /// The barrier opens when every part arrived, and not when one failed or the run stops.
    #[test]
    fn barrier_waits_for_every_part() {
        let b = Barrier::new(2);
        b.arrive(0);
        assert!(!b.wait(|| true));
        b.arrive(1);
        assert!(b.wait(|| true));
        b.fail();
        assert!(
            b.wait(|| false),
            "every part arrived: a later failure changes nothing"
        );
        let b = Arc::new(Barrier::new(2));
        let b2 = b.clone();
        let t = std::thread::spawn(move || b2.wait(|| false));
        b.arrive(1);
        b.fail();
        assert!(!t.join().unwrap());
    }
}
