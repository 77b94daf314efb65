//! The converter behind the rules: learns what later statements say about earlier ones
//! (primary keys added after the data, domains) and rewrites `CREATE TABLE` for the target
//! (primary key inline, inheritance flattened, `PARTITION BY` left out, domain and range
//! columns replaced), working on token spans so everything it does not change stays as
//! pg_dump wrote it.

use super::rules::{self, Action, Target};
use super::version::TargetVersion;
use super::{Change, Outcome, TableFacts, YbSharding, kw, name_at};
use crate::pg::dump::sql::{Spanned, Tok, tokenize};
use crate::pg::types::RANGE_TYPES;
use std::collections::{HashMap, HashSet};

/// A piece of a domain's CHECK expression: text as written, or the `VALUE` keyword.
enum Piece {
    Text(String),
    Value,
}

struct Domain {
    base: String,
    not_null: bool,
    checks: Vec<Vec<Piece>>,
}

/// What the converter knows about the dump's tables and domains.
pub(super) struct Tables {
    target: Target,
    sharding: YbSharding,
    /// --target-version.
    version: Option<TargetVersion>,
    /// Composite types: attribute name and definition, as written (for typed tables).
    composites: HashMap<String, Vec<(String, String)>>,
    /// Enum and composite types the dump creates (names as written).
    user_types: HashSet<String>,
    /// Range types the dump creates.
    ranges: HashSet<String>,
    domains: HashMap<String, Domain>,
    /// Primary keys added by ALTER TABLE: constraint name and key columns, as written.
    pks: HashMap<(String, String), (String, Vec<String>)>,
    /// Each converted table's column definitions (name, text), for its inheritance children.
    columns: HashMap<(String, String), Vec<(String, String)>>,
    /// Tables whose primary key was written into their CREATE TABLE.
    inlined: std::collections::HashSet<(String, String)>,
}

fn text(src: &[u8], a: usize, b: usize) -> String {
    String::from_utf8_lossy(&src[a..b]).into_owned()
}

/// Index of the `)` matching the `(` at `open`.
pub(super) fn close_of(toks: &[Spanned], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.tok.is_op("(") {
            depth += 1;
        } else if t.tok.is_op(")") {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The token index ranges of the comma-separated items between `open` and `close`.
pub(super) fn items(toks: &[Spanned], open: usize, close: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = open + 1;
    for (i, t) in toks.iter().enumerate().take(close).skip(open + 1) {
        let t = &t.tok;
        if t.is_op("(") || t.is_op("[") {
            depth += 1;
        } else if t.is_op(")") || t.is_op("]") {
            depth -= 1;
        } else if depth == 0 && t.is_op(",") {
            out.push((start, i));
            start = i + 1;
        }
    }
    if start < close {
        out.push((start, close));
    }
    out
}

/// The name of the column an identifier token declares, case-folded as PostgreSQL does.
fn ident(t: &Spanned) -> Option<String> {
    match &t.tok {
        Tok::Ident { name, .. } => Some(name.clone()),
        _ => None,
    }
}

impl Tables {
    pub(super) fn new(
        target: Target,
        sharding: YbSharding,
        version: Option<TargetVersion>,
    ) -> Tables {
        Tables {
            target,
            sharding,
            version,
            composites: HashMap::new(),
            user_types: HashSet::new(),
            ranges: HashSet::new(),
            domains: HashMap::new(),
            pks: HashMap::new(),
            columns: HashMap::new(),
            inlined: std::collections::HashSet::new(),
        }
    }

    /// The release's order key (0 without a version: every rule holds).
    fn key(&self) -> u32 {
        self.version.map_or(0, |v| v.key())
    }

    /// The report's record of rule `id` (a sub-rule of the table converter).
    fn sub(&self, id: &str) -> Change {
        super::change(rules::table_rule(id), self.version)
    }

    /// Whether `INHERITS` is written out (CockroachDB always; YugabyteDB before 2026.1).
    fn flatten_inherits(&self) -> bool {
        self.target == Target::Cockroachdb
            || (self.target == Target::Yugabytedb && rules::YB_BEFORE_2026_1.covers(self.key()))
    }

    /// First pass: remembers domains, types and primary keys added by ALTER TABLE.
    pub(super) fn learn(
        &mut self,
        kind: &str,
        toks: &[Spanned],
        src: &[u8],
        facts: Option<&TableFacts>,
    ) {
        match kind {
            "CREATE TYPE AS ENUM" => {
                self.user_types.insert(name_at(toks, src, 2).0);
            }
            "CREATE TYPE AS RANGE" => {
                self.ranges.insert(name_at(toks, src, 2).0);
            }
            "CREATE TYPE AS composite" => {
                let (name, after) = name_at(toks, src, 2);
                self.user_types.insert(name.clone());
                let open = after + 1;
                if toks.get(after).is_some_and(|t| t.tok.is_kw("as"))
                    && toks.get(open).is_some_and(|t| t.tok.is_op("("))
                    && let Some(close) = close_of(toks, open)
                {
                    let attrs = items(toks, open, close)
                        .into_iter()
                        .map(|(a, b)| {
                            (
                                ident(&toks[a]).unwrap_or_default(),
                                text(src, toks[a].start, toks[b - 1].end),
                            )
                        })
                        .collect();
                    self.composites.insert(name, attrs);
                }
            }
            "CREATE DOMAIN" => {
                let (name, mut i) = name_at(toks, src, 2);
                if toks.get(i).is_some_and(|t| t.tok.is_kw("as")) {
                    i += 1;
                }
                let start = i;
                let mut depth = 0;
                while i < toks.len() {
                    let t = &toks[i].tok;
                    if t.is_op("(") {
                        depth += 1;
                    } else if t.is_op(")") {
                        depth -= 1;
                    } else if depth == 0
                        && (t.is_op(";")
                            || ["collate", "default", "constraint", "not", "null", "check"]
                                .iter()
                                .any(|w| t.is_kw(w)))
                    {
                        break;
                    }
                    i += 1;
                }
                if i == start {
                    return;
                }
                let base = text(src, toks[start].start, toks[i - 1].end);
                let not_null = toks
                    .windows(2)
                    .any(|w| w[0].tok.is_kw("not") && w[1].tok.is_kw("null"));
                let mut checks = Vec::new();
                let mut j = i;
                while j < toks.len() {
                    if toks[j].tok.is_kw("check")
                        && toks.get(j + 1).is_some_and(|t| t.tok.is_op("("))
                        && let Some(c) = close_of(toks, j + 1)
                    {
                        let mut pieces = Vec::new();
                        let mut at = toks[j + 1].start;
                        for t in &toks[j + 1..=c] {
                            if t.tok.is_kw("value") {
                                pieces.push(Piece::Text(text(src, at, t.start)));
                                pieces.push(Piece::Value);
                                at = t.end;
                            }
                        }
                        pieces.push(Piece::Text(text(src, at, toks[c].end)));
                        checks.push(pieces);
                        j = c;
                    }
                    j += 1;
                }
                self.domains.insert(
                    name,
                    Domain {
                        base,
                        not_null,
                        checks,
                    },
                );
            }
            "ALTER TABLE ADD PRIMARY KEY" => {
                let Some(f) = facts else { return };
                let cname = toks
                    .iter()
                    .position(|t| t.tok.is_kw("constraint"))
                    .map(|i| name_at(toks, src, i + 1).0)
                    .unwrap_or_default();
                let Some(k) = toks
                    .windows(3)
                    .position(|w| w[0].tok.is_kw("primary") && w[1].tok.is_kw("key"))
                else {
                    return;
                };
                let open = k + 2;
                if !toks.get(open).is_some_and(|t| t.tok.is_op("(")) {
                    return;
                }
                let Some(close) = close_of(toks, open) else {
                    return;
                };
                let cols = items(toks, open, close)
                    .into_iter()
                    .map(|(a, b)| text(src, toks[a].start, toks[b - 1].end))
                    .collect();
                self.pks.insert(f.key.clone(), (cname, cols));
            }
            _ => {}
        }
    }

    /// Second pass: the outcome, the rules applied and the text to write for one statement.
    pub(super) fn convert(
        &mut self,
        kind: &str,
        toks: &[Spanned],
        src: &[u8],
        facts: Option<&TableFacts>,
    ) -> (Outcome, Vec<Change>, Vec<u8>) {
        // A range type CockroachDB does not get (rule crdb-range-type) takes its owner and
        // comment statements with it.
        if self.target == Target::Cockroachdb
            && (kind.starts_with("ALTER TYPE") || kind == "COMMENT ON TYPE")
        {
            let at = if kind == "COMMENT ON TYPE" { 3 } else { 2 };
            if self.ranges.contains(&name_at(toks, src, at).0)
                && let Some(r) = rules::RULES.iter().find(|r| r.id == "crdb-range-type")
            {
                return (
                    Outcome::Dropped,
                    vec![super::change(r, self.version)],
                    Vec::new(),
                );
            }
        }
        let Some(r) = rules::find(self.target, self.key(), kind) else {
            return (Outcome::Unknown, Vec::new(), src.to_vec());
        };
        // A key is only left out of post-data once it is in its CREATE TABLE: a table created
        // in a form the converter does not rewrite (PARTITION OF, OF type) keeps its ALTER.
        if kind == "ALTER TABLE ADD PRIMARY KEY"
            && !facts.is_some_and(|f| self.inlined.contains(&f.key))
        {
            let c = self.sub(if self.target == Target::Cockroachdb {
                "crdb-pk-alter-kept"
            } else {
                "yb-pk-alter-kept"
            });
            return (Outcome::Kept, vec![c], src.to_vec());
        }
        let main = super::change(r, self.version);
        match r.action {
            Action::Keep => (Outcome::Kept, vec![main], src.to_vec()),
            Action::Drop => (Outcome::Dropped, vec![main], Vec::new()),
            Action::Rewrite if r.id == "crdb-identity" => match identity(toks, src) {
                Some((text, always)) => {
                    let mut changes = vec![main];
                    if always {
                        changes.push(self.sub("crdb-identity-always"));
                    }
                    (Outcome::Rewritten, changes, text.into_bytes())
                }
                // A form pg_dump does not write: left as it is, for the reader to judge.
                None => (Outcome::Unknown, Vec::new(), src.to_vec()),
            },
            Action::Rewrite => {
                let (subs, out) = match facts {
                    Some(f) => self.create_table(toks, src, f),
                    None => (Vec::new(), None),
                };
                let rewritten = out.is_some();
                let mut changes = vec![main];
                changes.extend(subs.into_iter().map(|id| self.sub(id)));
                match out {
                    Some(t) if rewritten => (Outcome::Rewritten, changes, t),
                    _ => (Outcome::Kept, changes, src.to_vec()),
                }
            }
        }
    }

    /// Rewrites one `CREATE TABLE`: the sub-rules applied, and the new text if it changed.
    fn create_table(
        &mut self,
        toks: &[Spanned],
        src: &[u8],
        f: &TableFacts,
    ) -> (Vec<&'static str>, Option<Vec<u8>>) {
        let crdb = self.target == Target::Cockroachdb;
        let mut applied = Vec::new();
        let Some(t) = toks.iter().position(|t| t.tok.is_kw("table")) else {
            return (applied, None);
        };
        let mut i = t + 1;
        if toks.get(i).is_some_and(|t| t.tok.is_kw("if")) {
            i += 3;
        }
        let (_, after) = name_at(toks, src, i);
        if toks.get(after).is_some_and(|t| t.tok.is_kw("of")) {
            return self.typed_table(toks, src, after, f);
        }
        let open = after;
        if !toks.get(open).is_some_and(|t| t.tok.is_op("(")) {
            return (applied, None);
        }
        let Some(close) = close_of(toks, open) else {
            return (applied, None);
        };
        // Column definitions and table constraints, as written.
        let mut cols: Vec<(String, String)> = Vec::new();
        let mut constraints: Vec<String> = Vec::new();
        let mut has_pk = false;
        let mut changed = false;
        for (a, b) in items(toks, open, close) {
            let el = text(src, toks[a].start, toks[b - 1].end);
            let first = kw(&toks[a]).unwrap_or("");
            if toks[a..b]
                .windows(2)
                .any(|w| w[0].tok.is_kw("primary") && w[1].tok.is_kw("key"))
            {
                has_pk = true;
            }
            // EXCLUDE is not reserved: a column may be called that (as dump::ddl reads it).
            let exclude = first == "exclude"
                && toks
                    .get(a + 1)
                    .is_some_and(|t| t.tok.is_op("(") || t.tok.is_kw("using"));
            if (exclude
                || matches!(
                    first,
                    "constraint" | "primary" | "unique" | "check" | "foreign" | "like"
                ))
                && !matches!(toks[a].tok, Tok::Ident { quoted: true, .. })
            {
                // A primary key declared here gets the --yb-sharding annotation too.
                let el = match self.annotate_pk(toks, src, a, b) {
                    Some(new) if !crdb => {
                        changed = true;
                        applied.push("yb-pk-inline");
                        new
                    }
                    _ => el,
                };
                constraints.push(el);
                continue;
            }
            let name = ident(&toks[a]).unwrap_or_default();
            let el = if crdb {
                match self.column_for_crdb(toks, src, a, b) {
                    Some((new, ids, rewritten)) => {
                        changed |= rewritten;
                        for id in ids {
                            if !applied.contains(&id) {
                                applied.push(id);
                            }
                        }
                        new
                    }
                    None => el,
                }
            } else if self.target == Target::Yugabytedb
                && rules::YB_PG11.covers(self.key())
                && let Some(new) = strip_generated(toks, src, a, b)
            {
                changed = true;
                if !applied.contains(&"yb-generated-pg11") {
                    applied.push("yb-generated-pg11");
                }
                new
            } else {
                el
            };
            cols.push((name, el));
        }
        // What follows the column list: INHERITS (...), PARTITION BY ..., WITH (...), ...
        let mut removals: Vec<(usize, usize)> = Vec::new();
        let mut j = close + 1;
        while j < toks.len() {
            if toks[j].tok.is_kw("inherits")
                && toks.get(j + 1).is_some_and(|t| t.tok.is_op("("))
                && let Some(c) = close_of(toks, j + 1)
            {
                if self.flatten_inherits() {
                    let known: Option<Vec<&Vec<(String, String)>>> =
                        f.parents.iter().map(|p| self.columns.get(p)).collect();
                    if let Some(parents) = known {
                        let mut flat: Vec<(String, String)> = Vec::new();
                        for p in parents {
                            for (n, e) in p {
                                if !flat.iter().any(|(m, _)| m == n) {
                                    flat.push((n.clone(), e.clone()));
                                }
                            }
                        }
                        for (n, e) in cols.drain(..) {
                            match flat.iter_mut().find(|(m, _)| *m == n) {
                                Some(slot) => slot.1 = e,
                                None => flat.push((n, e)),
                            }
                        }
                        cols = flat;
                        removals.push((toks[j].start, toks[c].end));
                        applied.push(if crdb {
                            "crdb-inherits"
                        } else {
                            "yb-inherits-flat"
                        });
                        changed = true;
                    }
                } else {
                    applied.push("yb-inherits");
                }
                j = c;
            } else if crdb
                && toks[j].tok.is_kw("partition")
                && toks.get(j + 1).is_some_and(|t| t.tok.is_kw("by"))
            {
                // To the end of the clause: its key list in parentheses.
                let mut end = j + 2;
                while end < toks.len() && !toks[end].tok.is_op("(") {
                    end += 1;
                }
                if let Some(c) = close_of(toks, end) {
                    removals.push((toks[j].start, toks[c].end));
                    applied.push("crdb-partition-by");
                    changed = true;
                    j = c;
                }
            }
            j += 1;
        }
        if !has_pk && let Some((cname, keycols)) = self.pks.get(&f.key) {
            let list = self.key_list(keycols);
            let named = if cname.is_empty() {
                String::new()
            } else {
                format!("CONSTRAINT {cname} ")
            };
            constraints.push(format!("{named}PRIMARY KEY ({})", list.join(", ")));
            applied.push(if crdb {
                "crdb-pk-inline"
            } else {
                "yb-pk-inline"
            });
            self.inlined.insert(f.key.clone());
            changed = true;
        }
        self.columns.insert(f.key.clone(), cols.clone());
        if !changed {
            return (applied, None);
        }
        let mut out = src[..toks[open].end].to_vec();
        let body: Vec<String> = cols
            .into_iter()
            .map(|(_, e)| e)
            .chain(constraints)
            .collect();
        if !body.is_empty() {
            out.extend_from_slice(b"\n    ");
            out.extend_from_slice(body.join(",\n    ").as_bytes());
            out.push(b'\n');
        }
        // The rest, without the removed clauses (and the blanks before them).
        let mut at = toks[close].start;
        for (a, b) in removals {
            let piece = &src[at..a];
            let trimmed = piece.len()
                - piece
                    .iter()
                    .rev()
                    .take_while(|c| c.is_ascii_whitespace())
                    .count();
            out.extend_from_slice(&piece[..trimmed]);
            at = b;
        }
        out.extend_from_slice(&src[at..]);
        (applied, Some(out))
    }

    /// The key columns as the target wants them listed (YugabyteDB: with --yb-sharding's
    /// HASH/ASC).
    fn key_list(&self, cols: &[String]) -> Vec<String> {
        let yb = self.target == Target::Yugabytedb;
        cols.iter()
            .enumerate()
            .map(|(n, c)| match (yb, self.sharding) {
                (true, YbSharding::Hash) if n == 0 => format!("{c} HASH"),
                (true, YbSharding::Hash | YbSharding::Range) => format!("{c} ASC"),
                _ => c.clone(),
            })
            .collect()
    }

    /// A `PRIMARY KEY (...)` table constraint (tokens `a..b`) with its columns annotated for
    /// YugabyteDB; `None` when there is nothing to do (not a key, --yb-sharding keep, or
    /// already annotated).
    fn annotate_pk(&self, toks: &[Spanned], src: &[u8], a: usize, b: usize) -> Option<String> {
        if self.sharding == YbSharding::Keep {
            return None;
        }
        let k = (a..b.saturating_sub(2)).find(|&i| {
            toks[i].tok.is_kw("primary")
                && toks[i + 1].tok.is_kw("key")
                && toks[i + 2].tok.is_op("(")
        })?;
        let close = close_of(toks, k + 2)?;
        let cols: Vec<String> = items(toks, k + 2, close)
            .into_iter()
            .map(|(x, y)| text(src, toks[x].start, toks[y - 1].end))
            .collect();
        if toks[k + 2..close]
            .iter()
            .any(|t| ["hash", "asc", "desc"].iter().any(|w| t.tok.is_kw(w)))
        {
            return None;
        }
        let mut s = text(src, toks[a].start, toks[k + 2].end);
        s.push_str(&self.key_list(&cols).join(", "));
        s.push_str(&text(src, toks[close].start, toks[b - 1].end));
        Some(s)
    }

    /// A column definition (tokens `a..b`) for CockroachDB: its text, the sub-rules that
    /// apply and whether the text changed; `None` when it stays as written and no rule
    /// applies.
    fn column_for_crdb(
        &self,
        toks: &[Spanned],
        src: &[u8],
        a: usize,
        b: usize,
    ) -> Option<(String, Vec<&'static str>, bool)> {
        let mut i = a + 1;
        let start = i;
        let mut depth = 0;
        while i < b {
            let t = &toks[i].tok;
            if t.is_op("(") || t.is_op("[") {
                depth += 1;
            } else if t.is_op(")") || t.is_op("]") {
                depth -= 1;
            } else if depth == 0
                && [
                    "collate",
                    "not",
                    "null",
                    "default",
                    "constraint",
                    "check",
                    "primary",
                    "unique",
                    "references",
                    "generated",
                ]
                .iter()
                .any(|w| t.is_kw(w))
            {
                break;
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        let ty = text(src, toks[start].start, toks[i - 1].end);
        let name = text(src, toks[a].start, toks[a].end);
        let rest = if i < b {
            text(src, toks[i - 1].end, toks[b - 1].end)
        } else {
            String::new()
        };
        if let Some(d) = self.domains.get(&ty) {
            let mut ids = vec!["crdb-domain-column"];
            let base = match self.crdb_type(&d.base) {
                Some((t, _, id)) if id != "crdb-type-unsupported" => {
                    ids.push(id);
                    t
                }
                Some((_, _, id)) => {
                    ids.push(id);
                    d.base.clone()
                }
                None => d.base.clone(),
            };
            let mut s = format!("{name} {base}{rest}");
            let has_nn = toks[i..b]
                .windows(2)
                .any(|w| w[0].tok.is_kw("not") && w[1].tok.is_kw("null"));
            if d.not_null && !has_nn {
                s.push_str(" NOT NULL");
            }
            for c in &d.checks {
                s.push_str(" CHECK ");
                for p in c {
                    match p {
                        Piece::Text(t) => s.push_str(t),
                        Piece::Value => s.push_str(&name),
                    }
                }
            }
            return Some((s, ids, true));
        }
        let (new_ty, check, id) = self.crdb_type(&ty)?;
        if id == "crdb-type-unsupported" {
            return Some((text(src, toks[a].start, toks[b - 1].end), vec![id], false));
        }
        let mut s = format!("{name} {new_ty}{rest}");
        if let Some(c) = check {
            s.push_str(&format!(" CHECK ({name} ~ '{c}')"));
        }
        Some((s, vec![id], true))
    }

    /// A column type as CockroachDB must be told it: the new type, a regular expression
    /// the value must match (for a CHECK), and the sub-rule; `None` when it is written as
    /// it is. Types from CockroachDB's data-types page (v24.3 to v26.2:
    /// <https://www.cockroachlabs.com/docs/v26.2/data-types>) stay; the others are mapped or
    /// reported as blockers.
    fn crdb_type(&self, ty: &str) -> Option<(String, Option<&'static str>, &'static str)> {
        let bare = ty.strip_prefix("pg_catalog.").unwrap_or(ty);
        let (elem, array) = match bare.strip_suffix("[]") {
            Some(e) => (e, "[]"),
            None => (bare, ""),
        };
        if self.user_types.contains(elem) || self.domains.contains_key(elem) {
            return None;
        }
        if self.ranges.contains(elem) {
            return Some((format!("text{array}"), None, "crdb-range-column"));
        }
        // The type's name without its modifiers: `timestamp(3) with time zone`.
        let mut base = String::new();
        let mut depth = 0;
        for c in elem.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if depth == 0 => base.push(c.to_ascii_lowercase()),
                _ => {}
            }
        }
        let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
        let to = |t: &str, id| Some((format!("{t}{array}"), None, id));
        match base.as_str() {
            // CITEXT is CockroachDB's from v25.3 (its data-types page); before, no such type.
            "citext" if self.version.is_some_and(|v| !v.at_least(25, 3)) => {
                Some((ty.to_string(), None, "crdb-type-unsupported"))
            }
            "integer" | "int" | "int4" => to("INT4", "crdb-int-width"),
            "smallint" | "int2" => to("INT2", "crdb-int-width"),
            "json" => to("text", "crdb-json-text"),
            "cidr" => to("INET", "crdb-cidr-inet"),
            "xml" => to("text", "crdb-xml-text"),
            "macaddr" | "macaddr8" if !array.is_empty() => to("text", "crdb-macaddr-text"),
            "macaddr" => Some((
                "text".into(),
                Some("^[0-9a-f]{2}(:[0-9a-f]{2}){5}$"),
                "crdb-macaddr-text",
            )),
            "macaddr8" => Some((
                "text".into(),
                Some("^[0-9a-f]{2}(:[0-9a-f]{2}){7}$"),
                "crdb-macaddr-text",
            )),
            "point" | "line" | "lseg" | "box" | "path" | "polygon" | "circle" => {
                to("text", "crdb-geometric-text")
            }
            b if RANGE_TYPES.contains(&b) || b.ends_with("multirange") => {
                to("text", "crdb-range-column")
            }
            "bigint"
            | "int8"
            | "boolean"
            | "bool"
            | "bytea"
            | "text"
            | "character varying"
            | "varchar"
            | "character"
            | "char"
            | "\"char\""
            | "name"
            | "numeric"
            | "decimal"
            | "real"
            | "float4"
            | "double precision"
            | "float8"
            | "date"
            | "time"
            | "time without time zone"
            | "time with time zone"
            | "timetz"
            | "timestamp"
            | "timestamp without time zone"
            | "timestamp with time zone"
            | "timestamptz"
            | "uuid"
            | "inet"
            | "jsonb"
            | "bit"
            | "bit varying"
            | "varbit"
            | "oid"
            | "tsvector"
            | "tsquery"
            | "regclass"
            | "regtype"
            | "regproc"
            | "regprocedure"
            | "regnamespace"
            | "regrole"
            | "citext" => None,
            b if b.starts_with("interval") => None,
            _ => Some((ty.to_string(), None, "crdb-type-unsupported")),
        }
    }

    /// A typed table (`CREATE TABLE t OF type [(col WITH OPTIONS ..., constraint)]`)
    /// written with the type's attributes as columns, then converted as any table; `None`
    /// when the type is not in the dump.
    fn typed_table(
        &mut self,
        toks: &[Spanned],
        src: &[u8],
        of: usize,
        f: &TableFacts,
    ) -> (Vec<&'static str>, Option<Vec<u8>>) {
        let (ty, after) = name_at(toks, src, of + 1);
        let Some(attrs) = self.composites.get(&ty) else {
            return (Vec::new(), None);
        };
        let mut cols: Vec<(String, String)> = attrs.clone();
        let mut constraints = Vec::new();
        let mut rest = after;
        if toks.get(after).is_some_and(|t| t.tok.is_op("("))
            && let Some(close) = close_of(toks, after)
        {
            for (a, b) in items(toks, after, close) {
                // `col [WITH OPTIONS] options` (pg_dump writes `id NOT NULL`), or a table
                // constraint.
                let with = toks.get(a + 1).is_some_and(|t| t.tok.is_kw("with"))
                    && toks.get(a + 2).is_some_and(|t| t.tok.is_kw("options"));
                let from = if with { a + 3 } else { a + 1 };
                let col = ident(&toks[a]).filter(|n| from < b && cols.iter().any(|(m, _)| m == n));
                match col {
                    Some(n) => {
                        let opts = text(src, toks[from].start, toks[b - 1].end);
                        if let Some(c) = cols.iter_mut().find(|(m, _)| *m == n) {
                            c.1.push(' ');
                            c.1.push_str(&opts);
                        }
                    }
                    None => constraints.push(text(src, toks[a].start, toks[b - 1].end)),
                }
            }
            rest = close + 1;
        }
        let body: Vec<String> = cols
            .into_iter()
            .map(|(_, e)| e)
            .chain(constraints)
            .collect();
        let mut flat = src[..toks[of - 1].end].to_vec();
        flat.extend_from_slice(b" (\n    ");
        flat.extend_from_slice(body.join(",\n    ").as_bytes());
        flat.extend_from_slice(b"\n)");
        let tail_at = if rest > 0 {
            toks[rest - 1].end
        } else {
            src.len()
        };
        flat.extend_from_slice(&src[tail_at..]);
        let id = if self.target == Target::Cockroachdb {
            "crdb-typed-table"
        } else {
            "yb-typed-table"
        };
        let Ok(toks2) = tokenize(&flat, true) else {
            return (Vec::new(), None);
        };
        let (mut applied, out) = self.create_table(&toks2, &flat, f);
        applied.insert(0, id);
        (applied, Some(out.unwrap_or(flat)))
    }
}

/// A column definition (tokens `a..b`) without its `GENERATED ALWAYS AS (...) STORED`
/// clause; `None` when it has none (an identity's `GENERATED ... AS IDENTITY` stays).
fn strip_generated(toks: &[Spanned], src: &[u8], a: usize, b: usize) -> Option<String> {
    let g = (a..b).find(|&i| {
        toks[i].tok.is_kw("generated")
            && toks.get(i + 1).is_some_and(|t| t.tok.is_kw("always"))
            && toks.get(i + 2).is_some_and(|t| t.tok.is_kw("as"))
            && toks.get(i + 3).is_some_and(|t| t.tok.is_op("("))
    })?;
    let c = close_of(toks, g + 3)?;
    if !toks.get(c + 1).is_some_and(|t| t.tok.is_kw("stored")) || c + 1 >= b {
        return None;
    }
    let mut s = text(src, toks[a].start, toks[g - 1].end);
    if c + 2 < b {
        s.push_str(&text(src, toks[c + 1].end, toks[b - 1].end));
    }
    Some(s)
}

/// `ALTER TABLE t ALTER COLUMN c ADD GENERATED {ALWAYS|BY DEFAULT} AS IDENTITY (SEQUENCE
/// NAME s options)` as a sequence, a default and its owner (the statements end with `;`),
/// and whether it was ALWAYS; `None` for any other form.
fn identity(toks: &[Spanned], src: &[u8]) -> Option<(String, bool)> {
    let t = toks.iter().position(|t| t.tok.is_kw("table"))?;
    let mut i = t + 1;
    if toks.get(i).is_some_and(|t| t.tok.is_kw("if")) {
        i += 2;
    }
    if toks.get(i).is_some_and(|t| t.tok.is_kw("only")) {
        i += 1;
    }
    let (table, after) = name_at(toks, src, i);
    let mut j = after;
    if !toks.get(j).is_some_and(|t| t.tok.is_kw("alter")) {
        return None;
    }
    j += 1;
    if toks.get(j).is_some_and(|t| t.tok.is_kw("column")) {
        j += 1;
    }
    let col = text(src, toks.get(j)?.start, toks[j].end);
    let g = (j..toks.len()).find(|&k| toks[k].tok.is_kw("generated"))?;
    let always = toks.get(g + 1).is_some_and(|t| t.tok.is_kw("always"));
    let open = (g..toks.len()).find(|&k| toks[k].tok.is_op("("))?;
    let close = close_of(toks, open)?;
    let n = (open..close).find(|&k| {
        toks[k].tok.is_kw("sequence") && toks.get(k + 1).is_some_and(|t| t.tok.is_kw("name"))
    })?;
    let (seq, seq_end) = name_at(toks, src, n + 2);
    if seq.is_empty() {
        return None;
    }
    // The options without `SEQUENCE NAME s`, each as written.
    let mut opts = String::new();
    if n > open + 1 {
        opts.push_str(&text(src, toks[open + 1].start, toks[n - 1].end));
    }
    if seq_end < close {
        if !opts.is_empty() {
            opts.push(' ');
        }
        opts.push_str(&text(src, toks[seq_end].start, toks[close - 1].end));
    }
    // One option a line, as pg_dump writes them.
    let opts = opts
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n    ");
    let lit = seq.replace('\'', "''");
    Some((
        format!(
            "CREATE SEQUENCE {seq}{}{opts};\nALTER TABLE {table} ALTER COLUMN {col} SET DEFAULT nextval('{lit}'::regclass);\nALTER SEQUENCE {seq} OWNED BY {table}.{col};",
            if opts.is_empty() { "" } else { "\n    " }
        ),
        always,
    ))
}
