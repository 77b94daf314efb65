//! What a target release refuses in a statement the kind rules keep: the tests behind
//! [`super::rules::CHECKS`], run on each statement's converted text, and what depends on a
//! statement left out.
//!
//! Fail closed: for YugabyteDB a statement kind is kept only when it is on [`YB_KNOWN`]
//! (forms run on the release's PostgreSQL base by tests/referee_yb.rs and not refused by
//! YugabyteDB's own pages); any other kind is left out as `yb-not-known`. Within a known
//! kind, the checks find the forms of later PostgreSQL releases than the base (a setting,
//! a type, a function, a syntax) and what YugabyteDB itself refuses (index methods,
//! deferrable constraints, ...). A statement left out takes the objects it creates with it:
//! a later statement that uses one is left out as a blocker (`uses-left-out`), one that is
//! only about it (its owner, comment, grants) goes with it (`goes-with-left-out`).

use super::catalog;
use super::rules::{self, Action, Impact, Rule, Target};
use super::table::{close_of, items};
use super::version::TargetVersion;
use super::{Change, Outcome, TargetKind, kw};
use crate::pg::dump::sql::{Spanned, Tok, tokenize};
use std::collections::HashSet;

/// The statement kinds YugabyteDB is known to take (matchers as in [`rules::matches`]); each
/// runs on PostgreSQL 11.22 and 15 in tests/referee_yb.rs.
const YB_KNOWN: &[&str] = &[
    "SET *",
    "SELECT set_config",
    "SELECT setval",
    "BEGIN",
    "COMMIT",
    "CREATE SCHEMA",
    "CREATE TYPE AS ENUM",
    "CREATE TYPE AS composite",
    "CREATE TYPE AS RANGE",
    "CREATE DOMAIN",
    "CREATE SEQUENCE",
    "CREATE TABLE",
    "CREATE TABLE PARTITION OF",
    "CREATE INDEX",
    "CREATE VIEW",
    "CREATE RECURSIVE VIEW",
    "CREATE MATERIALIZED VIEW",
    "CREATE FUNCTION",
    "CREATE PROCEDURE",
    "CREATE AGGREGATE",
    "CREATE OPERATOR",
    "CREATE CAST",
    "CREATE COLLATION",
    "CREATE TEXT SEARCH CONFIGURATION",
    "CREATE TEXT SEARCH DICTIONARY",
    "CREATE TRIGGER",
    "CREATE RULE",
    "CREATE POLICY",
    "CREATE FOREIGN DATA WRAPPER",
    "CREATE SERVER",
    "CREATE USER MAPPING",
    "ALTER * OWNER TO",
    "ALTER TABLE ADD *",
    "ALTER TABLE SET DEFAULT",
    "ALTER TABLE ATTACH PARTITION",
    "ALTER TABLE ROW LEVEL SECURITY",
    "ALTER TABLE INHERIT",
    "ALTER INDEX ATTACH PARTITION",
    "ALTER SEQUENCE OWNED BY",
    "ALTER TEXT SEARCH CONFIGURATION",
    "ALTER DEFAULT PRIVILEGES",
    "COMMENT ON *",
    "GRANT",
    "REVOKE",
    "REFRESH MATERIALIZED VIEW",
];

/// Kinds that the checks leave out themselves (with their own reason), so they are not
/// "not known".
const YB_CHECKED_KINDS: &[&str] = &[
    "CREATE ACCESS METHOD",
    "CREATE CONSTRAINT TRIGGER",
    "CREATE * CONVERSION",
    "CREATE CONVERSION",
    "CREATE STATISTICS",
    "ALTER STATISTICS",
    "ALTER STATISTICS *",
    "ALTER TABLE ALTER COLUMN",
    "ALTER TABLE CLUSTER ON",
    "SELECT lo_create",
    "SELECT lo_open",
    "SELECT lowrite",
    "SELECT lo_close",
];

/// XML functions (by name) YugabyteDB before 2026.1 does not have.
const XML_FUNCTIONS: &[&str] = &[
    "xmlelement",
    "xmlforest",
    "xmlagg",
    "xmlparse",
    "xmlserialize",
    "xmlconcat",
    "xmlpi",
    "xmlroot",
    "xmlcomment",
    "xmlexists",
    "xmltable",
    "xpath",
    "xpath_exists",
    "xml_is_well_formed",
    "xml_is_well_formed_document",
    "xml_is_well_formed_content",
    "query_to_xml",
    "table_to_xml",
    "xmltext",
];

/// SQL/JSON constructs written as function calls that PostgreSQL 16 and 17 parse as syntax
/// (so no base catalog has them as functions).
const SQL_JSON: &[&str] = &[
    "json_scalar",
    "json_serialize",
    "json_arrayagg",
    "json_objectagg",
    "json_exists",
    "json_query",
    "json_value",
    "json_table",
];

/// An object left out of the schema, which later statements must not use.
struct Gone {
    /// Its name's parts, folded as PostgreSQL folds them.
    name: Vec<String>,
    /// Line of the statement that would have created it.
    line: u64,
    /// The rule that left it out.
    rule: &'static str,
    /// That statement's impact.
    impact: Impact,
}

/// What a check found in a statement.
#[derive(Default)]
struct Found {
    /// The words for the report, when the reason alone does not say what.
    detail: Option<String>,
    /// Byte ranges of the text to replace (a `Rewrite` check).
    edits: Vec<(usize, usize, String)>,
    /// Names the statement no longer creates (a multirange type left out).
    absent: Vec<String>,
}

/// The state of the checks over one dump.
pub(super) struct Checker {
    target: Target,
    version: Option<TargetVersion>,
    /// The release's order key.
    key: u32,
    /// The PostgreSQL major the release is built on (YugabyteDB).
    base: u32,
    gone: Vec<Gone>,
    /// Partitioned tables (names folded).
    partitioned: HashSet<Vec<String>>,
    /// CockroachDB: the partitions (names folded), whose rows pgdump2csv writes into their
    /// partitioned table's file (rule crdb-partition-rows).
    partitions: HashSet<Vec<String>>,
    /// Functions and types the dump creates (last name part, folded), never taken for a
    /// later release's built-ins.
    own: HashSet<String>,
}

/// Whether the name at `t[i]` is a built-in's: unqualified, or qualified by `pg_catalog`
/// (another schema's object of the same name is the dump's own, not the base's).
fn builtin_at(t: &[Spanned], i: usize) -> bool {
    !(i > 0 && t[i - 1].tok.is_op(".") && !(i > 1 && t[i - 2].tok.is_kw("pg_catalog")))
}

/// A qualified name read at token `i`: its parts (folded as the tokenizer folds them) and
/// the index after it.
fn dotted(toks: &[Spanned], mut i: usize) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    while let Some(Tok::Ident { name, .. }) = toks.get(i).map(|t| &t.tok) {
        parts.push(name.clone());
        i += 1;
        if !toks.get(i).is_some_and(|t| t.tok.is_op(".")) {
            break;
        }
        match toks.get(i + 1).map(|t| &t.tok) {
            Some(Tok::Ident { .. }) => i += 1,
            // An operator's name (`app.=~=`) ends the name.
            Some(Tok::Op(op)) if !matches!(op.as_str(), "(" | ")" | "," | ";" | "[" | "]") => {
                parts.push(op.clone());
                i += 2;
                break;
            }
            _ => break,
        }
    }
    (parts, i)
}

/// A name as the report prints it (`app.floatrange`).
fn shown(parts: &[String]) -> String {
    parts.join(".")
}

/// The parts of a name written in a string (`'app.customers_id_seq'`, `'"Order".x'`).
fn name_in_string(s: &[u8]) -> Option<Vec<String>> {
    let s = std::str::from_utf8(s).ok()?;
    if s.is_empty() || s.len() > 200 {
        return None;
    }
    let toks = tokenize(s.as_bytes(), true).ok()?;
    let (parts, end) = dotted(&toks, 0);
    (end == toks.len() && !parts.is_empty()).then_some(parts)
}

/// The index of the first token sequence equal to `words` (unquoted keywords) at or after
/// `from`.
fn seq(toks: &[Spanned], from: usize, words: &[&str]) -> Option<usize> {
    (from..toks.len().saturating_sub(words.len() - 1)).find(|&i| {
        words
            .iter()
            .enumerate()
            .all(|(k, w)| toks[i + k].tok.is_kw(w))
    })
}

fn has_seq(toks: &[Spanned], words: &[&str]) -> bool {
    seq(toks, 0, words).is_some()
}

/// The partition a statement attaches, as `(partition, parent)` name parts (folded): pg_dump
/// 12 and later write `ALTER TABLE ONLY parent ATTACH PARTITION child FOR VALUES ...`, older
/// ones `CREATE TABLE child PARTITION OF parent ...`.
pub fn partition_link(toks: &[Spanned]) -> Option<(Vec<String>, Vec<String>)> {
    if toks.first().is_some_and(|t| t.tok.is_kw("alter"))
        && toks.get(1).is_some_and(|t| t.tok.is_kw("table"))
        && let Some(a) = seq(toks, 2, &["attach", "partition"])
    {
        let mut i = 2;
        while toks
            .get(i)
            .is_some_and(|t| t.tok.is_kw("only") || t.tok.is_kw("if") || t.tok.is_kw("exists"))
        {
            i += 1;
        }
        let (parent, _) = dotted(toks, i);
        let (child, _) = dotted(toks, a + 2);
        return (!parent.is_empty() && !child.is_empty()).then_some((child, parent));
    }
    if toks.first().is_some_and(|t| t.tok.is_kw("create"))
        && let Some(t) = toks.iter().position(|t| t.tok.is_kw("table"))
        && let Some(p) = seq(toks, t, &["partition", "of"])
    {
        let mut i = t + 1;
        if toks.get(i).is_some_and(|t| t.tok.is_kw("if")) {
            i += 3;
        }
        let (child, _) = dotted(toks, i);
        let (parent, _) = dotted(toks, p + 2);
        return (!parent.is_empty() && !child.is_empty()).then_some((child, parent));
    }
    None
}

/// The bytes from token `a` through token `b` (inclusive) plus the blanks before `a`, as an
/// edit that removes them.
fn cut(toks: &[Spanned], src: &[u8], a: usize, b: usize) -> (usize, usize, String) {
    let mut start = toks[a].start;
    while start > 0 && src[start - 1].is_ascii_whitespace() {
        start -= 1;
    }
    (start, toks[b].end, String::new())
}

impl Checker {
    pub(super) fn new(target: Target, version: Option<TargetVersion>) -> Checker {
        let base = match version {
            Some(v) if v.kind == TargetKind::Yugabytedb => v.pg_major(),
            _ => 0,
        };
        Checker {
            target,
            version,
            key: version.map_or(0, |v| v.key()),
            base,
            gone: Vec::new(),
            partitioned: HashSet::new(),
            partitions: HashSet::new(),
            own: HashSet::new(),
        }
    }

    /// First pass: the dump's own functions and types, and its partitioned tables.
    pub(super) fn learn(&mut self, kind: &str, toks: &[Spanned]) {
        let create = kind.starts_with("CREATE ");
        if create
            && (kind.contains("FUNCTION")
                || kind.contains("PROCEDURE")
                || kind.contains("AGGREGATE")
                || kind.contains("TYPE")
                || kind.contains("DOMAIN"))
        {
            // The name follows the kind's words: the first dotted name after them.
            let at = toks
                .iter()
                .position(|t| {
                    t.tok.is_kw("function")
                        || t.tok.is_kw("procedure")
                        || t.tok.is_kw("aggregate")
                        || t.tok.is_kw("type")
                        || t.tok.is_kw("domain")
                })
                .map_or(0, |i| i + 1);
            if let Some(last) = dotted(toks, at).0.pop() {
                self.own.insert(last);
            }
        }
        if kind.starts_with("CREATE")
            && kind.contains("TABLE")
            && has_seq(toks, &["partition", "by"])
            && let Some(t) = toks.iter().position(|t| t.tok.is_kw("table"))
        {
            let mut i = t + 1;
            if toks.get(i).is_some_and(|t| t.tok.is_kw("if")) {
                i += 3;
            }
            self.partitioned.insert(dotted(toks, i).0);
        }
        if self.target == Target::Cockroachdb
            && let Some((child, _)) = partition_link(toks)
        {
            self.partitions.insert(child);
        }
    }

    /// The rule `id` applied, for the report.
    fn change(&self, r: &'static Rule, detail: Option<String>) -> Change {
        let mut c = super::change(r, self.version);
        c.detail = detail;
        c
    }

    /// The first object left out that the statement's tokens use, if any.
    fn uses_gone(&self, toks: &[Spanned]) -> Option<(&Gone, Vec<String>)> {
        if self.gone.is_empty() {
            return None;
        }
        let mut i = 0;
        while i < toks.len() {
            let (parts, next) = match &toks[i].tok {
                Tok::Ident { .. } => dotted(toks, i),
                Tok::Str(s) => (name_in_string(s).unwrap_or_default(), i + 1),
                _ => (Vec::new(), i + 1),
            };
            if !parts.is_empty() {
                for g in &self.gone {
                    let n = g.name.len();
                    let hit = if n == 1 {
                        parts.len() == 1 && parts[0] == g.name[0]
                    } else {
                        parts.len() >= n && parts[..n] == g.name[..]
                    };
                    if hit {
                        return Some((g, parts));
                    }
                }
            }
            i = next.max(i + 1);
        }
        None
    }

    /// The names a statement creates (for what depends on it when it is left out).
    fn created(kind: &str, toks: &[Spanned]) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        if kind.starts_with("CREATE ") {
            // The dotted name after the kind's words (after `IF NOT EXISTS`).
            let mut i = 1;
            while i < toks.len() {
                if let Some(w) = kw(&toks[i])
                    && (super::CREATE_MODIFIERS.contains(&w)
                        || matches!(
                            w,
                            "or" | "replace"
                                | "table"
                                | "view"
                                | "type"
                                | "domain"
                                | "sequence"
                                | "function"
                                | "procedure"
                                | "aggregate"
                                | "index"
                                | "schema"
                                | "collation"
                                | "configuration"
                                | "dictionary"
                                | "trigger"
                                | "server"
                                | "data"
                                | "wrapper"
                                | "access"
                                | "method"
                                | "statistics"
                                | "operator"
                                | "publication"
                                | "if"
                                | "not"
                                | "exists"
                                | "concurrently"
                                | "conversion"
                                | "extension"
                                | "language"
                        ))
                {
                    i += 1;
                    continue;
                }
                break;
            }
            let (mut parts, _) = dotted(toks, i);
            if kind == "CREATE INDEX"
                && parts.len() == 1
                && let Some(on) = toks.iter().position(|t| t.tok.is_kw("on"))
            {
                // An index lives in its table's schema.
                let mut j = on + 1;
                if toks.get(j).is_some_and(|t| t.tok.is_kw("only")) {
                    j += 1;
                }
                let (table, _) = dotted(toks, j);
                if table.len() == 2 {
                    parts.insert(0, table[0].clone());
                }
            }
            if !parts.is_empty()
                && !matches!(kind, "CREATE TRIGGER" | "CREATE RULE" | "CREATE POLICY")
            {
                out.push(parts);
            }
        }
        if kind == "ALTER TABLE ADD IDENTITY"
            && let Some(n) = seq(toks, 0, &["sequence", "name"])
        {
            out.push(dotted(toks, n + 2).0);
        }
        out
    }

    fn note_gone(
        &mut self,
        kind: &str,
        toks: &[Spanned],
        line: u64,
        rule: &'static str,
        impact: Impact,
    ) {
        for name in Self::created(kind, toks) {
            self.gone.push(Gone {
                name,
                line,
                rule,
                impact,
            });
        }
    }

    /// Checks one statement after its kind's rule: the outcome, changes and text to write.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check(
        &mut self,
        kind: &str,
        object: &str,
        line: u64,
        orig: &[u8],
        action: Outcome,
        mut changes: Vec<Change>,
        text: Vec<u8>,
    ) -> (Outcome, Vec<Change>, Vec<u8>) {
        let orig_toks = tokenize(orig, true).unwrap_or_default();
        // CockroachDB: a partition is not created; its rows are in its partitioned table's
        // file (pgdump2csv's data side reads the same ATTACH PARTITION statements).
        if self.target == Target::Cockroachdb
            && kind.starts_with("CREATE")
            && kind.contains("TABLE")
            && Self::created(kind, &orig_toks)
                .first()
                .is_some_and(|n| self.partitions.contains(n))
        {
            let r = rules::check_rule("crdb-partition-rows");
            self.note_gone(kind, &orig_toks, line, r.id, r.impact);
            return (Outcome::Dropped, vec![self.change(r, None)], Vec::new());
        }
        // A constraint added to a table that is left out is gone with it, and so is the
        // index of its name (`ALTER INDEX t_pkey ATTACH PARTITION ...` names it).
        if kind.starts_with("ALTER TABLE ADD")
            && let Some(table) = name_in_string(object.as_bytes())
            && let Some(g) = self
                .gone
                .iter()
                .find(|g| table.len() >= g.name.len() && table[..g.name.len()] == g.name[..])
            && let Some(c) = seq(&orig_toks, 0, &["constraint"])
            && let (cn, _) = dotted(&orig_toks, c + 1)
            && cn.len() == 1
            && table.len() == 2
        {
            let gone = Gone {
                name: vec![table[0].clone(), cn[0].clone()],
                line: g.line,
                rule: g.rule,
                impact: g.impact,
            };
            self.gone.push(gone);
        }
        if action == Outcome::Dropped {
            // Left out by its kind's rule, but about an object already left out (a key moved
            // into a CREATE TABLE that is itself left out): it goes with that object.
            let obj = name_in_string(object.as_bytes()).unwrap_or_default();
            if let Some(g) = self
                .gone
                .iter()
                .find(|g| obj.len() >= g.name.len() && obj[..g.name.len()] == g.name[..])
            {
                let mut c = self.change(
                    rules::check_rule("goes-with-left-out"),
                    Some(format!(
                        "{}, left out at line {} (rule {})",
                        shown(&g.name),
                        g.line,
                        g.rule
                    )),
                );
                c.impact = g.impact;
                return (action, vec![c], text);
            }
            let impact = changes
                .iter()
                .map(|c| c.impact)
                .max()
                .unwrap_or(Impact::None);
            let rule = changes.first().map_or("?", |c| c.rule);
            // A primary key moved into its CREATE TABLE creates nothing that is gone.
            if !kind.ends_with("ADD PRIMARY KEY") {
                self.note_gone(kind, &orig_toks, line, rule, impact);
            }
            return (action, changes, text);
        }
        let toks = tokenize(&text, true).unwrap_or_default();
        if let Some((g, parts)) = self.uses_gone(&toks) {
            // A statement about the object itself (its owner, comment, grants, settings, the
            // value of its sequence) goes with it; anything else that uses it would be
            // refused.
            let obj = name_in_string(object.as_bytes()).unwrap_or_default();
            let about_it = (!kind.starts_with("CREATE")
                && obj.len() >= g.name.len()
                && obj[..g.name.len()] == g.name[..])
                // A partition's own indexes and triggers go with it (its rows are in the
                // partitioned table, whose own index and triggers cover them).
                || (g.rule == "crdb-partition-rows"
                    && matches!(kind, "CREATE INDEX" | "CREATE TRIGGER"));
            let (r, impact) = if about_it {
                (rules::check_rule("goes-with-left-out"), g.impact)
            } else {
                (rules::check_rule("uses-left-out"), Impact::Blocker)
            };
            let detail = format!(
                "uses {}, left out at line {} (rule {})",
                shown(&parts),
                g.line,
                g.rule
            );
            let mut c = self.change(r, Some(detail));
            c.impact = impact;
            self.note_gone(kind, &orig_toks, line, r.id, impact);
            return (Outcome::Dropped, vec![c], Vec::new());
        }
        if self.target == Target::Cockroachdb {
            return self.check_crdb(kind, line, &orig_toks, action, changes, text);
        }
        if self.target != Target::Yugabytedb {
            return (action, changes, text);
        }
        // Fail closed: a kind no rule shows the release takes is left out.
        let known = |list: &[&str]| list.iter().any(|m| rules::matches(m, kind));
        if !(known(YB_KNOWN) || known(YB_CHECKED_KINDS)) {
            let r = rules::check_rule("yb-not-known");
            self.note_gone(kind, &orig_toks, line, r.id, r.impact);
            return (Outcome::Dropped, vec![self.change(r, None)], Vec::new());
        }
        let ctx = Ctx {
            kind,
            toks: &toks,
            src: &text,
            orig: &orig_toks,
            checker: self,
        };
        let mut edits: Vec<(usize, usize, String)> = Vec::new();
        let mut absent: Vec<String> = Vec::new();
        let mut left_out: Option<(&'static Rule, Impact)> = None;
        let mut found_changes = Vec::new();
        for r in rules::CHECKS.iter().filter(|r| {
            r.target == Target::Yugabytedb
                && r.id != "yb-not-known"
                && r.holds_for(self.key)
                && rules::matches(r.matcher, kind)
        }) {
            let Some(f) = yb_detect(r.id, &ctx) else {
                continue;
            };
            found_changes.push(self.change(r, f.detail));
            match r.action {
                Action::Drop => {
                    if left_out.is_none_or(|(_, i)| r.impact > i) {
                        left_out = Some((r, r.impact));
                    }
                }
                Action::Rewrite => {
                    edits.extend(f.edits);
                    absent.extend(f.absent);
                }
                Action::Keep => {}
            }
        }
        if action == Outcome::Unknown && found_changes.is_empty() && left_out.is_none() {
            // A kind with no rule of its own (BEGIN, COMMIT) that is on the known list.
            return (
                Outcome::Kept,
                vec![self.change(rules::check_rule("yb-known"), None)],
                text,
            );
        }
        if let Some((r, impact)) = left_out {
            // The changes of the left-out statement: the checks that found something.
            let blockers: Vec<Change> = found_changes
                .into_iter()
                .filter(|c| rules::check_rule(c.rule).action == Action::Drop)
                .collect();
            self.note_gone(kind, &orig_toks, line, r.id, impact);
            return (Outcome::Dropped, blockers, Vec::new());
        }
        for a in absent {
            if let Some(n) = name_in_string(a.as_bytes()) {
                self.gone.push(Gone {
                    name: n,
                    line,
                    rule: "yb-multirange-name",
                    impact: Impact::None,
                });
            }
        }
        if edits.is_empty() {
            changes.extend(found_changes);
            return (action, changes, text);
        }
        let out = apply(&text, edits);
        changes.extend(found_changes);
        (Outcome::Rewritten, changes, out)
    }

    /// The CockroachDB side of [`Checker::check`]: a kind no rule knows is left out; the
    /// rewrites to the forms CockroachDB's grammar takes; what its pages refuse; then each
    /// statement of the text against the release's grammar (the referee).
    #[allow(clippy::too_many_arguments)]
    fn check_crdb(
        &mut self,
        kind: &str,
        line: u64,
        orig_toks: &[Spanned],
        action: Outcome,
        mut changes: Vec<Change>,
        text: Vec<u8>,
    ) -> (Outcome, Vec<Change>, Vec<u8>) {
        if action == Outcome::Unknown {
            let r = rules::check_rule("crdb-not-known");
            self.note_gone(kind, orig_toks, line, r.id, r.impact);
            return (Outcome::Dropped, vec![self.change(r, None)], Vec::new());
        }
        let toks = tokenize(&text, true).unwrap_or_default();
        let mut edits = Vec::new();
        let mut found_changes = Vec::new();
        let mut left_out: Option<(&'static Rule, Impact)> = None;
        for r in rules::CRDB_CHECKS.iter().filter(|r| {
            !matches!(
                r.id,
                "crdb-not-known" | "crdb-grammar" | "crdb-partition-rows"
            ) && r.holds_for(self.key)
                && rules::matches(r.matcher, kind)
        }) {
            let Some(f) = crdb_detect(r.id, kind, &toks, &text) else {
                continue;
            };
            found_changes.push(self.change(r, f.detail));
            match r.action {
                Action::Drop => {
                    if left_out.is_none_or(|(_, i)| r.impact > i) {
                        left_out = Some((r, r.impact));
                    }
                }
                Action::Rewrite => edits.extend(f.edits),
                Action::Keep => {}
            }
        }
        if let Some((r, impact)) = left_out {
            let blockers: Vec<Change> = found_changes
                .into_iter()
                .filter(|c| rules::check_rule(c.rule).action == Action::Drop)
                .collect();
            self.note_gone(kind, orig_toks, line, r.id, impact);
            return (Outcome::Dropped, blockers, Vec::new());
        }
        let mut action = action;
        let text = if edits.is_empty() {
            text
        } else {
            action = Outcome::Rewritten;
            apply(&text, edits)
        };
        changes.extend(found_changes);
        // The referee: every statement of the text in the release's grammar.
        if let Some(v) = self.version
            && let Some(g) = super::grammar::crdb(v.major, v.minor)
        {
            for (_, stmt) in crate::pg::dump::sql::Statements::new(&text) {
                if let Err(refusal) = g.check_sql(stmt) {
                    let r = rules::check_rule("crdb-grammar");
                    let detail = refusal.to_string();
                    self.note_gone(kind, orig_toks, line, r.id, r.impact);
                    return (
                        Outcome::Dropped,
                        vec![self.change(r, Some(detail))],
                        Vec::new(),
                    );
                }
            }
        }
        (action, changes, text)
    }
}

/// Whether a `SET` of pg_dump's header (repeated at the top of --write-post-data) stays for
/// `version`: not when the release's PostgreSQL base lacks the setting (rule yb-set-newer).
pub(super) fn keeps_setting(version: Option<TargetVersion>, kind: &str) -> bool {
    let Some(v) = version.filter(|v| v.kind == TargetKind::Yugabytedb) else {
        return true;
    };
    let Some(name) = kind.strip_prefix("SET ") else {
        return true;
    };
    let r = rules::check_rule("yb-set-newer");
    !r.holds_for(v.key()) || name.contains('.') || catalog::of(v.pg_major()).settings.contains(name)
}

/// What a check looks at.
struct Ctx<'a> {
    kind: &'a str,
    /// The statement as converted.
    toks: &'a [Spanned],
    src: &'a [u8],
    /// The statement as the dump has it.
    orig: &'a [Spanned],
    checker: &'a Checker,
}

fn found() -> Option<Found> {
    Some(Found::default())
}

fn found_with(detail: String) -> Option<Found> {
    Some(Found {
        detail: Some(detail),
        ..Found::default()
    })
}

/// The test of YugabyteDB check `id` on one statement.
fn yb_detect(id: &str, c: &Ctx) -> Option<Found> {
    let t = c.toks;
    match id {
        "yb-set-newer" => {
            let i = if t
                .get(1)
                .is_some_and(|x| x.tok.is_kw("session") || x.tok.is_kw("local"))
            {
                2
            } else {
                1
            };
            let (name, _) = dotted(t, i);
            let name = shown(&name);
            (!name.is_empty()
                && !name.contains('.')
                && !catalog::of(c.checker.base).settings.contains(&name))
            .then(|| found_with(format!("SET {name}")))?
        }
        "yb-multirange-name" => {
            let i = seq(t, 0, &["multirange_type_name"])?;
            // `multirange_type_name = name` and the comma before it.
            let (name, end) = dotted(t, i + 2);
            let mut a = i;
            if a > 0 && t[a - 1].tok.is_op(",") {
                a -= 1;
            }
            let mut f = Found {
                detail: Some(format!("multirange_type_name = {}", shown(&name))),
                ..Found::default()
            };
            f.edits.push(cut(t, c.src, a, end - 1));
            f.absent.push(shown(&name));
            Some(f)
        }
        "yb-sql-body" => {
            if !(c.kind.contains("FUNCTION") || c.kind.contains("PROCEDURE")) {
                return None;
            }
            (has_seq(t, &["begin", "atomic"]) || t.iter().any(|x| x.tok.is_kw("return")))
                .then(found)?
        }
        "yb-procedure-out" => {
            let open = t.iter().position(|x| x.tok.is_op("("))?;
            let close = close_of(t, open)?;
            items(t, open, close)
                .iter()
                .any(|&(a, _)| t[a].tok.is_kw("out"))
                .then(found)?
        }
        "yb-newer-type" => {
            let newer = &catalog::newer_than(c.checker.base).types;
            for (i, x) in t.iter().enumerate() {
                if let Tok::Ident { name, .. } = &x.tok
                    && newer.contains(name)
                    && !c.checker.own.contains(name)
                    && !t
                        .get(i + 1)
                        .is_some_and(|n| n.tok.is_op(".") || n.tok.is_op("("))
                    && builtin_at(t, i)
                {
                    return found_with(format!("type {name}"));
                }
            }
            None
        }
        "yb-newer-function" => {
            let newer = &catalog::newer_than(c.checker.base).functions;
            for (i, x) in t.iter().enumerate() {
                if let Tok::Ident {
                    name,
                    quoted: false,
                } = &x.tok
                    && newer.contains(name)
                    && !c.checker.own.contains(name)
                    && t.get(i + 1).is_some_and(|n| n.tok.is_op("("))
                    && builtin_at(t, i)
                {
                    return found_with(format!("{name}()"));
                }
            }
            None
        }
        "yb-newer-opclass" => {
            let newer = &catalog::newer_than(c.checker.base).opclasses;
            t.iter().find_map(|x| match &x.tok {
                Tok::Ident { name, .. } if newer.contains(name) => {
                    found_with(format!("operator class {name}"))
                }
                _ => None,
            })
        }
        "yb-numeric-scale" => {
            for i in 0..t.len().saturating_sub(5) {
                if (t[i].tok.is_kw("numeric") || t[i].tok.is_kw("decimal"))
                    && t[i + 1].tok.is_op("(")
                    && matches!(t[i + 2].tok, Tok::Num(_))
                    && t[i + 3].tok.is_op(",")
                    && t[i + 4].tok.is_op("-")
                {
                    return found();
                }
            }
            None
        }
        "yb-with-ties" => has_seq(t, &["with", "ties"]).then(found)?,
        "yb-nulls-not-distinct" => {
            let i = seq(t, 0, &["nulls", "not", "distinct"])?;
            Some(Found {
                edits: vec![cut(t, c.src, i, i + 2)],
                ..Found::default()
            })
        }
        "yb-fk-partitioned" => {
            let r = seq(t, 0, &["references"])?;
            let (name, _) = dotted(t, r + 1);
            c.checker
                .partitioned
                .contains(&name)
                .then(|| found_with(format!("references {}", shown(&name))))?
        }
        "yb-fk-set-columns" => (0..t.len().saturating_sub(2))
            .any(|i| {
                t[i].tok.is_kw("set")
                    && (t[i + 1].tok.is_kw("null") || t[i + 1].tok.is_kw("default"))
                    && t[i + 2].tok.is_op("(")
                    && i > 1
                    && (t[i - 1].tok.is_kw("delete") || t[i - 1].tok.is_kw("update"))
            })
            .then(found)?,
        "yb-security-invoker" => has_seq(t, &["security_invoker"]).then(found)?,
        "yb-sql-json" => {
            if let Some(i) = (0..t.len().saturating_sub(1)).find(|&i| {
                t[i].tok.is_kw("is")
                    && (t[i + 1].tok.is_kw("json")
                        || (t[i + 1].tok.is_kw("not")
                            && t.get(i + 2).is_some_and(|x| x.tok.is_kw("json"))))
            }) {
                let _ = i;
                return found_with("IS JSON".into());
            }
            for (i, x) in t.iter().enumerate() {
                let Tok::Ident {
                    name,
                    quoted: false,
                } = &x.tok
                else {
                    continue;
                };
                if !t.get(i + 1).is_some_and(|n| n.tok.is_op("(")) {
                    continue;
                }
                if SQL_JSON.contains(&name.as_str()) {
                    return found_with(format!("{}()", name.to_uppercase()));
                }
                if matches!(name.as_str(), "json_object" | "json_array" | "json") {
                    let close = close_of(t, i + 1)?;
                    let inner = &t[i + 2..close];
                    let syntax = inner.iter().any(|y| {
                        y.tok.is_kw("value")
                            || y.tok.is_op(":")
                            || y.tok.is_kw("absent")
                            || y.tok.is_kw("returning")
                            || y.tok.is_kw("format")
                    }) || has_seq(inner, &["null", "on", "null"])
                        || (name == "json" && !inner.is_empty());
                    if syntax {
                        return found_with(format!(
                            "{}(...) in SQL/JSON form",
                            name.to_uppercase()
                        ));
                    }
                }
            }
            None
        }
        "yb-xml-no-indent" => {
            let i = seq(t, 0, &["no", "indent"])?;
            Some(Found {
                edits: vec![cut(t, c.src, i, i + 1)],
                ..Found::default()
            })
        }
        "yb-xml-indent" => (0..t.len())
            .any(|i| t[i].tok.is_kw("indent") && !(i > 0 && t[i - 1].tok.is_kw("no")))
            .then(found)?,
        "yb-pg18-forms" => {
            if has_seq(t, &["not", "enforced"]) {
                return found_with("NOT ENFORCED".into());
            }
            if has_seq(t, &["without", "overlaps"]) {
                return found_with("WITHOUT OVERLAPS".into());
            }
            if c.kind.ends_with("FOREIGN KEY") && t.iter().any(|x| x.tok.is_kw("period")) {
                return found_with("PERIOD".into());
            }
            (c.kind.contains("TABLE")
                && (0..t.len())
                    .any(|i| t[i].tok.is_kw("virtual") && i > 0 && t[i - 1].tok.is_op(")")))
            .then(|| found_with("GENERATED ... VIRTUAL".into()))?
        }
        "yb-generated-key" => generated_in_key(c.orig, c.toks).map(|col| Found {
            detail: Some(format!("column {col}")),
            ..Found::default()
        }),
        "yb-index-method" => {
            let u = seq(t, 0, &["using"])?;
            let m = kw(t.get(u + 1)?)?;
            (!matches!(m, "btree" | "hash" | "gin" | "lsm" | "ybgin"))
                .then(|| found_with(format!("USING {m}")))?
        }
        "yb-gin-form" => {
            let u = seq(t, 0, &["using", "gin"])?;
            let open = u + 2;
            if !t.get(open).is_some_and(|x| x.tok.is_op("(")) {
                return None;
            }
            let close = close_of(t, open)?;
            let cols = items(t, open, close);
            if cols.len() > 1 {
                return found_with(format!("{} columns", cols.len()));
            }
            t[open..close]
                .iter()
                .any(|x| x.tok.is_kw("desc") || x.tok.is_kw("hash"))
                .then(|| found_with("DESC or HASH".into()))?
        }
        "yb-index-storage" => {
            let on = seq(t, 0, &["on"])?;
            let open = (on..t.len()).find(|&i| t[i].tok.is_op("("))?;
            let close = close_of(t, open)?;
            let mut w = close + 1;
            if t.get(w).is_some_and(|x| x.tok.is_kw("include"))
                && let Some(c2) = close_of(t, w + 1)
            {
                w = c2 + 1;
            }
            if t.get(w).is_some_and(|x| x.tok.is_kw("nulls")) {
                w += 3;
            }
            if !(t.get(w).is_some_and(|x| x.tok.is_kw("with"))
                && t.get(w + 1).is_some_and(|x| x.tok.is_op("(")))
            {
                return None;
            }
            let end = close_of(t, w + 1)?;
            Some(Found {
                detail: Some(text_of(c.src, t, w + 1, end)),
                edits: vec![cut(t, c.src, w, end)],
                ..Found::default()
            })
        }
        "yb-table-storage" => {
            // `WITH (...)` after the column list (and INHERITS / PARTITION BY).
            let t0 = t.iter().position(|x| x.tok.is_op("("))?;
            let close = close_of(t, t0)?;
            let w = seq(t, close + 1, &["with"])?;
            if !t.get(w + 1).is_some_and(|x| x.tok.is_op("(")) {
                return None;
            }
            let end = close_of(t, w + 1)?;
            Some(Found {
                detail: Some(text_of(c.src, t, w + 1, end)),
                edits: vec![cut(t, c.src, w, end)],
                ..Found::default()
            })
        }
        "yb-unlogged" => {
            let i = 1;
            if !t.get(1).is_some_and(|x| x.tok.is_kw("unlogged")) {
                return None;
            }
            Some(Found {
                edits: vec![(t[i].start, t[i + 1].start, String::new())],
                ..Found::default()
            })
        }
        "yb-deferrable" => {
            if c.kind.ends_with("FOREIGN KEY") {
                return None;
            }
            (0..t.len())
                .any(|i| t[i].tok.is_kw("deferrable") && !(i > 0 && t[i - 1].tok.is_kw("not")))
                .then(found)?
        }
        "yb-constraint-trigger" => found(),
        "yb-trigger-transition" => has_seq(t, &["referencing"]).then(found)?,
        "yb-view-check-option" => has_seq(t, &["check", "option"]).then(found)?,
        "yb-xml-functions" => t.iter().enumerate().find_map(|(i, x)| match &x.tok {
            Tok::Ident {
                name,
                quoted: false,
            } if XML_FUNCTIONS.contains(&name.as_str())
                && t.get(i + 1).is_some_and(|n| n.tok.is_op("(")) =>
            {
                found_with(format!("{name}()"))
            }
            _ => None,
        }),
        "yb-xml-text" => {
            let open = t.iter().position(|x| x.tok.is_op("("))?;
            let close = close_of(t, open)?;
            let mut f = Found::default();
            for (a, b) in items(t, open, close) {
                // `name xml` or `name pg_catalog.xml`, then the column's options.
                let mut ty = a + 1;
                if t.get(ty).is_some_and(|x| x.tok.is_kw("pg_catalog"))
                    && t.get(ty + 1).is_some_and(|x| x.tok.is_op("."))
                {
                    ty += 2;
                }
                if ty < b && t[ty].tok.is_kw("xml") {
                    f.edits.push((t[a + 1].start, t[ty].end, "text".into()));
                }
            }
            (!f.edits.is_empty()).then_some(f)
        }
        "yb-large-object" => {
            (c.kind.starts_with("SELECT lo") || c.kind.contains("LARGE OBJECT")).then(found)?
        }
        "yb-access-method" | "yb-conversion" | "yb-statistics" => found(),
        "yb-alter-physical" => {
            let physical = has_seq(t, &["cluster", "on"])
                || has_seq(t, &["without", "cluster"])
                || (seq(t, 0, &["alter", "column"]).is_some()
                    && (has_seq(t, &["set", "statistics"])
                        || has_seq(t, &["set", "storage"])
                        || has_seq(t, &["set", "compression"])
                        || (0..t.len().saturating_sub(1)).any(|i| {
                            (t[i].tok.is_kw("set") || t[i].tok.is_kw("reset"))
                                && t[i + 1].tok.is_op("(")
                        })));
            physical.then(found)?
        }
        _ => None,
    }
}

/// `text` with the byte ranges of `edits` replaced (overlapping ones after the first are
/// skipped).
fn apply(text: &[u8], mut edits: Vec<(usize, usize, String)>) -> Vec<u8> {
    edits.sort_by_key(|e| e.0);
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for (a, b, with) in edits {
        if a < at {
            continue;
        }
        out.extend_from_slice(&text[at..a]);
        out.extend_from_slice(with.as_bytes());
        at = b;
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// The test of CockroachDB check `id` on one statement's converted text.
fn crdb_detect(id: &str, kind: &str, t: &[Spanned], src: &[u8]) -> Option<Found> {
    match id {
        "crdb-collate-qualified" => {
            let mut f = Found::default();
            for i in 0..t.len().saturating_sub(3) {
                if t[i].tok.is_kw("collate")
                    && t[i + 1].tok.is_kw("pg_catalog")
                    && t[i + 2].tok.is_op(".")
                {
                    let name = &t[i + 3];
                    if matches!(&name.tok, Tok::Ident { name, .. } if name == "default") {
                        f.edits.push(cut(t, src, i, i + 3));
                    } else {
                        f.edits.push((t[i + 1].start, t[i + 2].end, String::new()));
                    }
                }
            }
            (!f.edits.is_empty()).then_some(f)
        }
        "crdb-no-inherit" => {
            let mut f = Found::default();
            for i in 0..t.len().saturating_sub(1) {
                if t[i].tok.is_kw("no") && t[i + 1].tok.is_kw("inherit") {
                    f.edits.push(cut(t, src, i, i + 1));
                }
            }
            (!f.edits.is_empty()).then_some(f)
        }
        "crdb-table-storage" => {
            let t0 = t.iter().position(|x| x.tok.is_op("("))?;
            let close = close_of(t, t0)?;
            let w = seq(t, close + 1, &["with"])?;
            if !t.get(w + 1).is_some_and(|x| x.tok.is_op("(")) {
                return None;
            }
            let end = close_of(t, w + 1)?;
            Some(Found {
                detail: Some(text_of(src, t, w + 1, end)),
                edits: vec![cut(t, src, w, end)],
                ..Found::default()
            })
        }
        "crdb-unlogged" => {
            if !t.get(1).is_some_and(|x| x.tok.is_kw("unlogged")) {
                return None;
            }
            Some(Found {
                edits: vec![(t[1].start, t[2].start, String::new())],
                ..Found::default()
            })
        }
        "crdb-function-hints" => {
            if !(kind.contains("FUNCTION") || kind.contains("PROCEDURE")) {
                return None;
            }
            // After the argument list: PARALLEL x, COST n, ROWS n (outside the body).
            let open = t.iter().position(|x| x.tok.is_op("("))?;
            let close = close_of(t, open)?;
            let mut f = Found::default();
            let mut words = Vec::new();
            let mut depth = 0i32;
            for i in close + 1..t.len().saturating_sub(1) {
                if t[i].tok.is_op("(") {
                    depth += 1;
                } else if t[i].tok.is_op(")") {
                    depth -= 1;
                }
                let w = kw(&t[i]).unwrap_or("");
                if depth == 0
                    && matches!(w, "parallel" | "cost" | "rows")
                    && !(i > 0 && t[i - 1].tok.is_kw("returns"))
                    && matches!(t[i + 1].tok, Tok::Ident { .. } | Tok::Num(_))
                {
                    words.push(w.to_uppercase());
                    f.edits.push(cut(t, src, i, i + 1));
                }
            }
            f.detail = Some(words.join(", "));
            (!f.edits.is_empty()).then_some(f)
        }
        "crdb-deferrable" => {
            let i = (0..t.len())
                .find(|&i| t[i].tok.is_kw("deferrable") && !(i > 0 && t[i - 1].tok.is_kw("not")))?;
            let mut end = i;
            if t.get(i + 1).is_some_and(|x| x.tok.is_kw("initially")) && i + 2 < t.len() {
                end = i + 2;
            }
            Some(Found {
                edits: vec![cut(t, src, i, end)],
                ..Found::default()
            })
        }
        "crdb-nulls-not-distinct" => {
            let i = seq(t, 0, &["nulls", "not", "distinct"])?;
            Some(Found {
                edits: vec![cut(t, src, i, i + 2)],
                ..Found::default()
            })
        }
        "crdb-composite-text" => {
            let open = t.iter().position(|x| x.tok.is_op("("))?;
            let close = close_of(t, open)?;
            let mut f = Found::default();
            for (a, b) in items(t, open, close) {
                let mut ty = a + 1;
                if t.get(ty).is_some_and(|x| x.tok.is_kw("pg_catalog"))
                    && t.get(ty + 1).is_some_and(|x| x.tok.is_op("."))
                {
                    ty += 2;
                }
                if ty < b
                    && [
                        "point", "line", "lseg", "box", "path", "polygon", "circle", "xml",
                    ]
                    .iter()
                    .any(|w| t[ty].tok.is_kw(w))
                {
                    f.edits.push((t[a + 1].start, t[ty].end, "text".into()));
                }
            }
            (!f.edits.is_empty()).then_some(f)
        }
        "crdb-index-only" => {
            let on = seq(t, 0, &["on", "only"])?;
            Some(Found {
                edits: vec![cut(t, src, on + 1, on + 1)],
                ..Found::default()
            })
        }
        "crdb-sequence-int" => {
            let a = seq(t, 0, &["as"])?;
            let ty = kw(t.get(a + 1)?)?;
            let to = match ty {
                "integer" | "int" | "int4" => "INT4",
                "smallint" | "int2" => "INT2",
                _ => return None,
            };
            Some(Found {
                detail: Some(format!("AS {ty}")),
                edits: vec![(t[a + 1].start, t[a + 1].end, to.into())],
                ..Found::default()
            })
        }
        "crdb-index-method" => {
            let u = seq(t, 0, &["using"])?;
            let m = kw(t.get(u + 1)?)?;
            (!matches!(m, "btree" | "gin")).then(|| found_with(format!("USING {m}")))?
        }
        "crdb-trigger-form" => {
            let form = if has_seq(t, &["for", "each", "statement"]) {
                "FOR EACH STATEMENT"
            } else if has_seq(t, &["instead", "of"]) {
                "INSTEAD OF"
            } else if has_seq(t, &["referencing"]) {
                "REFERENCING"
            } else if (0..t.len().saturating_sub(1))
                .any(|i| t[i].tok.is_kw("update") && t[i + 1].tok.is_kw("of"))
            {
                "UPDATE OF"
            } else {
                // EXECUTE FUNCTION name(...): a function of the dump is schema-qualified.
                let e = seq(t, 0, &["execute"])?;
                let (name, _) = dotted(t, e + 2);
                if name.len() >= 2 && name[0] != "pg_catalog" {
                    return None;
                }
                return found_with(format!("built-in trigger function {}", shown(&name)));
            };
            found_with(form.into())
        }
        "crdb-function-language" => {
            if !(kind.contains("FUNCTION") || kind.contains("PROCEDURE")) {
                return None;
            }
            let l = seq(t, 0, &["language"])?;
            let lang = kw(t.get(l + 1)?)?;
            matches!(lang, "c" | "internal").then(|| found_with(format!("LANGUAGE {lang}")))?
        }
        _ => None,
    }
}

/// The text between tokens `a` and `b` (inclusive).
fn text_of(src: &[u8], t: &[Spanned], a: usize, b: usize) -> String {
    String::from_utf8_lossy(&src[t[a].start..t[b].end]).into_owned()
}

/// A generated column (in the dump's `CREATE TABLE`) that is NOT NULL or in the converted
/// table's primary key.
fn generated_in_key(orig: &[Spanned], conv: &[Spanned]) -> Option<String> {
    let open = orig.iter().position(|x| x.tok.is_op("("))?;
    let close = close_of(orig, open)?;
    let key: Vec<String> = seq(conv, 0, &["primary", "key"])
        .and_then(|k| {
            let o = k + 2;
            let c = close_of(conv, o)?;
            Some(
                items(conv, o, c)
                    .into_iter()
                    .filter_map(|(a, _)| match &conv[a].tok {
                        Tok::Ident { name, .. } => Some(name.clone()),
                        _ => None,
                    })
                    .collect(),
            )
        })
        .unwrap_or_default();
    for (a, b) in items(orig, open, close) {
        let col = &orig[a..b];
        let generated = col.windows(4).any(|w| {
            w[0].tok.is_kw("generated")
                && w[1].tok.is_kw("always")
                && w[2].tok.is_kw("as")
                && w[3].tok.is_op("(")
        }) && col.iter().any(|x| x.tok.is_kw("stored"));
        if !generated {
            continue;
        }
        let Tok::Ident { name, .. } = &orig[a].tok else {
            continue;
        };
        let not_null = col
            .windows(2)
            .any(|w| w[0].tok.is_kw("not") && w[1].tok.is_kw("null"));
        let inline_pk = col
            .windows(2)
            .any(|w| w[0].tok.is_kw("primary") && w[1].tok.is_kw("key"));
        if not_null || inline_pk || key.contains(name) {
            return Some(name.clone());
        }
    }
    None
}
