//! The schema written for the target: pgdump2csv's `--target-kind`, `-O/--no-owner`,
//! `-x/--no-privileges`, `--yb-sharding`, `--strict` and `--report`.
//!
//! Every DDL statement of the dump passes through a [`Session`], which decides, from the
//! static table of rules in [`rules`], whether it is kept, rewritten or dropped, and records
//! that decision (with the rule, its reason and the vendor page it comes from) for the report.
//! On PostgreSQL a statement no rule knows is kept and reported as "unknown to the rules";
//! on CockroachDB and YugabyteDB it is left out as a blocker (fail closed: kept only where a
//! rule backed by the release's referee says the release takes it, `refuse.rs`). Nothing is
//! ever dropped silently.
//!
//! For PostgreSQL (the default) statements are decided one by one as they stream past, so
//! the output without -O/-x is the dump's DDL byte for byte. For CockroachDB and YugabyteDB the
//! primary keys that pg_dump adds after the data (`ALTER TABLE ... ADD CONSTRAINT ... PRIMARY
//! KEY`) must move into their `CREATE TABLE`, which comes first; so there the DDL (never the
//! data) is held in memory until the end of the dump and converted in one pass. Memory then
//! grows with the size of the schema, not with the data.

pub mod catalog;
pub mod data;
pub mod grammar;
mod refuse;
pub mod report;
pub mod rules;
mod table;
pub mod version;

use crate::pg::dump::sql::{Spanned, Tok, tokenize};
use rules::{Action, Impact, Rule, Target};
use std::collections::HashMap;
use version::TargetVersion;

/// What the schema is written for (`--target-kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// PostgreSQL: the dump's DDL as written.
    Postgresql,
    /// CockroachDB.
    Cockroachdb,
    /// YugabyteDB (YSQL).
    Yugabytedb,
}

impl TargetKind {
    /// The name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Postgresql => "postgresql",
            TargetKind::Cockroachdb => "cockroachdb",
            TargetKind::Yugabytedb => "yugabytedb",
        }
    }
}

/// How a YugabyteDB primary key is sharded (`--yb-sharding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum YbSharding {
    /// `PRIMARY KEY (a HASH, b ASC)`: the first key column hashed, the rest ordered.
    Hash,
    /// `PRIMARY KEY (a ASC, b ASC)`: range sharding on the whole key.
    Range,
    /// `PRIMARY KEY (a, b)`: no annotation, YugabyteDB's own default applies.
    Keep,
}

/// The options of a conversion.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The target.
    pub target: TargetKind,
    /// -O: leave ownership statements out.
    pub no_owner: bool,
    /// -x: leave privilege statements out.
    pub no_privileges: bool,
    /// --yb-sharding.
    pub yb_sharding: YbSharding,
    /// --target-version (CockroachDB and YugabyteDB; their default when not given).
    pub version: Option<TargetVersion>,
}

impl Options {
    /// The release's order key for the rules (0 for PostgreSQL, whose rules hold always).
    pub fn key(&self) -> u32 {
        self.version.map_or(0, |v| v.key())
    }
}

/// Which output file a statement belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dest {
    /// --write-schema.
    Schema,
    /// --write-post-data.
    PostData,
}

/// What happened to a statement, as the report says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Written as the dump has it.
    Kept,
    /// Written changed.
    Rewritten,
    /// Left out.
    Dropped,
    /// No rule knows it: written as the dump has it.
    Unknown,
}

impl Outcome {
    /// The word in the report.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Kept => "kept",
            Outcome::Rewritten => "rewritten",
            Outcome::Dropped => "dropped",
            Outcome::Unknown => "unknown",
        }
    }
}

/// One rule applied to a statement.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Change {
    /// Rule id.
    pub rule: &'static str,
    /// Why.
    pub reason: &'static str,
    /// The vendor page the rule comes from.
    pub doc: &'static str,
    /// What the change does to the data or the schema's meaning.
    pub impact: Impact,
    /// The releases the rule holds for, in words.
    pub versions: String,
    /// What in this statement the rule found (`uses json_value(), which PostgreSQL 15 lacks`;
    /// `uses app.floatrange, left out at line 83`), when the reason alone does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The report's line for one statement of the dump.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    /// Line of the statement's first byte in the (decompressed) dump.
    pub line: u64,
    /// The file it belongs to.
    pub file: Dest,
    /// Statement kind (`CREATE TABLE`, `ALTER TABLE ADD PRIMARY KEY`, `SET xmloption`, ...).
    pub kind: String,
    /// The object it is about, as the dump names it.
    pub object: String,
    /// What happened.
    pub action: Outcome,
    /// The rules applied (empty for unknown statements).
    pub changes: Vec<Change>,
    /// The worst impact of its changes; an unknown statement counts as a blocker (the
    /// target may refuse it).
    pub impact: Impact,
    /// Line of the statement's first byte in the file it was written to (--write-schema or
    /// --write-post-data), when it was written there (not for a statement left out); set for
    /// CockroachDB and YugabyteDB, whose files are written at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_line: Option<u64>,
}

impl Entry {
    fn set_impact(&mut self) {
        self.impact = if self.action == Outcome::Unknown {
            Impact::Blocker
        } else {
            self.changes
                .iter()
                .map(|c| c.impact)
                .max()
                .unwrap_or(Impact::None)
        };
    }
}

/// One statement held for the deferred conversion.
struct Held {
    entry: usize,
    lead: Vec<u8>,
    stmt: Vec<u8>,
    tail: Vec<u8>,
    std_strings: bool,
    /// For `CREATE TABLE`: the table and its parents, placed by the search path.
    table: Option<TableFacts>,
}

/// What the caller knows about a `CREATE TABLE` or `ALTER TABLE ... PRIMARY KEY` statement
/// (names placed by the dump's search path).
#[derive(Debug, Clone, Default)]
pub struct TableFacts {
    /// schema, table.
    pub key: (String, String),
    /// INHERITS parents.
    pub parents: Vec<(String, String)>,
    /// Whether this is `ALTER TABLE ... ADD ... PRIMARY KEY`.
    pub add_pk: bool,
}

enum Item {
    Text(Dest, Vec<u8>),
    Stmt(Dest, Box<Held>),
}

/// The conversion of one dump's DDL.
pub struct Session {
    opts: Options,
    /// Whether anything is to be decided or recorded: not for the default (PostgreSQL, no -O,
    /// no -x, no report), which then writes every statement untouched without looking at it.
    active: bool,
    entries: Vec<Entry>,
    items: Vec<Item>,
}

/// What to write for a statement decided as it streams (PostgreSQL target).
pub enum Now {
    /// Write the statement unchanged.
    Write,
    /// Write this instead of the statement (a one-line comment for a dropped one).
    Replace(Vec<u8>),
    /// Nothing yet: the session holds it until [`Session::finish`].
    Held,
}

impl Session {
    /// A session for these options; `report`: whether the entries are wanted.
    pub fn new(opts: Options, report: bool) -> Session {
        Session {
            opts,
            active: report
                || opts.no_owner
                || opts.no_privileges
                || opts.target != TargetKind::Postgresql,
            entries: Vec::new(),
            items: Vec::new(),
        }
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Whether the DDL is held until the end (CockroachDB, YugabyteDB).
    pub fn deferred(&self) -> bool {
        self.opts.target != TargetKind::Postgresql
    }

    /// Text between statements (comments, blank lines, psql meta-commands) in deferred mode.
    pub fn text(&mut self, dest: Dest, bytes: &[u8]) {
        if let Some(Item::Text(d, b)) = self.items.last_mut()
            && *d == dest
        {
            b.extend_from_slice(bytes);
            return;
        }
        self.items.push(Item::Text(dest, bytes.to_vec()));
    }

    /// One DDL statement: `lead` (comments before it), `stmt` (through its `;`), `tail` (the
    /// rest of its line). Returns what to write now.
    #[allow(clippy::too_many_arguments)]
    pub fn statement(
        &mut self,
        dest: Dest,
        line: u64,
        lead: &[u8],
        stmt: &[u8],
        tail: &[u8],
        std_strings: bool,
        table: Option<TableFacts>,
    ) -> Now {
        if !self.active {
            return Now::Write;
        }
        let toks = tokenize(stmt, std_strings).unwrap_or_default();
        let (kind, object) = classify(&toks, stmt);
        let idx = self.entries.len();
        // Ownership and privileges first: -O and -x apply whatever the target.
        let flag_rule = rules::flag_rule(&kind, self.opts.no_owner, self.opts.no_privileges);
        let mut entry = Entry {
            line,
            file: dest,
            kind,
            object,
            action: Outcome::Unknown,
            changes: Vec::new(),
            impact: Impact::None,
            written_line: None,
        };
        let ver = self.opts.version;
        if let Some(r) = flag_rule {
            entry.action = Outcome::Dropped;
            entry.changes.push(change(r, ver));
            entry.set_impact();
            self.entries.push(entry);
            if self.deferred() {
                self.text(dest, lead);
                self.text(dest, &dropped_comment(r));
                self.text(dest, tail);
                return Now::Held;
            }
            return Now::Replace(dropped_comment(r));
        }
        if !self.deferred() {
            if let Some(r) = rules::find(Target::Postgresql, 0, &entry.kind) {
                entry.action = Outcome::Kept;
                entry.changes.push(change(r, ver));
            }
            entry.set_impact();
            self.entries.push(entry);
            return Now::Write;
        }
        self.entries.push(entry);
        self.items.push(Item::Stmt(
            dest,
            Box::new(Held {
                entry: idx,
                lead: lead.to_vec(),
                stmt: stmt.to_vec(),
                tail: tail.to_vec(),
                std_strings,
                table,
            }),
        ));
        Now::Held
    }

    /// Whether the rules keep this statement as written (for the session settings repeated
    /// at the top of --write-post-data).
    pub fn keeps(&self, stmt: &[u8], std_strings: bool) -> bool {
        if !self.active {
            return true;
        }
        let toks = tokenize(stmt, std_strings).unwrap_or_default();
        let (kind, _) = classify(&toks, stmt);
        if rules::flag_rule(&kind, self.opts.no_owner, self.opts.no_privileges).is_some() {
            return false;
        }
        let target = match self.opts.target {
            TargetKind::Postgresql => Target::Postgresql,
            TargetKind::Cockroachdb => Target::Cockroachdb,
            TargetKind::Yugabytedb => Target::Yugabytedb,
        };
        rules::find(target, self.opts.key(), &kind).is_none_or(|r| r.action == Action::Keep)
            && refuse::keeps_setting(self.opts.version, &kind)
    }

    /// Converts what was held (deferred mode) and returns the text of the schema and
    /// post-data files; the report's entries are complete afterwards. `first_line`: the line
    /// of each file the returned text starts on (after the header the caller wrote), for the
    /// entries' `written_line`.
    pub fn finish(&mut self, first_line: (u64, u64)) -> (Vec<u8>, Vec<u8>) {
        let mut out = (Vec::new(), Vec::new());
        if !self.deferred() {
            return out;
        }
        let target = match self.opts.target {
            TargetKind::Cockroachdb => Target::Cockroachdb,
            _ => Target::Yugabytedb,
        };
        let items = std::mem::take(&mut self.items);
        let mut conv = table::Tables::new(target, self.opts.yb_sharding, self.opts.version);
        let mut checker = refuse::Checker::new(target, self.opts.version);
        // First pass: what later statements tell about earlier ones (primary keys, domains,
        // the dump's own functions and types, partitioned tables).
        for it in &items {
            if let Item::Stmt(_, h) = it {
                let toks = tokenize(&h.stmt, h.std_strings).unwrap_or_default();
                let kind = &self.entries[h.entry].kind;
                conv.learn(kind, &toks, &h.stmt, h.table.as_ref());
                checker.learn(kind, &toks);
            }
        }
        let mut lines = first_line;
        for it in items {
            let (dest, text) = match it {
                Item::Text(d, t) => (d, t),
                Item::Stmt(d, h) => {
                    let h = *h;
                    let at = match d {
                        Dest::Schema => lines.0,
                        Dest::PostData => lines.1,
                    } + newlines(&h.lead);
                    let toks = tokenize(&h.stmt, h.std_strings).unwrap_or_default();
                    let e = &mut self.entries[h.entry];
                    let (action, changes, text) =
                        conv.convert(&e.kind, &toks, &h.stmt, h.table.as_ref());
                    // What the release refuses in what the kind's rule kept, and what
                    // depends on a statement left out.
                    let (action, changes, text) =
                        checker.check(&e.kind, &e.object, e.line, &h.stmt, action, changes, text);
                    e.action = action;
                    e.changes = changes;
                    e.set_impact();
                    let mut t = h.lead;
                    e.written_line = (action != Outcome::Dropped).then_some(at);
                    match action {
                        Outcome::Dropped => {
                            let r = e.changes.first().map(|c| c.rule).unwrap_or("?");
                            t.extend_from_slice(
                                format!("-- pgdump2csv: statement dropped (rule {r})").as_bytes(),
                            );
                        }
                        _ => t.extend_from_slice(&text),
                    }
                    t.extend_from_slice(&h.tail);
                    (d, t)
                }
            };
            match dest {
                Dest::Schema => {
                    lines.0 += newlines(&text);
                    out.0.extend_from_slice(&text)
                }
                Dest::PostData => {
                    lines.1 += newlines(&text);
                    out.1.extend_from_slice(&text)
                }
            }
        }
        out
    }

    /// The report's entries, in dump order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How many statements block the load or change what the schema means (what --strict
    /// refuses): blockers, statements unknown to the rules, changes of meaning. Statements
    /// left out or rewritten without changing anything (pg_dump's header `SET`s, keys moved
    /// inline) and what -O and -x leave out do not count.
    pub fn strict_failures(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.impact != Impact::None)
            .count()
    }
}

/// The report's record of rule `r` applied for release `v`.
pub(crate) fn change(r: &'static Rule, v: Option<TargetVersion>) -> Change {
    Change {
        rule: r.id,
        reason: r.reason,
        doc: r.doc,
        impact: r.impact,
        versions: holds_text(r, v),
        detail: None,
    }
}

/// The accepted releases of `v`'s kind that rule `r` holds for, in words.
fn holds_text(r: &Rule, v: Option<TargetVersion>) -> String {
    let Some(v) = v else {
        return "every release".into();
    };
    let series: Vec<TargetVersion> = match v.kind {
        TargetKind::Cockroachdb => version::CRDB_SERIES
            .iter()
            .map(|&(major, minor)| TargetVersion {
                kind: v.kind,
                major,
                minor,
            })
            .collect(),
        _ => version::YB_SERIES
            .iter()
            .map(|&(major, minor, _, _)| TargetVersion {
                kind: v.kind,
                major,
                minor,
            })
            .collect(),
    };
    let mut covered: Vec<TargetVersion> = series
        .into_iter()
        .filter(|s| r.holds_for(s.key()))
        .collect();
    covered.sort_by_key(|s| s.key());
    match (covered.first(), covered.last()) {
        (Some(a), Some(b)) if r.holds == rules::ALL => {
            format!(
                "{} {}.{} to {}.{} (every accepted release)",
                v.kind.name(),
                a.major,
                a.minor,
                b.major,
                b.minor
            )
        }
        (Some(a), Some(b)) if a == b => format!("{} {}.{}", v.kind.name(), a.major, a.minor),
        (Some(a), Some(b)) => format!(
            "{} {}.{} to {}.{}",
            v.kind.name(),
            a.major,
            a.minor,
            b.major,
            b.minor
        ),
        _ => "none".into(),
    }
}

/// How many line ends `b` holds.
fn newlines(b: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', b).count() as u64
}

/// The comment that stands where a dropped statement was (streaming mode): names the rule,
/// never repeats the dump's text (which could carry a newline out of the comment).
fn dropped_comment(r: &Rule) -> Vec<u8> {
    format!("-- pgdump2csv: statement dropped (rule {})", r.id).into_bytes()
}

/// The words that may stand between `CREATE` (or `CREATE OR REPLACE`) and the object's kind:
/// properties (`UNIQUE`, `UNLOGGED`, `TEMPORARY`) and the first words of kinds of more than
/// one word (`MATERIALIZED VIEW`, `FOREIGN TABLE`, `TEXT SEARCH ...`). One list for the
/// statement's kind ([`classify`]) and for the name it creates (refuse.rs), so that the two
/// cannot disagree on where the name starts.
pub(crate) const CREATE_MODIFIERS: &[&str] = &[
    "unique",
    "unlogged",
    "temporary",
    "temp",
    "materialized",
    "recursive",
    "trusted",
    "procedural",
    "foreign",
    "default",
    "event",
    "text",
    "search",
    "constraint",
];

/// The unquoted keyword at `t`, if it is one.
pub(crate) fn kw(t: &Spanned) -> Option<&str> {
    match &t.tok {
        Tok::Ident {
            name,
            quoted: false,
        } => Some(name.as_str()),
        _ => None,
    }
}

/// Index of the first token at or after `from` that is the keyword `word` (top level or not).
fn find_kw(toks: &[Spanned], from: usize, word: &str) -> Option<usize> {
    (from..toks.len()).find(|&i| toks[i].tok.is_kw(word))
}

/// A qualified name starting at token `i`, as written (`public."Order"`), and the index after it.
pub(crate) fn name_at(toks: &[Spanned], src: &[u8], mut i: usize) -> (String, usize) {
    let start = i;
    while i < toks.len() && matches!(toks[i].tok, Tok::Ident { .. }) {
        i += 1;
        if i + 1 < toks.len() && toks[i].tok.is_op(".") {
            i += 1;
        } else {
            break;
        }
    }
    if i == start || start >= toks.len() {
        return (String::new(), i);
    }
    let s = &src[toks[start].start..toks[i - 1].end];
    (String::from_utf8_lossy(s).into_owned(), i)
}

/// The statement's kind (the key the rules match on) and the object it is about.
pub fn classify(toks: &[Spanned], src: &[u8]) -> (String, String) {
    let k = |i: usize| toks.get(i).and_then(kw).unwrap_or("");
    let has = |w: &str| toks.iter().any(|t| t.tok.is_kw(w));
    let seq = |a: &str, b: &str| {
        toks.windows(2)
            .any(|w| w[0].tok.is_kw(a) && w[1].tok.is_kw(b))
    };
    match k(0) {
        "set" => {
            if k(1) == "session" && k(2) == "authorization" {
                return ("SET SESSION AUTHORIZATION".into(), String::new());
            }
            let i = if matches!(k(1), "session" | "local") {
                2
            } else {
                1
            };
            let (n, _) = name_at(toks, src, i);
            (format!("SET {n}"), String::new())
        }
        "select" => {
            // `SELECT pg_catalog.setval(...)`, `SELECT pg_catalog.set_config(...)`.
            let mut i = 1;
            if k(1) == "pg_catalog" && toks.get(2).is_some_and(|t| t.tok.is_op(".")) {
                i = 3;
            }
            let f = k(i).to_string();
            let arg = toks
                .get(i + 2)
                .and_then(|t| match &t.tok {
                    Tok::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
                    _ => None,
                })
                .unwrap_or_default();
            (format!("SELECT {f}"), arg)
        }
        "grant" | "revoke" => {
            let on = find_kw(toks, 1, "on");
            // `ON TABLE t`, `ON SEQUENCE s`, `ON ALL TABLES IN SCHEMA x`: the object's name.
            let obj = on
                .map(|mut i| {
                    i += 1;
                    while matches!(
                        k(i),
                        "table"
                            | "sequence"
                            | "function"
                            | "procedure"
                            | "routine"
                            | "schema"
                            | "type"
                            | "domain"
                            | "language"
                            | "database"
                            | "tablespace"
                            | "server"
                            | "foreign"
                            | "data"
                            | "wrapper"
                            | "large"
                            | "object"
                    ) && toks.get(i + 1).is_some_and(|t| !t.tok.is_op("."))
                    {
                        i += 1;
                    }
                    name_at(toks, src, i).0
                })
                .unwrap_or_default();
            (k(0).to_uppercase(), obj)
        }
        "comment" => {
            let mut i = 2;
            let mut what = k(2).to_uppercase();
            while let Some(next) = second_word(k(i), k(i + 1)) {
                what = format!("{what} {}", next.to_uppercase());
                i += 1;
            }
            (format!("COMMENT ON {what}"), name_at(toks, src, i + 1).0)
        }
        "refresh" => ("REFRESH MATERIALIZED VIEW".into(), name_at(toks, src, 3).0),
        "create" => {
            let mut i = 1;
            if k(1) == "or" && k(2) == "replace" {
                i = 3;
            }
            let mut words = Vec::new();
            while CREATE_MODIFIERS.contains(&k(i)) {
                // `UNIQUE` is an index's property and `UNLOGGED` a table's or sequence's
                // (the target's rules see it in the text); the rest are part of the kind.
                if !matches!(k(i), "unique" | "unlogged") {
                    words.push(k(i).to_uppercase());
                }
                i += 1;
            }
            words.push(k(i).to_uppercase());
            let mut obj_kind = k(i).to_string();
            i += 1;
            // Object kinds of more than one word: FOREIGN DATA WRAPPER, ACCESS METHOD, ...
            while let Some(next) = second_word(&obj_kind, k(i)) {
                words.push(next.to_uppercase());
                obj_kind = next.to_string();
                i += 1;
            }
            if k(i) == "if" {
                i += 3;
            }
            if obj_kind == "index" && k(i) == "concurrently" {
                i += 1;
            }
            let (name, after) = name_at(toks, src, i);
            let mut kind = format!("CREATE {}", words.join(" "));
            match obj_kind.as_str() {
                "type" if k(after) == "as" => match k(after + 1) {
                    "enum" => kind.push_str(" AS ENUM"),
                    "range" => kind.push_str(" AS RANGE"),
                    _ => kind.push_str(" AS composite"),
                },
                "table" if seq("partition", "of") => kind.push_str(" PARTITION OF"),
                _ => {}
            }
            (kind, name)
        }
        "alter" => {
            if k(1) == "default" && k(2) == "privileges" {
                return ("ALTER DEFAULT PRIVILEGES".into(), String::new());
            }
            let mut i = 1;
            let mut words = vec![k(1).to_uppercase()];
            if matches!(k(1), "materialized" | "foreign" | "text" | "event") {
                words.push(k(2).to_uppercase());
                i = 2;
            }
            let mut obj_kind = k(i).to_string();
            i += 1;
            while let Some(next) = second_word(&obj_kind, k(i)) {
                words.push(next.to_uppercase());
                obj_kind = next.to_string();
                i += 1;
            }
            if k(i) == "if" && k(i + 1) == "exists" {
                i += 2;
            }
            if k(i) == "only" {
                i += 1;
            }
            let (name, _) = name_at(toks, src, i);
            let base = format!("ALTER {}", words.join(" "));
            if seq("owner", "to") {
                return (format!("{base} OWNER TO"), name);
            }
            let what = match obj_kind.as_str() {
                "table" => {
                    if seq("primary", "key") && has("add") {
                        "ADD PRIMARY KEY"
                    } else if seq("foreign", "key") {
                        "ADD FOREIGN KEY"
                    } else if seq("attach", "partition") {
                        "ATTACH PARTITION"
                    } else if has("add") && has("generated") && has("identity") {
                        "ADD IDENTITY"
                    } else if seq("set", "default") {
                        "SET DEFAULT"
                    } else if has("add") && has("unique") {
                        "ADD UNIQUE"
                    } else if has("add") && has("check") {
                        "ADD CHECK"
                    } else if has("add") && has("exclude") {
                        "ADD EXCLUDE"
                    } else if seq("replica", "identity") {
                        "REPLICA IDENTITY"
                    } else if seq("cluster", "on") {
                        "CLUSTER ON"
                    } else if seq("row", "level") {
                        "ROW LEVEL SECURITY"
                    } else if has("inherit") {
                        "INHERIT"
                    } else if toks.iter().filter(|t| t.tok.is_kw("alter")).count() >= 2 {
                        // ALTER COLUMN ... SET STATISTICS / STORAGE / COMPRESSION / (...)
                        "ALTER COLUMN"
                    } else {
                        ""
                    }
                }
                "index" if seq("attach", "partition") => "ATTACH PARTITION",
                "sequence" if seq("owned", "by") => "OWNED BY",
                _ => "",
            };
            if what.is_empty() {
                (base, name)
            } else {
                (format!("{base} {what}"), name)
            }
        }
        "reset" if k(1) == "session" && k(2) == "authorization" => {
            ("RESET SESSION AUTHORIZATION".into(), String::new())
        }
        "" => ("(empty)".into(), String::new()),
        w => (w.to_uppercase(), String::new()),
    }
}

/// The word that continues an object kind of several words after `first` (`DATA` after
/// `FOREIGN`, `WRAPPER` after `DATA`, `OBJECT` after `LARGE`, ...), if `next` is it.
fn second_word<'a>(first: &str, next: &'a str) -> Option<&'a str> {
    let continues = match first {
        "foreign" => matches!(next, "data" | "table"),
        "data" => next == "wrapper",
        "access" => next == "method",
        "user" => next == "mapping",
        "large" => next == "object",
        "operator" => matches!(next, "class" | "family"),
        "event" => next == "trigger",
        "text" => next == "search",
        "search" => matches!(next, "configuration" | "dictionary" | "parser" | "template"),
        "materialized" => next == "view",
        _ => false,
    };
    continues.then_some(next)
}

/// The partition a statement attaches to its partitioned table, as `(partition, parent)`
/// name parts (folded as PostgreSQL folds them): pgdump2csv writes a partition's rows into
/// the partitioned table's file for CockroachDB (rule crdb-partition-rows).
pub fn partition_link(stmt: &[u8], std_strings: bool) -> Option<(Vec<String>, Vec<String>)> {
    refuse::partition_link(&tokenize(stmt, std_strings).ok()?)
}

/// Statement counts per kind and action, for the report's summary.
pub fn summary(entries: &[Entry]) -> Vec<(String, HashMap<Outcome, usize>)> {
    let mut by: Vec<(String, HashMap<Outcome, usize>)> = Vec::new();
    for e in entries {
        match by.iter_mut().find(|(k, _)| *k == e.kind) {
            Some((_, m)) => *m.entry(e.action).or_default() += 1,
            None => {
                let mut m = HashMap::new();
                m.insert(e.action, 1);
                by.push((e.kind.clone(), m));
            }
        }
    }
    by.sort_by(|a, b| a.0.cmp(&b.0));
    by
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> (String, String) {
        let t = tokenize(s.as_bytes(), true).unwrap();
        classify(&t, s.as_bytes())
    }

    #[test]
    fn kinds() {
        assert_eq!(
            kind("ALTER TABLE public.t OWNER TO postgres;").0,
            "ALTER TABLE OWNER TO"
        );
        assert_eq!(
            kind("ALTER TABLE ONLY public.\"Order\" ADD CONSTRAINT o_pkey PRIMARY KEY (\"Id\");"),
            (
                "ALTER TABLE ADD PRIMARY KEY".into(),
                "public.\"Order\"".into()
            )
        );
        assert_eq!(kind("SET xmloption = content;").0, "SET xmloption");
        assert_eq!(
            kind("SELECT pg_catalog.set_config('search_path', '', false);"),
            ("SELECT set_config".into(), "search_path".into())
        );
        assert_eq!(
            kind("CREATE TYPE public.mood AS ENUM ('a');").0,
            "CREATE TYPE AS ENUM"
        );
        assert_eq!(kind("CREATE UNIQUE INDEX i ON t (a);").0, "CREATE INDEX");
        assert_eq!(
            kind("CREATE MATERIALIZED VIEW v AS SELECT 1;").0,
            "CREATE MATERIALIZED VIEW"
        );
        assert_eq!(kind("GRANT SELECT ON TABLE public.t TO bob;").0, "GRANT");
        assert_eq!(
            kind("ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO x;").0,
            "ALTER DEFAULT PRIVILEGES"
        );
        assert_eq!(
            kind("SET SESSION AUTHORIZATION 'bob';").0,
            "SET SESSION AUTHORIZATION"
        );
        assert_eq!(kind("LISTEN x;").0, "LISTEN");
    }
}
