//! What csvsplit reports after the shards are written: warnings about shards psql's `\copy`
//! cannot load, the `--write-manifest` JSON document (each shard's file, records, bytes,
//! CRC-32 and key range, and the table they hold), and the load statements of `--import-sql`/`--copy-sql`.

use super::pipeline::Done;
use super::{Config, Mode, Split, SqlOut, range, sql};
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::AtomicFile;
use crate::keys::Nulls;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// The `--write-manifest` document.
#[derive(Debug, Serialize)]
struct Report<'a> {
    format: &'static str,
    version: u32,
    generator: String,
    source: String,
    /// The table the shards hold (csvload loads them into it without -t): its schema
    /// (`null`: not given, the loader's search_path decides) and name, unquoted.
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    table: Option<&'a str>,
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hash: Option<HashReport<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<RangeReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filter: Option<&'a str>,
    header: bool,
    repeat_header: bool,
    compression: Option<&'static str>,
    null: &'a str,
    /// The CSV's column names in order, from `--manifest`: a loader needs them as the
    /// COPY column list, because the target table's own column order may differ (an
    /// `INHERITS` child whose parent gained a column, a table created by hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    columns: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<KeyReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sorted_within_shards: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    non_overlapping: Option<bool>,
    records: u64,
    bytes: u64,
    shards: Vec<ShardReport>,
}

/// The key of the ranges: its columns in order, and where NULLs go.
#[derive(Debug, Serialize)]
struct KeyReport {
    columns: Vec<KeyColumnReport>,
    nulls: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct KeyColumnReport {
    /// Name, or the number as given when there are no names.
    column: String,
    /// 1-based field number.
    field: usize,
    #[serde(rename = "type")]
    ty: String,
    desc: bool,
}

/// Key values as reported: `null` for NULL.
type KeyValues = Option<Vec<Option<String>>>;

#[derive(Debug, Serialize)]
struct HashReport<'a> {
    function: &'static str,
    columns: &'a [String],
    buckets: u64,
}

/// `--by-range`: the split points and where they came from. Shard i holds the keys from
/// `split_points[i-1]` (included) to `split_points[i]` (excluded).
#[derive(Debug, Serialize)]
struct RangeReport {
    /// `sample` or `file`.
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    split_points_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sample: Option<SampleReport>,
    split_points: Vec<Vec<Option<String>>>,
}

#[derive(Debug, Serialize)]
struct SampleReport {
    /// Data records in the input.
    records: u64,
    /// Records sampled.
    samples: u64,
    /// Samples per range asked for (m).
    per_range: u64,
}

#[derive(Debug, Serialize)]
struct ShardReport {
    shard: usize,
    file: String,
    records: u64,
    bytes: u64,
    file_bytes: u64,
    crc32: String,
    /// With a key: the first record's key values (`null` for an empty shard).
    #[serde(skip_serializing_if = "Option::is_none")]
    first_key: Option<KeyValues>,
    /// With a key: the last record's key values.
    #[serde(skip_serializing_if = "Option::is_none")]
    last_key: Option<KeyValues>,
    /// `--by-range`: the least key the shard's range holds (`null`: no lower bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    lower_key: Option<KeyValues>,
    /// `--by-range`: the key the shard's range stops before (`null`: no upper bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    upper_key: Option<KeyValues>,
    /// Lines that are exactly `\.`, which psql 17 and older cannot load with `\copy`.
    #[serde(skip_serializing_if = "is_zero")]
    copy_end_lines: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub(super) fn report(cfg: &Config, split: &Split) -> Result<()> {
    let done = split.shards.as_slice();
    for d in done.iter().filter(|d| d.copy_end_lines > 0 && !cfg.quiet) {
        eprintln!(
            "csvsplit: warning: {}: {} line(s) that are exactly \\. inside quoted values; psql 17 and older end \\copy data there, so load this shard with csvload or a server-side COPY",
            crate::io::names::display_path(&d.path),
            d.copy_end_lines
        );
    }
    let keys = split.keys.as_ref();
    if let Some(m) = &cfg.write_manifest {
        let stdout = crate::io::stream::is_stdin(m);
        let (mode, limit) = match &cfg.mode {
            Mode::Rows(n) => ("rows", Some(*n)),
            Mode::Bytes(b) => ("bytes", Some(*b)),
            Mode::Chunks(n) => ("chunks", Some(*n)),
            Mode::Hash { n, .. } => ("hash", Some(*n)),
            Mode::Range { n, .. } => ("range", Some(*n)),
        };
        let points = split.points.as_ref();
        let r = Report {
            format: "dumpshard-csvsplit",
            version: 1,
            generator: format!("csvsplit {}", env!("CARGO_PKG_VERSION")),
            source: cfg
                .input
                .as_ref()
                .map_or("<stdin>".into(), |p| p.display().to_string()),
            schema: cfg.target.as_ref().map(|(s, _)| s.as_deref()),
            table: cfg.target.as_ref().map(|(_, n)| n.as_str()),
            mode,
            limit,
            hash: match &cfg.mode {
                Mode::Hash { columns, n } => Some(HashReport {
                    function: "xxh64-v1",
                    columns,
                    buckets: *n,
                }),
                _ => None,
            },
            range: points.map(|p| RangeReport {
                source: match p.source {
                    range::Source::Sample { .. } => "sample",
                    range::Source::File(_) => "file",
                },
                split_points_file: match &p.source {
                    range::Source::File(f) => Some(f.clone()),
                    range::Source::Sample { .. } => None,
                },
                sample: match p.source {
                    range::Source::Sample {
                        records,
                        samples,
                        per_range,
                    } => Some(SampleReport {
                        records,
                        samples,
                        per_range,
                    }),
                    range::Source::File(_) => None,
                },
                split_points: p.values.clone(),
            }),
            filter: cfg.filter.as_deref(),
            header: cfg.header,
            repeat_header: cfg.repeat_header,
            compression: cfg.template.gzip().then_some("gzip"),
            null: &cfg.null,
            columns: cfg
                .table
                .as_ref()
                .map(|t| t.columns.iter().map(|c| c.name.as_str()).collect()),
            key: keys.map(|k| KeyReport {
                columns: k
                    .spec
                    .parts
                    .iter()
                    .map(|p| KeyColumnReport {
                        column: p.label.clone(),
                        field: p.col + 1,
                        ty: p.ty.to_string(),
                        desc: p.desc,
                    })
                    .collect(),
                nulls: k.spec.nulls.map(|n| match n {
                    Nulls::First => "first",
                    Nulls::Last => "last",
                }),
            }),
            sorted_within_shards: keys.map(|k| k.sorted_within_shards),
            non_overlapping: keys.map(|k| k.non_overlapping),
            records: done.iter().map(|d| d.records).sum(),
            bytes: done.iter().map(|d| d.bytes).sum(),
            shards: done
                .iter()
                .map(|d| ShardReport {
                    shard: d.shard,
                    file: if stdout || cfg.filter.is_some() {
                        d.path.display().to_string()
                    } else {
                        crate::manifest::relative_file(m, &d.path)
                    },
                    records: d.records,
                    bytes: d.bytes,
                    file_bytes: d.file_bytes,
                    crc32: format!("{:08x}", d.crc32),
                    first_key: keys.map(|k| k.shards.get(d.shard).and_then(|r| r.first.clone())),
                    last_key: keys.map(|k| k.shards.get(d.shard).and_then(|r| r.last.clone())),
                    lower_key: points.map(|p| {
                        d.shard
                            .checked_sub(1)
                            .and_then(|i| p.values.get(i).cloned())
                    }),
                    upper_key: points.map(|p| p.values.get(d.shard).cloned()),
                    copy_end_lines: d.copy_end_lines,
                })
                .collect(),
        };
        let mut json =
            serde_json::to_vec_pretty(&r).map_err(|e| Error::internal(format!("manifest: {e}")))?;
        json.push(b'\n');
        if stdout {
            let mut o = std::io::stdout().lock();
            o.write_all(&json).at("<stdout>")?;
            o.flush().at("<stdout>")?;
        } else {
            if std::fs::symlink_metadata(m).is_ok_and(|md| !md.is_file()) {
                return Err(Error::file(
                    m.display().to_string(),
                    "exists and is not a regular file; refusing to replace it",
                ));
            }
            let mut f = AtomicFile::create(m)?;
            f.write_all(&json).at(m)?;
            f.commit()?;
        }
    }
    if cfg.sql != SqlOut::None {
        print_sql(cfg, done)?;
    }
    Ok(())
}

fn print_sql(cfg: &Config, done: &[Done]) -> Result<()> {
    let table = match (&cfg.table, &cfg.table_name) {
        (Some(t), _) => format!(
            "{}.{}",
            sql::quote_ident(&t.schema),
            sql::quote_ident(&t.name)
        ),
        (None, Some(n)) => n.clone(),
        (None, None) => return Err(Error::Usage("the SQL output needs --table".into())),
    };
    let columns: Vec<String> = cfg
        .table
        .as_ref()
        .map(|t| t.column_names())
        .unwrap_or_default();
    let t = sql::Target {
        table: &table,
        columns: &columns,
        null: &cfg.null,
        gzip: cfg.template.gzip(),
    };
    let files: Vec<&Path> = done.iter().map(|d| d.path.as_path()).collect();
    let text = match &cfg.sql {
        SqlOut::Import(prefix) if files.is_empty() => {
            let _ = prefix;
            "-- csvsplit: the input had no records, so there is nothing to import\n".to_string()
        }
        SqlOut::Import(prefix) => {
            sql::import_into(&t, prefix, &files, cfg.header).map_err(Error::Usage)?
        }
        SqlOut::Copy => {
            let header: Vec<bool> = done
                .iter()
                .map(|d| cfg.header && (cfg.repeat_header || d.shard == 0))
                .collect();
            sql::copy_script(&t, &files, &header).map_err(Error::Usage)?
        }
        SqlOut::None => return Ok(()),
    };
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes()).at("<stdout>")?;
    o.flush().at("<stdout>")
}
