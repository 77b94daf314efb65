//! What a pass keeps ([`Pass`]: a digest, or the records of the differing buckets) and the
//! lines that show a difference: records side by side, the columns that differ, values cut
//! to where they differ. Apart as the reporting of differences, which the digests never need.

use super::catalog::Shape;
use super::digest::{Digest, Hashed, Hasher};
use crate::csv::records::{split_fields, strip_terminator};
use crate::pg::types::canon;
use std::collections::HashMap;

/// Which records a pass looks at, and what it keeps of them.
pub(super) enum Pass<'a> {
    /// All records, into a digest.
    Digest(Digest),
    /// Records of the chosen buckets, into a map of differences.
    Diff(&'a [bool], Diffs),
}

/// The second pass's tally: per record hash, how often each side has it, the record as each
/// side wrote it, and its key.
#[derive(Default)]
pub(super) struct Diffs {
    pub(super) map: HashMap<u128, DiffEntry>,
}

#[derive(Default)]
pub(super) struct DiffEntry {
    pub(super) n: [u64; 2],
    pub(super) text: [Option<String>; 2],
    /// Each side's record as read, to name the columns that differ.
    pub(super) raw: [Option<Vec<u8>>; 2],
    pub(super) key: Vec<u8>,
    pub(super) key_text: String,
}

impl Pass<'_> {
    pub(super) fn take(&mut self, side: usize, shape: &Shape, h: &Hasher, x: &Hashed, rec: &[u8]) {
        match self {
            Pass::Digest(d) => d.add(x.bucket, x.hash),
            Pass::Diff(want, diffs) => {
                if !want[x.bucket] {
                    return;
                }
                let e = diffs.map.entry(x.hash).or_default();
                e.n[side] += 1;
                if e.text[side].is_none() {
                    let s = String::from_utf8_lossy(strip_terminator(rec));
                    e.text[side] = Some(printable(&s));
                    e.raw[side] = Some(strip_terminator(rec).to_vec());
                    if e.key_text.is_empty() && !shape.key.is_empty() {
                        e.key = h.key().to_vec();
                        e.key_text = h.key_text(shape, rec);
                    }
                }
            }
        }
    }
}

/// The columns in which records `recs` (the CSV side's, whose NULL is `nulls[0]`, and the
/// target's) differ in canonical form, each with its two values: a long record is cut in
/// its printed line, so the change may not show there (issue 35 item 4).
pub(super) fn column_lines(
    shape: &Shape,
    nulls: [&[u8]; 2],
    recs: [&[u8]; 2],
    lines: &mut Vec<String>,
) {
    let mut fields = [Vec::new(), Vec::new()];
    for s in 0..2 {
        if split_fields(recs[s], &mut fields[s]).is_err() {
            return;
        }
    }
    let value = |s: usize, i: usize| -> Option<Option<std::borrow::Cow<'_, [u8]>>> {
        let f = fields[s].get(i)?;
        Some((!f.is_null(recs[s], nulls[s])).then(|| f.value(recs[s])))
    };
    let n = fields[0].len().max(fields[1].len());
    for i in 0..n {
        let (a, b) = (value(0, i), value(1, i));
        let canon = |v: &Option<Option<std::borrow::Cow<'_, [u8]>>>| -> Option<Option<Vec<u8>>> {
            let v = v.as_ref()?;
            Some(v.as_ref().map(|v| {
                let mut o = Vec::new();
                match shape.types.get(i) {
                    Some(t) => canon::canonical_form(t, v, &mut o),
                    None => o.extend_from_slice(v),
                }
                o
            }))
        };
        if canon(&a) == canon(&b) {
            continue;
        }
        let name = shape.names.get(i).map_or("(extra field)", String::as_str);
        // Each value as an SQL literal and NULL bare: the text 'NULL' and SQL NULL differ.
        let text = |v: &Option<Option<std::borrow::Cow<'_, [u8]>>>| match v {
            None => "(no such field)".to_string(),
            Some(None) => "NULL".to_string(),
            Some(Some(v)) => format!("'{}'", String::from_utf8_lossy(v).replace('\'', "''")),
        };
        let (ta, tb) = (text(&a), text(&b));
        let at = first_difference(&ta, &tb);
        lines.push(format!("  column {name}: csv    {}", excerpt(&ta, at)));
        lines.push(format!("  column {name}: target {}", excerpt(&tb, at)));
    }
}

/// The character index where `a` and `b` first differ.
fn first_difference(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// A value for a message: control characters escaped; one longer than 200 characters cut
/// to a window around character `at` (where it differs from the other side's), `…` marking
/// what is left out.
fn excerpt(v: &str, at: usize) -> String {
    let n = v.chars().count();
    let (from, to) = if n <= 200 {
        (0, n)
    } else {
        let from = at.saturating_sub(80).min(n.saturating_sub(200));
        (from, (from + 200).min(n))
    };
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    for c in v.chars().skip(from).take(to - from) {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    if to < n {
        out.push('…');
    }
    out
}

/// A record for a message: control characters escaped, at most 300 characters.
fn printable(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 300 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}
