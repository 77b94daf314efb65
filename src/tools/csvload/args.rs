//! csvload's command line: the clap `Args`.

use super::{MAX_JOBS, stall, target, verify};
use std::path::PathBuf;

/// Load CSV files described by dumpshard manifests into PostgreSQL, YugabyteDB or
/// CockroachDB: in parallel, exactly once (each committed batch is recorded in a journal
/// table in the same transaction), resumable after any interruption by rerunning the same
/// command, and verified (row counts against the manifests).
#[derive(Debug, clap::Parser)]
#[command(name = "csvload", version)]
pub struct Args {
    /// The target database, as psql's -d takes it: a libpq URL
    /// (`postgresql://user@host:port/db?sslmode=verify-full`), a `key=value` string
    /// (`host=/run/postgresql dbname=db`; a host starting with `/` is a unix-socket directory)
    /// or a database name. Several hosts (`host=a,b port=5432,5433`,
    /// `postgresql://a:5432,b:5433/db`) are tried in turn (`load_balance_hosts=random`: in a
    /// random order per connection, spreading -j over them; `target_session_attrs`). TLS as
    /// in libpq: sslmode disable/allow/prefer (default)/require/verify-ca/verify-full,
    /// sslrootcert (default ~/.postgresql/root.crt; `system`: the OS store), sslcert/sslkey.
    /// What it leaves open comes from the service (service=, PGSERVICE; PGSERVICEFILE or
    /// ~/.pg_service.conf, PGSYSCONFDIR/pg_service.conf), then PGHOST, PGHOSTADDR, PGPORT,
    /// PGUSER (default: the effective OS user), PGDATABASE, PGPASSWORD, PGPASSFILE (or
    /// ~/.pgpass), PGSSLMODE (PGREQUIRESSL), PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGAPPNAME,
    /// PGCONNECT_TIMEOUT, PGTARGETSESSIONATTRS and PGLOADBALANCEHOSTS, as in psql.
    /// TCP as in libpq: keepalives, keepalives_idle, keepalives_interval, keepalives_count,
    /// tcp_user_timeout (milliseconds), connect_timeout (seconds per host, bounding TCP, TLS,
    /// startup and authentication together).
    #[arg(value_name = "DATABASE", default_value = "")]
    pub database: String,

    /// A manifest to load: pgdump2csv's (every table in it, or those of -t) or csvsplit's
    /// (one table's shards, into the table it names; one from a csvsplit that named none
    /// needs -t). Repeatable.
    #[arg(short = 'm', long, value_name = "FILE")]
    pub manifest: Vec<PathBuf>,

    /// Load only this table (`name` or `schema.name`, read as psql reads a name: unquoted
    /// parts fold to lower case, `"app.v2".users` quotes a name with a dot or capitals;
    /// the unquoted `schema.name` as a manifest lists it also matches); repeatable. Names
    /// the target table of a csvsplit manifest that does not name it (then give exactly one).
    #[arg(short = 't', long, value_name = "TABLE")]
    pub table: Vec<String>,

    /// Files loaded at once, one connection each (at most 64); on PostgreSQL a run with
    /// fewer files loads each large file (16 MiB or more, uncompressed) in up to N / files
    /// parts side by side, committed together; with --post-data on PostgreSQL, also the
    /// tables whose indexes and keys are built at once.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u64).range(1..=MAX_JOBS as u64))]
    pub jobs: u64,

    /// With fewer files than -j on PostgreSQL: a file of SIZE or more (uncompressed, no
    /// manifest CRC) loads in parts side by side, at most -j / files, each at least SIZE / 2
    /// (a part costs a connection, a transaction and a scan of the file before it). SIZE as
    /// `64K`, `16M`, `1G`.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = size_arg)]
    pub parts_from: u64,

    /// Commit every N records (cut at record ends) as its own COPY and transaction; default:
    /// one file, one transaction (PostgreSQL), 1000 records (CockroachDB), 20000
    /// (YugabyteDB), per --target-kind.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub batch_rows: Option<u64>,

    /// The journal table of committed batches, created if missing. It stays in the target
    /// after the load (a rerun resumes from it); drop it once the load is verified and no
    /// rerun is wanted: `DROP TABLE dumpshard.load_journal; DROP SCHEMA dumpshard;`
    /// (docs/csvload.md).
    #[arg(
        long,
        value_name = "SCHEMA.TABLE",
        default_value = "dumpshard.load_journal"
    )]
    pub journal: String,

    /// Empty a table (and forget its journal rows) when it holds rows the journal does not
    /// account for, or when a file it was loaded from changed since (a CSV edited after its
    /// load: its journaled bytes are read again and compared), instead of refusing it; then
    /// load it again. A table whose rows are all journaled from its files as they are now
    /// resumes. A table that other tables' foreign keys reference cannot be emptied (the
    /// server refuses, and csvload says so).
    #[arg(long, conflicts_with = "append")]
    pub truncate: bool,

    /// Load into a table even when it holds rows the journal does not account for; they are
    /// added to the expected row count.
    #[arg(long)]
    pub append: bool,

    /// Run this SQL script before the data, statement by statement (pgdump2csv's schema.sql).
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// Run this SQL script after all data (pgdump2csv's post.sql: indexes, constraints). On
    /// PostgreSQL with -j above 1, as pg_restore -j: the statements that build a table's
    /// indexes, primary key and unique constraints (CREATE INDEX, ALTER TABLE ... ADD
    /// CONSTRAINT ... PRIMARY KEY|UNIQUE), one transaction per table, -j tables at once, each
    /// after the script's SET lines before it; then every other statement (foreign keys,
    /// triggers, sequence values ...) in the script's order in one transaction. Each table's
    /// builds are journaled as they commit, so a rerun after a failure skips them.
    #[arg(long, value_name = "FILE")]
    pub post_data: Option<PathBuf>,

    /// After the load, build the loaded tables' indexes, primary keys and unique constraints
    /// from this post-data script (the statements --post-data -j runs per table), as
    /// pg_restore -j builds a table's keys as soon as its data is in: one transaction per
    /// table, -j tables at once, each journaled, so a later --post-data with the same script
    /// skips them and runs the rest (foreign keys, triggers, sequence values ...). Nothing
    /// else of the script runs. PostgreSQL only.
    #[arg(
        long,
        value_name = "FILE",
        requires = "manifest",
        conflicts_with = "post_data"
    )]
    pub build_indexes: Option<PathBuf>,

    /// The target this load belongs to: on its first run csvload records in FILE the server
    /// (its system identifier; CockroachDB's cluster id) and the database (its OID) that the
    /// connection reached, and every later run compares what it reaches with that and
    /// refuses, in words and before doing anything, another server or database (a
    /// connection string, service file, PG* variable or ~/.pgpass that leads elsewhere
    /// now). Alone (no -m, --schema or --post-data) it only checks or records the target.
    #[arg(long, value_name = "FILE")]
    pub same_target: Option<PathBuf>,

    /// Only compare each table's row count with the manifests (for data loaded any other
    /// way); load nothing.
    #[arg(long, conflicts_with_all = ["schema", "post_data", "build_indexes", "truncate", "append"])]
    pub verify_only: bool,

    /// Hold every COMMIT until FILE exists (and is not empty), then commit if it holds `0`;
    /// anything else rolls the batch back and stops the load (exit 1), nothing of it
    /// committed after the gate was read. For a load beside the check of its own files:
    /// `{ csvcheck ... ; echo $? > G.new; mv G.new G; } & csvload --commit-gate G ...`
    /// streams the data while it is checked (examples/migrate.mk does), and with one
    /// transaction per file (PostgreSQL's default) commits none of it unless the check
    /// passed. Waits as long as it takes: whatever writes FILE must write it on every end.
    #[arg(long, value_name = "FILE", conflicts_with = "verify_only")]
    pub commit_gate: Option<PathBuf>,

    /// Refuse (exit 1, its transaction rolled back) a record csvcheck refuses for its form (a
    /// quoting mistake, another number of fields than the table's columns, a carriage return
    /// outside quotes, a blank line, a line `\.`, a line end other than the file's first
    /// record's), which COPY would read its own way or not at all, and a record whose primary
    /// key (from a pgdump2csv manifest, compared as pksort compares it: 1.5 = 1.50) an earlier
    /// record of the table had in this run, before its transaction commits. The values'
    /// types are left to the server's input functions, which refuse what they do not take. Of
    /// a table loaded from one file, no --batch-rows, in one transaction or in parts
    /// (--parts-from, committed together) nothing is committed unless all of it passes:
    /// examples/migrate.mk loads such tables this way instead of checking them with
    /// csvcheck beside the load. Keys past 1 GiB of memory (about 16
    /// million) are not looked for, with a note; nor are keys an earlier run committed.
    #[arg(long, conflicts_with = "verify_only")]
    pub check_records: bool,

    /// When the server refuses a row, load the other tables to the end (default: every job
    /// stops after its current batch).
    #[arg(long)]
    pub keep_going: bool,

    /// What verification compares: `count` (each table's rows, and a csvsplit key's min and
    /// max, with the manifests) or `content` (also every value: an order-independent digest
    /// of each table's records from the CSV files and read back from the target, compared
    /// per key bucket; a full read of both sides, `-j` tables at once) or `journal` (each
    /// table exists and the journal records as committed the manifests' rows of it: no read
    /// of the tables, a cheap check that the target reached holds a finished load) or, after
    /// a load, `none` (for a run that verifies later; every COPY must still take every
    /// record).
    /// Given twice, the last one counts (so a Makefile's default can be overridden).
    #[arg(
        long,
        value_name = "WHAT",
        value_enum,
        default_value = "count",
        overrides_with = "verify"
    )]
    pub verify: verify::Verify,

    /// With `--verify content`: print up to N differing records of each differing table from
    /// both sides (a second read of the differing key buckets); 0: name the buckets only.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub verify_diff: u64,

    /// Print no progress bar and no summary; only errors and verification differences.
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// The summary, printed anyway unless -q (accepted as in every dumpshard tool). It ends
    /// with the line every tool prints (see dumpshard(7)): `read SIZE, N records; wrote N
    /// tables, N records, SIZE; N refused; SECS s, RATE MB/s` (refused: files with rows the
    /// server refused).
    #[arg(short = 'v', long, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Tries again, on a new connection, a batch whose connection broke or that the server
    /// failed with a retryable SQLSTATE (40001, 40P01, 57P01-57P03, class 08), at most N
    /// times in a row, waiting 0.5 s, 1 s, 2 s ... (at most 30 s) before each; each retry is
    /// said on stderr. The journal keeps it exactly once: a batch whose COMMIT went
    /// unanswered is looked up in the journal before it is sent again. 0: stop at the first.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,

    /// The kind of server loaded: postgresql, cockroachdb or yugabytedb. Default: read from
    /// `SELECT version()` (CockroachDB's starts with `CockroachDB`, YugabyteDB's contains
    /// `-YB-`, anything else is PostgreSQL); given and different from that, a warning says
    /// so and the given kind is used. It sets the default --batch-rows, the session settings
    /// (YugabyteDB: yb_default_copy_from_rows_per_transaction = 0 and
    /// yb_disable_transactional_writes = off), whether advisory locks are taken (not on
    /// CockroachDB, whose are stubs), what COPY gets (PostgreSQL: binary COPY when every
    /// column's type has an encoder, else COPY text, both rewritten from the CSV; CockroachDB:
    /// the CSV `WITH CSV NULL`; YugabyteDB: the CSV `WITH (FORMAT csv)`) and, on CockroachDB, whose DDL is not transactional, --schema/--post-data
    /// statement by statement and --truncate outside a transaction.
    #[arg(long, value_name = "KIND", value_enum)]
    pub target_kind: Option<target::TargetKind>,

    /// Takes a data connection as lost (and retries its batch as above) when the server has
    /// neither answered nor taken COPY data for this long while csvload waits on it: a peer
    /// that stops answering without closing (dead NAT entry, frozen node, stuck proxy), which
    /// TCP keepalives cannot see when something still acknowledges. DURATION: seconds, or
    /// with a unit (`ms`, `s`, `min`, `h`); 0: wait forever. The default, 5 min, leaves room
    /// for a slow COMMIT (synchronous replication, deferred constraints). Only the data
    /// phase: a --schema/--post-data statement (CREATE INDEX on a big table) or a
    /// verification read may rightly be silent for hours and is never cut; there the
    /// connection string's keepalives_* and tcp_user_timeout apply. It also bounds a
    /// connection attempt when the connection string gives no connect_timeout.
    #[arg(long, value_name = "DURATION", default_value = "5min",
          value_parser = stall::parse_duration)]
    pub io_timeout: std::time::Duration,
}

fn size_arg(s: &str) -> std::result::Result<u64, String> {
    crate::io::cli::parse_size(s).map_err(|e| e.to_string())
}
