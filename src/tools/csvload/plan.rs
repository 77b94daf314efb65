//! What to load: the tables and files named by pgdump2csv and csvsplit manifests, with the
//! COPY options each file needs and the row counts verification expects.

use crate::io::error::{Error, Result};
use crate::keys::KeyType;
use crate::manifest::{self, Manifest};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

/// One file to load into one table.
#[derive(Debug, Clone)]
pub struct FileJob {
    /// Index of its table in [`Plan::tables`].
    pub table: usize,
    /// The file as found on disk.
    pub path: PathBuf,
    /// Its identity in the journal: the absolute path.
    pub key: String,
    /// The first record is a header.
    pub header: bool,
    /// Data records the manifest says it holds.
    pub records: u64,
    /// `crc32:XXXXXXXX` from a csvsplit manifest (of the uncompressed content); computed
    /// (`xxh64:` of the file's bytes) when absent.
    pub checksum: Option<String>,
    /// A part of the file (its bytes, first record and line; see `parts.rs`): then `key`,
    /// `header` and `records` are the part's.
    pub part: Option<Part>,
}

impl FileJob {
    /// The file at `path` of table `table`, keyed in the journal by its absolute path.
    fn new(
        table: usize,
        path: PathBuf,
        header: bool,
        records: u64,
        checksum: Option<String>,
    ) -> FileJob {
        FileJob {
            table,
            key: absolute(&path),
            path,
            header,
            records,
            checksum,
            part: None,
        }
    }

    /// True for a whole file or the first part of one: the one job of its file that reads
    /// (content verification) or counts (the summary) the file.
    pub fn first_of_file(&self) -> bool {
        self.part.as_ref().is_none_or(|p| p.index == 0)
    }
}

// The parts of a file (made by parts.rs), kept here with the job that carries them.

/// A part of a file.
#[derive(Debug, Clone)]
pub struct Part {
    /// Its first byte in the file, where a record starts.
    pub start: u64,
    /// The byte after its last.
    pub end: u64,
    /// The file's record number at `start` (1-based; a header is record 1).
    pub record: u64,
    /// The file's line number at `start`.
    pub line: u64,
    /// Its index among the file's parts.
    pub index: usize,
    /// Shared by the parts of a file split by this run: each COMMIT waits here for the
    /// others. `None` when the journal held parts of the file already (a rerun: the parts it
    /// holds were checked when they committed, and the rest may be more than `-j`).
    pub barrier: Option<Arc<Barrier>>,
}

/// Where the parts of one file wait for each other before they commit.
#[derive(Debug)]
pub struct Barrier {
    /// Which parts have read their end with the records they were to hold; whether one
    /// ended without (refused, stopped, failed).
    state: Mutex<(Vec<bool>, bool)>,
    cv: Condvar,
}

impl Barrier {
    pub(super) fn new(parts: usize) -> Barrier {
        Barrier {
            state: Mutex::new((vec![false; parts], false)),
            cv: Condvar::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (Vec<bool>, bool)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Part `i` has read its end and held what it was to hold.
    pub fn arrive(&self, i: usize) {
        self.state().0[i] = true;
        self.cv.notify_all();
    }

    /// A part ended without arriving: the others roll back.
    pub fn fail(&self) {
        self.state().1 = true;
        self.cv.notify_all();
    }

    /// Waits until every part has arrived (`true`: commit), or one failed or `stop` says so
    /// (`false`: roll back). Once all have arrived a later failure (a COMMIT lost, retried)
    /// changes nothing: every part matched.
    pub fn wait(&self, stop: impl Fn() -> bool) -> bool {
        let mut g = self.state();
        loop {
            if g.0.iter().all(|&a| a) {
                return true;
            }
            if g.1 || stop() {
                return false;
            }
            g = self
                .cv
                .wait_timeout(g, std::time::Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A pgdump2csv manifest table's primary key for [`TablePlan::key`]: each column's index in
/// the CSV and its key order (pksort's and csvcheck's, by the manifest's type; bytewise for
/// a type with none, which finds fewer duplicates, never a false one). Empty when a key
/// column is not among the CSV's columns.
fn primary_key(t: &manifest::Table) -> Vec<KeyCol> {
    let names = t.column_names();
    let catalog = crate::pg::types::Catalog::default();
    t.primary_key
        .iter()
        .map(|k| {
            let i = names.iter().position(|n| n == k)?;
            let pg = t.columns[i]
                .type_name
                .as_deref()
                .map(|n| crate::pg::types::parse_type(n, &catalog));
            let ty = pg.as_ref().and_then(KeyType::from_pg_type);
            use crate::pg::types::PgType;
            let int_bytes = match pg {
                Some(PgType::Int2) => 2,
                Some(PgType::Int4) => 4,
                Some(PgType::Int8) => 8,
                _ => 0,
            };
            Some(KeyCol {
                col: i,
                ty: ty.unwrap_or(KeyType::Text),
                int_bytes,
            })
        })
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

/// One target table.
#[derive(Debug, Clone)]
pub struct TablePlan {
    /// Schema, unquoted; `None` when a csvsplit `--table` gave a bare name (search_path).
    pub schema: Option<String>,
    /// Name, unquoted.
    pub name: String,
    /// Column names for the COPY column list (empty: all columns in table order).
    pub columns: Vec<String>,
    /// The manifest's type of each column (as the dump wrote it), where it says: content
    /// verification compares values by these types, not the target's (issue 35).
    pub types: Vec<Option<String>>,
    /// The NULL token.
    pub null: String,
    /// Rows the manifests say the table gets.
    pub expected_rows: u64,
    /// The key's smallest and largest value, where a csvsplit manifest gives them.
    pub key_range: Option<KeyRange>,
    /// The `-t` that named the table (a csvsplit manifest that does not name it), as given,
    /// for the hint to quote a name whose capitals it folded.
    pub given: Option<String>,
    /// The primary key from a pgdump2csv manifest (`--check-records` refuses a key seen
    /// before); empty otherwise.
    pub key: Vec<KeyCol>,
}

/// A primary key column of a [`TablePlan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyCol {
    /// Its index in the CSV's records.
    pub col: usize,
    /// How its values compare (pksort's and csvcheck's order).
    pub ty: KeyType,
    /// 2, 4 or 8 for `smallint`, `integer` and `bigint` (the value's bytes), else 0.
    pub int_bytes: u8,
}

/// `schema.name` with each part quoted where SQL needs it, for messages: the parts of
/// `"app.v2".users` stay apart.
fn display_parts(schema: Option<&str>, name: &str) -> String {
    let q = |p: &str| {
        let plain = p
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if plain { p.to_string() } else { quote_ident(p) }
    };
    crate::io::names::display_name(&match schema {
        Some(s) => format!("{}.{}", q(s), q(name)),
        None => q(name),
    })
}

/// The range of a one-column key, from a csvsplit manifest's per-shard first and last keys.
/// Only offered when it is exact: every shard sorted ascending, no NULL key, and a key type
/// whose order is the server's (not `text`, whose order depends on the collation).
#[derive(Debug, Clone)]
pub struct KeyRange {
    /// Column name.
    pub column: String,
    /// Each non-empty shard's first key (the shard's minimum).
    pub firsts: Vec<String>,
    /// Each non-empty shard's last key (the shard's maximum).
    pub lasts: Vec<String>,
}

impl TablePlan {
    /// `schema.name` for messages and the journal.
    pub fn display(&self) -> String {
        match &self.schema {
            Some(s) => format!("{s}.{}", self.name),
            None => self.name.clone(),
        }
    }

    /// When the server says the table does not exist (`42P01`) and it was named by a `-t`
    /// whose capitals were folded (as psql folds `MixedCase` to `mixedcase`): a hint to
    /// quote it. Empty otherwise.
    pub fn missing_hint(&self, e: &postgres::Error) -> String {
        let Some(given) = &self.given else {
            return String::new();
        };
        let folded = manifest::TableName::parse(given).is_ok_and(|n| n.folded);
        if !folded || e.code() != Some(&postgres::error::SqlState::UNDEFINED_TABLE) {
            return String::new();
        }
        // Each part with capitals quoted, as the user most likely meant it (a name that
        // already has quotes: said in words).
        let how = if given.contains('"') {
            "put each part with capitals in double quotes".to_string()
        } else {
            let parts: Vec<String> = given
                .split('.')
                .map(|p| {
                    if p.chars().any(|c| c.is_ascii_uppercase()) {
                        quote_ident(p)
                    } else {
                        p.to_string()
                    }
                })
                .collect();
            format!("-t '{}'", crate::io::names::Escaped(&parts.join(".")))
        };
        format!(
            " (hint: -t reads {} as {}, folding unquoted capitals to lower case as psql does; \
             for a name with capitals, quote it: {how})",
            crate::io::names::Escaped(given),
            display_parts(self.schema.as_deref(), &self.name),
        )
    }

    /// The quoted, qualified name for SQL.
    pub fn sql_name(&self) -> String {
        match &self.schema {
            Some(s) => format!("{}.{}", quote_ident(s), quote_ident(&self.name)),
            None => quote_ident(&self.name),
        }
    }

    /// `COPY t (cols) FROM STDIN WITH (FORMAT csv, NULL '...')`. Headers are skipped by
    /// csvload itself, so a resumed file and a fresh one use the same statement.
    pub fn copy_sql(&self) -> String {
        format!(
            "COPY {}{} FROM STDIN WITH (FORMAT csv, NULL {})",
            self.sql_name(),
            self.column_list(),
            quote_literal(&self.null)
        )
    }

    /// ` ("a", "b")`, the COPY column list, or nothing for all columns in table order.
    pub fn column_list(&self) -> String {
        if self.columns.is_empty() {
            String::new()
        } else {
            let c: Vec<String> = self.columns.iter().map(|c| quote_ident(c)).collect();
            format!(" ({})", c.join(", "))
        }
    }
}

/// Everything to load.
#[derive(Debug, Default)]
pub struct Plan {
    /// Target tables, in manifest order.
    pub tables: Vec<TablePlan>,
    /// Files, in manifest order.
    pub files: Vec<FileJob>,
}

// The one quoting of names and values in csvload's SQL (see session.rs).
pub use super::session::{quote_ident, quote_literal};

#[derive(Deserialize)]
struct SplitManifest {
    format: String,
    /// The table's schema (`null` or absent: not named, or named without one).
    #[serde(default)]
    schema: Option<String>,
    /// The table the shards hold (absent in manifests of csvsplit before it wrote one, and
    /// when csvsplit had neither --manifest nor -t).
    #[serde(default)]
    table: Option<String>,
    header: bool,
    /// With `header`: every shard starts with it (`false`: only shard 0, from
    /// `--no-repeat-header`).
    #[serde(default)]
    repeat_header: Option<bool>,
    null: String,
    /// The CSV's columns (csvsplit writes them when it read a pgdump2csv manifest).
    #[serde(default)]
    columns: Option<Vec<String>>,
    shards: Vec<Shard>,
    #[serde(default)]
    key: Option<SplitKey>,
    #[serde(default)]
    sorted_within_shards: Option<bool>,
}

#[derive(Deserialize)]
struct SplitKey {
    columns: Vec<SplitKeyColumn>,
}

#[derive(Deserialize)]
struct SplitKeyColumn {
    column: String,
    #[serde(rename = "type")]
    ty: String,
    desc: bool,
}

#[derive(Deserialize)]
struct Shard {
    /// The shard's number (0 is the first).
    #[serde(default)]
    shard: Option<u64>,
    file: String,
    records: u64,
    crc32: Option<String>,
    #[serde(default)]
    first_key: Option<Vec<Option<String>>>,
    #[serde(default)]
    last_key: Option<Vec<Option<String>>>,
}

impl SplitManifest {
    /// Whether each shard starts with a header, from the manifest's header facts; refuses
    /// facts that do not say it unambiguously (a loader that guesses drops a record or
    /// loads a header as data).
    fn shard_headers(&self) -> std::result::Result<Vec<bool>, String> {
        let mut seen = std::collections::HashSet::new();
        for s in &self.shards {
            if let Some(n) = s.shard
                && !seen.insert(n)
            {
                return Err(format!("shard {n} is listed twice"));
            }
        }
        if !self.header {
            return Ok(vec![false; self.shards.len()]);
        }
        match self.repeat_header {
            Some(true) => Ok(vec![true; self.shards.len()]),
            Some(false) => {
                let firsts = self.shards.iter().filter(|s| s.shard == Some(0)).count();
                if firsts != 1 || self.shards.iter().any(|s| s.shard.is_none()) {
                    return Err(
                        "with \"repeat_header\": false only shard 0 has the header, \
                                but the shards' numbers do not say which one that is"
                            .into(),
                    );
                }
                Ok(self.shards.iter().map(|s| s.shard == Some(0)).collect())
            }
            None => Err(
                "\"header\" is true but \"repeat_header\" is missing: which shards \
                         start with the header is not said"
                    .into(),
            ),
        }
    }

    fn key_range(&self) -> Option<KeyRange> {
        let [col] = self.key.as_ref()?.columns.as_slice() else {
            return None;
        };
        if col.desc
            || col.ty == "text"
            || col.column.parse::<u64>().is_ok()
            || self.sorted_within_shards != Some(true)
        {
            return None;
        }
        let (mut firsts, mut lasts) = (Vec::new(), Vec::new());
        for s in &self.shards {
            match (&s.first_key, &s.last_key) {
                (Some(f), Some(l)) => {
                    let ([Some(f)], [Some(l)]) = (f.as_slice(), l.as_slice()) else {
                        return None;
                    };
                    firsts.push(f.clone());
                    lasts.push(l.clone());
                }
                (None, None) if s.records == 0 => {}
                _ => return None,
            }
        }
        Some(KeyRange {
            column: col.column.clone(),
            firsts,
            lasts,
        })
    }
}

#[derive(Deserialize)]
struct Probe {
    format: Option<String>,
}

fn absolute(p: &Path) -> String {
    std::fs::canonicalize(p)
        .or_else(|_| std::path::absolute(p))
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

/// A table a manifest names: its schema (`None`: a csvsplit manifest that leaves it to the
/// search_path) and name, unquoted.
type Named = (Option<String>, String);

/// The tables the manifests at `manifests` name, each once, in the order first met.
fn named_tables(manifests: &[PathBuf]) -> Result<Vec<Named>> {
    let mut out: Vec<Named> = Vec::new();
    let mut add = |t: Named| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    for mpath in manifests {
        let bytes = std::fs::read(mpath).map_err(|e| Error::io(mpath, e))?;
        let name = mpath.display().to_string();
        let probe: Probe = serde_json::from_slice(&bytes)
            .map_err(|e| manifest::json_error(&name, "manifest", &e))?;
        match probe.format.as_deref() {
            Some(manifest::FORMAT) => {
                for t in Manifest::parse(&mut bytes.clone(), &name)?.tables {
                    add((Some(t.schema), t.name));
                }
            }
            Some("dumpshard-csvsplit") => {
                let m: SplitManifest = serde_json::from_slice(&bytes)
                    .map_err(|e| manifest::json_error(&name, "csvsplit manifest", &e))?;
                if let Some(n) = m.table {
                    add((m.schema, n));
                }
            }
            // Said by the plan's own pass.
            _ => {}
        }
    }
    Ok(out)
}

/// The one table of `named` that `-t` text `given` names (issue 60: with `users` and
/// `"Users"` in a dump, `-t public.Users` loaded both from csvsplit manifests): read as psql
/// reads a name (`public.Users` is `public.users`, `public."Users"` is `"Users"`); where that
/// names none, the unquoted `schema.name` or `name` exactly as a manifest lists it (how `-t`
/// was matched before it was parsed). `None` when it names none; an error when it names
/// several (a bare name in two schemas).
fn resolve_table(given: &str, named: &[Named]) -> Result<Option<usize>> {
    let parsed = manifest::TableName::parse(given).ok();
    let mut hits: Vec<usize> = (0..named.len())
        .filter(|&i| {
            let (schema, name) = &named[i];
            parsed.as_ref().is_some_and(|p| {
                &p.name == name
                    && match (&p.schema, schema) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    }
            })
        })
        .collect();
    if hits.is_empty() {
        let qualified = |i: &usize| match &named[*i].0 {
            Some(s) => format!("{s}.{}", named[*i].1),
            None => named[*i].1.clone(),
        };
        hits = (0..named.len()).filter(|i| qualified(i) == given).collect();
        if hits.is_empty() {
            hits = (0..named.len()).filter(|&i| named[i].1 == given).collect();
        }
    }
    match hits.as_slice() {
        [] => Ok(None),
        [i] => Ok(Some(*i)),
        many => Err(Error::Usage(format!(
            "table name '{}' is ambiguous: it names {} ({}); -t names one table, so qualify it \
             with its schema",
            crate::io::names::Escaped(given),
            many.len(),
            many.iter()
                .map(|&i| display_parts(named[i].0.as_deref(), &named[i].1))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl Plan {
    /// Reads the manifests. Each `-t` in `tables` names exactly one table (`resolve_table`:
    /// as psql reads a name) and selects it from pgdump2csv manifests and from csvsplit
    /// manifests that name theirs; a `-t` naming none of them names the table of a csvsplit
    /// manifest that does not name its own (then exactly one `-t` is allowed).
    pub fn build(manifests: &[PathBuf], tables: &[String]) -> Result<Plan> {
        let mut plan = Plan::default();
        let named = named_tables(manifests)?;
        let mut resolved = Vec::with_capacity(tables.len());
        for t in tables {
            resolved.push(resolve_table(t, &named)?);
        }
        // Whether -t number i selects the named table `(schema, name)`.
        let selects = |i: usize, schema: Option<&str>, name: &str| {
            resolved[i].is_some_and(|k| named[k].0.as_deref() == schema && named[k].1 == name)
        };
        let mut selected_found: Vec<bool> = resolved.iter().map(Option::is_some).collect();
        // Tables of csvsplit manifests that no -t selected, for the error that says so.
        let mut named_elsewhere: Vec<String> = Vec::new();
        for mpath in manifests {
            let bytes = std::fs::read(mpath).map_err(|e| Error::io(mpath, e))?;
            let name = mpath.display().to_string();
            let probe: Probe = serde_json::from_slice(&bytes)
                .map_err(|e| manifest::json_error(&name, "manifest", &e))?;
            match probe.format.as_deref() {
                Some(manifest::FORMAT) => {
                    let m = Manifest::parse(&mut bytes.clone(), &name)?;
                    let chosen: Vec<&manifest::Table> = if tables.is_empty() {
                        m.tables.iter().collect()
                    } else {
                        (0..tables.len())
                            .filter_map(|i| {
                                m.tables
                                    .iter()
                                    .find(|x| selects(i, Some(&x.schema), &x.name))
                            })
                            .collect()
                    };
                    for t in chosen {
                        let file = t.file.as_deref().ok_or_else(|| {
                            Error::file(
                                &name,
                                format!(
                                    "table {} was written to stdout; no file to load",
                                    t.qualified()
                                ),
                            )
                        })?;
                        let idx = plan.table_index(TablePlan {
                            schema: Some(t.schema.clone()),
                            name: t.name.clone(),
                            columns: t.column_names(),
                            types: t.columns.iter().map(|c| c.type_name.clone()).collect(),
                            null: t.null.clone(),
                            expected_rows: 0,
                            key_range: None,
                            given: None,
                            key: primary_key(t),
                        });
                        plan.tables[idx].key_range = None;
                        plan.tables[idx].expected_rows += t.rows;
                        plan.files.push(FileJob::new(
                            idx,
                            manifest::resolve_file(mpath, file),
                            t.header,
                            t.rows,
                            None,
                        ));
                    }
                }
                Some("dumpshard-csvsplit") => {
                    let m: SplitManifest = serde_json::from_slice(&bytes)
                        .map_err(|e| manifest::json_error(&name, "csvsplit manifest", &e))?;
                    debug_assert_eq!(m.format, "dumpshard-csvsplit");
                    let (schema, tname, given) = match (&m.table, tables) {
                        // The manifest names its table: -t only selects, as for pgdump2csv's.
                        (Some(n), []) => (m.schema.clone(), n.clone(), None),
                        (Some(n), ts) => {
                            let hit = (0..ts.len()).find(|&i| selects(i, m.schema.as_deref(), n));
                            let Some(i) = hit else {
                                named_elsewhere.push(display_parts(m.schema.as_deref(), n));
                                continue;
                            };
                            selected_found[i] = true;
                            // A -t with the schema the manifest leaves to the search_path.
                            let schema = m.schema.clone().or_else(|| {
                                manifest::TableName::parse(&ts[i])
                                    .ok()
                                    .and_then(|t| t.schema)
                            });
                            (schema, n.clone(), None)
                        }
                        (None, [t]) => {
                            selected_found[0] = true;
                            let n = manifest::TableName::parse(t)
                                .map_err(|e| Error::Usage(format!("-t/--table: {e}")))?;
                            (n.schema, n.name, Some(t.clone()))
                        }
                        (None, _) => {
                            return Err(Error::Usage(format!(
                                "{name} is a csvsplit manifest that does not name its table \
                                 (csvsplit had neither -m/--manifest nor -t/--table): give it with \
                                 exactly one -t/--table"
                            )));
                        }
                    };
                    let t = display_parts(schema.as_deref(), &tname);
                    let fresh = plan.tables.len();
                    let columns = m.columns.clone().unwrap_or_default();
                    let idx = plan.table_index(TablePlan {
                        schema,
                        name: tname,
                        columns: columns.clone(),
                        types: Vec::new(),
                        null: m.null.clone(),
                        expected_rows: 0,
                        key_range: m.key_range(),
                        given,
                        key: Vec::new(),
                    });
                    if idx != fresh {
                        // Several manifests feed the table: their ranges are not combined.
                        plan.tables[idx].key_range = None;
                    }
                    if plan.tables[idx].columns.is_empty() {
                        plan.tables[idx].columns = columns;
                    } else if !columns.is_empty() && plan.tables[idx].columns != columns {
                        return Err(Error::file(
                            &name,
                            format!(
                                "its column list differs from another manifest's for table {t}"
                            ),
                        ));
                    }
                    if plan.tables[idx].null != m.null {
                        return Err(Error::file(
                            &name,
                            format!("its NULL token differs from another manifest's for table {t}"),
                        ));
                    }
                    let headers = m.shard_headers().map_err(|e| {
                        Error::file(&name, format!("inconsistent header facts: {e}"))
                    })?;
                    for (s, header) in m.shards.into_iter().zip(headers) {
                        plan.tables[idx].expected_rows += s.records;
                        plan.files.push(FileJob::new(
                            idx,
                            manifest::resolve_file(mpath, &s.file),
                            header,
                            s.records,
                            s.crc32.map(|c| format!("crc32:{c}")),
                        ));
                    }
                }
                other => {
                    return Err(Error::file(
                        &name,
                        format!(
                            "not a dumpshard manifest (format is {})",
                            other.map_or("missing".to_string(), |f| format!("'{f}'"))
                        ),
                    ));
                }
            }
        }
        for t in &plan.tables {
            let names = t.schema.iter().chain([&t.name]).chain(&t.columns);
            for n in names {
                super::session::check_text("name", n).map_err(Error::Usage)?;
            }
            super::session::check_text("NULL token", &t.null).map_err(Error::Usage)?;
        }
        if let Some(i) = selected_found.iter().position(|f| !f) {
            let held = if named_elsewhere.is_empty() {
                String::new()
            } else {
                format!(
                    " (the csvsplit manifests name {})",
                    named_elsewhere.join(", ")
                )
            };
            return Err(Error::Usage(format!(
                "table '{}' is in none of the manifests{held}",
                crate::io::names::Escaped(&tables[i])
            )));
        }
        Ok(plan)
    }

    /// The order in which the data phase takes the files: tables in plan order, and each
    /// table's files in [`spread`] order, so that `-j` jobs loading one table's sorted shards
    /// at once write different parts of its key range, not neighbours (a range-sharded target,
    /// CockroachDB or YugabyteDB, would otherwise take them all on one range: the hotspot of
    /// the shared load-targets notes).
    pub fn load_order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.files.len());
        for t in 0..self.tables.len() {
            let mine: Vec<usize> = (0..self.files.len())
                .filter(|&i| self.files[i].table == t)
                .collect();
            out.extend(spread(mine.len()).into_iter().map(|k| mine[k]));
        }
        out
    }

    /// The index of an equal table (same schema and name), adding it if new.
    fn table_index(&mut self, t: TablePlan) -> usize {
        match self
            .tables
            .iter()
            .position(|x| x.schema == t.schema && x.name == t.name)
        {
            Some(i) => i,
            None => {
                self.tables.push(t);
                self.tables.len() - 1
            }
        }
    }
}

/// `0..n` in bit-reversed order (0, n/2, n/4, 3n/4, ...): any run of consecutive picks is
/// spread evenly over the range, as far apart as the picks allow.
pub fn spread(n: usize) -> Vec<usize> {
    if n <= 1 {
        return (0..n).collect();
    }
    let bits = usize::BITS - (n - 1).leading_zeros();
    (0..1usize << bits)
        .map(|i| i.reverse_bits() >> (usize::BITS - bits))
        .filter(|&r| r < n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before, the files were taken in manifest order, so two jobs loaded neighbouring
    /// shards (0 and 1) of one table at once; now the first two picks are the range's two
    /// halves, and every n is a permutation.
    #[test]
    fn shards_taken_from_different_parts_of_the_range() {
        assert_eq!(spread(8), vec![0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(spread(5), vec![0, 4, 2, 1, 3]);
        assert_eq!(spread(1), vec![0]);
        assert!(spread(0).is_empty());
        for n in 1..200 {
            let mut s = spread(n);
            // No two consecutive picks of the first half are neighbours.
            for w in s[..n / 2].windows(2) {
                assert!(w[0].abs_diff(w[1]) >= 2, "{n}: {w:?}");
            }
            s.sort_unstable();
            assert_eq!(s, (0..n).collect::<Vec<_>>());
        }
        // Tables keep their order; each table's files are spread.
        let mut p = Plan::default();
        for (i, name) in ["a", "b"].iter().enumerate() {
            p.tables.push(TablePlan {
                schema: None,
                name: name.to_string(),
                columns: vec![],
                types: vec![],
                null: String::new(),
                expected_rows: 0,
                key_range: None,
                given: None,
                key: vec![],
            });
            for k in 0..4 {
                p.files
                    .push(FileJob::new(i, format!("{name}{k}").into(), false, 0, None));
            }
        }
        assert_eq!(p.load_order(), vec![0, 2, 1, 3, 4, 6, 5, 7]);
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn manifests_and_table_selection() {
        let d = tempfile::tempdir().unwrap();
        let dump = write(
            d.path(),
            "m.json",
            r#"{"format":"dumpshard-manifest","version":1,"tables":[
              {"schema":"a","name":"t","file":"a.t.csv","columns":[{"name":"x\"y","type":"int","not_null":true}],
               "rows":2,"bytes":4,"header":true,"null":"it's"},
              {"schema":"b","name":"t","file":"b.t.csv","columns":[],"rows":1,"bytes":2,"header":false,"null":""}]}"#,
        );
        let split = write(
            d.path(),
            "s.json",
            r#"{"format":"dumpshard-csvsplit","version":1,"header":false,"null":"","records":3,
              "key":{"columns":[{"column":"id","field":1,"type":"int","desc":false}],"nulls":null},
              "sorted_within_shards":true,
              "shards":[{"shard":0,"file":"s0.csv","records":3,"crc32":"0badf00d","first_key":["1"],"last_key":["3"]},
                        {"shard":1,"file":"s1.csv","records":0,"crc32":"00000000","first_key":null,"last_key":null}]}"#,
        );
        let p = Plan::build(std::slice::from_ref(&dump), &[]).unwrap();
        assert_eq!(p.tables.len(), 2);
        assert_eq!(
            p.tables[0].copy_sql(),
            r#"COPY "a"."t" ("x""y") FROM STDIN WITH (FORMAT csv, NULL 'it''s')"#
        );
        assert!(p.files[0].header && p.files[0].key.ends_with("a.t.csv"));
        // A bare name in two schemas is ambiguous; a qualified one selects.
        let e = Plan::build(std::slice::from_ref(&dump), &["t".into()]).unwrap_err();
        assert!(e.to_string().contains("ambiguous"), "{e}");
        let p = Plan::build(std::slice::from_ref(&dump), &["b.t".into()]).unwrap();
        assert_eq!((p.tables.len(), p.tables[0].expected_rows), (1, 1));
        assert!(Plan::build(std::slice::from_ref(&dump), &["nope".into()]).is_err());
        // A csvsplit manifest needs its table.
        assert!(Plan::build(std::slice::from_ref(&split), &[]).is_err());
        let p = Plan::build(std::slice::from_ref(&split), &["public.big".into()]).unwrap();
        let t = &p.tables[0];
        assert_eq!(
            (t.sql_name(), t.expected_rows),
            (r#""public"."big""#.into(), 3)
        );
        assert_eq!(p.files[0].checksum.as_deref(), Some("crc32:0badf00d"));
        let k = t.key_range.as_ref().unwrap();
        assert_eq!(
            (k.firsts.clone(), k.lasts.clone()),
            (vec!["1".into()], vec!["3".into()])
        );
    }

    /// A csvsplit manifest names its table: loaded without -t, selected by -t. One that
    /// does not takes -t as psql reads it. Before, `-t "app.v2".users` was cut at its first
    /// dot (schema `"app`, table `v2".users`) and no spelling reached the table.
    #[test]
    fn csvsplit_manifests_name_their_table() {
        let d = tempfile::tempdir().unwrap();
        let m = |name: &str, table: &str| {
            let json = format!(
                r#"{{"format":"dumpshard-csvsplit","version":1,{table}"header":false,"null":"",
                  "records":1,"shards":[{{"shard":0,"file":"{name}0.csv","records":1}}]}}"#
            );
            write(d.path(), &format!("{name}.json"), &json)
        };
        let named = m("n", r#""schema":"app.v2","table":"users","#);
        let bare = m("b", r#""schema":null,"table":"Mixed","#);
        let none = m("x", "");
        let p = Plan::build(std::slice::from_ref(&named), &[]).unwrap();
        assert_eq!(p.tables[0].sql_name(), r#""app.v2"."users""#);
        for t in ["\"app.v2\".users", "app.v2.users", "users"] {
            let p = Plan::build(&[named.clone(), bare.clone()], &[t.into()]).unwrap();
            assert_eq!(p.tables.len(), 1, "{t}");
            assert_eq!(p.tables[0].sql_name(), r#""app.v2"."users""#, "{t}");
        }
        let p = Plan::build(&[named.clone(), bare.clone()], &[]).unwrap();
        assert_eq!(p.tables[1].sql_name(), r#""Mixed""#);
        let p = Plan::build(std::slice::from_ref(&bare), &["s.\"Mixed\"".into()]).unwrap();
        assert_eq!(p.tables[0].sql_name(), r#""s"."Mixed""#);
        let e = Plan::build(std::slice::from_ref(&named), &["other".into()]).unwrap_err();
        assert!(e.to_string().contains(r#"name "app.v2".users"#), "{e}");
        // No table named: -t, as psql reads it.
        let e = Plan::build(std::slice::from_ref(&none), &[]).unwrap_err();
        assert!(e.to_string().contains("does not name its table"), "{e}");
        let p = Plan::build(std::slice::from_ref(&none), &["\"app.v2\".Users".into()]).unwrap();
        assert_eq!(p.tables[0].sql_name(), r#""app.v2"."users""#);
        assert!(Plan::build(std::slice::from_ref(&none), &["app.v2.users".into()]).is_err());
    }

    /// Issue 60: twin tables `users` and `"Users"`. `-t` names exactly one, read as psql
    /// reads a name, from pgdump2csv manifests and from csvsplit manifests alike; before,
    /// `-t public.Users` took both csvsplit manifests (the second by its unquoted spelling).
    #[test]
    fn twin_tables_differing_in_case_are_named_one_at_a_time() {
        let d = tempfile::tempdir().unwrap();
        let dump = write(
            d.path(),
            "m.json",
            r#"{"format":"dumpshard-manifest","version":1,"tables":[
              {"schema":"public","name":"users","file":"u.csv","columns":[],"rows":2,"bytes":4,"header":false,"null":""},
              {"schema":"public","name":"Users","file":"U.csv","columns":[],"rows":3,"bytes":6,"header":false,"null":""}]}"#,
        );
        let split = |f: &str, table: &str, rows: u64| {
            write(
                d.path(),
                &format!("{f}.json"),
                &format!(
                    r#"{{"format":"dumpshard-csvsplit","version":1,"schema":"public","table":"{table}",
                      "header":false,"null":"","records":{rows},
                      "shards":[{{"shard":0,"file":"{f}0.csv","records":{rows}}}]}}"#
                ),
            )
        };
        let lower = split("lower", "users", 2);
        let upper = split("upper", "Users", 3);
        for ms in [vec![dump.clone()], vec![lower.clone(), upper.clone()]] {
            for (t, want, rows) in [
                ("public.Users", r#""public"."users""#, 2),
                ("public.users", r#""public"."users""#, 2),
                ("users", r#""public"."users""#, 2),
                (r#"public."Users""#, r#""public"."Users""#, 3),
                (r#""public"."Users""#, r#""public"."Users""#, 3),
                (r#""Users""#, r#""public"."Users""#, 3),
            ] {
                let p = Plan::build(&ms, &[t.into()]).unwrap();
                assert_eq!(p.tables.len(), 1, "{t} in {ms:?}");
                assert_eq!(p.tables[0].sql_name(), want, "{t}");
                assert_eq!(p.tables[0].expected_rows, rows, "{t}");
                assert_eq!(p.files.len(), 1, "{t}");
            }
            let p = Plan::build(&ms, &[]).unwrap();
            assert_eq!(p.tables.len(), 2);
        }
        // The same name in two schemas: a bare -t names neither.
        let other = split("other", "users", 1);
        let other_json = std::fs::read_to_string(&other)
            .unwrap()
            .replace(r#""schema":"public""#, r#""schema":"app""#);
        std::fs::write(&other, other_json).unwrap();
        let e = Plan::build(&[lower.clone(), other.clone()], &["users".into()]).unwrap_err();
        assert!(e.to_string().contains("ambiguous"), "{e}");
        let p = Plan::build(&[lower, other], &["app.users".into()]).unwrap();
        assert_eq!(p.tables[0].sql_name(), r#""app"."users""#);
    }

    /// A csvsplit manifest written from a pgdump2csv manifest names the CSV's columns; the
    /// COPY must list them, since the target table's column order may differ (before, an
    /// `INHERITS` child whose parent gained a column loaded its values into the wrong
    /// columns).
    #[test]
    fn csvsplit_manifest_columns_are_the_copy_list() {
        let d = tempfile::tempdir().unwrap();
        // A one-shard csvsplit manifest `NAME.json` of shard `NAME0.csv` with these columns.
        let manifest = |name: &str, columns: &str| {
            let json = format!(
                r#"{{"format":"dumpshard-csvsplit","version":1,"header":false,"null":"",
                  "columns":{columns},"records":1,
                  "shards":[{{"shard":0,"file":"{name}0.csv","records":1}}]}}"#
            );
            write(d.path(), &format!("{name}.json"), &json)
        };
        let split = manifest("s", r#"["id","name","note","extra"]"#);
        let other = manifest("o", r#"["id","name","extra","note"]"#);
        let p = Plan::build(std::slice::from_ref(&split), &["public.late_child".into()]).unwrap();
        assert_eq!(
            p.tables[0].copy_sql(),
            r#"COPY "public"."late_child" ("id", "name", "note", "extra") FROM STDIN WITH (FORMAT csv, NULL '')"#
        );
        let e = Plan::build(&[split, other], &["public.late_child".into()]).unwrap_err();
        assert!(e.to_string().contains("column list differs"), "{e}");
    }

    /// `csvsplit --header --no-repeat-header`: only shard 0 starts with the header. Before,
    /// every shard was loaded as if it had one, dropping the first record of each after the
    /// first (97 of 100 rows loaded, exit 0).
    #[test]
    fn header_rules_per_shard() {
        let d = tempfile::tempdir().unwrap();
        let m = |name: &str, facts: &str, shards: &str| {
            let json = format!(
                r#"{{"format":"dumpshard-csvsplit","version":1,{facts},"null":"","records":3,
                  "shards":{shards}}}"#
            );
            write(d.path(), &format!("{name}.json"), &json)
        };
        let three = r#"[{"shard":0,"file":"a","records":1},{"shard":1,"file":"b","records":1},
                        {"shard":2,"file":"c","records":1}]"#;
        let headers = |p: PathBuf| -> Vec<bool> {
            Plan::build(&[p], &["t".into()])
                .unwrap()
                .files
                .iter()
                .map(|f| f.header)
                .collect()
        };
        let once = m("once", r#""header":true,"repeat_header":false"#, three);
        assert_eq!(headers(once), [true, false, false]);
        let every = m("every", r#""header":true,"repeat_header":true"#, three);
        assert_eq!(headers(every), [true, true, true]);
        let none = m("none", r#""header":false,"repeat_header":true"#, three);
        assert_eq!(headers(none), [false, false, false]);
        for (name, facts, shards) in [
            ("missing", r#""header":true"#, three),
            (
                "twice",
                r#""header":true,"repeat_header":false"#,
                r#"[{"shard":0,"file":"a","records":1},{"shard":0,"file":"b","records":1}]"#,
            ),
            (
                "nozero",
                r#""header":true,"repeat_header":false"#,
                r#"[{"shard":1,"file":"a","records":1}]"#,
            ),
        ] {
            let e = Plan::build(&[m(name, facts, shards)], &["t".into()]).unwrap_err();
            assert!(
                e.to_string().contains("inconsistent header facts"),
                "{name}: {e}"
            );
        }
    }
}
