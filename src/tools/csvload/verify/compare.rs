//! One table's comparison: the digest pass by text, the canonical pass over the buckets that
//! differ, then the diff pass and its lines, pairing the two sides' versions of a key. Apart
//! from the run over all tables, which only prints what this returns.

use super::catalog::shape;
use super::diff::{DiffEntry, Diffs, Pass, column_lines};
use super::digest::{Digest, How, Mode};
use super::sides::{csv_side, target_side, utc_columns};
use super::{BUCKETS, DIFF_RECORDS};
use crate::io::error::{Error, Result};
use crate::tools::csvload::plan::Plan;

/// The result of one table's comparison, printed in plan order.
pub(super) struct Report {
    pub(super) csv: u64,
    pub(super) target: u64,
    pub(super) ok: bool,
    pub(super) lines: Vec<String>,
    pub(super) text_cols: Vec<String>,
    pub(super) retyped: Vec<String>,
}

/// Compares one table's content: both sides at once, then, if they differ and `diff` > 0, a
/// second pass over the differing buckets.
pub(super) fn table(
    client: &mut postgres::Client,
    plan: &Plan,
    ti: usize,
    diff: u64,
) -> Result<Report> {
    let t = &plan.tables[ti];
    let mut shape = shape(client, t)?;
    utc_columns(plan, ti, &mut shape);
    let text_cols: Vec<String> = shape
        .names
        .iter()
        .zip(&shape.types)
        .filter(|(_, ty)| ty.kind().is_none())
        .map(|(n, ty)| format!("{n} ({})", ty.name()))
        .collect();
    let two = |client: &mut postgres::Client,
               how: How,
               a: &mut Pass,
               b: &mut Pass|
     -> Result<(u64, u64)> {
        std::thread::scope(|s| {
            let csv = s.spawn(|| csv_side(plan, ti, &shape, how, a));
            let tgt = target_side(client, t, &shape, how, b);
            let csv = csv
                .join()
                .unwrap_or_else(|_| Err(Error::internal("CSV digest thread panicked")));
            Ok((csv?, tgt?))
        })
    };
    let (mut a, mut b) = (
        Pass::Digest(Digest::default()),
        Pass::Digest(Digest::default()),
    );
    // First the values' texts (Mode::Text), then, only for the key buckets whose texts
    // differ, their canonical forms: a dump and a target of one PostgreSQL print nearly
    // every value alike, and parsing every value of both sides was most of the cost.
    let first = if !shape.plain.contains(&false) && t.null.is_empty() {
        Mode::Whole
    } else {
        Mode::Text
    };
    let all = How {
        mode: first,
        want: None,
    };
    let (nc, nt) = two(client, all, &mut a, &mut b)?;
    let (Pass::Digest(da), Pass::Digest(db)) = (a, b) else {
        unreachable!("digest passes")
    };
    let ok = |differing: &[usize]| -> Option<Report> {
        differing.is_empty().then(|| Report {
            csv: nc,
            target: nt,
            ok: true,
            lines: Vec::new(),
            text_cols: text_cols.clone(),
            retyped: shape.retyped.clone(),
        })
    };
    let mut differing = da.differing(&db);
    if let Some(r) = ok(&differing) {
        return Ok(r);
    }
    drop((da, db));
    // Without a column compared as text, the first step was already canonical.
    if shape.plain.contains(&true) {
        // Canonical digests of the buckets whose texts differ (of all buckets without a
        // key, whose buckets come from the record's hash, which differs between modes).
        let mut want = vec![false; BUCKETS];
        for &i in &differing {
            want[i] = true;
        }
        let how = How {
            mode: Mode::Canonical,
            want: (!shape.key.is_empty()).then_some(&want[..]),
        };
        let (mut a, mut b) = (
            Pass::Digest(Digest::default()),
            Pass::Digest(Digest::default()),
        );
        two(client, how, &mut a, &mut b)?;
        let (Pass::Digest(ca), Pass::Digest(cb)) = (a, b) else {
            unreachable!("digest passes")
        };
        differing = ca.differing(&cb);
        if let Some(r) = ok(&differing) {
            return Ok(r);
        }
    }
    let by = if shape.key.is_empty() {
        "record-hash".to_string()
    } else {
        let k: Vec<&str> = shape
            .key_shown
            .iter()
            .map(|&k| shape.names[k].as_str())
            .collect();
        format!("key ({})", k.join(", "))
    };
    let mut lines = vec![format!(
        "{}: content differs in {} of {BUCKETS} {by} buckets (CSV files {nc} records, target {nt} rows)",
        t.display(),
        differing.len()
    )];
    if diff > 0 && !differing.is_empty() {
        let per = (nc.max(nt) / BUCKETS as u64).max(1);
        let k = ((DIFF_RECORDS / per) as usize).clamp(1, differing.len());
        let mut want = vec![false; BUCKETS];
        for &i in &differing[..k] {
            want[i] = true;
        }
        let (mut a, mut b) = (
            Pass::Diff(&want, Diffs::default()),
            Pass::Diff(&want, Diffs::default()),
        );
        let how = How {
            mode: Mode::Canonical,
            want: Some(&want),
        };
        two(client, how, &mut a, &mut b)?;
        let (Pass::Diff(_, mut da), Pass::Diff(_, db)) = (a, b) else {
            unreachable!("diff passes")
        };
        for (h, e) in db.map {
            let x = da.map.entry(h).or_default();
            x.n[1] += e.n[1];
            x.text[1] = e.text[1].clone();
            x.raw[1] = e.raw[1].clone();
            if x.key_text.is_empty() {
                x.key = e.key;
                x.key_text = e.key_text;
            }
        }
        let mut only: [Vec<DiffEntry>; 2] = [Vec::new(), Vec::new()];
        let mut counts = [0u64; 2];
        for (_, e) in da.map {
            let (c, g) = (e.n[0], e.n[1]);
            if c > g {
                counts[0] += c - g;
                only[0].push(e);
            } else if g > c {
                counts[1] += g - c;
                only[1].push(e);
            }
        }
        let scope = if k < differing.len() {
            format!(" (in the first {k} differing buckets)")
        } else {
            String::new()
        };
        lines.push(format!(
            "{}: {} of {nc} records differ{scope}: {} of the CSV files' records not in the \
             target, {} target rows not in the CSV files",
            t.display(),
            counts[0].max(counts[1]),
            counts[0],
            counts[1]
        ));
        // Pair the two sides' versions of one key; then the rest.
        for v in only.iter_mut() {
            v.sort_by(|a, b| a.key.cmp(&b.key).then(a.text.cmp(&b.text)));
        }
        let mut shown = 0u64;
        let (mut i, mut j) = (0, 0);
        let show = |e: &DiffEntry, side: usize| {
            let n = e.n[side].abs_diff(e.n[1 - side]);
            let times = if n > 1 {
                format!(" ({n} times)")
            } else {
                String::new()
            };
            format!(
                "  {}: {}{times}",
                ["csv   ", "target"][side],
                e.text[side].as_deref().unwrap_or("")
            )
        };
        // Without a key, one record on each side is one row changed.
        let lone = only[0].len() == 1 && only[1].len() == 1;
        while shown < diff && (i < only[0].len() || j < only[1].len()) {
            let a = only[0].get(i);
            let b = only[1].get(j);
            let same_key = matches!((a, b), (Some(a), Some(b)) if (!a.key.is_empty() || lone) && a.key == b.key);
            let take_a = match (a, b) {
                (Some(a), Some(b)) => a.key <= b.key,
                (Some(_), None) => true,
                _ => false,
            };
            if same_key || take_a {
                let a = a.expect("present");
                if !a.key_text.is_empty() {
                    lines.push(format!("  key {}", a.key_text));
                }
                lines.push(show(a, 0));
                i += 1;
                if same_key {
                    let b = b.expect("present");
                    lines.push(show(b, 1));
                    if let (Some(x), Some(y)) = (&a.raw[0], &b.raw[1]) {
                        column_lines(&shape, [t.null.as_bytes(), b""], [x, y], &mut lines);
                    }
                    j += 1;
                }
            } else {
                let b = b.expect("present");
                if !b.key_text.is_empty() {
                    lines.push(format!("  key {}", b.key_text));
                }
                lines.push(show(b, 1));
                j += 1;
            }
            shown += 1;
        }
    }
    Ok(Report {
        csv: nc,
        target: nt,
        ok: false,
        lines,
        text_cols,
        retyped: shape.retyped,
    })
}
