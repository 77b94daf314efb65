//! `csvload --verify content`: proves that every value arrived, not only that the row counts
//! agree. Each table gets an order-independent digest of its records from the CSV files and
//! another from the target (read back with `COPY (SELECT ...) TO STDOUT`); equal digests mean
//! equal multisets of records, value by value in each type's canonical form
//! ([`crate::pg::types::canon`]).
//!
//! The digest of a record is a 128-bit xxh3 of its canonical form (per field: NULL, or the
//! value's canonical bytes with their length, so NULL and '' differ). A table's digest is the
//! wrapping sum of its records' hashes and their count (a multiset digest: order and shard
//! boundaries do not matter, and a record loaded twice counts twice), kept also per bucket
//! of the primary key's hash (every record of one key lands in one bucket, so an `UPDATE`d
//! row shows as one bucket whose two sides differ). Differences are localized by a second
//! pass over the differing buckets only, which prints the records of both sides.
//!
//! The CSV side is read in a pass of its own, concurrently with the target's read (one
//! thread each per table, `-j` tables at once), rather than inside the load loop: the
//! figure is the same, and the load path stays as it is. Memory is flat: the records stream
//! through fixed buffers; the digests are a fixed table per table being compared.

use super::conn::Target;
use super::plan::{Plan, TablePlan, quote_ident};
use super::{load, server_message};
use crate::csv::records::{
    ChunkReader, Field, split_fields, split_fields_fast, split_fields_upto, strip_terminator,
};
use crate::io::error::{Error, Result};
use crate::io::names::Escaped;
use crate::pg::types::PgType;
use crate::pg::types::canon::{self, Form};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::Mutex;
use twox_hash::XxHash3_128;

/// What verification compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Verify {
    /// Row counts (and a csvsplit key's min and max) against the manifests.
    Count,
    /// Counts, then a digest of every value, from the CSV files and from the target.
    Content,
    /// Each table exists and its journal rows add up to the manifests' rows: what a run with
    /// nothing left to do checks, without counting a large database again.
    Journal,
    /// Nothing after the load (each file's COPY must still take every record its manifest
    /// counts): for a run verified later, as examples/migrate.mk verifies every table once
    /// after the post-data.
    None,
}

/// Key buckets per table: fine enough that the second pass reads few records.
pub const BUCKETS: usize = 1 << 16;

/// Most records held in memory by the second pass (over the differing buckets).
const DIFF_RECORDS: u64 = 50_000;

/// Session settings for reading values back, as pg_dump sets them for its own session
/// (DateStyle ISO, IntervalStyle postgres, extra_float_digits 3), plus hex bytea and UTC.
/// pg_dump writes timestamptz in its session's zone, which the dump does not record; the
/// values carry their offset, so both sides are compared as UTC instants anyway.
pub const SESSION: &str = "SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres'; \
     SET extra_float_digits = 3; SET bytea_output = 'hex'; SET TimeZone = 'UTC'";

/// The columns of a table as both sides are read: their types and which form the key.
#[derive(Debug, Clone)]
pub struct Shape {
    /// Column names, in the CSV's order.
    pub names: Vec<String>,
    /// The forms their values are compared in: the manifest's types where it names them
    /// (the CSV holds values of those types; a target column of another type that cannot
    /// hold them exactly must show as a difference, issue 35), else the target's.
    pub types: Vec<Form>,
    /// Indexes (into `names`) of the primary key's columns; empty: buckets by whole record.
    pub key: Vec<usize>,
    /// Columns whose type's text is the same for equal values whatever the session that
    /// printed it ([`Form::prints_alike`]): compared as text in the first pass.
    pub plain: Vec<bool>,
    /// Columns whose target type is not the manifest's: `c (double precision in the
    /// manifest, real on the target)`.
    pub retyped: Vec<String>,
}

/// A multiset digest: record count and the wrapping sum of the records' hashes, in all and
/// per key bucket.
pub struct Digest {
    /// Records.
    pub count: u64,
    /// Wrapping sum of their 128-bit hashes.
    pub sum: u128,
    /// The same per bucket.
    pub buckets: Vec<(u64, u128)>,
}

impl Default for Digest {
    fn default() -> Digest {
        Digest {
            count: 0,
            sum: 0,
            buckets: vec![(0, 0); BUCKETS],
        }
    }
}

impl Digest {
    fn add(&mut self, bucket: usize, h: u128) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(h);
        let b = &mut self.buckets[bucket];
        b.0 += 1;
        b.1 = b.1.wrapping_add(h);
    }

    /// The buckets whose count or sum differ.
    pub fn differing(&self, other: &Digest) -> Vec<usize> {
        (0..BUCKETS)
            .filter(|&i| self.buckets[i] != other.buckets[i])
            .collect()
    }
}

/// One record's hash and key, computed with buffers reused across records.
pub struct Hasher {
    fields: Vec<Field>,
    buf: Vec<u8>,
    key: Vec<u8>,
    /// A field's value with its doubled quotes undoubled ([`Field::value_in`]).
    scratch: Vec<u8>,
}

/// How a pass hashes a record's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The first pass: each value's text as it is, but for the columns whose text depends
    /// on the session that printed it (a `timestamptz`'s zone offset: not [`Shape::plain`]),
    /// which are in canonical form. Equal texts are equal values, so buckets that agree
    /// here agree in canonical form too; only buckets that differ need [`Mode::Canonical`].
    /// Most values need no parsing at all (issue 35, item 8).
    Text,
    /// [`Mode::Text`] when every column is [`Shape::plain`] and both sides write NULL
    /// alike: the record's bytes as they are, its fields not even split past the key.
    Whole,
    /// Every value in its type's canonical form.
    Canonical,
}

/// A hashed record.
pub struct Hashed {
    /// The record's 128-bit hash.
    pub hash: u128,
    /// Its key bucket.
    pub bucket: usize,
}

impl Default for Hasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher {
    /// Fresh buffers.
    pub fn new() -> Hasher {
        Hasher {
            fields: Vec::new(),
            buf: Vec::new(),
            key: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Hashes the raw CSV record `rec` of a table shaped `shape`, whose NULL is an unquoted
    /// field equal to `null` (COPY's CSV rule: a quoted field is never NULL), in `mode`.
    /// `None` when `want` is given and the record's key bucket is not in it (the record is
    /// not hashed at all). The canonical key bytes are left in [`Hasher::key`].
    pub fn record(
        &mut self,
        shape: &Shape,
        rec: &[u8],
        null: &[u8],
        mode: Mode,
        want: Option<&[bool]>,
    ) -> std::result::Result<Option<Hashed>, crate::csv::records::Malformed> {
        let body = strip_terminator(rec);
        self.key.clear();
        if mode == Mode::Whole && !shape.key.is_empty() {
            // The key's fields only: the record's bytes are hashed as they are.
            let upto = shape.key.iter().max().map_or(0, |&k| k + 1);
            split_fields_upto(rec, upto, &mut self.fields)?;
            let bucket = self.key_bucket(shape, body, null);
            if want.is_some_and(|w| !w[bucket]) {
                return Ok(None);
            }
            let hash = XxHash3_128::oneshot(body);
            return Ok(Some(Hashed { hash, bucket }));
        }
        split_fields_fast(rec, body, &mut self.fields)?;
        let keyed = !shape.key.is_empty();
        let mut bucket = 0;
        if keyed {
            bucket = self.key_bucket(shape, body, null);
            if want.is_some_and(|w| !w[bucket]) {
                return Ok(None);
            }
        }
        self.buf.clear();
        // A record with too few or too many fields still hashes (and then differs).
        self.buf
            .extend_from_slice(&(self.fields.len() as u32).to_le_bytes());
        for (i, f) in self.fields.iter().enumerate() {
            if f.is_null(body, null) {
                self.buf.push(0);
                continue;
            }
            self.buf.push(1);
            let v = f.value_in(body, &mut self.scratch);
            canon::framed(&mut self.buf, |out| match shape.types.get(i) {
                // The first pass takes a column's text as it is where both sides print
                // equal values alike (equal texts are equal values for every form).
                Some(_) if mode != Mode::Canonical && shape.plain[i] => out.extend_from_slice(v),
                Some(t) => canon::canonical_form(t, v, out),
                None => out.extend_from_slice(v),
            });
        }
        let hash = XxHash3_128::oneshot(&self.buf);
        if !keyed {
            bucket = (hash >> 64) as usize % BUCKETS;
            if want.is_some_and(|w| !w[bucket]) {
                return Ok(None);
            }
        }
        Ok(Some(Hashed { hash, bucket }))
    }

    /// The key bucket of the record whose fields were just split (the key's canonical
    /// bytes, left in `self.key`).
    fn key_bucket(&mut self, shape: &Shape, body: &[u8], null: &[u8]) -> usize {
        for &k in &shape.key {
            match self.fields.get(k) {
                Some(f) if !f.is_null(body, null) => {
                    let v = f.value_in(body, &mut self.scratch);
                    self.key.push(1);
                    canon::framed(&mut self.key, |out| {
                        canon::canonical_form(&shape.types[k], v, out)
                    });
                }
                _ => self.key.push(0),
            }
        }
        (twox_hash::XxHash64::oneshot(0, &self.key) as usize) % BUCKETS
    }

    /// The canonical key bytes of the last record hashed.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// `(a, b)=(1, x)`: the key columns' values of `rec` (the last record hashed) as written.
    fn key_text(&self, shape: &Shape, rec: &[u8]) -> String {
        let body = strip_terminator(rec);
        let names: Vec<&str> = shape.key.iter().map(|&k| shape.names[k].as_str()).collect();
        let vals: Vec<String> = shape
            .key
            .iter()
            .map(|&k| match self.fields.get(k) {
                Some(f) => String::from_utf8_lossy(&f.value(body)).into_owned(),
                None => "(missing)".into(),
            })
            .collect();
        format!("({})=({})", names.join(", "), vals.join(", "))
    }
}

/// How a pass reads the records: the hash's mode, and the key buckets it looks at (all
/// when `None`).
#[derive(Clone, Copy)]
struct How<'a> {
    mode: Mode,
    want: Option<&'a [bool]>,
}

/// Reads records from `r` (named `name` in messages), skipping a header, and hands each one
/// with its hash to `each` (those of the buckets `how` looks at). Returns the records read.
fn scan<R: Read>(
    r: R,
    name: &str,
    header: bool,
    shape: &Shape,
    null: &[u8],
    how: How,
    each: &mut dyn FnMut(&Hasher, &Hashed, &[u8]),
) -> Result<u64> {
    let mut cr = ChunkReader::new(r, name, 1 << 20);
    let mut h = Hasher::new();
    let mut buf = Vec::new();
    let mut skip = header;
    let mut n = 0;
    while let Some(c) = cr.next_chunk(buf)? {
        for i in 0..c.len() {
            if skip {
                skip = false;
                continue;
            }
            let rec = c.record(i);
            let x = h
                .record(shape, rec, null, how.mode, how.want)
                .map_err(|m| Error::input(c.pos(i, name), m.to_string()))?;
            if let Some(x) = x {
                each(&h, &x, rec);
            }
            n += 1;
        }
        buf = c.data;
    }
    Ok(n)
}

/// Reads the table's columns, types and primary key from the target's catalog, and puts
/// each column's values in the form of the manifest's type (or the target's, where the
/// manifest names none). Columns the catalog does not describe (a server without
/// `pg_attribute`) are compared as text.
pub fn shape(client: &mut postgres::Client, t: &TablePlan) -> Result<Shape> {
    let rows = client
        .query(
            "SELECT a.attname::text, a.atttypid::int8, a.atttypmod, \
                    format_type(a.atttypid, a.atttypmod), \
                    EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = a.attrelid \
                            AND i.indisprimary AND a.attnum = ANY (i.indkey)) \
             FROM pg_catalog.pg_attribute a \
             WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attnum",
            &[&t.sql_name()],
        )
        .map_err(|e| Error::Usage(format!("table {}: {}", t.display(), server_message(&e))))?;
    let mut cache = HashMap::new();
    let cat: Vec<(String, Form, String, bool)> = rows
        .iter()
        .map(|r| {
            let form = describe(client, r.get(1), r.get(2), &mut cache, 0);
            (r.get(0), form, r.get(3), r.get(4))
        })
        .collect();
    let names: Vec<String> = if t.columns.is_empty() {
        cat.iter().map(|c| c.0.clone()).collect()
    } else {
        t.columns.clone()
    };
    let mut types = Vec::with_capacity(names.len());
    let mut key = Vec::new();
    let mut retyped = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let manifest = t.types.get(i).and_then(|m| m.as_deref());
        let found = cat.iter().find(|c| &c.0 == n);
        if let Some((_, _, _, true)) = found {
            key.push(i);
        }
        let form = match (manifest, found) {
            (Some(m), Some((_, target, tname, _))) => {
                let mf = manifest_form(client, m, &mut cache);
                if !comparable(&mf, target) {
                    retyped.push(format!("{n} ({m} in the manifest, {tname} on the target)"));
                }
                mf
            }
            (Some(m), None) => manifest_form(client, m, &mut cache),
            (None, Some((_, target, _, _))) => target.clone(),
            (None, None) => Form::Base(PgType::Unknown("(not in the catalog)".into())),
        };
        types.push(form);
    }
    let pk_cols = cat.iter().filter(|c| c.3).count();
    if key.len() != pk_cols {
        // Part of the key is not loaded: buckets by whole record.
        key.clear();
    }
    let plain = types.iter().map(Form::prints_alike).collect();
    Ok(Shape {
        names,
        types,
        key,
        plain,
        retyped,
    })
}

/// Whether values of forms `a` and `b` compare alike: equal forms, where two types without a
/// form (compared as exact text either way) count as alike.
fn comparable(a: &Form, b: &Form) -> bool {
    match (a, b) {
        (Form::Base(PgType::Unknown(_)), Form::Base(PgType::Unknown(_))) => true,
        (Form::Range(x), Form::Range(y))
        | (Form::Multirange(x), Form::Multirange(y))
        | (Form::Array(x), Form::Array(y)) => comparable(x, y),
        (Form::Composite(x), Form::Composite(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| comparable(x, y))
        }
        _ => a == b,
    }
}

/// The form of a manifest's type name: a built-in type by its name; an enum, domain,
/// composite or range of the dump's schema as the target's catalog describes the type of
/// that name (the schema was loaded from the same dump).
fn manifest_form(
    client: &mut postgres::Client,
    name: &str,
    cache: &mut HashMap<(i64, i32), Form>,
) -> Form {
    let f = Form::from_name(name);
    if f.kind().is_some() {
        return f;
    }
    match client.query_opt("SELECT to_regtype($1)::oid::int8", &[&name]) {
        Ok(Some(r)) => match r.get::<_, Option<i64>>(0) {
            Some(oid) => describe(client, oid, -1, cache, 0),
            None => f,
        },
        _ => f,
    }
}

/// The form of type `oid` with modifier `typmod` on the target: domains as their base,
/// enums as text, ranges and multiranges by their subtype, composites by their fields,
/// arrays by their element, the rest by name ([`Form::from_name`]). A catalog that cannot
/// answer (another server kind) gives an unknown type, compared as exact text.
fn describe(
    client: &mut postgres::Client,
    oid: i64,
    typmod: i32,
    cache: &mut HashMap<(i64, i32), Form>,
    depth: usize,
) -> Form {
    if let Some(f) = cache.get(&(oid, typmod)) {
        return f.clone();
    }
    let f = describe_uncached(client, oid, typmod, cache, depth);
    cache.insert((oid, typmod), f.clone());
    f
}

fn describe_uncached(
    client: &mut postgres::Client,
    oid: i64,
    typmod: i32,
    cache: &mut HashMap<(i64, i32), Form>,
    depth: usize,
) -> Form {
    let unknown = |n: String| Form::Base(PgType::Unknown(n));
    if depth > 8 {
        return unknown(format!("(type {oid} nested too deeply)"));
    }
    let row = client.query_opt(
        "SELECT t.typtype::text, t.typcategory::text, t.typelem::int8, t.typbasetype::int8, \
                t.typtypmod, t.typrelid::int8, format_type(t.oid, $2) \
         FROM pg_catalog.pg_type t WHERE t.oid = $1::int8::oid",
        &[&oid, &typmod],
    );
    let Ok(Some(r)) = row else {
        return unknown(format!("(type {oid})"));
    };
    let (typtype, category, elem, base, base_mod, rel, name): (
        String,
        String,
        i64,
        i64,
        i32,
        i64,
        String,
    ) = (
        r.get(0),
        r.get(1),
        r.get(2),
        r.get(3),
        r.get(4),
        r.get(5),
        r.get(6),
    );
    match typtype.as_str() {
        "d" => describe(client, base, base_mod, cache, depth + 1),
        "e" => Form::Base(PgType::Text),
        "r" | "m" => {
            let col = if typtype == "r" {
                "rngtypid"
            } else {
                "rngmultitypid"
            };
            let sql = format!(
                "SELECT rngsubtype::int8 FROM pg_catalog.pg_range WHERE {col} = $1::int8::oid"
            );
            match client.query_opt(&sql, &[&oid]) {
                Ok(Some(r)) => {
                    let sub = Box::new(describe(client, r.get(0), -1, cache, depth + 1));
                    if typtype == "r" {
                        Form::Range(sub)
                    } else {
                        Form::Multirange(sub)
                    }
                }
                _ => unknown(name),
            }
        }
        "c" => {
            let fields = client.query(
                "SELECT a.atttypid::int8, a.atttypmod FROM pg_catalog.pg_attribute a \
                 WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped \
                 ORDER BY a.attnum",
                &[&rel],
            );
            match fields {
                Ok(rows) => Form::Composite(
                    rows.iter()
                        .map(|f| describe(client, f.get(0), f.get(1), cache, depth + 1))
                        .collect(),
                ),
                Err(_) => unknown(name),
            }
        }
        _ if category == "A" && elem != 0 => {
            Form::Array(Box::new(describe(client, elem, typmod, cache, depth + 1)))
        }
        _ => Form::from_name(&name),
    }
}

/// `COPY (SELECT <columns> FROM t) TO STDOUT (FORMAT csv, NULL '')`: NULL unquoted and
/// empty, '' quoted.
fn copy_out_sql(client: &mut postgres::Client, t: &TablePlan, shape: &Shape) -> String {
    let cols: Vec<String> = shape.names.iter().map(|c| quote_ident(c)).collect();
    format!(
        "COPY (SELECT {} FROM {}) TO STDOUT WITH (FORMAT csv, NULL '')",
        cols.join(", "),
        load::from_item(client, t)
    )
}

/// Which records a pass looks at, and what it keeps of them.
enum Pass<'a> {
    /// All records, into a digest.
    Digest(Digest),
    /// Records of the chosen buckets, into a map of differences.
    Diff(&'a [bool], Diffs),
}

/// The second pass's tally: per record hash, how often each side has it, the record as each
/// side wrote it, and its key.
#[derive(Default)]
struct Diffs {
    map: HashMap<u128, DiffEntry>,
}

#[derive(Default)]
struct DiffEntry {
    n: [u64; 2],
    text: [Option<String>; 2],
    /// Each side's record as read, to name the columns that differ.
    raw: [Option<Vec<u8>>; 2],
    key: Vec<u8>,
    key_text: String,
}

impl Pass<'_> {
    fn take(&mut self, side: usize, shape: &Shape, h: &Hasher, x: &Hashed, rec: &[u8]) {
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
fn column_lines(shape: &Shape, nulls: [&[u8]; 2], recs: [&[u8]; 2], lines: &mut Vec<String>) {
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
        let text = |v: &Option<Option<std::borrow::Cow<'_, [u8]>>>| match v {
            None => "(no such field)".to_string(),
            Some(None) => "NULL".to_string(),
            Some(Some(v)) => String::from_utf8_lossy(v).into_owned(),
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

/// Records of a table's first CSV file that [`utc_columns`] looks at.
const SAMPLE_RECORDS: usize = 1000;

/// Compares the table's `timestamptz` columns as text in the first pass (marks them
/// [`Shape::plain`]) when the first records of its first CSV file print every one of them
/// in UTC, as the target's session does ([`SESSION`]): a dump taken under UTC then costs
/// no parse of them on either side. Sound whatever the rest of the file holds: equal texts
/// are equal instants, and a record whose text differs (another offset for the same
/// instant) only sends its bucket to the canonical pass, as a dump taken in another zone
/// sends every bucket. Measured on the issue-36 notes table (one `timestamptz` of five
/// columns, 1M rows): docs/benchmarks.md, "Ninth run". Only a regular file is looked at
/// (a pipe would be read twice), and best effort: a file that cannot be read here is
/// reported by the pass that reads it whole, as before.
fn utc_columns(plan: &Plan, ti: usize, shape: &mut Shape) {
    let cols: Vec<usize> = (0..shape.types.len())
        .filter(|&i| !shape.plain[i] && shape.types[i] == Form::Base(PgType::TimestampTz))
        .collect();
    let Some(f) = plan.files.iter().find(|f| f.table == ti) else {
        return;
    };
    if cols.is_empty() || !std::fs::metadata(&f.path).is_ok_and(|m| m.is_file()) {
        return;
    }
    // Decompressed on this thread: a sample needs no reader threads left to wind down.
    let Ok(inp) = crate::io::input::open_with(Some(&f.path), false) else {
        return;
    };
    let mut cr = ChunkReader::new(inp.reader, &inp.name, 1 << 16);
    let Ok(Some(c)) = cr.next_chunk(Vec::new()) else {
        return;
    };
    let skip = usize::from(f.header);
    let recs = (skip..c.len().min(skip + SAMPLE_RECORDS)).map(|i| c.record(i));
    for k in utc_in(recs, &cols, plan.tables[ti].null.as_bytes()) {
        shape.plain[k] = true;
    }
}

/// Of the columns `cols`, those that hold a value in `recs` and whose every value there
/// ends in `+00` (a `timestamptz` printed in UTC; not `infinity`, nor a BC date). None
/// when a record does not split.
fn utc_in<'a>(recs: impl Iterator<Item = &'a [u8]>, cols: &[usize], null: &[u8]) -> Vec<usize> {
    let mut fields = Vec::new();
    let mut seen = vec![false; cols.len()];
    for rec in recs {
        let body = strip_terminator(rec);
        if split_fields_fast(rec, body, &mut fields).is_err() {
            return Vec::new();
        }
        for (j, &k) in cols.iter().enumerate() {
            match fields.get(k) {
                Some(f) if !f.is_null(body, null) => {
                    if !f.value(body).ends_with(b"+00") {
                        return Vec::new();
                    }
                    seen[j] = true;
                }
                _ => {}
            }
        }
    }
    cols.iter()
        .zip(seen)
        .filter_map(|(&k, s)| s.then_some(k))
        .collect()
}

/// Reads the CSV side (side 0) of table `ti` into `pass`.
fn csv_side(plan: &Plan, ti: usize, shape: &Shape, how: How, pass: &mut Pass) -> Result<u64> {
    let t = &plan.tables[ti];
    let mut n = 0;
    // A file loaded as parts is read once, whole.
    for f in plan
        .files
        .iter()
        .filter(|f| f.table == ti && f.first_of_file())
    {
        let inp = crate::io::input::open(Some(&f.path))?;
        let name = inp.name.clone();
        n += scan(
            inp.reader,
            &name,
            f.header,
            shape,
            t.null.as_bytes(),
            how,
            &mut |h, x, rec| pass.take(0, shape, h, x, rec),
        )?;
    }
    Ok(n)
}

/// Reads the target side (side 1) of table `t` into `pass`.
fn target_side(
    client: &mut postgres::Client,
    t: &TablePlan,
    shape: &Shape,
    how: How,
    pass: &mut Pass,
) -> Result<u64> {
    let sql = copy_out_sql(client, t, shape);
    let name = format!("table {} on the target", t.display());
    let err = |e: postgres::Error| Error::Usage(format!("{name}: {}", server_message(&e)));
    let r = client.copy_out(&sql).map_err(err)?;
    scan(r, &name, false, shape, b"", how, &mut |h, x, rec| {
        pass.take(1, shape, h, x, rec)
    })
}

/// The result of one table's comparison, printed in plan order.
struct Report {
    csv: u64,
    target: u64,
    ok: bool,
    lines: Vec<String>,
    text_cols: Vec<String>,
    retyped: Vec<String>,
}

/// Compares one table's content: both sides at once, then, if they differ and `diff` > 0, a
/// second pass over the differing buckets.
fn table(client: &mut postgres::Client, plan: &Plan, ti: usize, diff: u64) -> Result<Report> {
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
        let k: Vec<&str> = shape.key.iter().map(|&k| shape.names[k].as_str()).collect();
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

/// `--verify content`: every table of the plan, `jobs` at once, each on its own connection
/// with [`SESSION`] settings. Prints a line per table (and the differences) on stdout; exit 1
/// when any table differs.
pub fn content(target: &Target, plan: &Plan, jobs: usize, diff: u64, quiet: bool) -> Result<()> {
    let n = plan.tables.len();
    let next = Mutex::new(0usize);
    let reports: Mutex<Vec<Option<Report>>> = Mutex::new((0..n).map(|_| None).collect());
    let fatal: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            s.spawn(|| {
                let fail = |e: Error| {
                    fatal.lock().unwrap().get_or_insert(e);
                };
                let mut client = match target.connect() {
                    Ok(c) => c,
                    Err(e) => return fail(e),
                };
                if let Err(e) = client.batch_execute(SESSION) {
                    return fail(Error::Usage(format!(
                        "setting up the verification session: {}",
                        server_message(&e)
                    )));
                }
                loop {
                    if fatal.lock().unwrap().is_some() {
                        return;
                    }
                    let ti = {
                        let mut k = next.lock().unwrap();
                        if *k >= n {
                            return;
                        }
                        *k += 1;
                        *k - 1
                    };
                    match table(&mut client, plan, ti, diff) {
                        Ok(r) => reports.lock().unwrap()[ti] = Some(r),
                        Err(e) => return fail(e),
                    }
                }
            });
        }
    });
    if let Some(e) = fatal.into_inner().unwrap() {
        return Err(e);
    }
    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| Error::io("<stdout>", e);
    let mut bad = Vec::new();
    if !quiet && n > 0 {
        writeln!(
            out,
            "{:<40} {:>12} {:>12}  content",
            "table", "csv records", "target rows"
        )
        .map_err(w)?;
    }
    for (t, r) in plan.tables.iter().zip(reports.into_inner().unwrap()) {
        let r = r.expect("every table reported");
        if !r.ok {
            bad.push(t.display());
        }
        if !quiet || !r.ok {
            writeln!(out, "{}", table_row(&t.display(), r.csv, r.target, r.ok)).map_err(w)?;
        }
        for l in &r.lines {
            // Keys and values from the files and the target: one line each on the terminal,
            // their control characters escaped (a value cannot repaint a row as "ok").
            writeln!(out, "{}", Escaped(l)).map_err(w)?;
        }
        if !r.retyped.is_empty() {
            // Not only without -q: this says why a table differs, or that it was compared
            // by types the target does not have.
            eprintln!(
                "csvload: warning: {}: compared by the manifest's types, which the target's columns do not have (a value the target's type does not keep exactly is a difference): {}",
                Escaped(t.display()),
                Escaped(r.retyped.join(", "))
            );
        }
        if !quiet && !r.text_cols.is_empty() {
            eprintln!(
                "csvload: {}: compared as exact text (no canonical form for the type): {}",
                Escaped(t.display()),
                Escaped(r.text_cols.join(", "))
            );
        }
    }
    out.flush().map_err(w)?;
    if !bad.is_empty() {
        return Err(Error::Found(format!(
            "content verification failed: {} table(s) differ from the CSV files: {}",
            bad.len(),
            bad.join(", ")
        )));
    }
    Ok(())
}

/// One row of the content verification table, the table's name escaped for the terminal
/// (a name from a hostile dump cannot move the cursor or forge a row of its own).
fn table_row(name: &str, csv: u64, target: u64, ok: bool) -> String {
    format!(
        "{:<40} {:>12} {:>12}  {}",
        Escaped(name),
        csv,
        target,
        if ok { "ok" } else { "DIFFERENT" }
    )
}

#[cfg(test)]
mod tests {
    /// Which `timestamptz` columns the first pass may take as text: every value in the
    /// sample in UTC, NULLs (unquoted, equal to the NULL string) skipped; none when one
    /// value is at another offset, `infinity` or BC, or a record does not split.
    #[test]
    fn utc_columns_only_when_every_sampled_value_is_in_utc() {
        let utc = |csv: &str, null: &str| {
            let recs: Vec<&[u8]> = csv.split_inclusive('\n').map(str::as_bytes).collect();
            super::utc_in(recs.into_iter(), &[1, 2], null.as_bytes())
        };
        let a = "1,2026-01-01 00:00:00+00,\"2026-01-02 10:00:00.5+00\"\n";
        let b = "2,,2026-03-01 00:00:00+00\n";
        assert_eq!(utc(&format!("{a}{b}"), ""), vec![1, 2]);
        // A column with only NULLs in the sample stays canonical; a quoted empty field is a
        // value (COPY's CSV rule).
        assert_eq!(utc(b, ""), vec![2]);
        assert_eq!(
            utc("3,\"\",2026-03-01 00:00:00+00\n", ""),
            Vec::<usize>::new()
        );
        // Another NULL string: the empty field is a value.
        assert_eq!(utc(b, "\\N"), Vec::<usize>::new());
        for other in [
            "2026-01-01 05:45:00+05:45",
            "2026-01-01 01:00:00+01",
            "infinity",
            "0044-03-15 00:00:00+00 BC",
        ] {
            let c = format!("4,{other},2026-01-01 00:00:00+00\n");
            assert_eq!(utc(&format!("{a}{c}"), ""), Vec::<usize>::new(), "{other}");
        }
        assert_eq!(utc(&format!("{a}5,\"x\"y,1\n"), ""), Vec::<usize>::new());
    }

    #[test]
    fn table_rows_escape_control_characters() {
        // Issue 19 item 17: the content table printed names raw (ESC and CR reached the
        // terminal).
        let row = super::table_row("public.t\x1b[1A\rx", 2, 2, false);
        assert!(!row.chars().any(|c| c.is_control()), "{row:?}");
        assert!(row.contains("\\x1b") && row.contains("\\r") && row.ends_with("DIFFERENT"));
    }
}
