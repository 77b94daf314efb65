//! `pgdump2csv`: converts a plain-format pg_dump (optionally gzip/zstd/lz4-compressed) into
//! one CSV file per table, the schema DDL (optionally split into pre- and post-data), and a
//! JSON manifest, in one streaming pass with memory that does not grow with the dump.
//!
//! The dump is read through one growable buffer. Between data blocks it is lexed statement by
//! statement; `COPY ... FROM stdin` data is converted in large blocks of whole lines, split
//! across cores with rayon, and written in order.
//!
//! An archive read from a file hands its table data out apart from the script (see
//! `pgdump::archive`): the script is converted first (schema outputs in TOC order, as for a
//! plain dump), then up to `--jobs` tables at once, each by a worker thread reading its
//! entry's decompressed data through its own buffer.

use crate::csvout::FieldWriter;
use crate::error::{Error, IoContext, Pos, Result};
use crate::manifest::{self, Manifest};
use crate::output::{AtomicFile, Sink};
use crate::pgdump::archive::DataSet;
use crate::pgdump::copytext::CopyConverter;
use crate::pgdump::copytext::RowError;
use crate::pgdump::ddl::{self, ColumnDef, QName, Stmt};
use crate::pgdump::inserts::{self, Value};
use crate::pgdump::naming::{self, TablePattern};
use crate::pgdump::psql;
use crate::pgdump::sql::{Scan, StmtScanner};
use clap::Parser;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const AFTER_HELP: &str = "\
Examples:
  zcat dump.sql.gz | pgdump2csv --schema schema.sql --post-data post.sql --write-manifest m.json -o csv/
  pksort -m m.json -t orders csv/public.orders.csv > orders.sorted.csv
  pgdump2csv dump.sql -t public.orders | pksort -k 1:int > orders.csv
  pgdump2csv db.dump -o csv/    # also custom (-Fc), directory (-Fd) and tar (-Ft) archives
  pg_dump -Fc db | pgdump2csv -o csv/

Data comes from COPY blocks and from --inserts / --column-inserts / --rows-per-insert dumps.
Several COPY blocks for one table (--load-via-partition-root) append to one file. Generated
columns are left out, as in pg_dump's COPY. bytea stays in PostgreSQL's \\x hex text.
The input must be UTF-8 (or SQL_ASCII); other client encodings are refused.

Files appear under their final names only when complete: after an error, the tables finished
before it keep their files and the tables being written leave none (with -j, the first table of
an archive to fail stops the others). --schema, --post-data and --write-manifest are written
only when everything succeeded.

Of the dump's psql meta-commands only pg_dump's own (\\restrict, \\unrestrict, \\connect) are
accepted; any other (\\! and the like) is refused with its position, so the schema files never
run what a dump smuggles in. A --table pattern that matches no table is an error.";

/// Convert a PostgreSQL dump (plain SQL or a pg_dump archive) into per-table CSV, schema DDL
/// and a JSON manifest.
///
/// Reads DUMP (or standard input when DUMP is `-` or absent); gzip, zstd and lz4 input is
/// recognised by its magic bytes. pg_dump archives are read directly, recognised by content:
/// custom (-Fc, also from a pipe), directory (-Fd: give the directory) and tar (-Ft), archive
/// versions 1.12 to 1.16, data compressed with gzip, lz4 or zstd; the outputs are the same as
/// for the plain dump. Large objects are not converted (counted in the manifest).
///
/// Writes `DIR/<schema>.<table>.csv` for every table with data under --output-dir, or, with one --table and no --output-dir, that table's CSV to stdout.
/// CSV follows the dumpshard contract: NULL is an unquoted empty field, '' is `""`.
///
/// Exit status: 0 on success, 2 on usage errors, I/O errors and malformed or truncated dumps.
#[derive(Debug, Parser)]
#[command(
    name = "pgdump2csv",
    version,
    about = "Convert a PostgreSQL dump (plain SQL or a pg_dump archive) into per-table CSV, schema DDL and a JSON manifest",
    long_about,
    after_long_help = AFTER_HELP
)]
pub struct Args {
    /// The dump: plain SQL (`pg_dump -Fp`), a custom (`-Fc`) or tar (`-Ft`) archive, or a
    /// directory archive (`-Fd`); `-` or absent for stdin.
    #[arg(value_name = "DUMP")]
    pub dump: Option<PathBuf>,

    /// Write one CSV per table into DIR (created if missing). File names encode every byte of
    /// the schema and table name outside [A-Za-z0-9_-] as %XX: `public.my%20table.csv`. A name
    /// longer than 200 bytes is cut between characters and ends in `~` and a 16-digit hash of
    /// the full name (which the manifest keeps).
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,

    /// Only tables matching PATTERN (`table` or `schema.table`; `*` and `?` wildcards;
    /// unquoted names fold to lower case, "Quoted" ones do not). Repeatable.
    #[arg(short = 't', long = "table", value_name = "PATTERN")]
    pub tables: Vec<String>,

    /// Leave out tables matching PATTERN (same syntax as --table). Repeatable.
    #[arg(short = 'T', long = "exclude-table", value_name = "PATTERN")]
    pub exclude: Vec<String>,

    /// Start every CSV with a header record of column names.
    #[arg(long)]
    pub header: bool,

    /// Write NULL as STRING instead of an unquoted empty field (e.g. '\N'); a value equal to
    /// STRING is then quoted.
    #[arg(long, value_name = "STRING", default_value = "")]
    pub null: String,

    /// Compress the CSV files with gzip (`.csv.gz`): one gzip member per MiB of CSV,
    /// compressed on the --jobs threads; the bytes are the same whatever --jobs.
    #[arg(long)]
    pub gzip: bool,

    /// gzip level for --gzip, 1 (fast) to 9 (small).
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=9))]
    pub level: u32,

    /// Write every statement that is not table data (the DDL), in dump order, to FILE. It
    /// starts with its own `\restrict` (fresh random key) and ends with `\unrestrict`.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// Write what comes after the data (primary keys, indexes, foreign keys, triggers,
    /// setval) to FILE instead of --schema, so tables can be loaded bare and indexed after.
    /// The dump's session settings are repeated at its top so it runs on its own, inside its
    /// own `\restrict`/`\unrestrict` pair.
    #[arg(long = "post-data", value_name = "FILE")]
    pub post_data: Option<PathBuf>,

    /// Write a JSON manifest (format dumpshard-manifest, version 1) describing every table
    /// written: file, columns with types and NOT NULL, primary key, rows, bytes. The old
    /// spelling `--manifest` still works for this release, with a warning.
    #[arg(long = "write-manifest", value_name = "FILE")]
    pub write_manifest: Option<PathBuf>,

    /// The old spelling of --write-manifest: deprecated, to be removed in the next release,
    /// because `--manifest` reads a manifest in every other dumpshard tool. Works, and warns.
    #[arg(
        long = "manifest",
        hide = true,
        value_name = "FILE",
        conflicts_with = "write_manifest"
    )]
    pub manifest: Option<PathBuf>,

    /// Accept input without pg_dump's header and "dump complete" footer (hand-written SQL).
    /// Without it such input is rejected, which catches truncated dumps.
    #[arg(long = "no-dump-check")]
    pub no_dump_check: bool,

    /// At most N threads working: with 1, one thread decompresses, converts and writes;
    /// with more, decompression runs on a thread of its own beside the conversion, up to N
    /// tables of an archive read from a file (directory, custom or tar) are converted at
    /// once, and the rest convert data (and --gzip) in parallel blocks. An archive from a
    /// pipe is read in one pass. Each table in flight holds about 25 MB of buffers
    /// [default: number of CPUs; at most 4 per CPU, 256 in all].
    #[arg(short = 'j', long = "jobs", alias = "parallel", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,

    /// No progress bar and no warnings on stderr (errors still print).
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// At the end, print one summary line on stderr, the same shape in every tool (see
    /// dumpshard(7)): `read SIZE, N records; wrote N tables, N records, SIZE; N dropped; SECS s,
    /// RATE MB/s`.
    #[arg(short = 'v', long, conflicts_with = "quiet")]
    pub verbose: bool,
}

/// Options after validation.
#[derive(Debug)]
pub struct Config {
    /// Input path (`None` = stdin).
    pub dump: Option<PathBuf>,
    /// Where CSV goes.
    pub dest: Dest,
    /// Include patterns (empty = all).
    pub include: Vec<TablePattern>,
    /// Exclude patterns.
    pub exclude: Vec<TablePattern>,
    /// Header records.
    pub header: bool,
    /// NULL token.
    pub null: String,
    /// gzip level, when compressing.
    pub gzip: Option<u32>,
    /// Schema output.
    pub schema: Option<PathBuf>,
    /// Post-data output.
    pub post_data: Option<PathBuf>,
    /// Manifest output.
    pub manifest: Option<PathBuf>,
    /// Require pg_dump's header and footer.
    pub dump_check: bool,
    /// Worker threads.
    pub jobs: usize,
    /// Set by `run` when the input is a pg_dump archive (for the manifest).
    pub archive: Option<crate::pgdump::archive::Facts>,
    /// No progress bar, no warnings.
    pub quiet: bool,
    /// Print the summary line.
    pub verbose: bool,
}

/// Where table data goes.
#[derive(Debug, PartialEq)]
pub enum Dest {
    /// One file per table in this directory.
    Dir(PathBuf),
    /// The one selected table to stdout.
    Stdout,
    /// Nowhere (only schema and manifest wanted).
    None,
}

impl Config {
    /// Validates the command line.
    pub fn from_args(a: Args) -> Result<Config> {
        let include = a
            .tables
            .iter()
            .map(|p| TablePattern::parse(p).map_err(Error::Usage))
            .collect::<Result<Vec<_>>>()?;
        let exclude = a
            .exclude
            .iter()
            .map(|p| TablePattern::parse(p).map_err(Error::Usage))
            .collect::<Result<Vec<_>>>()?;
        let dest = match (&a.output_dir, include.is_empty()) {
            (Some(d), _) => Dest::Dir(d.clone()),
            (None, false) => Dest::Stdout,
            (None, true)
                if a.schema.is_some() || a.write_manifest.is_some() || a.post_data.is_some() =>
            {
                Dest::None
            }
            (None, true) => {
                return Err(Error::Usage(
                    "nothing to write: give --output-dir DIR, or --table NAME for one table on stdout, or --schema/--write-manifest".into(),
                ));
            }
        };
        if a.null.contains(['"', ',', '\n', '\r']) {
            return Err(Error::Usage(
                "--null must not contain a quote, comma, CR or LF".into(),
            ));
        }
        Ok(Config {
            dump: a.dump,
            dest,
            include,
            exclude,
            header: a.header,
            null: a.null,
            gzip: a.gzip.then_some(a.level),
            schema: a.schema,
            post_data: a.post_data,
            manifest: a.write_manifest.or(a.manifest),
            dump_check: !a.no_dump_check,
            jobs: crate::cli::threads("--jobs", a.jobs.map(|j| j as usize))?,
            archive: None,
            quiet: a.quiet,
            verbose: a.verbose,
        })
    }

    fn selected(&self, schema: &str, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| p.matches(schema, name)))
            && !self.exclude.iter().any(|p| p.matches(schema, name))
    }
}

/// Runs the tool.
pub fn run(mut args: Args) -> Result<()> {
    if let Some(m) = args.manifest.take() {
        eprintln!("pgdump2csv: --manifest is deprecated, use --write-manifest");
        args.write_manifest = Some(m);
    }
    crate::output::Guard::new("a table file under -o")
        .input("DUMP", args.dump.as_deref())
        .output_dir("-o", args.output_dir.as_deref())
        .output("--schema", args.schema.as_deref())
        .output("--post-data", args.post_data.as_deref())
        .output("--write-manifest", args.write_manifest.as_deref())
        .install()?;
    let mut cfg = Config::from_args(args)?;
    crate::progress::start("pgdump2csv", cfg.quiet, &[cfg.dump.as_deref()]);
    // Archives (-Fc, -Fd, -Ft) are read as the script pg_restore would print for them.
    let want = |s: &str, t: &str| cfg.dest != Dest::None && cfg.selected(s, t);
    let input = crate::pgdump::archive::open(cfg.dump.as_deref(), &want, cfg.jobs)?;
    cfg.archive = input.facts;
    // -j N is N threads working at most: a decompression thread (never with -j 1) takes one
    // of them, the converter's block conversion the rest. The converter itself waits while
    // the pool converts its blocks, so it does not count beside the pool.
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
    conv.finish()
}

/// A pool of `n` threads to convert blocks on, or none (convert on the calling thread) when
/// `n` is 1.
fn pool_of(n: usize) -> Result<Option<std::sync::Arc<rayon::ThreadPool>>> {
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
const READ_SIZE: usize = 4 << 20;
/// Below this, a data block is converted on the current thread.
const PAR_MIN: usize = 256 << 10;

struct Buf {
    r: Box<dyn Read + Send>,
    data: Vec<u8>,
    pos: usize,
    /// Stream offset of `data[0]`.
    base: u64,
    /// Line number at `pos`.
    line: u64,
    eof: bool,
    name: String,
    /// A read error held back until the bytes read before it are used, so the tables they
    /// finish are still written (an archive's next entry can fail while this one is buffered).
    err: Option<std::io::Error>,
}

impl Buf {
    fn new(r: Box<dyn Read + Send>, name: String) -> Buf {
        Buf {
            r,
            data: Vec::with_capacity(READ_SIZE * 2),
            pos: 0,
            base: 0,
            line: 1,
            eof: false,
            name,
            err: None,
        }
    }

    /// Reads more input, keeping `data[pos..]`. Returns false at end of input.
    fn fill(&mut self) -> Result<bool> {
        if let Some(e) = self.err.take() {
            return Err(e).at(&self.name);
        }
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.data.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        let old = self.data.len();
        let want = READ_SIZE.max(old);
        self.data.resize(old + want, 0);
        let mut filled = old;
        while filled < old + want {
            match self.r.read(&mut self.data[filled..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    filled += n;
                    if filled - old >= READ_SIZE / 2 {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.data.truncate(filled);
                    if filled > old {
                        self.err = Some(e);
                        return Ok(true);
                    }
                    return Err(e).at(&self.name);
                }
            }
        }
        self.data.truncate(filled);
        Ok(filled > old)
    }

    fn avail(&self) -> &[u8] {
        &self.data[self.pos..]
    }

    /// Position of `data[pos + rel]`, counting newlines from `pos`.
    fn pos_at(&self, rel: usize) -> Pos {
        let lines = memchr::memchr_iter(b'\n', &self.data[self.pos..self.pos + rel]).count();
        Pos {
            file: self.name.clone(),
            line: self.line + lines as u64,
            byte: self.base + (self.pos + rel) as u64,
            record: None,
        }
    }

    /// Moves `pos` forward by `n` bytes, counting lines.
    fn advance(&mut self, n: usize) {
        let lines = memchr::memchr_iter(b'\n', &self.data[self.pos..self.pos + n]).count();
        self.line += lines as u64;
        self.pos += n;
    }
}

/// What is known about a table from its DDL.
#[derive(Debug, Default)]
struct TableDef {
    columns: Vec<ColumnDef>,
    inherits: Vec<(String, String)>,
    pk: Vec<String>,
    not_null: Vec<String>,
}

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
    search_path: Vec<String>,
    defs: HashMap<(String, String), TableDef>,
    data: Vec<DataTable>,
    by_name: HashMap<(String, String), usize>,
    open: Option<Open>,
    stdout: Option<Sink>,
    schema: Option<AtomicFile>,
    post: Option<AtomicFile>,
    preamble: Vec<u8>,
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
    /// Composite types (`CREATE TYPE t AS (...)`): the columns of tables typed `OF` them.
    types: HashMap<(String, String), Vec<ColumnDef>>,
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
                write!(f, "\\restrict {key}\n\n").at(name)?;
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
            search_path: vec!["public".into()],
            defs: HashMap::new(),
            data: Vec::new(),
            by_name: HashMap::new(),
            open: None,
            stdout: None,
            schema,
            post,
            preamble: Vec::new(),
            phase: Phase::Pre,
            footer_seen: false,
            piece_bufs: Vec::new(),
            pending_data: None,
            schema_key,
            post_key,
            dump_key: None,
            seen: HashSet::new(),
            types: HashMap::new(),
            order_warned: HashSet::new(),
            dset,
            next_entry: 0,
            groups: Vec::new(),
            group_of: HashMap::new(),
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

    /// Writes schema text to the file of the current phase.
    fn emit(&mut self, text: &[u8]) -> Result<()> {
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
        // Archives never get here: crate::pgdump::archive::open recognised them first.
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
        Ok(())
    }

    /// Finds the first byte of the next statement or meta-command, relative to `pos`, noting
    /// pg_dump's footer comment on the way. `None` at end of input.
    fn skip_trivia(&mut self) -> Result<Option<usize>> {
        let mut i = 0usize;
        loop {
            let avail = self.buf.avail();
            while i < avail.len() && avail[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= avail.len() {
                if !self.buf.fill()? {
                    return Ok(None);
                }
                continue;
            }
            if avail[i] == b'-' || avail[i] == b'/' {
                if i + 1 >= avail.len() && !self.buf.eof {
                    self.buf.fill()?;
                    continue;
                }
                if avail[i..].starts_with(b"--") {
                    match memchr::memchr(b'\n', &avail[i..]) {
                        Some(k) => {
                            let text = &avail[i..i + k];
                            let text = text.strip_suffix(b"\r").unwrap_or(text);
                            if text == b"-- PostgreSQL database dump complete"
                                || text == b"-- PostgreSQL database cluster dump complete"
                            {
                                self.footer_seen = true;
                            }
                            let toc = toc_table_data(text);
                            i += k + 1;
                            if let Some(t) = toc {
                                self.flush_pending()?;
                                self.pending_data = Some(t);
                            }
                        }
                        None if self.buf.eof => {
                            i = avail.len();
                        }
                        None => {
                            self.buf.fill()?;
                        }
                    }
                    continue;
                }
                if avail[i..].starts_with(b"/*") {
                    match memchr::memmem::find(&avail[i..], b"*/") {
                        Some(k) => i += k + 2,
                        None if self.buf.eof => {
                            return Err(self.err(i, "unterminated /* comment"));
                        }
                        None => {
                            self.buf.fill()?;
                        }
                    }
                    continue;
                }
            }
            return Ok(Some(i));
        }
    }

    /// A psql meta-command line (`\connect`, `\restrict`, `\unrestrict`).
    fn meta_command(&mut self, sig: usize) -> Result<()> {
        let eol = loop {
            if let Some(k) = memchr::memchr(b'\n', &self.buf.avail()[sig..]) {
                break sig + k + 1;
            }
            if !self.buf.fill()? {
                break self.buf.avail().len();
            }
        };
        let line = self.buf.avail()[sig..eol].to_vec();
        let lead = self.buf.avail()[..sig].to_vec();
        self.emit(&lead)?;
        // The dump's \restrict/\unrestrict pairs are followed as psql would (a wrong key is a
        // cut or tampered dump) and replaced by our own keys in the outputs. A \connect pg_dump
        // writes is kept, outside our restricted mode as pg_dump does it. Anything else could
        // run commands on restore (`\!`, `\o |cmd`): no pg_dump writes it, so it is refused.
        match psql::classify(&line) {
            psql::Meta::Restrict(k) if self.dump_key.is_none() => self.dump_key = Some(k.to_vec()),
            psql::Meta::Unrestrict(k) if self.dump_key.as_deref() == Some(k) => {
                self.dump_key = None;
            }
            psql::Meta::Unrestrict(_) | psql::Meta::Restrict(_) => {
                return Err(self.err(
                    sig,
                    "\\restrict/\\unrestrict line that does not match the dump's restricted mode (psql refuses it): the dump is cut or was altered",
                ));
            }
            psql::Meta::Connect if self.dump_key.is_none() => {
                let key = self.emit_key();
                let mut text = format!("\\unrestrict {key}\n").into_bytes();
                text.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(&line));
                text.extend_from_slice(format!("\n\\restrict {key}\n").as_bytes());
                self.emit(&text)?;
            }
            psql::Meta::Connect => {
                return Err(self.err(
                    sig,
                    "\\connect inside the dump's restricted mode (psql refuses it): the dump was altered",
                ));
            }
            psql::Meta::Other(cmd) => {
                return Err(self.err(
                    sig,
                    format!(
                        "psql meta-command {cmd} in the dump: pg_dump writes only \\connect, \\restrict and \\unrestrict, and passing it on could run commands on restore; refusing the dump"
                    ),
                ));
            }
        }
        self.buf.advance(eol);
        Ok(())
    }

    /// Scans, classifies and handles one SQL statement starting at `sig`.
    fn statement(&mut self, sig: usize) -> Result<()> {
        while self.buf.avail().len() < sig + 7 && self.buf.fill()? {}
        if let Some(w) = self.buf.avail().get(sig..sig + 7)
            && w[..6].eq_ignore_ascii_case(b"insert")
            && !w[6].is_ascii_alphabetic()
        {
            return self.insert_statement(sig);
        }
        let mut sc = StmtScanner::default();
        let mut from = sig;
        let end = loop {
            match sc.scan(self.buf.avail(), from, self.std_strings, self.buf.eof) {
                Scan::End(e) => break e,
                Scan::More(f) => {
                    from = f;
                    if self.buf.eof {
                        return Err(self.err(
                            sig,
                            "statement cut off: the dump ends inside it (truncated dump?)",
                        ));
                    }
                    // At end of input this only sets `eof`; the scan then decides with it.
                    self.buf.fill()?;
                }
            }
        };
        if let Some(at) = sc.meta_command_at() {
            return Err(self.err(
                at,
                "backslash outside quotes in a statement: psql would run it as a meta-command, which no pg_dump writes there; refusing the dump",
            ));
        }
        // The unit runs to the end of the statement's line.
        let mut unit_end = end;
        loop {
            let avail = self.buf.avail();
            while unit_end < avail.len() && matches!(avail[unit_end], b' ' | b'\t' | b'\r') {
                unit_end += 1;
            }
            if unit_end < avail.len() || self.buf.eof {
                break;
            }
            if !self.buf.fill()? {
                break;
            }
        }
        if self.buf.avail().get(unit_end) == Some(&b'\n') {
            unit_end += 1;
        }
        self.footer_seen = false;
        let stmt = self.buf.avail()[sig..end].to_vec();
        let kind = ddl::classify(&stmt, self.std_strings)
            .map_err(|(off, msg)| self.err(sig + off, msg))?;
        if matches!(kind, Stmt::Copy { .. } | Stmt::Insert) {
            self.pending_data = None;
        } else {
            self.flush_pending()?;
        }
        match kind {
            // The comments before a data statement are its TOC entry ("Data for Name: ..."),
            // which means nothing without the data: they are dropped.
            Stmt::Copy { table, cols } => {
                self.buf.advance(unit_end);
                let key = self.resolve(&table);
                match self.take_deferred(&stmt) {
                    Some(i) => self.defer_copy(key, cols, i),
                    None => self.copy_data(key, cols),
                }
            }
            // Read row by row before the statement is buffered whole (above).
            Stmt::Insert => Err(self.err(sig, "internal error: INSERT not streamed")),
            other => {
                self.close_open()?;
                let unit = self.buf.avail()[..unit_end].to_vec();
                let mut session_setting = false;
                match other {
                    Stmt::CreateTable {
                        table,
                        columns,
                        pk,
                        inherits,
                    } => {
                        let key = self.resolve(&table);
                        self.seen.insert(key.clone());
                        let inherits = inherits.iter().map(|q| self.resolve(q)).collect();
                        // A typed table (CREATE TABLE t OF type) has the type's columns.
                        let columns = match typed_table_type(&stmt, self.std_strings) {
                            Some(ty) if columns.is_empty() => self
                                .types
                                .get(&self.resolve(&ty))
                                .cloned()
                                .unwrap_or_default(),
                            _ => columns,
                        };
                        let def = self.defs.entry(key).or_default();
                        def.columns = columns;
                        def.inherits = inherits;
                        if !pk.is_empty() {
                            def.pk = pk;
                        }
                    }
                    Stmt::AddPrimaryKey { table, cols } => {
                        let key = self.resolve(&table);
                        self.defs.entry(key).or_default().pk = cols;
                    }
                    Stmt::SetNotNull { table, col } => {
                        let key = self.resolve(&table);
                        self.defs.entry(key).or_default().not_null.push(col);
                    }
                    Stmt::SearchPath(p) => {
                        self.search_path = p;
                        session_setting = true;
                    }
                    Stmt::StdStrings(on) => {
                        self.std_strings = on;
                        session_setting = true;
                    }
                    Stmt::ClientEncoding(enc) => {
                        let e = enc.to_ascii_uppercase().replace(['-', '_'], "");
                        if e != "UTF8" && e != "SQLASCII" && e != "UNICODE" {
                            return Err(self.err(
                                sig,
                                format!("client_encoding {enc} is not supported: CSV output is UTF-8; re-dump with `pg_dump -E UTF8`"),
                            ));
                        }
                        session_setting = true;
                    }
                    Stmt::OtherCopy => {
                        return Err(self.err(
                            sig,
                            "COPY that does not read FROM stdin: not something pg_dump writes",
                        ));
                    }
                    // Everything else, enums and domains included (csvcheck's business, not
                    // the converter's), goes to the schema as written.
                    _ => {
                        let w = stmt
                            .iter()
                            .take(4)
                            .map(u8::to_ascii_uppercase)
                            .collect::<Vec<_>>();
                        session_setting = w.starts_with(b"SET ");
                        if let Some((name, cols)) = composite_type(&stmt, self.std_strings) {
                            let key = self.resolve(&name);
                            self.types.insert(key, cols);
                        }
                    }
                }
                if session_setting && self.phase == Phase::Pre {
                    self.preamble
                        .extend_from_slice(&self.buf.avail()[sig..unit_end]);
                }
                self.emit(&unit)?;
                self.buf.advance(unit_end);
                Ok(())
            }
        }
    }

    /// Writes an empty CSV for a table whose TOC data entry had no rows (INSERT dumps).
    fn flush_pending(&mut self) -> Result<()> {
        let Some(key) = self.pending_data.take() else {
            return Ok(());
        };
        if self.by_name.contains_key(&key) {
            return Ok(());
        }
        let Some(cols) = self.all_columns(&key, 0) else {
            return Ok(());
        };
        let cols: Vec<String> = cols
            .into_iter()
            .filter(|c| !c.generated)
            .map(|c| c.name)
            .collect();
        self.enter_data()?;
        if self.open_table(&key, &cols)? {
            self.close_open()?;
        }
        Ok(())
    }

    /// Schema and name of a table as the dump names it, qualified by the search path.
    fn resolve(&self, q: &QName) -> (String, String) {
        let schema = q.schema.clone().unwrap_or_else(|| {
            self.search_path
                .iter()
                .find(|s| s.as_str() != "pg_catalog")
                .cloned()
                .unwrap_or_else(|| "public".into())
        });
        (schema, q.name.clone())
    }

    /// All columns of a table in physical order: inherited ones first (pg_dump declares only
    /// the local ones in the child's CREATE TABLE), a column declared in both kept once.
    fn all_columns(&self, key: &(String, String), depth: u32) -> Option<Vec<ColumnDef>> {
        let def = self.defs.get(key)?;
        // The depth bound stops inheritance cycles, which PostgreSQL refuses anyway.
        let parents: Vec<Vec<ColumnDef>> = if depth < 32 {
            def.inherits
                .iter()
                .map(|p| self.all_columns(p, depth + 1))
                .collect::<Option<_>>()?
        } else {
            Vec::new()
        };
        Some(ddl::merge_inherited(parents, &def.columns))
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
            }
        }
        Ok(())
    }

    /// Makes `key` the open table (opening or reopening its output), unless it is already.
    /// Returns false when the table is not selected.
    fn open_table(&mut self, key: &(String, String), cols: &[String]) -> Result<bool> {
        if let Some(o) = &self.open
            && self.data[o.idx].schema == key.0
            && self.data[o.idx].name == key.1
        {
            return Ok(true);
        }
        let Some((idx, new)) = self.table_slot(key, cols)? else {
            return Ok(false);
        };
        if self.group_of.contains_key(&idx) {
            // Its other data is converted apart, after the script: the order would be lost.
            return Err(self.err(
                0,
                format!(
                    "data for {}.{} outside its TABLE DATA entries in the archive: not what pg_dump writes",
                    key.0, key.1
                ),
            ));
        }
        // --gzip: members of fixed-size blocks, the same bytes whatever -j.
        let (level, pool) = (self.cfg.gzip, self.pool.cloned());
        let mut sink = match &self.data[idx].path {
            Some(p) if new => Sink::blocks(Some(AtomicFile::create(p)?), level, pool),
            // Another gzip member after the file's last is still one gzip file.
            Some(p) => Sink::blocks(Some(AtomicFile::reopen_append(p)?), level, pool),
            None => match self.stdout.take() {
                Some(s) => s,
                None => Sink::blocks(None, level, pool),
            },
        };
        if new && self.cfg.header {
            let h = header_record(self.cfg, cols);
            let name = sink.name();
            sink.write_all(&h).at(name)?;
            self.data[idx].bytes += h.len() as u64;
        }
        self.open = Some(Open { idx, sink });
        Ok(true)
    }

    /// The table `key`'s entry in `data` (made when new: returns true then), or `None` when
    /// the table is not selected. Closes the open table.
    fn table_slot(
        &mut self,
        key: &(String, String),
        cols: &[String],
    ) -> Result<Option<(usize, bool)>> {
        self.close_open()?;
        self.seen.insert(key.clone());
        if !self.cfg.selected(&key.0, &key.1) || self.cfg.dest == Dest::None {
            return Ok(None);
        }
        crate::progress::phase(format!("table {}.{}", key.0, key.1));
        let (idx, new) = match self.by_name.get(key) {
            Some(&i) => (i, false),
            None => {
                if self.cfg.dest == Dest::Stdout && !self.data.is_empty() {
                    return Err(Error::Usage(format!(
                        "--table matched more than one table ({} and {}.{}): use --output-dir DIR for several tables",
                        self.data[0].schema.clone() + "." + &self.data[0].name,
                        key.0,
                        key.1
                    )));
                }
                let path = match &self.cfg.dest {
                    Dest::Dir(d) => Some(d.join(naming::file_name(
                        &key.0,
                        &key.1,
                        if self.cfg.gzip.is_some() {
                            "csv.gz"
                        } else {
                            "csv"
                        },
                    ))),
                    _ => None,
                };
                self.data.push(DataTable {
                    schema: key.0.clone(),
                    name: key.1.clone(),
                    cols: cols.to_vec(),
                    path,
                    rows: 0,
                    bytes: 0,
                });
                self.by_name.insert(key.clone(), self.data.len() - 1);
                (self.data.len() - 1, true)
            }
        };
        if !new && self.data[idx].cols != cols {
            return Err(self.err(
                0,
                format!(
                    "table {}.{} appears again with a different column list",
                    key.0, key.1
                ),
            ));
        }
        Ok(Some((idx, new)))
    }

    /// Finishes the open table's file (renaming it into place).
    fn close_open(&mut self) -> Result<()> {
        if let Some(o) = self.open.take() {
            match o.sink {
                s if s.is_stdout() => self.stdout = Some(s),
                s => s.finish()?,
            }
        }
        Ok(())
    }

    fn write_open(&mut self, bytes: &[u8], rows: u64) -> Result<()> {
        if let Some(o) = self.open.as_mut() {
            let name = o.sink.name();
            o.sink.write_all(bytes).at(name)?;
            let t = &mut self.data[o.idx];
            t.bytes += bytes.len() as u64;
            t.rows += rows;
            crate::progress::add_records(rows);
        }
        Ok(())
    }

    /// The archive data entry the COPY statement `stmt` belongs to, when the archive's data
    /// is converted apart. A COPY that is not the next entry's (one inside a DDL entry, which
    /// pg_dump never writes) keeps its data in the script and is converted there.
    fn take_deferred(&mut self, stmt: &[u8]) -> Option<usize> {
        let set = self.dset.as_ref()?;
        let e = set.entries.get(self.next_entry)?;
        if e.copy_stmt.trim_ascii_end() != stmt.trim_ascii_end() {
            return None;
        }
        self.next_entry += 1;
        Some(self.next_entry - 1)
    }

    /// A COPY whose data is archive entry `i`: its body in the script is empty; the entry is
    /// queued for its table, converted by [`Converter::convert_deferred`].
    fn defer_copy(&mut self, key: (String, String), cols: Vec<String>, i: usize) -> Result<()> {
        self.enter_data()?;
        if let Some((idx, _)) = self.table_slot(&key, &cols)? {
            let g = match self.group_of.get(&idx) {
                Some(&g) => g,
                None => {
                    self.groups.push(Group {
                        idx,
                        entries: Vec::new(),
                    });
                    self.group_of.insert(idx, self.groups.len() - 1);
                    self.groups.len() - 1
                }
            };
            self.groups[g].entries.push(i);
        }
        // The empty body: its `\.` line.
        let mut job = CopyJob {
            fw: &self.fw,
            ncols: cols.len(),
            key: &key,
            pieces: &mut self.piece_bufs,
            pool: None,
            stop: None,
        };
        job.copy_rows(&mut self.buf, None)?;
        Ok(())
    }

    /// Converts the archive data entries queued by [`Converter::defer_copy`], up to `jobs`
    /// tables at once, biggest first. Each table's file is published when it is complete;
    /// the first table to fail stops the others (their files are not published) and its
    /// error is returned.
    ///
    /// Memory: each table in flight holds its read buffer (up to 2 x 4 MB plus a longest
    /// line), its decompression queue (up to 10 blocks of 1 MB) and its converted pieces
    /// (about the read size): about 25 MB per job, whatever the table sizes.
    ///
    /// Threads: `jobs` at most working. W = min(jobs, tables) workers each read, convert and
    /// write one table; each has a decompression thread only when there are threads for it
    /// (jobs >= 2 W), and the rest form a pool for block conversion. A worker waits while the
    /// pool converts its blocks, so W - 1 workers + the pool + the decompression threads is
    /// at most `jobs`.
    fn convert_deferred(&mut self) -> Result<()> {
        let Some(set) = self.dset.take() else {
            return Ok(());
        };
        let groups = std::mem::take(&mut self.groups);
        let size = |g: &Group| -> u64 { g.entries.iter().map(|&i| set.entries[i].size).sum() };
        let mut order: Vec<usize> = (0..groups.len()).collect();
        // Biggest first, so a big table does not start last; ties in script order.
        order.sort_by_key(|&g| std::cmp::Reverse(size(&groups[g])));
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let first_err: Mutex<Option<Error>> = Mutex::new(None);
        let results: Vec<Mutex<Option<(u64, u64)>>> =
            groups.iter().map(|_| Mutex::new(None)).collect();
        let jobs = self.cfg.jobs;
        let workers = jobs.min(groups.len());
        let inflate_thread = workers > 0 && jobs >= 2 * workers;
        let inflaters = if inflate_thread { workers } else { 0 };
        let pool = pool_of((jobs + 1).saturating_sub(workers + inflaters).max(1))?;
        let pool = pool.as_ref();
        let (cfg, data, archive) = (self.cfg, &self.data, &self.buf.name);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&g) = order.get(k) else { break };
                        let t = &data[groups[g].idx];
                        let grp = &groups[g];
                        match convert_group(cfg, pool, inflate_thread, &set, archive, t, grp, &stop)
                        {
                            Ok(r) => *lock(&results[g]) = Some(r),
                            Err(e) => {
                                let mut f = lock(&first_err);
                                if f.is_none() {
                                    *f = Some(e);
                                }
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = first_err.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        for (g, r) in groups.iter().zip(results) {
            if let Some((rows, bytes)) = r.into_inner().unwrap_or_else(|e| e.into_inner()) {
                self.data[g.idx].rows += rows;
                self.data[g.idx].bytes += bytes;
            }
        }
        Ok(())
    }

    /// Converts (or skips) the data of a COPY block; `pos` is at its first line.
    fn copy_data(&mut self, key: (String, String), cols: Vec<String>) -> Result<()> {
        self.enter_data()?;
        let selected = self.open_table(&key, &cols)?;
        let out = match self.open.as_mut() {
            Some(o) if selected => {
                let t = &mut self.data[o.idx];
                Some(Out {
                    sink: &mut o.sink,
                    rows: &mut t.rows,
                    bytes: &mut t.bytes,
                })
            }
            _ => None,
        };
        let mut job = CopyJob {
            fw: &self.fw,
            ncols: cols.len(),
            key: &key,
            pieces: &mut self.piece_bufs,
            pool: self.pool.map(|v| &**v),
            stop: None,
        };
        job.copy_rows(&mut self.buf, out)?;
        Ok(())
    }

    /// Reads one INSERT statement starting at `sig`, row by row: memory is bounded by the
    /// largest row, not by the statement (one INSERT of a --rows-per-insert dump can hold a
    /// whole table).
    fn insert_statement(&mut self, sig: usize) -> Result<()> {
        let hl = loop {
            if let Some(n) = inserts::head_len(&self.buf.avail()[sig..]) {
                break n;
            }
            if self.buf.avail().len() - sig > INSERT_HEAD_MAX {
                return Err(self.err(sig, "INSERT without VALUES in its first MiB"));
            }
            if !self.buf.fill()? {
                return Err(self.err(sig, CUT_OFF));
            }
        };
        let head = inserts::parse_head(&self.buf.avail()[sig..sig + hl], self.std_strings)
            .map_err(|(off, msg)| self.err(sig + off, msg))?;
        let pos = self.buf.pos_at(sig);
        self.footer_seen = false;
        self.pending_data = None;
        // The comments before a data statement are its TOC entry: dropped with it.
        self.buf.advance(sig + hl);
        self.enter_data()?;
        let key = self.resolve(&head.table);
        // An unselected table is skipped before its rows are read, so that -T also leaves
        // out a table whose rows could not be converted.
        if !self.cfg.selected(&key.0, &key.1) || self.cfg.dest == Dest::None {
            self.close_open()?;
            self.seen.insert(key);
            return self.skip_statement();
        }
        // Without a column list the values follow CREATE TABLE, generated columns included
        // (as DEFAULT); the CSV leaves those out, like pg_dump's COPY column list.
        if head.cols.is_none() {
            self.warn_uncertain_order(&key);
        }
        let (cols, keep): (Vec<String>, Vec<bool>) = match &head.cols {
            Some(c) => (c.clone(), vec![true; c.len()]),
            None => match self.all_columns(&key, 0) {
                Some(d) if !d.is_empty() || head.default_values => (
                    d.iter()
                        .filter(|c| !c.generated)
                        .map(|c| c.name.clone())
                        .collect(),
                    d.iter().map(|c| !c.generated).collect(),
                ),
                _ => {
                    return Err(Error::input(
                        pos,
                        format!(
                            "INSERT into {}.{} has no column list and the dump has no CREATE TABLE for it: re-dump with --column-inserts",
                            key.0, key.1
                        ),
                    ));
                }
            },
        };
        self.open_table(&key, &cols)?;
        let mut out = Vec::new();
        let mut pending_rows = 0u64;
        if head.default_values {
            self.row_csv(&[], &keep, &key, 1, &mut out)?;
            pending_rows = 1;
        } else {
            let mut r = 0u64;
            loop {
                let i = self.skip_ws()?;
                if self.buf.avail()[i] != b'(' {
                    return Err(self.err(i, "expected '(' to start a row of VALUES"));
                }
                self.buf.advance(i);
                let mut sc = inserts::RowScan::default();
                let len = loop {
                    match sc
                        .scan(self.buf.avail(), self.std_strings)
                        .map_err(|(off, msg)| self.err(off, msg))?
                    {
                        Some(n) => break n,
                        None => {
                            if !self.buf.fill()? {
                                return Err(self.err(0, CUT_OFF));
                            }
                        }
                    }
                };
                let row = inserts::parse_row(&self.buf.avail()[..len], self.std_strings)
                    .map_err(|(off, msg)| self.err(off, msg))?;
                r += 1;
                self.row_csv(&row, &keep, &key, r, &mut out)?;
                pending_rows += 1;
                self.buf.advance(len);
                if out.len() >= 1 << 20 {
                    self.write_open(&out, pending_rows)?;
                    out.clear();
                    pending_rows = 0;
                }
                let i = self.skip_ws()?;
                if self.buf.avail()[i] == b',' {
                    self.buf.advance(i + 1);
                } else {
                    self.buf.advance(i);
                    break;
                }
            }
        }
        self.write_open(&out, pending_rows)?;
        // The tail: [ON CONFLICT DO NOTHING] ;
        let tl = loop {
            if let Some(k) = memchr::memchr(b';', self.buf.avail()) {
                break k + 1;
            }
            if self.buf.avail().len() > 4096 {
                return Err(self.err(0, "unexpected text at the end of INSERT"));
            }
            if !self.buf.fill()? {
                return Err(self.err(0, CUT_OFF));
            }
        };
        inserts::parse_tail(&self.buf.avail()[..tl], self.std_strings)
            .map_err(|(off, msg)| self.err(off, msg))?;
        let end = self.line_end(tl)?;
        self.buf.advance(end);
        Ok(())
    }

    /// INSERTs without column names give values in the source table's physical column
    /// order. For an INHERITS child with columns from more than one place (its own and a
    /// parent's, or two parents') that order is not in the dump: a column added to a parent
    /// after the child was created comes last in the child, but the dump declares it with the
    /// parent. Neither psql nor we can tell, so say so once per table.
    fn warn_uncertain_order(&mut self, key: &(String, String)) {
        let Some(def) = self.defs.get(key) else {
            return;
        };
        let uncertain = match def.inherits.as_slice() {
            [] => false,
            [parent] => {
                let pcols = self.all_columns(parent, 1).unwrap_or_default();
                def.columns
                    .iter()
                    .any(|c| !pcols.iter().any(|p| p.name == c.name))
            }
            _ => true,
        };
        if uncertain && !self.cfg.quiet && self.order_warned.insert(key.clone()) {
            crate::progress::message(&format!(
                "pgdump2csv: warning: {}.{} inherits columns, and INSERTs without column names do not show its column order (a column added to a parent later comes last in the child); check the CSV, or re-dump with --column-inserts",
                key.0, key.1
            ));
        }
    }

    /// Offset of the next non-whitespace byte from `pos`, reading more as needed.
    fn skip_ws(&mut self) -> Result<usize> {
        let mut i = 0;
        loop {
            let avail = self.buf.avail();
            while i < avail.len() && avail[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < avail.len() {
                return Ok(i);
            }
            if !self.buf.fill()? {
                return Err(self.err(i, CUT_OFF));
            }
        }
    }

    /// Offset just past the line that `end` (relative to `pos`) is on, when only blanks
    /// follow it there: a statement's unit runs to the end of its line.
    fn line_end(&mut self, end: usize) -> Result<usize> {
        let mut unit_end = end;
        loop {
            let avail = self.buf.avail();
            while unit_end < avail.len() && matches!(avail[unit_end], b' ' | b'\t' | b'\r') {
                unit_end += 1;
            }
            if unit_end < avail.len() || self.buf.eof {
                break;
            }
            if !self.buf.fill()? {
                break;
            }
        }
        if self.buf.avail().get(unit_end) == Some(&b'\n') {
            unit_end += 1;
        }
        Ok(unit_end)
    }

    /// Moves past the rest of a statement without interpreting it (a table not selected).
    fn skip_statement(&mut self) -> Result<()> {
        let mut sc = StmtScanner::default();
        let mut from = 0;
        let end = loop {
            match sc.scan(self.buf.avail(), from, self.std_strings, self.buf.eof) {
                Scan::End(e) => break e,
                Scan::More(f) => {
                    if self.buf.eof {
                        return Err(self.err(0, CUT_OFF));
                    }
                    // What was scanned is let go, so memory stays flat; the scanner may look
                    // one byte back (E'...'), so that byte stays.
                    let keep = f.saturating_sub(1);
                    self.buf.advance(keep);
                    from = f - keep;
                    self.buf.fill()?;
                }
            }
        };
        if sc.meta_command_at().is_some() {
            return Err(self.err(
                0,
                "backslash outside quotes in a statement: psql would run it as a meta-command, which no pg_dump writes there; refusing the dump",
            ));
        }
        let end = self.line_end(end)?;
        self.buf.advance(end);
        Ok(())
    }

    /// Appends row `r` (1-based) of an INSERT as CSV, leaving out generated columns.
    fn row_csv(
        &self,
        row: &[Value],
        keep: &[bool],
        key: &(String, String),
        r: u64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        if row.len() != keep.len() {
            return Err(self.err(
                0,
                format!(
                    "INSERT into {}.{}: row {r} of the statement has {} values for {} columns",
                    key.0,
                    key.1,
                    row.len(),
                    keep.len()
                ),
            ));
        }
        let mut first = true;
        for (v, &k) in row.iter().zip(keep) {
            if !k {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            match v {
                Value::Null => self.fw.field(out, None),
                Value::Text(t) => self.fw.field(out, Some(t)),
                Value::Default => {
                    return Err(self.err(
                        0,
                        format!(
                            "INSERT into {}.{}: DEFAULT for a column that is not generated; its value is not in the dump",
                            key.0, key.1
                        ),
                    ));
                }
            }
        }
        out.push(b'\n');
        Ok(())
    }

    /// Commits all outputs and writes the manifest.
    fn finish(mut self) -> Result<()> {
        self.close_open()?;
        if let Some(s) = self.stdout.take() {
            s.finish()?;
        }
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
            let mdir = absolute_dir(mpath);
            for t in &self.data {
                let key = (t.schema.clone(), t.name.clone());
                let def = self.defs.get(&key);
                let all = self.all_columns(&key, 0).unwrap_or_default();
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
                m.tables.push(manifest::Table {
                    schema: t.schema.clone(),
                    name: t.name.clone(),
                    file: t.path.as_ref().map(|p| relative_to(&mdir, p)),
                    columns,
                    primary_key: def.map(|d| d.pk.clone()).unwrap_or_default(),
                    rows: t.rows,
                    bytes: t.bytes,
                    header: self.cfg.header,
                    null: self.cfg.null.clone(),
                    compression: self.cfg.gzip.map(|_| "gzip".to_string()),
                });
            }
            let mut f = AtomicFile::create(mpath)?;
            f.write_all(&m.to_json()).at(mpath)?;
            f.commit()?;
        }
        if self.cfg.verbose {
            let rows: u64 = self.data.iter().map(|t| t.rows).sum();
            crate::progress::Summary {
                read_bytes: crate::progress::read_bytes(),
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

/// A mutex's guard, also after a panicking holder (the data is counters and an error).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The header record of a CSV with columns `cols`.
fn header_record(cfg: &Config, cols: &[String]) -> Vec<u8> {
    let mut h = Vec::new();
    let hw = FieldWriter::new(cfg.null.as_bytes());
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            h.push(b',');
        }
        hw.field(&mut h, Some(c.as_bytes()));
    }
    h.push(b'\n');
    h
}

/// Converts one table's archive data entries (in script order) into its file, published
/// when complete. Returns its rows and bytes (the header's included).
#[allow(clippy::too_many_arguments)] // one call, from convert_deferred
fn convert_group(
    cfg: &Config,
    pool: Option<&std::sync::Arc<rayon::ThreadPool>>,
    inflate_thread: bool,
    set: &DataSet,
    archive: &str,
    t: &DataTable,
    g: &Group,
    stop: &AtomicBool,
) -> Result<(u64, u64)> {
    let file = t.path.as_deref().map(AtomicFile::create).transpose()?;
    let mut sink = Sink::blocks(file, cfg.gzip, pool.cloned());
    crate::progress::phase(format!("table {}.{}", t.schema, t.name));
    let (mut rows, mut bytes) = (0u64, 0u64);
    if cfg.header {
        let h = header_record(cfg, &t.cols);
        let name = sink.name();
        sink.write_all(&h).at(name)?;
        bytes += h.len() as u64;
    }
    let fw = FieldWriter::new(cfg.null.as_bytes());
    let key = (t.schema.clone(), t.name.clone());
    let mut pieces = Vec::new();
    for &i in &g.entries {
        let e = &set.entries[i];
        if !e.wanted {
            continue;
        }
        let r = set.open(i, inflate_thread).at(archive)?;
        // Positions in messages are in the entry's decompressed data.
        let mut buf = Buf::new(r, format!("{archive}, {} data", e.what));
        let mut job = CopyJob {
            fw: &fw,
            ncols: t.cols.len(),
            key: &key,
            pieces: &mut pieces,
            pool: pool.map(|v| &**v),
            stop: Some(stop),
        };
        let out = Out {
            sink: &mut sink,
            rows: &mut rows,
            bytes: &mut bytes,
        };
        job.copy_rows(&mut buf, Some(out))?;
        // pg_dump ends the data with `\.` and two blank lines, which the script has already
        // given the schema output; anything else would be statements the script lost.
        loop {
            let a = buf.avail();
            if let Some(k) = a.iter().position(|b| !matches!(b, b'\n' | b'\r')) {
                return Err(Error::input(
                    buf.pos_at(k),
                    format!(
                        "text after the end of the COPY data of {}.{}: not what pg_dump writes",
                        key.0, key.1
                    ),
                ));
            }
            let n = a.len();
            buf.advance(n);
            if !buf.fill()? {
                break;
            }
        }
    }
    if stop.load(Ordering::Relaxed) {
        return Err(stopped());
    }
    sink.finish()?;
    Ok((rows, bytes))
}

/// Where a COPY block's converted rows go, with its table's counters.
struct Out<'a> {
    sink: &'a mut Sink,
    rows: &'a mut u64,
    bytes: &'a mut u64,
}

impl Out<'_> {
    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let name = self.sink.name();
        self.sink.write_all(bytes).at(name)?;
        *self.bytes += bytes.len() as u64;
        Ok(())
    }
}

/// The conversion of COPY blocks of one table: by the converter for data in the dump, and
/// by a worker for an archive entry's data read on its own.
struct CopyJob<'a> {
    fw: &'a FieldWriter,
    ncols: usize,
    key: &'a (String, String),
    /// Output buffers of the pieces converted in parallel, kept for the next region.
    pieces: &'a mut Vec<Vec<u8>>,
    /// The pool to convert pieces on (`None`: on this thread, one piece at a time).
    pool: Option<&'a rayon::ThreadPool>,
    /// Set when another table failed: this one stops (its file is not published).
    stop: Option<&'a AtomicBool>,
}

/// The error a worker stops with when another table failed first (never shown: the first
/// error is).
fn stopped() -> Error {
    Error::Usage("stopped: another table failed".into())
}

impl CopyJob<'_> {
    /// Reads COPY data from `buf` (at its first line) up to its `\.` end marker, converting it
    /// into `out` (`None`: skipped). Returns the rows.
    fn copy_rows(&mut self, buf: &mut Buf, mut out: Option<Out<'_>>) -> Result<u64> {
        let key = self.key;
        // The first row's line end is the block's, as PostgreSQL reads it.
        let crlf = loop {
            if let Some(k) = memchr::memchr(b'\n', buf.avail()) {
                break k > 0 && buf.avail()[k - 1] == b'\r';
            }
            if !buf.fill()? {
                break false;
            }
        };
        let conv = CopyConverter::new(self.ncols, self.fw.clone()).with_crlf(crlf);
        let mut row_no = 0u64;
        loop {
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(stopped());
            }
            let avail = buf.avail();
            // The end marker: a line that is exactly \. (before \n, \r\n, or end of input).
            let c = if avail.starts_with(b"\\.") {
                Some(0)
            } else {
                memchr::memmem::find(avail, b"\n\\.").map(|k| k + 1)
            };
            // (start of the marker line, end of it); usize::MAX = cannot tell before reading more.
            let marker = match c {
                None => None,
                Some(c) => match (avail.get(c + 2), avail.get(c + 3)) {
                    (Some(b'\n'), _) => Some((c, c + 3)),
                    (Some(b'\r'), Some(b'\n')) => Some((c, c + 4)),
                    (None, _) | (Some(b'\r'), None) if !buf.eof => Some((c, usize::MAX)),
                    (None, _) | (Some(b'\r'), None) => Some((c, avail.len())),
                    _ => {
                        return Err(Error::input(
                            buf.pos_at(c),
                            format!(
                                "end-of-copy marker corrupt: a line of {}.{} starts with \\. followed by other text",
                                key.0, key.1
                            ),
                        ));
                    }
                },
            };
            let region_end = match marker {
                Some((c, _)) => c,
                None => memchr::memrchr(b'\n', avail).map_or(0, |k| k + 1),
            };
            if region_end > 0 {
                let rows = match out.as_mut() {
                    Some(o) => self.convert_region(buf, &conv, region_end, row_no, o)?,
                    None => memchr::memchr_iter(b'\n', &buf.avail()[..region_end]).count() as u64,
                };
                row_no += rows;
                buf.line += rows;
                buf.pos += region_end;
            }
            match marker {
                Some((_, end)) if end != usize::MAX => {
                    let end = end - region_end;
                    buf.advance(end);
                    break;
                }
                _ => {}
            }
            if !buf.fill()? {
                return Err(Error::input(
                    buf.pos_at(0),
                    format!(
                        "the dump ends inside the COPY data of {}.{} (no \\. end marker): it is truncated",
                        key.0, key.1
                    ),
                ));
            }
        }
        Ok(row_no)
    }

    /// Converts `buf.avail()[..len]` (whole lines) and writes it to `out`.
    fn convert_region(
        &mut self,
        buf: &Buf,
        conv: &CopyConverter,
        len: usize,
        row_no: u64,
        out: &mut Out<'_>,
    ) -> Result<u64> {
        let key = self.key;
        let region = &buf.data[buf.pos..buf.pos + len];
        let threads = self.pool.map_or(1, |p| p.current_num_threads());
        // Cut into pieces at line ends so cores can share the work.
        let pieces = if len < PAR_MIN || threads == 1 {
            1
        } else {
            (threads * 2).max(1)
        };
        let mut bounds = Vec::with_capacity(pieces + 1);
        bounds.push(0);
        for p in 1..pieces {
            let target = len * p / pieces;
            let prev = *bounds.last().unwrap_or(&0);
            if target <= prev {
                continue;
            }
            match memchr::memchr(b'\n', &region[target..]) {
                Some(k) if target + k + 1 < len => bounds.push(target + k + 1),
                _ => break,
            }
        }
        bounds.push(len);
        let n = bounds.len() - 1;
        self.pieces.resize_with(n, Vec::new);
        let work = |bufs: &mut [Vec<u8>]| -> Vec<std::result::Result<u64, RowError>> {
            bufs.par_iter_mut()
                .enumerate()
                .map(|(k, o)| {
                    o.clear();
                    conv.convert(&region[bounds[k]..bounds[k + 1]], o)
                })
                .collect()
        };
        let results = match self.pool {
            Some(p) if n > 1 => p.install(|| work(&mut self.pieces[..n])),
            // On this thread: no rayon at all (its global pool would start threads).
            _ => self.pieces[..n]
                .iter_mut()
                .enumerate()
                .map(|(k, o)| {
                    o.clear();
                    conv.convert(&region[bounds[k]..bounds[k + 1]], o)
                })
                .collect(),
        };
        let mut rows = 0u64;
        for (k, r) in results.into_iter().enumerate() {
            match r {
                Ok(nr) => rows += nr,
                Err(e) => {
                    let rel = bounds[k] + e.offset;
                    let mut pos = buf.pos_at(0);
                    pos.line += rows + e.row;
                    pos.byte += rel as u64;
                    return Err(Error::input(
                        pos,
                        format!(
                            "{}.{} row {}: {}",
                            key.0,
                            key.1,
                            row_no + rows + e.row + 1,
                            e.msg
                        ),
                    ));
                }
            }
        }
        for b in &self.pieces[..n] {
            out.write(b)?;
        }
        *out.rows += rows;
        crate::progress::add_records(rows);
        Ok(rows)
    }
}

/// `CREATE TYPE name AS (attr type, ...)`: the composite type and its attributes in order.
fn composite_type(stmt: &[u8], std_strings: bool) -> Option<(QName, Vec<ColumnDef>)> {
    use crate::pgdump::sql::{Tok, tokenize};
    let toks = tokenize(stmt, std_strings).ok()?;
    let t = |i: usize| toks.get(i).map(|s| &s.tok);
    if !(t(0)?.is_kw("create") && t(1)?.is_kw("type")) {
        return None;
    }
    let (name, mut i) = qname_at(&toks, 2)?;
    if !(t(i)?.is_kw("as") && t(i + 1)?.is_op("(")) {
        return None;
    }
    i += 2;
    let mut cols = Vec::new();
    loop {
        let Tok::Ident { name: attr, .. } = t(i)? else {
            return None;
        };
        i += 1;
        // The type runs to the next ',' or ')' outside parentheses.
        let start = toks.get(i)?.start;
        let mut depth = 0u32;
        while !(depth == 0 && (t(i)?.is_op(",") || t(i)?.is_op(")"))) {
            if t(i)?.is_op("(") {
                depth += 1;
            } else if t(i)?.is_op(")") {
                depth -= 1;
            }
            i += 1;
        }
        let type_name = String::from_utf8_lossy(&stmt[start..toks.get(i)?.start])
            .split_ascii_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        cols.push(ColumnDef {
            name: attr.clone(),
            type_name,
            not_null: false,
            generated: false,
        });
        i += 1;
        if t(i - 1)?.is_op(")") {
            return Some((name, cols));
        }
    }
}

/// `CREATE TABLE name OF type ...`: the type.
fn typed_table_type(stmt: &[u8], std_strings: bool) -> Option<QName> {
    let toks = crate::pgdump::sql::tokenize(stmt, std_strings).ok()?;
    let mut i = toks.iter().position(|s| s.tok.is_kw("table"))? + 1;
    if toks.get(i)?.tok.is_kw("if") {
        i += 3;
    }
    let (_, i) = qname_at(&toks, i)?;
    if !toks.get(i)?.tok.is_kw("of") {
        return None;
    }
    qname_at(&toks, i + 1).map(|(q, _)| q)
}

/// A `[schema.]name` at token `i`, and the index after it.
fn qname_at(toks: &[crate::pgdump::sql::Spanned], i: usize) -> Option<(QName, usize)> {
    use crate::pgdump::sql::Tok;
    let Tok::Ident { name: first, .. } = &toks.get(i)?.tok else {
        return None;
    };
    if toks.get(i + 1).is_some_and(|s| s.tok.is_op("."))
        && let Some(Tok::Ident { name, .. }) = toks.get(i + 2).map(|s| &s.tok)
    {
        return Some((
            QName {
                schema: Some(first.clone()),
                name: name.clone(),
            },
            i + 3,
        ));
    }
    Some((
        QName {
            schema: None,
            name: first.clone(),
        },
        i + 1,
    ))
}

/// Schema and table of a `-- Data for Name: T; Type: TABLE DATA; Schema: S; Owner: O` TOC
/// comment. The names in these comments are not quoted, so one containing `; ` cannot be
/// read back; such a table simply gets no empty file.
fn toc_table_data(line: &[u8]) -> Option<(String, String)> {
    let rest = line.strip_prefix(b"-- Data for Name: ")?;
    let s = std::str::from_utf8(rest).ok()?;
    let (name, rest) = s.split_once("; Type: TABLE DATA; Schema: ")?;
    let schema = rest.split("; ").next()?;
    if name.contains("; ") || schema == "-" {
        return None;
    }
    Some((schema.to_string(), name.to_string()))
}

fn absolute_dir(file: &Path) -> PathBuf {
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// `target` relative to directory `base` (both made absolute), with `/` separators.
fn relative_to(base: &Path, target: &Path) -> String {
    let tdir = absolute_dir(target);
    let tname = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let b: Vec<_> = base.components().collect();
    let t: Vec<_> = tdir.components().collect();
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = Vec::new();
    for _ in common..b.len() {
        parts.push("..".into());
    }
    for c in &t[common..] {
        parts.push(c.as_os_str().to_string_lossy().into_owned());
    }
    parts.push(tname);
    parts.join("/")
}
