//! csvload's parts (issue 36: one table's CSV loaded on several connections without a cut)
//! against a real PostgreSQL: what the parts load is what PostgreSQL's own COPY reads from
//! the file (quoted newlines at the cuts, NULL and '' apart); a refused row or a count that
//! differs from the manifest commits no part; a rerun takes the parts the journal holds, with
//! another -j, and refuses a file changed under them.

use crate::support::cmd;
use crate::support::pg::{self, Pg};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

fn csvload(pg: &Pg, args: &[&str]) -> Output {
    let mut c = pg.csvload(pg::SUPERUSER);
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = c.spawn().expect("run csvload");
    cmd::wait_output_timeout(child, Duration::from_secs(180), "csvload")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A CSV with a header of records `id,note,v` for ids 1..: notes with commas, doubled
/// quotes, runs of quoted newlines, UTF-8, NULL (empty, unquoted) and '' (`""`). Grown past
/// `min_bytes` until each of the cuts csvload aims at for `parts` parts (bytes size/parts*k)
/// falls inside a quoted field, before one of its newlines: a splitter that cut at the next
/// newline would tear a record there. `bad`: the id whose v is `x`. Returns the bytes and
/// each record's (line, byte) by id.
fn nasty_csv(min_bytes: usize, parts: usize, bad: Option<u64>) -> (Vec<u8>, Vec<(u64, u64)>) {
    let mut csv = b"id,note,v\n".to_vec();
    let mut at = vec![(0, 0)];
    let mut line = 2u64;
    let mut id = 0u64;
    loop {
        id += 1;
        let note = match id % 7 {
            0 => "\"line one\nline two, with a comma\nand \"\"quotes\"\"\"".to_string(),
            1 => "plain ünïcödé ✓ text".to_string(),
            2 => String::new(),
            3 => "\"\"".to_string(),
            4 => "\"a,b\nc\"".to_string(),
            5 => format!("\"{}\"", "x\n".repeat(20 + (id % 13) as usize)),
            _ => "\"tab\there \\N backslash\"".to_string(),
        };
        let v = if bad == Some(id) {
            "x".to_string()
        } else {
            (id * 3).to_string()
        };
        at.push((line, csv.len() as u64));
        let rec = format!("{id},{note},{v}\n");
        line += rec.matches('\n').count() as u64;
        csv.extend_from_slice(rec.as_bytes());
        if csv.len() >= min_bytes && cuts_inside_quotes(&csv, parts) {
            return (csv, at);
        }
    }
}

/// True when every cut of `parts` parts lands inside quotes and the first newline after it
/// is inside them too.
fn cuts_inside_quotes(csv: &[u8], parts: usize) -> bool {
    let size = csv.len();
    (1..parts).all(|k| {
        let cut = size / parts * k;
        let mut inside = csv[..cut].iter().filter(|&&b| b == b'"').count() % 2 == 1;
        for &b in &csv[cut..] {
            match b {
                b'"' => inside = !inside,
                b'\n' => return inside,
                _ => {}
            }
        }
        false
    })
}

/// Writes `t.csv` and its pgdump2csv manifest (`rows` data records, a header) in `dir`.
fn write_table(dir: &Path, csv: &[u8], rows: u64) -> (PathBuf, PathBuf) {
    let f = dir.join("t.csv");
    std::fs::write(&f, csv).unwrap();
    let m = serde_json::json!({
        "format": "dumpshard-manifest", "version": 1,
        "tables": [{"schema": "public", "name": "t", "file": "t.csv",
            "columns": [{"name": "id", "type": "integer", "not_null": true},
                        {"name": "note", "type": "text", "not_null": false},
                        {"name": "v", "type": "integer", "not_null": false}],
            "rows": rows, "bytes": 0, "header": true, "null": ""}]
    });
    let mp = dir.join("m.json");
    std::fs::write(&mp, m.to_string()).unwrap();
    (f, mp)
}

fn count(pg: &Pg, db: &str) -> String {
    pg.psql(db, "SELECT count(*) FROM t").trim().to_string()
}

fn journal(pg: &Pg, db: &str) -> Vec<(String, i64, i64, i64, i64)> {
    pg.psql(
        db,
        "SELECT file, byte_start, byte_end, first_record, records \
         FROM dumpshard.load_journal WHERE table_name = 'public.t' ORDER BY byte_start",
    )
    .lines()
    .filter(|l| !l.is_empty())
    .map(|l| {
        let f: Vec<&str> = l.split('|').collect();
        let n = |i: usize| f[i].parse::<i64>().unwrap();
        (f[0].to_string(), n(1), n(2), n(3), n(4))
    })
    .collect()
}

/// Rows of t not in ref plus rows of ref not in t (duplicates counted).
fn differ(pg: &Pg, db: &str) -> String {
    pg.psql(
        db,
        "SELECT (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM ref) a) + \
         (SELECT count(*) FROM (SELECT * FROM ref EXCEPT ALL SELECT * FROM t) b)",
    )
    .trim()
    .to_string()
}

const TABLES: &str = "CREATE TABLE t (id int PRIMARY KEY, note text, v int); \
                      CREATE TABLE ref (id int PRIMARY KEY, note text, v int)";

/// One CSV of a table, -j 3: three parts side by side, cut inside quoted newlines, every
/// record once and each as PostgreSQL's COPY reads the file (NULL and '' apart); the journal
/// holds three parts that tile the file; a rerun with -j 2 loads nothing again.
#[test]
fn one_file_loads_as_parts_as_copy_reads_it() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("p");
    pg.psql("p", TABLES);
    let dir = tempfile::tempdir().unwrap();
    let (csv, at) = nasty_csv(26 << 20, 3, None);
    let rows = at.len() as u64 - 1;
    let (f, m) = write_table(dir.path(), &csv, rows);
    pg.copy_in("p", "COPY ref FROM STDIN (FORMAT csv, HEADER true)", &f);
    let out = csvload(
        &pg,
        &[
            "-m",
            m.to_str().unwrap(),
            "-j",
            "3",
            "--verify",
            "content",
            "dbname=p",
        ],
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("loaded as 3 parts side by side"), "{err}");
    assert_eq!(count(&pg, "p"), rows.to_string());
    assert_eq!(
        differ(&pg, "p"),
        "0",
        "the parts loaded other rows than COPY reads"
    );
    assert_eq!(
        pg.psql("p", "SELECT count(*) FROM t WHERE note IS NULL")
            .trim(),
        pg.psql("p", "SELECT count(*) FROM ref WHERE note IS NULL")
            .trim()
    );
    let j = journal(&pg, "p");
    assert_eq!(j.len(), 3, "{j:?}");
    let key = std::fs::canonicalize(&f).unwrap().display().to_string();
    // Part 0's batch starts after the header (record 1, not loaded), its key at byte 0.
    let mut next = (at[1].1 as i64, 2i64);
    for (i, (file, start, end, first, records)) in j.iter().enumerate() {
        let from = if i == 0 { 0 } else { *start };
        assert_eq!(file, &format!("{key}#bytes={from}-{end}"));
        assert_eq!(
            (*start, *first),
            next,
            "part {i} does not follow the one before"
        );
        // The part's first record is the file's record `first` (id first - 1).
        assert_eq!(at[(*first - 1) as usize].1, *start as u64, "part {i}");
        next = (*end, first + records);
    }
    assert_eq!(next, (csv.len() as i64, rows as i64 + 2));
    // Each part's checksum, taken while it loaded, is the xxh64 of its bytes, as a rerun
    // reads them to compare.
    let sums = pg.psql(
        "p",
        "SELECT checksum FROM dumpshard.load_journal WHERE table_name = 'public.t' \
         ORDER BY byte_start",
    );
    for (line, (i, (_, start, end, _, _))) in sums.lines().zip(j.iter().enumerate()) {
        let from = if i == 0 { 0 } else { *start as usize };
        let mut h = twox_hash::XxHash64::with_seed(0);
        std::hash::Hasher::write(&mut h, &csv[from..*end as usize]);
        assert_eq!(
            line,
            format!("xxh64:{:016x}", std::hash::Hasher::finish(&h)),
            "part {i}"
        );
    }

    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "2", "dbname=p"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("read 0 B, 0 records"), "{err}");
    assert_eq!(count(&pg, "p"), rows.to_string());
    assert_eq!(journal(&pg, "p"), j);
}

/// A row the server refuses, in the last part and then in the first: named by the file's
/// own line, record and byte, and no part commits (the others roll back at their COMMIT),
/// so the file fixed loads whole on the rerun.
#[test]
fn a_refused_row_in_one_part_commits_no_part() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("r");
    pg.psql("r", TABLES);
    let dir = tempfile::tempdir().unwrap();
    let ids = nasty_csv(18 << 20, 2, None).1.len() as u64 - 1;
    for bad in [ids * 95 / 100, ids * 5 / 100] {
        pg.psql("r", "TRUNCATE t");
        let (csv, at) = nasty_csv(18 << 20, 2, Some(bad));
        let rows = at.len() as u64 - 1;
        let (f, m) = write_table(dir.path(), &csv, rows);
        let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "2", "dbname=r"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("loaded as 2 parts side by side"), "{err}");
        let (line, byte) = at[bad as usize];
        let want = format!(
            "csvload: {}:{line}: (record {}, byte {byte}) table public.t: row refused: ",
            f.display(),
            bad + 1
        );
        assert!(err.contains(&want), "bad id {bad}: want {want}\n{err}");
        assert_eq!(
            count(&pg, "r"),
            "0",
            "a part committed beside a refused one"
        );
        assert!(journal(&pg, "r").is_empty());

        // Fixed: nothing of it was committed, so the rerun loads every record.
        let (csv, at) = nasty_csv(18 << 20, 2, None);
        let rows = at.len() as u64 - 1;
        write_table(dir.path(), &csv, rows);
        let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "2", "dbname=r"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(count(&pg, "r"), rows.to_string());
        pg.psql("r", "DROP TABLE dumpshard.load_journal");
    }
}

/// The manifest says one record more than the file holds: the last part finds it, and no
/// part commits.
#[test]
fn a_count_unlike_the_manifest_commits_no_part() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("c");
    pg.psql("c", TABLES);
    let dir = tempfile::tempdir().unwrap();
    let (csv, at) = nasty_csv(18 << 20, 2, None);
    let rows = at.len() as u64 - 1;
    let (_, m) = write_table(dir.path(), &csv, rows + 1);
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "2", "dbname=c"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("(a part loaded beside the others)"), "{err}");
    assert!(err.contains("its manifest leaves"), "{err}");
    assert_eq!(count(&pg, "c"), "0");
    assert!(journal(&pg, "c").is_empty());
}

/// A part lost (its journal row and rows gone, as when its COMMIT never happened): the rerun,
/// with another -j, takes the file's parts where the journal has them and loads that part
/// alone; a file changed since refuses to load rather than be cut elsewhere.
#[test]
fn a_rerun_takes_the_parts_the_journal_holds() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("j");
    pg.psql("j", TABLES);
    let dir = tempfile::tempdir().unwrap();
    let (csv, at) = nasty_csv(26 << 20, 3, None);
    let rows = at.len() as u64 - 1;
    let (f, m) = write_table(dir.path(), &csv, rows);
    pg.copy_in("j", "COPY ref FROM STDIN (FORMAT csv, HEADER true)", &f);
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "3", "dbname=j"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let j = journal(&pg, "j");
    assert_eq!(j.len(), 3);
    let lose = |k: usize| {
        let (file, start, _, first, records) = &j[k];
        pg.psql(
            "j",
            &format!(
                "DELETE FROM t WHERE id BETWEEN {} AND {}; DELETE FROM dumpshard.load_journal \
                 WHERE file = {} AND byte_start = {start}",
                first - 1,
                first + records - 2,
                pg::quote_literal(file)
            ),
        );
    };
    lose(1);
    assert_eq!(
        count(&pg, "j"),
        (rows as i64 - j[1].4).to_string(),
        "the test lost other rows than part 1's"
    );
    let out = csvload(
        &pg,
        &[
            "-m",
            m.to_str().unwrap(),
            "-j",
            "2",
            "--verify",
            "content",
            "dbname=j",
        ],
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("loaded as 3 parts"), "{err}");
    assert!(
        err.contains(&format!("{} records", fmt_thousands(j[1].4))),
        "{err}"
    );
    assert_eq!(count(&pg, "j"), rows.to_string());
    assert_eq!(differ(&pg, "j"), "0");
    assert_eq!(journal(&pg, "j"), j);

    // The last part lost: the rerun (-j 4) loads it alone, to the file's end.
    lose(2);
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "4", "dbname=j"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("{} records", fmt_thousands(j[2].4))),
        "{err}"
    );
    assert_eq!(differ(&pg, "j"), "0");
    assert_eq!(journal(&pg, "j"), j);

    // The file changed, its size kept: the newline that ends part 0 made a comma, so part
    // 1's start is no longer a record's.
    lose(1);
    let s1 = j[1].1 as usize;
    let mut changed = csv.clone();
    changed[s1 - 1] = b',';
    std::fs::write(&f, &changed).unwrap();
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "2", "dbname=j"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "no record starts at byte {s1}, where the journal holds a part"
        )),
        "{err}"
    );
    assert_eq!(count(&pg, "j"), (rows as i64 - j[1].4).to_string());
}

/// `1234567` as csvload's summary writes it (`1,234,567`).
fn fmt_thousands(n: i64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A file under the smallest parts loads whole, in one batch, its journal checksum taken
/// while it loads: the xxh64 of every byte of the file, header included, as a rerun reads it
/// (which then finds the file done without reading it again).
#[test]
fn a_whole_file_checksum_taken_while_loading_is_the_files() {
    let Some(pg) = Pg::start() else { return };
    pg.createdb("w");
    pg.psql("w", TABLES);
    let dir = tempfile::tempdir().unwrap();
    let (csv, at) = nasty_csv(1 << 20, 2, None);
    let (f, m) = write_table(dir.path(), &csv, at.len() as u64 - 1);
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "-j", "4", "dbname=w"]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("parts"), "{err}");
    let mut h = twox_hash::XxHash64::with_seed(0);
    std::hash::Hasher::write(&mut h, &csv);
    let key = std::fs::canonicalize(&f).unwrap().display().to_string();
    assert_eq!(
        pg.psql(
            "w",
            "SELECT file || ' ' || checksum FROM dumpshard.load_journal"
        )
        .trim(),
        format!("{key} xxh64:{:016x}", std::hash::Hasher::finish(&h))
    );
    let out = csvload(&pg, &["-m", m.to_str().unwrap(), "dbname=w"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(count(&pg, "w"), (at.len() - 1).to_string());
}
