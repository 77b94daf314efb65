//! `--report FILE`: the assessment of the conversion, as JSON for scripts or (FILE ending in
//! `.html`) one self-contained page for a person: no script, no external resource, inline CSS
//! and SVG. Both carry the same numbers; the page marks each with an `id` so a test can
//! compare them.

use super::rules::Impact;
use super::version::TargetVersion;
use super::{Entry, Outcome, TargetKind, YbSharding, summary};
use crate::manifest::Table;
use serde_json::json;

/// Everything a report says.
pub struct Report<'a> {
    /// The dump's name.
    pub source: &'a str,
    /// The target.
    pub target: TargetKind,
    /// --target-version.
    pub version: Option<TargetVersion>,
    /// -O, -x, --yb-sharding.
    pub no_owner: bool,
    /// -x.
    pub no_privileges: bool,
    /// --yb-sharding (YugabyteDB only).
    pub yb_sharding: Option<YbSharding>,
    /// Every DDL statement of the dump.
    pub entries: &'a [Entry],
    /// The tables with data, from the manifest.
    pub tables: &'a [Table],
    /// Values the release refuses in the data (src/schemaconv/data.rs).
    pub refused_values: &'a [super::data::Refused],
    /// Tables that would have been read back for them but were written to standard output.
    pub unchecked_values: &'a [String],
}

/// CockroachDB's default range_max_bytes (512 MiB).
const CRDB_RANGE: u64 = 512 << 20;
/// YugabyteDB's tablet_split_low_phase_size_threshold_bytes (512 MiB), the size at which a
/// tablet splits while a table has fewer than 8 tablets per node.
const YB_TABLET: u64 = 512 << 20;

/// The range size the target splits at, and where that number comes from.
fn range_size(t: TargetKind) -> Option<(u64, &'static str, &'static str)> {
    match t {
        TargetKind::Cockroachdb => Some((
            CRDB_RANGE,
            "CockroachDB's default range_max_bytes, 512 MiB",
            "https://www.cockroachlabs.com/docs/v26.2/configure-replication-zones",
        )),
        TargetKind::Yugabytedb => Some((
            YB_TABLET,
            "YugabyteDB's automatic tablet splitting: tablet_split_low_phase_size_threshold_bytes, 512 MiB, while a table has fewer than 8 tablets per node (then 10 GiB up to 24 per node)",
            "https://docs.yugabyte.com/stable/architecture/docdb-sharding/tablet-splitting/",
        )),
        TargetKind::Postgresql => None,
    }
}

fn shards(bytes: u64, size: u64) -> u64 {
    bytes.div_ceil(size).max(1)
}

fn count(entries: &[Entry], o: Outcome) -> usize {
    entries.iter().filter(|e| e.action == o).count()
}

/// The entries that change something, in the order a reader must see them: blockers (and
/// statements unknown to the rules), then changes of meaning, then statements dropped or
/// rewritten without changing anything; dump order within each.
fn by_impact(entries: &[Entry]) -> Vec<&Entry> {
    let mut v: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.action != Outcome::Kept || e.impact != Impact::None)
        .collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.impact));
    v
}

fn brief(e: &Entry) -> serde_json::Value {
    json!({
        "line": e.line,
        "kind": e.kind,
        "object": e.object,
        "action": e.action.word(),
        "rules": e.changes.iter().map(|c| c.rule).collect::<Vec<_>>(),
    })
}

const OUTCOMES: [Outcome; 4] = [
    Outcome::Kept,
    Outcome::Rewritten,
    Outcome::Dropped,
    Outcome::Unknown,
];

impl Report<'_> {
    /// The JSON report (format `dumpshard-schema-report`, version 1).
    pub fn json(&self) -> Vec<u8> {
        let rs = range_size(self.target);
        let by_kind: Vec<_> = summary(self.entries)
            .into_iter()
            .map(|(k, m)| {
                let mut o = serde_json::Map::new();
                o.insert("kind".into(), json!(k));
                for a in OUTCOMES {
                    o.insert(a.word().into(), json!(m.get(&a).copied().unwrap_or(0)));
                }
                serde_json::Value::Object(o)
            })
            .collect();
        let tables: Vec<_> = self
            .tables
            .iter()
            .map(|t| {
                json!({
                    "schema": t.schema,
                    "name": t.name,
                    "rows": t.rows,
                    "bytes": t.bytes,
                    "primary_key": t.primary_key,
                    "suggested_shards": rs.map(|(s, _, _)| shards(t.bytes, s)),
                })
            })
            .collect();
        let nopk: Vec<String> = self
            .tables
            .iter()
            .filter(|t| t.primary_key.is_empty())
            .map(|t| format!("{}.{}", t.schema, t.name))
            .collect();
        let v = json!({
            "format": "dumpshard-schema-report",
            "version": 1,
            "generator": concat!("pgdump2csv ", env!("CARGO_PKG_VERSION")),
            "source": self.source,
            "target_kind": self.target.name(),
            "target_version": self.version.map(|v| v.label()),
            "problems": {
                "note": "blockers (left out of the files, with what depends on them) first, then changes of meaning, then statements kept for review, then what was dropped or rewritten without changing anything; --strict refuses the first three",
                "blockers": self.entries.iter().filter(|e| e.impact == Impact::Blocker).map(brief).collect::<Vec<_>>(),
                "changes_of_meaning": self.entries.iter().filter(|e| e.impact == Impact::Meaning).map(brief).collect::<Vec<_>>(),
                "review": self.entries.iter().filter(|e| e.impact == Impact::Review).map(brief).collect::<Vec<_>>(),
                "dropped_no_change": self.entries.iter().filter(|e| e.impact == Impact::None && e.action == Outcome::Dropped).map(brief).collect::<Vec<_>>(),
            },
            "options": {
                "no_owner": self.no_owner,
                "no_privileges": self.no_privileges,
                "yb_sharding": self.yb_sharding.map(|s| format!("{s:?}").to_lowercase()),
            },
            "statements": self.entries.len(),
            "counts": {
                "kept": count(self.entries, Outcome::Kept),
                "rewritten": count(self.entries, Outcome::Rewritten),
                "dropped": count(self.entries, Outcome::Dropped),
                "unknown": count(self.entries, Outcome::Unknown),
            },
            "by_kind": by_kind,
            "entries": self.entries,
            "data": {
                "note": "bytes are the CSV's size, not the size in the target",
                "range_size_bytes": rs.map(|r| r.0),
                "range_size_source": rs.map(|r| r.1),
                "range_size_doc": rs.map(|r| r.2),
                "total_rows": self.tables.iter().map(|t| t.rows).sum::<u64>(),
                "total_bytes": self.tables.iter().map(|t| t.bytes).sum::<u64>(),
                "tables": tables,
                "tables_without_primary_key": nopk,
                "refused_values": {
                    "note": "values the release refuses in columns its schema takes; the table's load stops at the first (--strict refuses them)",
                    "rule": super::data::RULE,
                    "reason": super::data::REASON,
                    "doc": super::data::DOC,
                    "values": self.refused_values,
                    "not_checked_written_to_stdout": self.unchecked_values,
                },
            },
        });
        let mut out = serde_json::to_vec_pretty(&v).expect("report serialises");
        out.push(b'\n');
        out
    }

    /// The HTML page.
    pub fn html(&self) -> Vec<u8> {
        let mut h = String::new();
        let rs = range_size(self.target);
        h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
        h.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n");
        h.push_str(&format!(
            "<title>Schema report: {} for {}</title>\n",
            esc(self.source),
            self.target.name()
        ));
        h.push_str(STYLE);
        h.push_str("</head><body>\n");
        h.push_str(&format!(
            "<h1>Schema report for {}</h1>\n<p>Dump <code>{}</code>; written by pgdump2csv {}; options: -O {}, -x {}{}.</p>\n",
            esc(&self.version.map_or(self.target.name().to_string(), |v| v.label())),
            esc(self.source),
            env!("CARGO_PKG_VERSION"),
            yes(self.no_owner),
            yes(self.no_privileges),
            self.yb_sharding
                .map(|s| format!(", --yb-sharding {}", format!("{s:?}").to_lowercase()))
                .unwrap_or_default()
        ));
        // Summary.
        h.push_str("<h2>Summary</h2>\n<table class=\"counts\"><tr><th>statements</th>");
        for a in OUTCOMES {
            h.push_str(&format!("<th class=\"{0}\">{0}</th>", a.word()));
        }
        h.push_str(&format!(
            "</tr>\n<tr><td id=\"count-statements\">{}</td>",
            self.entries.len()
        ));
        for a in OUTCOMES {
            h.push_str(&format!(
                "<td id=\"count-{}\">{}</td>",
                a.word(),
                count(self.entries, a)
            ));
        }
        h.push_str("</tr></table>\n<h3>Objects by kind and action</h3>\n<table><tr><th>kind</th>");
        for a in OUTCOMES {
            h.push_str(&format!("<th>{}</th>", a.word()));
        }
        h.push_str("</tr>\n");
        for (k, m) in summary(self.entries) {
            h.push_str(&format!("<tr><td>{}</td>", esc(&k)));
            for a in OUTCOMES {
                let n = m.get(&a).copied().unwrap_or(0);
                if n == 0 {
                    h.push_str("<td class=\"zero\">0</td>");
                } else {
                    h.push_str(&format!("<td class=\"{}\">{n}</td>", a.word()));
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
        // Changes and problems: blockers first, then changes of meaning, then the rest.
        h.push_str("<h2>Changes and problems</h2>\n");
        h.push_str(&format!(
            "<p><span id=\"count-blockers\">{}</span> blockers (left out, with what depends on them), <span id=\"count-meaning\">{}</span> changes of meaning, <span id=\"count-review\">{}</span> statements to review (what --strict refuses), then what changes nothing.</p>\n",
            self.entries.iter().filter(|e| e.impact == Impact::Blocker).count(),
            self.entries.iter().filter(|e| e.impact == Impact::Meaning).count(),
            self.entries.iter().filter(|e| e.impact == Impact::Review).count()
        ));
        let changes = by_impact(self.entries);
        if changes.is_empty() {
            h.push_str("<p>None: every statement is kept as the dump has it.</p>\n");
        } else {
            h.push_str("<table id=\"changes\"><tr><th>impact</th><th>line</th><th>file</th><th>kind</th><th>object</th><th>action</th><th>rule and reason</th></tr>\n");
            for e in changes {
                let why = if e.changes.is_empty() {
                    "unknown to the rules: kept as the dump has it; check it against the target's documentation".to_string()
                } else {
                    e.changes
                        .iter()
                        .map(|c| {
                            format!(
                                "<a href=\"{}\">{}</a> ({}): {}{}",
                                esc(c.doc),
                                esc(c.rule),
                                esc(&c.versions),
                                esc(c.reason),
                                c.detail
                                    .as_deref()
                                    .map(|d| format!(" <em>({})</em>", esc(d)))
                                    .unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("<br>")
                };
                h.push_str(&format!(
                    "<tr><td class=\"impact\">{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td class=\"{}\">{}</td><td>{}</td></tr>\n",
                    e.impact.word(),
                    e.line,
                    match e.file {
                        super::Dest::Schema => "schema",
                        super::Dest::PostData => "post-data",
                    },
                    esc(&e.kind),
                    esc(&e.object),
                    e.action.word(),
                    e.action.word(),
                    why
                ));
            }
            h.push_str("</table>\n");
        }
        // The data side.
        h.push_str("<h2>Data</h2>\n");
        let rows: u64 = self.tables.iter().map(|t| t.rows).sum();
        let bytes: u64 = self.tables.iter().map(|t| t.bytes).sum();
        h.push_str(&format!(
            "<p><span id=\"data-tables\">{}</span> tables, <span id=\"data-rows\">{rows}</span> rows, <span id=\"data-bytes\">{bytes}</span> bytes of CSV ({}). ",
            self.tables.len(),
            human(bytes)
        ));
        match rs {
            Some((_, what, doc)) => h.push_str(&format!(
                "Suggested shards: the CSV size over the target's range size, <a href=\"{}\">{}</a>; a table gets at least one.</p>\n",
                esc(doc),
                esc(what)
            )),
            None => h.push_str("PostgreSQL does not split tables into ranges.</p>\n"),
        }
        if !self.refused_values.is_empty() || !self.unchecked_values.is_empty() {
            h.push_str(&format!(
                "<h3>Values the release refuses: <span id=\"refused-values\">{}</span></h3>\n<p>Rule <a href=\"{}\">{}</a>: {}.</p>\n<table id=\"refused\"><tr><th>table</th><th>column</th><th>value</th><th>records</th><th>first record</th></tr>\n",
                self.refused_values.len(),
                esc(super::data::DOC),
                super::data::RULE,
                esc(super::data::REASON)
            ));
            for r in self.refused_values {
                h.push_str(&format!(
                    "<tr><td><code>{}.{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                    esc(&r.schema),
                    esc(&r.table),
                    esc(&r.column),
                    esc(&r.value),
                    r.count,
                    r.first_record
                ));
            }
            h.push_str("</table>\n");
            for t in self.unchecked_values {
                h.push_str(&format!(
                    "<p class=\"unknown\">Not read back (written to standard output): <code>{}</code></p>\n",
                    esc(t)
                ));
            }
        }
        let mut by_size: Vec<&Table> = self.tables.iter().collect();
        by_size.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
        h.push_str(&chart(&by_size));
        h.push_str("<h3>Largest tables</h3>\n<table id=\"tables\"><tr><th>table</th><th>rows</th><th>bytes</th><th>suggested shards</th><th>primary key</th></tr>\n");
        for t in by_size.iter().take(50) {
            let q = format!("{}.{}", t.schema, t.name);
            h.push_str(&format!(
                "<tr><td><code>{}</code></td><td class=\"rows\">{}</td><td class=\"bytes\">{}</td><td class=\"shards\">{}</td><td>{}</td></tr>\n",
                esc(&q),
                t.rows,
                t.bytes,
                rs.map(|(s, _, _)| shards(t.bytes, s).to_string())
                    .unwrap_or_else(|| "-".into()),
                if t.primary_key.is_empty() {
                    "<span class=\"dropped\">none</span>".to_string()
                } else {
                    esc(&t.primary_key.join(", "))
                }
            ));
        }
        h.push_str("</table>\n");
        let nopk: Vec<&&Table> = by_size
            .iter()
            .filter(|t| t.primary_key.is_empty())
            .collect();
        h.push_str(&format!(
            "<h3>Tables without a primary key: <span id=\"nopk-count\">{}</span></h3>\n",
            nopk.len()
        ));
        if !nopk.is_empty() {
            h.push_str("<p>A CockroachDB table without one gets a hidden <code>rowid</code> key; pksort cannot sort them and csvsplit cuts them by size only.</p>\n<ul>\n");
            for t in nopk {
                h.push_str(&format!(
                    "<li><code>{}.{}</code></li>\n",
                    esc(&t.schema),
                    esc(&t.name)
                ));
            }
            h.push_str("</ul>\n");
        }
        h.push_str("<p class=\"note\">No CockroachDB or YugabyteDB server was available where the rules were written: each rule rests on the page it links to.</p>\n</body></html>\n");
        h.into_bytes()
    }
}

fn yes(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

/// HTML-escapes text (names from the dump are untrusted).
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() => o.push('\u{fffd}'),
            c => o.push(c),
        }
    }
    o
}

fn human(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// Bars of bytes and rows for the largest 30 tables, as inline SVG.
fn chart(tables: &[&Table]) -> String {
    let shown: Vec<&&Table> = tables.iter().take(30).collect();
    if shown.is_empty() {
        return "<p>No table data.</p>\n".into();
    }
    let max_b = shown.iter().map(|t| t.bytes).max().unwrap_or(0).max(1) as f64;
    let max_r = shown.iter().map(|t| t.rows).max().unwrap_or(0).max(1) as f64;
    let row_h = 22;
    let h = 30 + row_h * shown.len();
    let mut s = format!(
        "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"{h}\" role=\"img\" aria-label=\"tables by bytes and rows\">\n<text x=\"260\" y=\"16\" class=\"lbl\">bytes</text><text x=\"590\" y=\"16\" class=\"lbl\">rows</text>\n"
    );
    for (i, t) in shown.iter().enumerate() {
        let y = 24 + i * row_h;
        let wb = (t.bytes as f64 / max_b * 300.0).round();
        let wr = (t.rows as f64 / max_r * 280.0).round();
        let mut name = format!("{}.{}", t.schema, t.name);
        if name.chars().count() > 36 {
            name = name.chars().take(35).collect::<String>() + "…";
        }
        s.push_str(&format!(
            "<text x=\"250\" y=\"{}\" text-anchor=\"end\" class=\"lbl\">{}</text><rect x=\"260\" y=\"{y}\" width=\"{wb}\" height=\"16\" fill=\"#4a78b5\"><title>{} bytes</title></rect><rect x=\"590\" y=\"{y}\" width=\"{wr}\" height=\"16\" fill=\"#6aa84f\"><title>{} rows</title></rect>\n",
            y + 12,
            esc(&name),
            t.bytes,
            t.rows
        ));
    }
    s.push_str("</svg>\n");
    s
}

const STYLE: &str = "<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:0.5em 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
.counts td{font-size:1.4em;text-align:center}
.kept{color:#2a6f2a}.rewritten{color:#1f4f99}.dropped{color:#a33}.unknown{color:#b36b00;font-weight:bold}
.zero{color:#bbb}
.lbl{font-size:12px;fill:#333}
.note{color:#666;font-size:0.9em}
code{font-size:0.95em}
</style>
";
