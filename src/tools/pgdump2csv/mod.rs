//! `pgdump2csv`: converts a plain-format pg_dump (optionally gzip/zstd/lz4-compressed) into
//! one CSV file per table, the schema DDL (optionally split into pre- and post-data), and a
//! JSON manifest, in one streaming pass with memory that does not grow with the dump.
//!
//! The dump is read through one growable buffer. Between data blocks it is lexed statement by
//! statement; `COPY ... FROM stdin` data is converted in large blocks of whole lines, split
//! across cores with rayon, and written in order.
//!
//! An archive read from a file hands its table data out apart from the script (see
//! `dump::archive`): the script is converted first (schema outputs in TOC order, as for a
//! plain dump), then up to `--jobs` tables at once, each by a worker thread reading its
//! entry's decompressed data through its own buffer.

use crate::csv::csvout::FieldWriter;
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::{AtomicFile, Sink};
use crate::manifest::{self, Manifest};
use crate::pg::dump::archive::DataSet;
use crate::pg::dump::psql;
use crate::pg::dump::tabledefs::{Redeclare, TableDefs};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::PathBuf;

mod archive;
mod args;
mod buf;
mod copy;
mod insert;
mod schema;
mod statement;
mod tables;
mod target;

pub use args::{Args, Config, Dest};
use buf::Buf;

/// A mutex's guard, also after a panicking holder (the data is counters and an error).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// For unit tests: converts the plain dump `input` into `out`, writing `manifest`, quietly and
/// without the end-of-dump check.
#[cfg(test)]
pub(crate) fn convert_for_test(
    input: &std::path::Path,
    out: &std::path::Path,
    manifest: &std::path::Path,
) -> Result<()> {
    use clap::Parser;
    let args = Args::try_parse_from([
        "pgdump2csv".as_ref(),
        "--no-dump-check".as_ref(),
        "-q".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        "--write-manifest".as_ref(),
        manifest.as_os_str(),
        input.as_os_str(),
    ])
    .map_err(|e| Error::Usage(e.to_string()))?;
    run(args)
}

/// Runs the tool.
pub fn run(mut args: Args) -> Result<()> {
    if let Some(m) = args.manifest.take() {
        eprintln!("pgdump2csv: --manifest is deprecated, use --write-manifest");
        args.write_manifest = Some(m);
    }
    args.resolve_old_spellings()?;
    // --list: converted into a private temporary directory, listed from its manifest.
    let listing = if args.list {
        let dir = tempfile::Builder::new()
            .prefix(".pgdump2csv-list.")
            .tempdir()
            .map_err(|e| Error::io(std::env::temp_dir(), e))?;
        crate::io::signals::register_temp(dir.path().to_path_buf());
        args.output_dir = Some(dir.path().join("csv"));
        args.write_manifest = Some(dir.path().join("m.json"));
        Some(dir)
    } else {
        None
    };
    crate::io::output::Guard::new("a table file under -o")
        .input("DUMP", args.dump.as_deref())
        .output_dir("-o", args.output_dir.as_deref())
        .output_files_in(
            "-o",
            args.output_dir.as_deref(),
            &[if args.gzip { ".csv.gz" } else { ".csv" }],
        )
        .output("--write-schema", args.schema.as_deref())
        .output("--write-post-data", args.post_data.as_deref())
        .output("--write-manifest", args.write_manifest.as_deref())
        .force(args.force)
        .output("--report", args.report.as_deref())
        .install()?;
    let mut cfg = Config::from_args(args)?;
    // A .gz dump in a regular file is inflated on the jobs' threads from PAR_MIN_THREADS, by
    // ISA-L below (src/io/input.rs, `gzip_path`).
    crate::io::input::gzpar::set_threads(cfg.jobs);
    crate::io::progress::start("pgdump2csv", cfg.quiet, &[cfg.dump.as_deref()]);
    // Archives (-Fc, -Fd, -Ft) are read as the script pg_restore would print for them.
    let want = |s: &str, t: &str| cfg.dest != Dest::None && cfg.selected(s, t);
    let input = crate::pg::dump::archive::open(cfg.dump.as_deref(), &want, cfg.jobs)?;
    cfg.archive = input.facts;
    // -j N is N threads working at most: a decompression thread (never with -j 1) takes one
    // of them, the converter's block conversion the rest. The converter itself waits while
    // the pool converts its blocks, so it does not count beside the pool; in a big COPY
    // block (copy_rows_par) it reads while the pool converts and a writer thread writes,
    // the two moving bytes as `cp` would.
    let pool = pool_of(cfg.jobs - usize::from(input.inflating))?;
    let mut conv = Converter::new(
        &cfg,
        pool.as_ref(),
        input.name.clone(),
        input.reader,
        input.data,
    )?;
    conv.run()?;
    // An archive's table data, when read entry by entry: converted concurrently.
    conv.convert_deferred()?;
    conv.finish()?;
    if let Some(dir) = listing {
        list(&dir.path().join("m.json"))?;
        crate::io::signals::unregister_temp(dir.path());
    }
    Ok(())
}

/// Prints the tables of the manifest at `m` for --list: a header, then one tab-separated line
/// per table (schema, name, rows, bytes, primary key). Control characters in names are
/// printed escaped (`\x09`), so a name cannot fake a line or a column.
fn list(m: &std::path::Path) -> Result<()> {
    let man = crate::manifest::Manifest::read(m)?;
    let esc = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\x{:02x}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect()
    };
    let mut out = String::from("schema\tname\trows\tbytes\tprimary_key\n");
    for t in &man.tables {
        let pk: Vec<String> = t.primary_key.iter().map(|c| esc(c)).collect();
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            esc(&t.schema),
            esc(&t.name),
            t.rows,
            t.bytes,
            pk.join(",")
        ));
    }
    let mut so = std::io::stdout().lock();
    so.write_all(out.as_bytes()).at(crate::io::error::STDOUT)?;
    so.flush().at(crate::io::error::STDOUT)
}

/// A pool of `n` threads to convert blocks on, or none (convert on the calling thread) when
/// `n` is 1.
pub(super) fn pool_of(n: usize) -> Result<Option<std::sync::Arc<rayon::ThreadPool>>> {
    if n <= 1 {
        return Ok(None);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("convert {i}"))
        .build()
        .map(|p| Some(std::sync::Arc::new(p)))
        .map_err(|e| Error::internal(format!("cannot start {n} threads: {e}")))
}

/// The error for a statement the dump ends in.
const CUT_OFF: &str = "statement cut off: the dump ends inside it (truncated dump?)";

/// Longest INSERT head (`INSERT INTO t (columns) VALUES`) looked for.
const INSERT_HEAD_MAX: usize = 1 << 20;

/// Sizes of the read buffer: data blocks are converted in pieces of about this size.
///
/// 2 MiB, a core's L2 cache on the benchmark machine: what a read copies in is still in
/// the cache when the `\.` line is searched for in it and the pieces are cut. Measured
/// against 4 MiB (`bash bench/ab.sh`; docs/benchmarks.md, seventh run): plain dumps
/// `-j 2` 1-5% faster on every shape (notes 2.44x `cp` -> 2.36x), a custom archive and a
/// gzip dump no different beyond the noise; 1 MiB lost on the three-table dump (1.70x
/// against 1.61x).
const READ_SIZE: usize = 2 << 20;
/// Below this, a data block is converted on the current thread.
const PAR_MIN: usize = 256 << 10;

/// A table whose data was (or is being) written.
#[derive(Debug)]
struct DataTable {
    schema: String,
    name: String,
    cols: Vec<String>,
    path: Option<PathBuf>,
    rows: u64,
    bytes: u64,
}

/// The table whose data is being written now.
struct Open {
    idx: usize,
    sink: Sink,
}

#[derive(PartialEq, Clone, Copy)]
enum Phase {
    Pre,
    Post,
}

struct Converter<'c> {
    cfg: &'c Config,
    /// Where blocks of COPY data are converted (`None`: on this thread).
    pool: Option<&'c std::sync::Arc<rayon::ThreadPool>>,
    buf: Buf,
    fw: FieldWriter,
    std_strings: bool,
    /// What the DDL declares about each table, and the search path.
    defs: TableDefs,
    data: Vec<DataTable>,
    by_name: HashMap<(String, String), usize>,
    open: Option<Open>,
    stdout: Option<Sink>,
    schema: Option<AtomicFile>,
    post: Option<AtomicFile>,
    preamble: Vec<u8>,
    /// Lines written to --write-post-data when the data began (its header comment and the
    /// repeated session settings), before the converted statements (the report's lines).
    post_head: u64,
    phase: Phase,
    footer_seen: bool,
    piece_bufs: Vec<Vec<u8>>,
    /// A `-- Data for Name: ...; Type: TABLE DATA` comment not yet followed by data: in
    /// INSERT dumps an empty table has no statement at all, only this comment.
    pending_data: Option<(String, String)>,
    /// The fresh `\restrict` keys of the schema and post-data files.
    schema_key: String,
    post_key: String,
    /// The key of the dump's own `\restrict`, while the dump is in restricted mode.
    dump_key: Option<Vec<u8>>,
    /// Every table the dump creates or has data for, to check that each --table matched.
    seen: HashSet<(String, String)>,
    /// Tables already warned about for an uncertain INSERT column order.
    order_warned: HashSet<(String, String)>,
    /// An archive's data entries converted apart from the script (concurrently, after it).
    dset: Option<DataSet>,
    /// The next entry of `dset`: the one the script's next COPY belongs to.
    next_entry: usize,
    /// The entries of `dset` by output table, in script order.
    groups: Vec<Group>,
    /// `data` index -> `groups` index.
    group_of: HashMap<usize, usize>,
    /// The schema conversion for the target (--target-kind, -O, -x, --report).
    conv: crate::schemaconv::Session,
    /// CockroachDB: partition -> its partitioned table, from the dump's ATTACH PARTITION
    /// (and PARTITION OF) statements, which pg_dump writes before any data: a partition's
    /// rows go to the partitioned table's file (rule crdb-partition-rows).
    partition_of: HashMap<(String, String), (String, String)>,
    /// The dump's enums and domains, for the manifest.
    enums: Vec<manifest::EnumDef>,
    domains: Vec<manifest::DomainDef>,
}

/// The archive data entries of one output table, converted in order by one worker.
struct Group {
    /// Index in `Converter::data`.
    idx: usize,
    /// Indexes in the `DataSet`.
    entries: Vec<usize>,
}

impl<'c> Converter<'c> {
    fn new(
        cfg: &'c Config,
        pool: Option<&'c std::sync::Arc<rayon::ThreadPool>>,
        name: String,
        r: Box<dyn Read + Send>,
        dset: Option<DataSet>,
    ) -> Result<Converter<'c>> {
        let mut schema = cfg.schema.as_deref().map(AtomicFile::create).transpose()?;
        let mut post = cfg
            .post_data
            .as_deref()
            .map(AtomicFile::create)
            .transpose()?;
        // Each script runs on its own under psql, so each keeps pg_dump's guard with its own
        // key: psql then refuses any meta-command in it but ours.
        let schema_key = psql::restrict_key()?;
        let post_key = psql::restrict_key()?;
        for (f, key) in [(&mut schema, &schema_key), (&mut post, &post_key)] {
            if let Some(f) = f {
                let name = f.dest().to_path_buf();
                write!(f, "\\restrict {key}\n\n").at(&name)?;
                // The release the files are for: csvload refuses them on an older server.
                if let Some(v) = &cfg.conversion.version {
                    let line = crate::schemaconv::version::header_line(v);
                    f.write_all(line.as_bytes()).at(name)?;
                }
            }
        }
        if let Dest::Dir(d) = &cfg.dest {
            std::fs::create_dir_all(d).at(d)?;
        }
        Ok(Converter {
            cfg,
            pool,
            buf: Buf::new(r, name),
            fw: FieldWriter::new(cfg.null.as_bytes()),
            std_strings: true,
            // A file needs a schema: where the search path gives none, the name is
            // PostgreSQL's default creation schema.
            defs: TableDefs::new(Some("public"), Redeclare::Replaces),
            data: Vec::new(),
            by_name: HashMap::new(),
            open: None,
            stdout: None,
            schema,
            post,
            preamble: Vec::new(),
            post_head: 0,
            phase: Phase::Pre,
            footer_seen: false,
            piece_bufs: Vec::new(),
            pending_data: None,
            schema_key,
            post_key,
            dump_key: None,
            seen: HashSet::new(),
            order_warned: HashSet::new(),
            dset,
            next_entry: 0,
            groups: Vec::new(),
            group_of: HashMap::new(),
            conv: crate::schemaconv::Session::new(cfg.conversion, cfg.report.is_some()),
            partition_of: HashMap::new(),
            enums: Vec::new(),
            domains: Vec::new(),
        })
    }

    fn err(&self, rel: usize, msg: impl Into<String>) -> Error {
        Error::input(self.buf.pos_at(rel), msg)
    }

    /// The `\restrict` key of the file [`Converter::emit`] writes to now.
    fn emit_key(&self) -> String {
        match (self.phase, &self.post) {
            (Phase::Post, Some(_)) => self.post_key.clone(),
            _ => self.schema_key.clone(),
        }
    }

    /// Writes schema text to the file of the current phase (held for the conversion when
    /// the target needs the whole DDL first).
    fn emit(&mut self, text: &[u8]) -> Result<()> {
        if self.conv.deferred() {
            let d = self.dest();
            self.conv.text(d, text);
            return Ok(());
        }
        self.write_out(text)
    }

    /// Writes to the schema file of the current phase.
    fn write_out(&mut self, text: &[u8]) -> Result<()> {
        let target = match (self.phase, &mut self.post) {
            (Phase::Post, Some(p)) => Some(p),
            _ => self.schema.as_mut(),
        };
        if let Some(f) = target {
            let name = f.dest().to_path_buf();
            f.write_all(text).at(name)?;
        }
        Ok(())
    }

    fn check_start(&mut self) -> Result<()> {
        while self.buf.data.len() < 64 && self.buf.fill()? {}
        if self.buf.avail().starts_with(b"\xEF\xBB\xBF") {
            self.buf.pos += 3;
        }
        // Even with --no-dump-check: converting nothing into nothing and saying "done" would
        // hide a failed pg_dump or a wrong file name.
        if self.buf.avail().is_empty() {
            return Err(Error::file(
                &self.buf.name,
                "the input is empty: not a dump (did pg_dump fail before writing anything?)",
            ));
        }
        // Archives never get here: crate::pg::dump::archive::open recognised them first.
        let head = self.buf.avail();
        if !self.cfg.dump_check {
            return Ok(());
        }
        let norm: Vec<u8> = head
            .iter()
            .copied()
            .filter(|&b| b != b'\r')
            .take(48)
            .collect();
        if !(norm.starts_with(b"--\n-- PostgreSQL database dump\n")
            || norm.starts_with(b"--\n-- PostgreSQL database cluster dump\n"))
        {
            return Err(Error::file(
                &self.buf.name,
                "not a plain-format pg_dump dump (it does not start with pg_dump's '-- PostgreSQL database dump' header; use --no-dump-check for hand-written SQL)",
            ));
        }
        Ok(())
    }

    fn run(&mut self) -> Result<()> {
        self.check_start()?;
        loop {
            // Skip blank lines and comments between statements (they go to the schema).
            let sig = match self.skip_trivia()? {
                Some(s) => s,
                None => {
                    let rest = self.buf.avail().to_vec();
                    self.emit(&rest)?;
                    let n = rest.len();
                    self.buf.advance(n);
                    break;
                }
            };
            if self.buf.avail()[sig] == b'\\' {
                self.meta_command(sig)?;
                continue;
            }
            self.statement(sig)?;
        }
        self.flush_pending()?;
        self.close_open()?;
        if self.cfg.dump_check && self.dump_key.is_some() {
            return Err(Error::input(
                self.buf.pos_at(0),
                "the dump ends in psql's restricted mode, without the \\unrestrict line pg_dump writes last: it is truncated (use --no-dump-check for hand-written SQL)",
            ));
        }
        if self.cfg.dump_check && !self.footer_seen {
            return Err(Error::input(
                self.buf.pos_at(0),
                "the dump ends without pg_dump's '-- PostgreSQL database dump complete' footer: it is truncated (use --no-dump-check for hand-written SQL)",
            ));
        }
        // As pg_dump --strict-names: a pattern that matches nothing is most likely a typo, and
        // going on would silently leave that table out.
        for p in &self.cfg.include {
            if !self.seen.iter().any(|(s, t)| p.matches(s, t)) {
                return Err(Error::Usage(format!(
                    "no matching tables were found for --table '{}'",
                    p.text()
                )));
            }
        }
        if self.cfg.include.is_empty() {
            for p in &self.cfg.schemas {
                if !self.seen.iter().any(|(s, t)| p.matches(s, t)) {
                    return Err(Error::Usage(format!(
                        "no matching tables were found for --schema '{}'{}",
                        p.text(),
                        self.cfg.no_match_hint()
                    )));
                }
            }
        }
        Ok(())
    }

    /// Switches the schema output to post-data at the first table data.
    fn enter_data(&mut self) -> Result<()> {
        if self.phase == Phase::Pre {
            self.phase = Phase::Post;
            if let Some(p) = self.post.as_mut() {
                let name = p.dest().to_path_buf();
                p.write_all(b"--\n-- Post-data part of the dump, written by pgdump2csv: load it after the data.\n--\n\n")
                    .at(&name)?;
                p.write_all(&self.preamble).at(&name)?;
                p.write_all(b"\n").at(&name)?;
                self.post_head = 5 + memchr::memchr_iter(b'\n', &self.preamble).count() as u64;
            }
        }
        Ok(())
    }

    /// The tables written, as the manifest describes them (`file` relative to `mpath`).
    fn manifest_tables(&self, mpath: Option<&std::path::Path>) -> Vec<manifest::Table> {
        let mut tables = Vec::new();
        for t in &self.data {
            let key = (t.schema.clone(), t.name.clone());
            let def = self.def(&key);
            let all = self.all_columns(&key).unwrap_or_default();
            let columns = t
                .cols
                .iter()
                .map(|c| {
                    let cd = all.iter().find(|x| &x.name == c);
                    manifest::Column {
                        name: c.clone(),
                        type_name: cd.map(|x| x.type_name.clone()),
                        not_null: cd.is_some_and(|x| x.not_null)
                            || def.is_some_and(|d| d.pk.contains(c) || d.not_null.contains(c)),
                    }
                })
                .collect();
            tables.push(manifest::Table {
                schema: t.schema.clone(),
                name: t.name.clone(),
                file: match (mpath, &t.path) {
                    (Some(m), Some(p)) => Some(manifest::relative_file(m, p)),
                    _ => None,
                },
                columns,
                primary_key: def.map(|d| d.pk.clone()).unwrap_or_default(),
                rows: t.rows,
                bytes: t.bytes,
                header: self.cfg.header,
                null: self.cfg.null.clone(),
                compression: self.cfg.gzip.map(|_| "gzip".to_string()),
            });
        }
        tables
    }

    /// Commits all outputs and writes the manifest.
    fn finish(mut self) -> Result<()> {
        self.close_open()?;
        if let Some(s) = self.stdout.take() {
            s.finish()?;
        }
        // The manifest's tables (also the data side of --report).
        let tables = self.manifest_tables(self.cfg.manifest.as_deref());
        // The converted DDL and the report; with --strict a failure stops before anything
        // else is committed.
        self.finish_conversion(&tables)?;
        for (f, key) in [
            (self.schema.take(), &self.schema_key),
            (self.post.take(), &self.post_key),
        ] {
            if let Some(mut f) = f {
                let name = f.dest().to_path_buf();
                write!(f, "\n\\unrestrict {key}\n").at(name)?;
                f.commit()?;
            }
        }
        if let Some(mpath) = &self.cfg.manifest {
            let mut m = Manifest::new(&self.buf.name);
            m.archive = self.cfg.archive.clone();
            m.tables = tables;
            m.enums = std::mem::take(&mut self.enums);
            m.domains = std::mem::take(&mut self.domains);
            let mut f = AtomicFile::create(mpath)?;
            f.write_all(&m.to_json()).at(mpath)?;
            f.commit()?;
        }
        if self.cfg.verbose {
            let rows: u64 = self.data.iter().map(|t| t.rows).sum();
            crate::io::progress::Summary {
                read_bytes: crate::io::progress::read_bytes(),
                read_records: rows,
                wrote: self.data.len() as u64,
                unit: "table",
                wrote_records: rows,
                wrote_bytes: self.data.iter().map(|t| t.bytes).sum(),
                bad: 0,
                bad_word: "dropped",
            }
            .print();
        }
        Ok(())
    }
}
