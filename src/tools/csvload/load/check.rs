//! `--check-records`: a record's form refused as csvcheck refuses it, and a primary key that
//! an earlier record of the table had in this run, both found while the records load and
//! before their transaction commits; the values' types are left to the server's own input.

use crate::csv::records::{Field, split_fields_fast, strip_terminator};
use crate::keys::keyset::{BYTES_PER_KEY, KeySet, hash128};
use crate::pg::types::excerpt;
use crate::tools::csvload::plan::KeyCol;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Memory the key sets may take together (csvcheck's default `--max-memory`): past it, keys
/// are no longer looked for, with a note.
const MAX_KEY_BYTES: u64 = 1 << 30;

/// Bits of a key's record id that hold its record number; the bits above hold its file.
const RECORD_BITS: u32 = 40;

/// Every table's keys seen this run, shared by the workers: a 128-bit hash of each key
/// (pksort's encoding, so `1.5` and `1.50` are one key) with the file and record it came
/// from.
pub struct Keys {
    sets: Vec<Mutex<KeySet>>,
    held: AtomicU64,
    full: AtomicBool,
}

impl Keys {
    /// Empty sets for `tables` tables.
    pub fn new(tables: usize) -> Keys {
        Keys {
            sets: (0..tables).map(|_| Mutex::default()).collect(),
            held: AtomicU64::new(0),
            full: AtomicBool::new(false),
        }
    }
}

/// One file's check: what its records must look like, and its keys not yet in the table's set.
pub struct Checker<'a> {
    keys: &'a Keys,
    table: usize,
    /// The key's columns; empty: no key check.
    key: &'a [KeyCol],
    /// Every key column an integer, together at most 16 bytes: the key is its values'
    /// bytes, exact (no hash).
    exact: bool,
    /// The key columns' names, for messages.
    key_names: String,
    /// The unquoted NULL token (a NULL key is the server's to refuse).
    null: &'a [u8],
    /// Fields per record (0: as many as the first record has).
    width: usize,
    /// The file's number in the plan plus one: the high bits of its records' ids.
    file: u64,
    /// Names a file by that number, for a key first seen in another file.
    file_name: &'a dyn Fn(u64) -> String,
    /// The record number of index 0 of the records being checked.
    pub base: u64,
    /// The first record's line end seen in this file (true: CRLF), for the text paths.
    crlf: Option<bool>,
    keybuf: Vec<u8>,
    fields: Vec<Field>,
    /// (key hash, record id, index) of the records checked since the last [`Checker::keys`].
    pending: Vec<(u128, u64, usize)>,
}

impl<'a> Checker<'a> {
    /// The check of file `file` (its index in the plan) of table `table`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        keys: &'a Keys,
        table: usize,
        key: &'a [KeyCol],
        columns: &[String],
        null: &'a [u8],
        width: usize,
        file: usize,
        file_name: &'a dyn Fn(u64) -> String,
    ) -> Checker<'a> {
        let key_names = key
            .iter()
            .map(|k| columns.get(k.col).map_or("?", String::as_str))
            .collect::<Vec<_>>()
            .join(", ");
        let exact = key.iter().all(|k| k.int_bytes > 0)
            && key.iter().map(|k| usize::from(k.int_bytes)).sum::<usize>() <= 16;
        Checker {
            keys,
            table,
            key,
            exact,
            key_names,
            null,
            width,
            file: file as u64 + 1,
            file_name,
            base: 1,
            crlf: None,
            keybuf: Vec::new(),
            fields: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Takes the key of record `k` (split into `fields`) for [`Checker::keys`]. A key that is
    /// NULL or not in its type's form is left to the server, which refuses it.
    pub fn record(&mut self, k: usize, rec: &[u8], fields: &[Field]) -> Result<(), String> {
        if self.key.is_empty() || self.keys.full.load(Ordering::Relaxed) {
            return Ok(());
        }
        let mut exact = 0u128;
        self.keybuf.clear();
        for kc in self.key {
            let f = &fields[kc.col];
            if !f.quoted && f.raw(rec) == self.null {
                return Ok(());
            }
            if self.exact {
                // The integer's own bytes (as csvcheck keeps such keys): no encoding, no hash.
                let bits = 8 * u32::from(kc.int_bytes);
                let Some(v) = crate::pg::types::int_value(&f.value(rec)) else {
                    return Ok(());
                };
                if bits < 64 && (v >> (bits - 1) != 0 && v >> (bits - 1) != -1) {
                    return Ok(());
                }
                exact = (exact << bits) | (v as u64 as u128 & ((1u128 << bits) - 1));
            } else if crate::keys::encode(kc.ty, &f.value(rec), &mut self.keybuf).is_err() {
                return Ok(());
            }
        }
        let id = (self.file << RECORD_BITS) | (self.base + k as u64);
        let key = if self.exact {
            exact
        } else {
            hash128(&self.keybuf)
        };
        self.pending.push((key, id, k));
        Ok(())
    }

    /// Checks record `k` as csvcheck checks a record's form (for the paths that do not split
    /// records into binary COPY, which checks the same as it splits), then takes its key.
    pub fn form(&mut self, k: usize, rec: &[u8]) -> Result<(), String> {
        let body = strip_terminator(rec);
        if rec.last() == Some(&b'\n') {
            let crlf = rec.ends_with(b"\r\n");
            let first = *self.crlf.get_or_insert(crlf);
            if crlf != first {
                let name = |c: bool| if c { "CRLF" } else { "LF" };
                return Err(format!(
                    "record ends with {} but the file's first record with {}",
                    name(crlf),
                    name(first)
                ));
            }
        }
        if body.is_empty() && self.width != 1 {
            return Err(crate::csv::records::BLANK_LINE_WORDS.into());
        }
        if body == b"\\." {
            return Err(crate::csv::records::END_MARKER_WORDS.into());
        }
        let mut fields = std::mem::take(&mut self.fields);
        let res = (|| {
            split_fields_fast(rec, body, &mut fields).map_err(|m| m.words())?;
            // A plan without a column list: the first record says how many.
            if self.width == 0 {
                self.width = fields.len();
            }
            if fields.len() != self.width {
                return Err(format!("{} fields, expected {}", fields.len(), self.width));
            }
            if memchr::memchr(b'\r', body).is_some()
                && fields
                    .iter()
                    .any(|f| !f.quoted && memchr::memchr(b'\r', f.raw(rec)).is_some())
            {
                return Err("carriage return in an unquoted field".into());
            }
            self.record(k, rec, &fields)
        })();
        self.fields = fields;
        res
    }

    /// Puts the keys taken since the last call into the table's set: `Err((k, why))` for the
    /// first record `k` whose key an earlier record had (in this file or another of the
    /// table's this run). The same record sent again (a retry, or COPY text after binary) is
    /// not a duplicate of itself. `rec_of` gives record `k` again, for the key's values in
    /// the message.
    pub fn keys<'r>(&mut self, rec_of: impl Fn(usize) -> &'r [u8]) -> Result<(), (usize, String)> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut set = self.keys.sets[self.table]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let before = set.len();
        let mut dup = None;
        // The set is far larger than the caches: its slots are fetched some keys ahead.
        for p in self.pending.iter().take(8) {
            set.prefetch(p.0);
        }
        for (n, &(h, id, k)) in self.pending.iter().enumerate() {
            if let Some(p) = self.pending.get(n + 8) {
                set.prefetch(p.0);
            }
            if let Some(first) = set.insert(h, id)
                && first != id
            {
                dup = Some((k, first));
                break;
            }
        }
        let added = (set.len() - before) as u64;
        drop(set);
        self.pending.clear();
        let held = self.keys.held.fetch_add(added, Ordering::Relaxed) + added;
        if held * BYTES_PER_KEY > MAX_KEY_BYTES && !self.keys.full.swap(true, Ordering::Relaxed) {
            eprintln!(
                "csvload: --check-records: {held} keys take its {} MiB: keys are no longer \
                 checked for duplicates from here on (the primary key's build still refuses \
                 one, after the load)",
                MAX_KEY_BYTES >> 20
            );
        }
        let Some((k, first)) = dup else {
            return Ok(());
        };
        let rec = rec_of(k);
        let mut fields = Vec::new();
        let values = match split_fields_fast(rec, strip_terminator(rec), &mut fields) {
            Ok(()) => self
                .key
                .iter()
                .map(|k| excerpt(&fields[k.col].value(rec)))
                .collect::<Vec<_>>()
                .join(", "),
            Err(_) => "?".into(),
        };
        let (ffile, frec) = (first >> RECORD_BITS, first & ((1 << RECORD_BITS) - 1));
        let where_ = if ffile == self.file {
            format!("record {frec}")
        } else {
            format!("record {frec} of {}", (self.file_name)(ffile - 1))
        };
        Err((
            k,
            format!(
                "duplicate key ({}) = ({values}), first seen in {where_}",
                self.key_names
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::KeyType;

    fn fields(rec: &[u8]) -> Vec<Field> {
        let mut f = Vec::new();
        split_fields_fast(rec, strip_terminator(rec), &mut f).unwrap();
        f
    }

    #[test]
    fn duplicate_keys_by_value_across_files_and_not_a_resent_record() {
        let keys = Keys::new(1);
        let kc = |col, ty, int_bytes| KeyCol { col, ty, int_bytes };
        let key = [kc(0, KeyType::Numeric, 0), kc(1, KeyType::Text, 0)];
        let cols = ["n".to_string(), "t".to_string(), "v".to_string()];
        let name = |f: u64| format!("file{f}.csv");
        let mut a = Checker::new(&keys, 0, &key, &cols, b"", 3, 0, &name);
        let recs: [&[u8]; 3] = [b"1.5,a,x\n", b"2,a,y\n", b"1.5,b,z\n"];
        for (k, r) in recs.iter().enumerate() {
            a.record(k, r, &fields(r)).unwrap();
        }
        a.keys(|k| recs[k]).unwrap();
        // The same records again (a retry): no duplicate.
        for (k, r) in recs.iter().enumerate() {
            a.record(k, r, &fields(r)).unwrap();
        }
        a.keys(|k| recs[k]).unwrap();
        // 1.50 is 1.5 (numeric order), in another file: named there.
        let mut b = Checker::new(&keys, 0, &key, &cols, b"", 3, 4, &name);
        b.base = 10;
        let more: [&[u8]; 3] = [b"3,a,x\n", b"\"1.50\",a,w\n", b",a,null key\n"];
        for (k, r) in more.iter().enumerate() {
            b.record(k, r, &fields(r)).unwrap();
        }
        let (k, why) = b.keys(|k| more[k]).unwrap_err();
        assert_eq!(k, 1);
        assert_eq!(
            why,
            "duplicate key (n, t) = (1.50, a), first seen in record 1 of file0.csv"
        );
        // Within one batch of one file.
        let mut c = Checker::new(&keys, 0, &key, &cols, b"", 3, 5, &name);
        let dup: [&[u8]; 2] = [b"7,q,x\n", b"7.0,q,y\n"];
        for (k, r) in dup.iter().enumerate() {
            c.record(k, r, &fields(r)).unwrap();
        }
        let (k, why) = c.keys(|k| dup[k]).unwrap_err();
        assert_eq!(
            (k, why.as_str()),
            (1, "duplicate key (n, t) = (7.0, q), first seen in record 1")
        );
    }

    /// Integer keys of at most 16 bytes are kept as their values: `04` is `4`, `-1` is not
    /// `65535`, and a value outside its type (the server's to refuse) is not taken.
    #[test]
    fn exact_integer_keys() {
        let keys = Keys::new(1);
        let kc = |col, int_bytes| KeyCol {
            col,
            ty: KeyType::Int,
            int_bytes,
        };
        let key = [kc(0, 2), kc(1, 8)];
        let cols = ["a".to_string(), "b".to_string()];
        let name = |_: u64| String::new();
        let mut c = Checker::new(&keys, 0, &key, &cols, b"", 2, 0, &name);
        assert!(c.exact);
        let recs: [&[u8]; 5] = [
            b"-1,9223372036854775807\n",
            b"65535,9223372036854775807\n",
            b"40000,1\n",
            b"-32768,-9223372036854775808\n",
            b"\"-0001\",9223372036854775807\n",
        ];
        for (k, r) in recs.iter().enumerate() {
            c.record(k, r, &fields(r)).unwrap();
        }
        assert_eq!(c.pending.len(), 3, "65535 and 40000 are not smallints");
        let (k, why) = c.keys(|k| recs[k]).unwrap_err();
        assert_eq!(
            (k, why.as_str()),
            (
                4,
                "duplicate key (a, b) = (-0001, 9223372036854775807), first seen in record 1"
            )
        );
        // Three bigints are 24 bytes: hashed.
        let wide = [kc(0, 8), kc(1, 8), kc(2, 8)];
        assert!(!Checker::new(&keys, 0, &wide, &cols, b"", 3, 0, &name).exact);
    }

    #[test]
    fn form_as_csvcheck_words_it() {
        let keys = Keys::new(1);
        let name = |_: u64| String::new();
        let mut c = Checker::new(&keys, 0, &[], &[], b"", 2, 0, &name);
        assert_eq!(c.form(0, b"a,b\n"), Ok(()));
        assert_eq!(c.form(1, b"a,\"b\nc\"\n"), Ok(()));
        let bad: [(&[u8], &str); 7] = [
            (
                b"1,\"ab\"c\n",
                "text after the closing quote of a field at byte 6 of the record",
            ),
            (
                b"1,a\"b\n",
                "bare '\"' in an unquoted field at byte 3 of the record",
            ),
            (b"1,2,3\n", "3 fields, expected 2"),
            (
                b"\n",
                "blank line (CockroachDB skips it, PostgreSQL reads it as a record)",
            ),
            (
                b"\\.\n",
                "unquoted \\. line: PostgreSQL's COPY takes it as the end of data",
            ),
            (
                b"a,b\r\n",
                "record ends with CRLF but the file's first record with LF",
            ),
            (b"a\rb,c\n", "carriage return in an unquoted field"),
        ];
        for (rec, why) in bad {
            assert_eq!(
                c.form(2, rec),
                Err(why.to_string()),
                "{:?}",
                String::from_utf8_lossy(rec)
            );
        }
    }
}
