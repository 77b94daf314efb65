//! The parallel side: every record of a chunk checked for structure, types, NOT NULL and its key,
//! the problems found kept with the record's place.

use super::config::Config;
use crate::csv::records::{Chunk, Field, Malformed, split_fields_fast, strip_terminator};
use crate::keys::{self, KeyType};
use crate::pg::types::{PgType, excerpt};
use std::hash::Hash;

/// The checks, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// The input ends inside a quoted field.
    UnterminatedQuote,
    /// A `"` inside an unquoted field.
    BareQuote,
    /// Text after the closing quote of a field.
    TextAfterQuote,
    /// Not the table's number of fields.
    FieldCount,
    /// Bytes that are not UTF-8.
    InvalidUtf8,
    /// A NUL byte.
    NulByte,
    /// An empty line.
    BlankLine,
    /// A line ending different from the first record's, or a bare CR.
    LineEnding,
    /// A line `\.` that PostgreSQL takes as end of data.
    EndMarker,
    /// A value PostgreSQL's input function refuses.
    Type,
    /// NULL in a NOT NULL column.
    NotNull,
    /// Same key as an earlier record.
    DuplicateKey,
    /// Key smaller than the previous record's (with --sorted).
    KeyOrder,
}

impl Check {
    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Check::UnterminatedQuote => "unterminated-quote",
            Check::BareQuote => "bare-quote",
            Check::TextAfterQuote => "text-after-quote",
            Check::FieldCount => "field-count",
            Check::InvalidUtf8 => "invalid-utf8",
            Check::NulByte => "nul-byte",
            Check::BlankLine => "blank-line",
            Check::LineEnding => "line-ending",
            Check::EndMarker => "end-of-data-marker",
            Check::Type => "type",
            Check::NotNull => "not-null",
            Check::DuplicateKey => "duplicate-key",
            Check::KeyOrder => "key-order",
        }
    }

    /// What the count of problems under [`Check::name`] counts, for the report's summary
    /// (`type: 2 values their column's type does not accept`).
    pub fn meaning(name: &str) -> &'static str {
        match name {
            "unterminated-quote" => "records the input ends inside a quoted field of",
            "bare-quote" => "fields with a \" inside an unquoted field",
            "text-after-quote" => "fields with text after their closing quote",
            "field-count" => "records with another number of fields than the table's columns",
            "invalid-utf8" => "records with bytes that are not UTF-8",
            "nul-byte" => "records with a NUL byte (PostgreSQL refuses it in text)",
            "blank-line" => "blank lines",
            "line-ending" => "records ending in another line ending than the first (or a bare CR)",
            "end-of-data-marker" => "lines \\. that PostgreSQL takes for the end of the data",
            "type" => "values their column's type does not accept",
            "not-null" => "NULLs in NOT NULL columns",
            "duplicate-key" => "records with the primary key of an earlier record",
            "key-order" => "records whose key sorts before the previous record's (--sorted)",
            _ => "problems",
        }
    }
}

/// One problem with one record.
#[derive(Debug, Clone)]
pub(super) struct Problem {
    /// Record index in its chunk.
    pub(super) rec: usize,
    pub(super) check: Check,
    pub(super) col: Option<usize>,
    pub(super) msg: String,
    pub(super) excerpt: String,
    /// Filled in after the chunk is checked: line and byte position.
    pub(super) line: u64,
    pub(super) byte: u64,
}

/// A chunk's outcome.
#[derive(Default)]
pub(super) struct Checked {
    pub(super) problems: Vec<Problem>,
    /// Hash-mode keys: (record index, 128-bit key hash).
    pub(super) hashes: Vec<(usize, u128)>,
    /// Sorted mode: first and last key (record index, encoded key).
    pub(super) first_key: Option<(usize, Vec<u8>)>,
    pub(super) last_key: Option<Vec<u8>>,
    /// Blank lines read as records of a one-column table.
    pub(super) blank_rows: u64,
}

/// Everything the workers need, shared read-only.
pub(super) struct Ctx<'a> {
    pub(super) cfg: &'a Config,
    pub(super) width: usize,
    pub(super) crlf: bool,
    /// Per column: needs a value check.
    pub(super) typed: Vec<bool>,
    pub(super) key: Vec<usize>,
    /// How each key column compares, in key order.
    pub(super) key_cols: Vec<KeyCol>,
    /// Keys so packed fit in 16 bytes and are used exactly; `None`: keys are hashed.
    pub(super) exact_widths: Option<Vec<Exact>>,
}

/// How a key column goes into a 16-byte exact key (the duplicate check needs equality only,
/// not order).
#[derive(Clone, Copy)]
pub(super) enum Exact {
    /// Its encoding padded with zeros to this width ([`KeyType::max_width`]): encodings are
    /// prefix-free, so padded ones stay distinct.
    Pad(usize),
    /// An integer column's value (in the column type's range, checked before) as this many
    /// big-endian bytes, one byte less than its encoding, so that four int4 columns fit.
    Int(usize),
}

/// One key column's comparison: pksort's key type and direction.
#[derive(Clone)]
pub(super) struct KeyCol {
    pub(super) ty: KeyType,
    pub(super) desc: bool,
}

pub(super) fn problem(
    rec: usize,
    check: Check,
    col: Option<usize>,
    msg: String,
    ex: String,
) -> Problem {
    Problem {
        rec,
        check,
        col,
        msg,
        excerpt: ex,
        line: 0,
        byte: 0,
    }
}

/// How key column `k` (in key order) of type `col_ty` compares: the type from `--key`, else
/// the column type's key order as in pksort (bytewise when it has none), and the direction.
pub(super) fn key_col(cfg: &Config, k: usize, col_ty: &PgType) -> KeyCol {
    KeyCol {
        ty: cfg
            .key_types
            .get(k)
            .copied()
            .flatten()
            .or_else(|| KeyType::from_pg_type(col_ty))
            .unwrap_or(KeyType::Text),
        desc: cfg.key_desc.get(k).copied().unwrap_or(false),
    }
}

/// The padded width of each key column, when all are bounded and together fit in 16 bytes:
/// such keys are used as they are, with no hashing and so no collisions.
pub(super) fn exact_key_widths(cols: &[KeyCol], types: &[PgType]) -> Option<Vec<Exact>> {
    let w: Vec<Exact> = cols
        .iter()
        .zip(types)
        .map(|(c, t)| {
            let base = match t {
                PgType::Domain(d) => &d.base,
                t => t,
            };
            match (c.ty, base) {
                (KeyType::Int, PgType::Int2) => Some(Exact::Int(2)),
                (KeyType::Int, PgType::Int4) => Some(Exact::Int(4)),
                (KeyType::Int, PgType::Int8) => Some(Exact::Int(8)),
                _ => c.ty.max_width(t).map(Exact::Pad),
            }
        })
        .collect::<Option<_>>()?;
    let total: usize = w
        .iter()
        .map(|e| match e {
            Exact::Pad(n) | Exact::Int(n) => n,
        })
        .sum();
    (total <= 16).then_some(w)
}

pub(super) fn record_excerpt(rec: &[u8]) -> String {
    excerpt(strip_terminator(rec))
}

/// Checks every record of a chunk. `skip_first` skips a header record.
pub(super) fn check_chunk(ctx: &Ctx, chunk: &Chunk, skip_first: bool) -> Checked {
    let mut out = Checked::default();
    let utf8_ok = simdutf8::basic::from_utf8(&chunk.data).is_ok();
    let nul_free = memchr::memchr(0, &chunk.data).is_none();
    let cr_free = memchr::memchr(b'\r', &chunk.data).is_none();
    let mut fields: Vec<Field> = Vec::with_capacity(ctx.width.max(1) + 1);
    let mut keybuf: Vec<u8> = Vec::with_capacity(64);
    // A quoted field's value with its doubled quotes undoubled, reused across fields
    // (`Field::value_in`): a jsonb document allocated a copy per value.
    let mut scratch: Vec<u8> = Vec::new();
    let mut prev_key: Option<Vec<u8>> = None;
    let null = ctx.cfg.null.as_slice();
    for i in 0..chunk.len() {
        if i == 0 && skip_first {
            continue;
        }
        let rec = chunk.record(i);
        let nprob = out.problems.len();
        let body = strip_terminator(rec);
        if rec.last() == Some(&b'\n') && rec.ends_with(b"\r\n") != ctx.crlf {
            out.problems.push(problem(
                i,
                Check::LineEnding,
                None,
                format!(
                    "record ends with {} but the file's first record with {}",
                    if ctx.crlf { "LF" } else { "CRLF" },
                    if ctx.crlf { "CRLF" } else { "LF" }
                ),
                record_excerpt(rec),
            ));
        }
        if body.is_empty() {
            if ctx.width == 1 {
                // PostgreSQL's COPY reads it as one unquoted empty field: the NULL row of a
                // one-column table (pg_dump's data has them), checked like any record.
                out.blank_rows += 1;
            } else {
                out.problems.push(problem(
                    i,
                    Check::BlankLine,
                    None,
                    crate::csv::records::BLANK_LINE_WORDS.into(),
                    String::new(),
                ));
                continue;
            }
        }
        if body == b"\\." {
            out.problems.push(problem(
                i,
                Check::EndMarker,
                None,
                crate::csv::records::END_MARKER_WORDS.into(),
                "\\.".into(),
            ));
            continue;
        }
        if !nul_free && memchr::memchr(0, rec).is_some() {
            out.problems.push(problem(
                i,
                Check::NulByte,
                None,
                "NUL byte (PostgreSQL text cannot hold it)".into(),
                record_excerpt(rec),
            ));
        }
        let text_ok = utf8_ok || std::str::from_utf8(rec).is_ok();
        if !text_ok {
            let at = std::str::from_utf8(rec)
                .err()
                .map_or(0, |e| e.valid_up_to());
            out.problems.push(problem(
                i,
                Check::InvalidUtf8,
                None,
                format!("invalid UTF-8 at byte {at} of the record"),
                record_excerpt(rec),
            ));
        }
        if let Err(m) = split_fields_fast(rec, body, &mut fields) {
            let check = match m {
                Malformed::BareQuote(_) => Check::BareQuote,
                Malformed::TextAfterQuote(_) => Check::TextAfterQuote,
                Malformed::Unterminated => Check::UnterminatedQuote,
            };
            out.problems
                .push(problem(i, check, None, m.words(), record_excerpt(rec)));
            continue;
        }
        if fields.len() != ctx.width {
            out.problems.push(problem(
                i,
                Check::FieldCount,
                None,
                format!("{} fields, expected {}", fields.len(), ctx.width),
                record_excerpt(rec),
            ));
            continue;
        }
        if !cr_free && memchr::memchr(b'\r', body).is_some() {
            for (c, f) in fields.iter().enumerate() {
                if !f.quoted && memchr::memchr(b'\r', f.raw(rec)).is_some() {
                    out.problems.push(problem(
                        i,
                        Check::LineEnding,
                        Some(c),
                        "carriage return in an unquoted field".into(),
                        excerpt(f.raw(rec)),
                    ));
                }
            }
        }
        if !text_ok {
            continue;
        }
        for (c, col) in ctx.cfg.columns.iter().enumerate() {
            let f = &fields[c];
            let raw = f.raw(rec);
            if !f.quoted && raw == null {
                if col.not_null {
                    out.problems.push(problem(
                        i,
                        Check::NotNull,
                        Some(c),
                        "NULL in a NOT NULL column".into(),
                        String::new(),
                    ));
                }
                continue;
            }
            if !ctx.typed[c] {
                continue;
            }
            // Unquoted fields (most of them) are checked in place, without a Cow.
            let res = if f.quoted {
                col.ty.check(f.value_in(rec, &mut scratch))
            } else {
                col.ty.check(raw)
            };
            if let Err(msg) = res {
                let ex = excerpt(&f.value(rec));
                out.problems.push(problem(i, Check::Type, Some(c), msg, ex));
            }
        }
        if ctx.key.is_empty() || out.problems.len() > nprob {
            continue;
        }
        // pksort's memcomparable encoding (`keys::encode`), so that the order checked here is
        // the order pksort sorts to, and equal keys are equal values (1.5 = 1.50).
        keybuf.clear();
        let mut ok = true;
        for (k, &c) in ctx.key.iter().enumerate() {
            let kc = &ctx.key_cols[k];
            let v = fields[c].value(rec);
            let start = keybuf.len();
            let exact = ctx.exact_widths.as_ref().map(|w| w[k]);
            let encoded = match exact {
                // Equality is all the duplicate set needs: the value, parsed once.
                Some(Exact::Int(n)) => crate::pg::types::int_value(&v)
                    .map(|x| keybuf.extend_from_slice(&x.to_be_bytes()[8 - n..]))
                    .is_some(),
                _ => keys::encode(kc.ty, &v, &mut keybuf).is_ok(),
            };
            if !encoded {
                ok = false;
                out.problems.push(problem(
                    i,
                    Check::Type,
                    Some(c),
                    format!("not a valid {} key", kc.ty),
                    excerpt(&v),
                ));
                break;
            }
            if kc.desc {
                for b in &mut keybuf[start..] {
                    *b = !*b;
                }
            }
            if let Some(Exact::Pad(n)) = exact {
                keybuf.resize(start + n, 0);
            }
        }
        if !ok {
            continue;
        }
        if ctx.cfg.sorted {
            if let Some(p) = &prev_key {
                match keybuf.as_slice().cmp(p.as_slice()) {
                    std::cmp::Ordering::Equal => out.problems.push(problem(
                        i,
                        Check::DuplicateKey,
                        None,
                        "duplicate key (same as the previous record)".into(),
                        key_excerpt(rec, &fields, &ctx.key),
                    )),
                    std::cmp::Ordering::Less => out.problems.push(problem(
                        i,
                        Check::KeyOrder,
                        None,
                        "key out of order (smaller than the previous record's)".into(),
                        key_excerpt(rec, &fields, &ctx.key),
                    )),
                    std::cmp::Ordering::Greater => {}
                }
            } else {
                out.first_key = Some((i, keybuf.clone()));
            }
            match &mut prev_key {
                Some(p) => {
                    p.clear();
                    p.extend_from_slice(&keybuf);
                }
                None => prev_key = Some(keybuf.clone()),
            }
        } else {
            let k = if ctx.exact_widths.is_some() {
                keybuf.iter().fold(0u128, |a, &b| (a << 8) | b as u128)
            } else {
                crate::keys::keyset::hash128(&keybuf)
            };
            out.hashes.push((i, k));
        }
    }
    out.last_key = prev_key;
    locate(chunk, &mut out.problems);
    out
}

pub(super) fn key_excerpt(rec: &[u8], fields: &[Field], key: &[usize]) -> String {
    key.iter()
        .map(|&c| excerpt(&fields[c].value(rec)))
        .collect::<Vec<_>>()
        .join(",")
}

/// Fills in line and byte positions of problems (sorted by record), counting newlines once.
pub(super) fn locate(chunk: &Chunk, problems: &mut [Problem]) {
    let mut at = 0usize;
    let mut line = chunk.first_line;
    for p in problems.iter_mut() {
        let start = chunk.range(p.rec).start;
        if start >= at {
            line += memchr::memchr_iter(b'\n', &chunk.data[at..start]).count() as u64;
            at = start;
        }
        p.line = line;
        p.byte = chunk.first_byte + start as u64;
    }
}
