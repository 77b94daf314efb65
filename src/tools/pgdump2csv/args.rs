//! pgdump2csv's command line: the options ([`Args`]) and what they mean once checked ([`Config`]).

use crate::io::error::{Error, Result};
use crate::pg::dump::pattern::NamePattern;
use clap::Parser;
use std::path::PathBuf;

pub(super) const AFTER_HELP: &str = "\
Examples:
  zcat dump.sql.gz | pgdump2csv --write-schema schema.sql --write-post-data post.sql --write-manifest m.json -o csv/
  pgdump2csv dump.sql -n sales -N audit -o csv/    # pg_dump's -n/-N: only, and not, these schemas
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
an archive to fail stops the others). --write-schema, --write-post-data and --write-manifest are written
only when everything succeeded.

Of the dump's psql meta-commands only pg_dump's own (\\restrict, \\unrestrict, \\connect) are
accepted; any other (\\! and the like) is refused with its position, so the schema files never
run what a dump smuggles in. A --table or --schema pattern that matches no table is an error.";

/// Convert a PostgreSQL dump (plain SQL or a pg_dump archive) into per-table CSV, schema DDL
/// and a JSON manifest.
///
/// Reads DUMP (or standard input when DUMP is `-` or absent); gzip, zstd and lz4 input is
/// recognised by its magic bytes. pg_dump archives are read directly, recognised by content:
/// custom (-Fc, also from a pipe), directory (-Fd: give the directory) and tar (-Ft), archive
/// versions 1.12 to 1.16, data compressed with gzip, lz4 or zstd; the outputs are the same as
/// for the plain dump. Large objects are not converted to CSV (counted in the manifest; their
/// data goes to the schema output, as pg_restore prints it).
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
    /// starts with its own `\restrict` (fresh random key) and ends with `\unrestrict`. (The
    /// old spelling `--schema FILE` still works for this release, with a warning, when FILE
    /// ends in `.sql` or holds a `/`; see -n.)
    #[arg(long = "write-schema", value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// Write what comes after the data (primary keys, indexes, foreign keys, triggers,
    /// setval) to FILE instead of --write-schema, so tables can be loaded bare and indexed after.
    /// The dump's session settings are repeated at its top so it runs on its own, inside its
    /// own `\restrict`/`\unrestrict` pair.
    #[arg(long = "write-post-data", value_name = "FILE")]
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

    /// The old spelling of --write-post-data: deprecated, to be removed in the next release,
    /// as pg_dump's words name what pg_dump means. Works, and warns.
    #[arg(
        long = "post-data",
        hide = true,
        value_name = "FILE",
        conflicts_with = "post_data"
    )]
    pub post_data_old: Option<PathBuf>,

    /// Only tables in schemas matching PATTERN, as pg_dump -n (`*` and `?` wildcards;
    /// unquoted names fold to lower case). Repeatable. With --table, as in pg_dump, -n and -N
    /// have no effect. A PATTERN ending in `.sql` or holding a `/` is taken for the old
    /// `--schema FILE` (now --write-schema), with a warning.
    #[arg(short = 'n', long = "schema", value_name = "PATTERN")]
    pub schema_pattern: Vec<String>,

    /// Leave out tables in schemas matching PATTERN, as pg_dump -N. Repeatable.
    #[arg(short = 'N', long = "exclude-schema", value_name = "PATTERN")]
    pub exclude_schema: Vec<String>,

    /// Print the dump's tables on stdout, one per line, tab-separated under a header:
    /// schema, name, rows, bytes (of the table's CSV) and primary key (columns joined by `,`),
    /// and keep nothing. Works on plain dumps and archives alike; the data is read once (the
    /// CSV goes to a temporary directory that is removed). With -t/-T/-n/-N, only those.
    #[arg(
        long = "list",
        conflicts_with_all = ["output_dir", "schema", "post_data", "post_data_old", "write_manifest", "manifest", "gzip", "header"]
    )]
    pub list: bool,

    /// Accept input without pg_dump's header and "dump complete" footer (hand-written SQL).
    /// Without it such input is rejected, which catches truncated dumps.
    #[arg(long = "no-dump-check")]
    pub no_dump_check: bool,

    /// At most N threads working: with 1, one thread decompresses, converts and writes;
    /// with more, decompression runs on a thread of its own beside the conversion, up to N
    /// tables of an archive read from a file (directory, custom or tar) are converted at
    /// once, and the rest convert data (and --gzip) in parallel blocks. An archive from a
    /// pipe is read in one pass. Each table in flight holds about 16 MB of buffers
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

    /// Replace output files that exist already. Without it, a run refuses (exit 2, before
    /// writing anything) an output file it did not create itself: the toolkit's one overwrite
    /// rule (dumpshard(7), FILES).
    #[arg(long)]
    pub force: bool,

    /// Leave the statements that set owners out of --write-schema and --write-post-data (`ALTER ...
    /// OWNER TO`, `SET SESSION AUTHORIZATION`), as pg_restore -O does: the objects then belong
    /// to whoever runs the schema, so a non-superuser that owns the target database can load it.
    #[arg(short = 'O', long = "no-owner")]
    pub no_owner: bool,

    /// Leave access privileges out of --write-schema and --write-post-data (`GRANT`, `REVOKE`, `ALTER
    /// DEFAULT PRIVILEGES`), as pg_restore -x does.
    #[arg(short = 'x', long = "no-privileges")]
    pub no_privileges: bool,

    /// Write --write-schema and --write-post-data for this target: postgresql (the dump's DDL as written),
    /// cockroachdb or yugabytedb (primary keys inside CREATE TABLE, and each other statement
    /// kept, rewritten or dropped by a table of rules citing the vendor's documentation; see
    /// --report). The DDL (not the data) is then held in memory until the end of the dump.
    /// Default: postgresql, or the kind --target-version names.
    #[arg(long = "target-kind", value_name = "KIND", value_enum)]
    pub target_kind: Option<crate::schemaconv::TargetKind>,

    /// The release the schema is for, KIND:SERIES or SERIES with --target-kind:
    /// cockroachdb:24.1, 24.3, 25.1, 25.2, 25.3, 25.4, 26.1, 26.2; yugabytedb:2.20, 2024.1,
    /// 2024.2, 2.25, 2025.1, 2025.2, 2026.1. Default: the oldest release the vendor still
    /// supports, cockroachdb:24.3 and yugabytedb:2024.2. The rules that hold for it decide
    /// (the report says which releases each holds for); the files record it on their first
    /// lines, and csvload refuses them on an older server.
    #[arg(long = "target-version", value_name = "KIND:VERSION")]
    pub target_version: Option<String>,

    /// With --target-kind yugabytedb, how primary keys are sharded: hash (`PRIMARY KEY (a
    /// HASH, b ASC)`: spreads writes, no range scans on the first column), range (`(a ASC, b
    /// ASC)`: ordered, but a load in key order writes one tablet at a time), keep (no
    /// annotation: YugabyteDB's default).
    #[arg(
        long = "yb-sharding",
        value_name = "MODE",
        value_enum,
        default_value = "hash"
    )]
    pub yb_sharding: crate::schemaconv::YbSharding,

    /// Exit 2 (after writing --report) if a statement blocks the load, changes what the schema
    /// means or is kept for review, or a table holds values the release refuses (the report's
    /// data section), and write neither --write-schema nor --write-post-data (what -O and -x
    /// leave out does not count).
    #[arg(long)]
    pub strict: bool,

    /// Write the assessment of the schema conversion to FILE: JSON (every statement's kind,
    /// object, action kept/rewritten/dropped/unknown, rule, documentation link, line in the
    /// dump; the tables' rows, bytes and suggested shard counts), or, when FILE ends in
    /// `.html`, one self-contained page.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// Options after validation.
#[derive(Debug)]
pub struct Config {
    /// Input path (`None` = stdin).
    pub dump: Option<PathBuf>,
    /// Where CSV goes.
    pub dest: Dest,
    /// Include patterns (empty = all).
    pub include: Vec<NamePattern>,
    /// Exclude patterns.
    pub exclude: Vec<NamePattern>,
    /// -n: only tables in these schemas (empty = all).
    pub schemas: Vec<NamePattern>,
    /// -N: not tables in these schemas.
    pub exclude_schemas: Vec<NamePattern>,
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
    pub archive: Option<crate::pg::dump::archive::Facts>,
    /// No progress bar, no warnings.
    pub quiet: bool,
    /// Print the summary line.
    pub verbose: bool,
    /// The schema conversion's options (--target-kind, -O, -x, --yb-sharding).
    pub conversion: crate::schemaconv::Options,
    /// --strict.
    pub strict: bool,
    /// --report.
    pub report: Option<PathBuf>,
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
            .map(|p| NamePattern::table(p).map_err(|e| Error::Usage(format!("--table '{p}': {e}"))))
            .collect::<Result<Vec<_>>>()?;
        let exclude = a
            .exclude
            .iter()
            .map(|p| {
                NamePattern::table(p)
                    .map_err(|e| Error::Usage(format!("--exclude-table '{p}': {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        let in_schema = |opt: &'static str| {
            move |p: &String| {
                NamePattern::schema(p).map_err(|e| Error::Usage(format!("{opt} '{p}': {e}")))
            }
        };
        let schemas = a
            .schema_pattern
            .iter()
            .map(in_schema("--schema"))
            .collect::<Result<_>>()?;
        let exclude_schemas = a
            .exclude_schema
            .iter()
            .map(in_schema("--exclude-schema"))
            .collect::<Result<_>>()?;
        let dest = match (&a.output_dir, include.is_empty()) {
            (Some(d), _) => Dest::Dir(d.clone()),
            (None, false) => Dest::Stdout,
            (None, true)
                if a.schema.is_some()
                    || a.write_manifest.is_some()
                    || a.post_data.is_some()
                    || a.report.is_some() =>
            {
                Dest::None
            }
            (None, true) => {
                return Err(Error::Usage(
                    "nothing to write: give --output-dir DIR, or --table NAME for one table on stdout, or --write-schema/--write-manifest".into(),
                ));
            }
        };
        if a.null.contains(['"', ',', '\n', '\r']) {
            return Err(Error::Usage(
                "--null must not contain a quote, comma, CR or LF".into(),
            ));
        }
        let version = match &a.target_version {
            Some(v) => Some(
                crate::schemaconv::version::TargetVersion::parse(v, a.target_kind)
                    .map_err(Error::Usage)?,
            ),
            None => None,
        };
        let target = a
            .target_kind
            .or(version.map(|v| v.kind))
            .unwrap_or(crate::schemaconv::TargetKind::Postgresql);
        let version = version.or(crate::schemaconv::version::default_for(target));
        Ok(Config {
            dump: a.dump,
            dest,
            include,
            exclude,
            schemas,
            exclude_schemas,
            header: a.header,
            null: a.null,
            gzip: a.gzip.then_some(a.level),
            schema: a.schema,
            post_data: a.post_data,
            manifest: a.write_manifest.or(a.manifest),
            dump_check: !a.no_dump_check,
            jobs: crate::io::cli::threads("--jobs", a.jobs.map(|j| j as usize))?,
            archive: None,
            quiet: a.quiet,
            verbose: a.verbose,
            conversion: crate::schemaconv::Options {
                target,
                no_owner: a.no_owner,
                no_privileges: a.no_privileges,
                yb_sharding: a.yb_sharding,
                version,
            },
            strict: a.strict,
            report: a.report,
        })
    }

    pub(super) fn selected(&self, schema: &str, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| p.matches(schema, name)))
            && !self.exclude.iter().any(|p| p.matches(schema, name))
            // As pg_dump: -n and -N have no effect when --table selects the tables.
            && (!self.include.is_empty()
                || (self.schemas.is_empty() || self.schemas.iter().any(|p| p.matches(schema, name)))
                    && !self.exclude_schemas.iter().any(|p| p.matches(schema, name)))
    }
}

impl Args {
    /// Turns the old spellings into the new ones, warning (unless -q): `--post-data FILE`
    /// is --write-post-data, and a `--schema`/-n value that names a file the user meant
    /// (it ends in `.sql`, compressed or not, or holds a `/`) is the old `--schema FILE`,
    /// now --write-schema. Any other value is pg_dump's schema pattern; one that matches
    /// no table is refused with a hint naming --write-schema (see `no_match_hint`).
    pub fn resolve_old_spellings(&mut self) -> Result<()> {
        if let Some(p) = self.post_data_old.take() {
            if !self.quiet {
                eprintln!("pgdump2csv: --post-data is deprecated, use --write-post-data");
            }
            self.post_data = Some(p);
        }
        let (files, patterns): (Vec<String>, Vec<String>) =
            std::mem::take(&mut self.schema_pattern)
                .into_iter()
                .partition(|v| looks_like_file(v));
        self.schema_pattern = patterns;
        for f in files {
            if self.schema.is_some() {
                return Err(Error::Usage(format!(
                    "--schema '{f}' looks like a file, and the schema file is already given: \
                     --schema PATTERN selects schemas now; write the DDL with --write-schema FILE"
                )));
            }
            if !self.quiet {
                eprintln!(
                    "pgdump2csv: --schema FILE is deprecated, use --write-schema FILE \
                     (--schema/-n PATTERN selects schemas, as in pg_dump)"
                );
            }
            self.schema = Some(PathBuf::from(f));
        }
        Ok(())
    }
}

/// Whether a `--schema` value is a file the user meant to write, not a schema pattern.
pub(super) fn looks_like_file(v: &str) -> bool {
    let l = v.to_ascii_lowercase();
    v.contains('/')
        || [".sql", ".sql.gz", ".sql.zst", ".sql.lz4"]
            .iter()
            .any(|e| l.ends_with(e))
}

impl Config {
    /// A `--schema` pattern that selects no table: most likely an old `--schema FILE`
    /// meant as the DDL output.
    pub(super) fn no_match_hint(&self) -> &'static str {
        " (to write the DDL to a file, use --write-schema FILE)"
    }
}
