//! The report: counts by check and file, examples, the JSON or text summary, and the exit status it
//! implies.

use super::config::Column;
use super::config::Config;
use crate::io::error::{Error, IoContext, Pos, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

#[derive(Serialize, Default)]
pub(super) struct CheckStat {
    pub(super) problems: u64,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) columns: BTreeMap<String, u64>,
}

#[derive(Serialize, Clone)]
pub(super) struct Example {
    pub(super) file: String,
    pub(super) record: u64,
    pub(super) line: u64,
    pub(super) byte: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) column: Option<String>,
    pub(super) check: &'static str,
    pub(super) message: String,
    pub(super) excerpt: String,
}

#[derive(Serialize)]
pub(super) struct FileStat {
    pub(super) file: String,
    pub(super) records: u64,
    pub(super) bad: u64,
}

#[derive(Serialize)]
pub(super) struct KeyReport {
    pub(super) columns: Vec<String>,
    pub(super) mode: &'static str,
    pub(super) complete: bool,
}

#[derive(Serialize)]
pub(super) struct Report {
    pub(super) tool: &'static str,
    pub(super) version: &'static str,
    pub(super) files: Vec<FileStat>,
    pub(super) records: u64,
    pub(super) good: u64,
    pub(super) bad: u64,
    pub(super) bad_rate: f64,
    pub(super) checks: BTreeMap<&'static str, CheckStat>,
    pub(super) examples: Vec<Example>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) key: Option<KeyReport>,
    pub(super) notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stopped: Option<String>,
    pub(super) verdict: &'static str,
}

/// What the merge counted over the whole run, handed over once its outputs are finished: plain
/// counts, so the report needs nothing of the merge itself.
pub(super) struct Tally {
    pub(super) files: Vec<FileStat>,
    pub(super) records: u64,
    pub(super) bad: u64,
    /// By check name.
    pub(super) checks: BTreeMap<&'static str, CheckStat>,
    pub(super) examples: Vec<Example>,
    pub(super) key_complete: bool,
    pub(super) notes: Vec<String>,
    pub(super) stopped: Option<String>,
    /// Blank lines read as records of a one-column table.
    pub(super) blank_rows: u64,
    /// Bytes of good records written (--filter).
    pub(super) good_bytes: u64,
}

pub(super) fn finish(mut m: Tally, cfg: &Config, columns: &[Column], key: &[usize]) -> Result<()> {
    if m.blank_rows > 0 {
        let value = if cfg.null.is_empty() {
            "NULL"
        } else {
            "an empty string"
        };
        m.notes.push(format!(
            "{} blank line(s): PostgreSQL reads each as a row whose one column is {value}; \
             CockroachDB's IMPORT skips blank lines, so it would not load these rows",
            m.blank_rows
        ));
    }
    let rate = if m.records == 0 {
        0.0
    } else {
        m.bad as f64 / m.records as f64
    };
    let tolerated =
        m.bad > 0 && m.stopped.is_none() && cfg.max_error_rate.is_some_and(|r| rate <= r);
    let verdict = if m.bad == 0 {
        "clean"
    } else if tolerated {
        "within tolerance"
    } else {
        "bad records"
    };
    let report = Report {
        tool: "csvcheck",
        version: env!("CARGO_PKG_VERSION"),
        files: std::mem::take(&mut m.files),
        records: m.records,
        good: m.records - m.bad,
        bad: m.bad,
        bad_rate: rate,
        checks: std::mem::take(&mut m.checks),
        examples: std::mem::take(&mut m.examples),
        key: (!key.is_empty()).then(|| KeyReport {
            columns: key
                .iter()
                .map(|&k| {
                    columns
                        .get(k)
                        .map_or((k + 1).to_string(), |c| c.name.clone())
                })
                .collect(),
            mode: if cfg.sorted { "sorted" } else { "hash" },
            complete: m.key_complete,
        }),
        notes: std::mem::take(&mut m.notes),
        stopped: m.stopped.take(),
        verdict,
    };
    if !cfg.quiet || m.bad > 0 {
        let outputs = [
            cfg.filter,
            cfg.bad_rows.is_some(),
            cfg.reasons.is_some(),
            cfg.report.is_some() || cfg.json_stdout,
        ];
        let line = crate::io::progress::Summary {
            read_bytes: crate::io::progress::read_bytes(),
            read_records: report.records,
            wrote: outputs.iter().filter(|&&o| o).count() as u64,
            unit: "file",
            wrote_records: if cfg.filter { report.good } else { 0 },
            wrote_bytes: m.good_bytes,
            bad: report.bad,
            bad_word: "bad",
        };
        // What each output holds, in words: `wrote 2 files, 0 records` alone read as
        // output lost, when the files were the bad records and their reasons and no good
        // record was to be copied (that is --filter).
        let show = |p: &std::path::Path| crate::io::names::display_path(p);
        let mut written = Vec::new();
        if cfg.filter {
            written.push(format!(
                "standard output (the {} good records)",
                report.good
            ));
        }
        if let Some(p) = &cfg.bad_rows {
            written.push(format!(
                "{} (the {} bad records, as read)",
                show(p),
                report.bad
            ));
        }
        if let Some(p) = &cfg.reasons {
            written.push(format!("{} (why each bad record is bad)", show(p)));
        }
        if let Some(p) = &cfg.report {
            written.push(format!("{} (the JSON report)", show(p)));
        } else if cfg.json_stdout {
            written.push("standard output (the JSON report)".into());
        }
        let mut said = String::new();
        if !written.is_empty() {
            said = format!("wrote {}", written.join(", "));
            if !cfg.filter {
                said.push_str(
                    "; no good records were copied (not asked: --filter copies them to standard output)",
                );
            }
        }
        print_summary(&report, &said, &line);
    }
    let mut json = serde_json::to_vec_pretty(&report).map_err(|e| Error::Usage(e.to_string()))?;
    json.push(b'\n');
    if let Some(p) = &cfg.report {
        let mut f = crate::io::output::AtomicFile::create(p)?;
        f.write_all(&json).at(p)?;
        f.commit()?;
    } else if cfg.json_stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(&json).at("<stdout>")?;
        out.flush().at("<stdout>")?;
    }
    if m.bad > 0 && !tolerated {
        return Err(Error::Found(String::new()));
    }
    Ok(())
}

/// The report on stderr: problems by check, examples, notes, then the summary line (the
/// shape every tool shares, see [`crate::io::progress`]) last.
pub(super) fn print_summary(r: &Report, written: &str, line: &crate::io::progress::Summary) {
    crate::io::progress::clear();
    let mut e = std::io::stderr().lock();
    for (name, st) in &r.checks {
        let cols = if st.columns.is_empty() {
            String::new()
        } else {
            let mut v: Vec<_> = st.columns.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1));
            format!(
                " (by column: {})",
                v.iter()
                    .map(|(c, n)| format!("{c} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        // Each count says what it counts: `type: 2 values their column's type does not
        // accept ... (by column: n 1, st 1)`, not a bare `type: 2 (n: 1, st: 1)`.
        let _ = writeln!(
            e,
            "csvcheck:   {name}: {} {}{cols}",
            st.problems,
            super::check::Check::meaning(name)
        );
    }
    for x in &r.examples {
        let pos = Pos {
            file: x.file.clone(),
            line: x.line,
            byte: x.byte,
            record: Some(x.record),
        };
        let col = x
            .column
            .as_ref()
            .map_or(String::new(), |c| format!("column {c}: "));
        let ex = if x.excerpt.is_empty() {
            String::new()
        } else {
            format!(": \"{}\"", x.excerpt)
        };
        let _ = writeln!(e, "csvcheck: {pos} {}: {col}{}{ex}", x.check, x.message);
    }
    if let Some(k) = &r.key
        && !k.complete
    {
        let _ = writeln!(e, "csvcheck: primary key not fully checked");
    }
    for n in &r.notes {
        let _ = writeln!(e, "csvcheck: note: {n}");
    }
    if let Some(s) = &r.stopped {
        let _ = writeln!(e, "csvcheck: {s}");
    }
    if r.bad > 0 {
        let _ = writeln!(
            e,
            "csvcheck: {:.4}% of the records are bad{}",
            r.bad_rate * 100.0,
            match r.verdict {
                "within tolerance" => ", within --max-error-rate",
                _ => "",
            }
        );
    }
    if !written.is_empty() {
        let _ = writeln!(e, "csvcheck: {written}");
    }
    drop(e);
    line.print();
}
