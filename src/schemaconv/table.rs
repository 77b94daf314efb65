//! The converter behind the rules: learns what later statements say about earlier ones
//! (primary keys added after the data, domains) and rewrites `CREATE TABLE` for the target
//! (primary key inline, inheritance flattened, `PARTITION BY` left out, domain and range
//! columns replaced), working on token spans so everything it does not change stays as
//! pg_dump wrote it.

use super::rules::{self, Action, Target};
use super::{Change, Outcome, TableFacts, YbSharding, kw, name_at};
use crate::pg::dump::sql::{Spanned, Tok};
use crate::pg::types::RANGE_TYPES;
use std::collections::HashMap;

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
fn close_of(toks: &[Spanned], open: usize) -> Option<usize> {
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
fn items(toks: &[Spanned], open: usize, close: usize) -> Vec<(usize, usize)> {
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
    pub(super) fn new(target: Target, sharding: YbSharding) -> Tables {
        Tables {
            target,
            sharding,
            domains: HashMap::new(),
            pks: HashMap::new(),
            columns: HashMap::new(),
            inlined: std::collections::HashSet::new(),
        }
    }

    /// First pass: remembers domains and primary keys added by ALTER TABLE.
    pub(super) fn learn(
        &mut self,
        kind: &str,
        toks: &[Spanned],
        src: &[u8],
        facts: Option<&TableFacts>,
    ) {
        match kind {
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
        let Some(r) = rules::find(self.target, kind) else {
            return (Outcome::Unknown, Vec::new(), src.to_vec());
        };
        // A key is only left out of post-data once it is in its CREATE TABLE: a table created
        // in a form the converter does not rewrite (PARTITION OF, OF type) keeps its ALTER.
        if kind == "ALTER TABLE ADD PRIMARY KEY"
            && !facts.is_some_and(|f| self.inlined.contains(&f.key))
        {
            let r = rules::table_rule(if self.target == Target::Cockroachdb {
                "crdb-pk-alter-kept"
            } else {
                "yb-pk-alter-kept"
            });
            let c = Change {
                rule: r.id,
                reason: r.reason,
                doc: r.doc,
            };
            return (Outcome::Kept, vec![c], src.to_vec());
        }
        let main = Change {
            rule: r.id,
            reason: r.reason,
            doc: r.doc,
        };
        match r.action {
            Action::Keep => (Outcome::Kept, vec![main], src.to_vec()),
            Action::Drop => (Outcome::Dropped, vec![main], Vec::new()),
            Action::Rewrite => {
                let (subs, out) = match facts {
                    Some(f) => self.create_table(toks, src, f),
                    None => (Vec::new(), None),
                };
                let rewritten = out.is_some();
                let mut changes = vec![main];
                changes.extend(subs.into_iter().map(|id| {
                    let r = rules::table_rule(id);
                    Change {
                        rule: r.id,
                        reason: r.reason,
                        doc: r.doc,
                    }
                }));
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
                    Some((new, id)) => {
                        changed = true;
                        if !applied.contains(&id) {
                            applied.push(id);
                        }
                        new
                    }
                    None => el,
                }
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
                if crdb {
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
                        applied.push("crdb-inherits");
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

    /// A column definition (tokens `a..b`) rewritten for CockroachDB (domain or range type),
    /// with the sub-rule applied; `None` when it stays as written.
    fn column_for_crdb(
        &self,
        toks: &[Spanned],
        src: &[u8],
        a: usize,
        b: usize,
    ) -> Option<(String, &'static str)> {
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
            let mut s = format!("{name} {}{rest}", d.base);
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
            return Some((s, "crdb-domain-column"));
        }
        let bare = ty.strip_prefix("pg_catalog.").unwrap_or(&ty);
        let (elem, array) = match bare.strip_suffix("[]") {
            Some(e) => (e, "[]"),
            None => (bare, ""),
        };
        if RANGE_TYPES.contains(&elem.to_ascii_lowercase().as_str()) {
            return Some((format!("{name} text{array}{rest}"), "crdb-range-column"));
        }
        None
    }
}
