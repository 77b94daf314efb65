//! INSERT statements read row by row (memory bounded by the largest row), written as CSV.

use super::args::Dest;
use super::{CUT_OFF, Converter, INSERT_HEAD_MAX};
use crate::io::error::{Error, Result};
use crate::pg::dump::inserts::{self, Value};
use crate::pg::dump::tabledefs::{TableDef, TableDefs};

impl Converter<'_> {
    /// Reads one INSERT statement starting at `sig`, row by row: memory is bounded by the
    /// largest row, not by the statement (one INSERT of a --rows-per-insert dump can hold a
    /// whole table).
    pub(super) fn insert_statement(&mut self, sig: usize) -> Result<()> {
        let hl = loop {
            if let Some(n) = inserts::head_len(&self.buf.avail()[sig..]) {
                break n;
            }
            if self.buf.avail().len() - sig > INSERT_HEAD_MAX {
                return Err(self.err(sig, "INSERT without VALUES in its first MiB"));
            }
            if !self.buf.fill()? {
                return Err(self.err(sig, CUT_OFF));
            }
        };
        let head = inserts::parse_head(&self.buf.avail()[sig..sig + hl], self.std_strings)
            .map_err(|(off, msg)| self.err(sig + off, msg))?;
        let pos = self.buf.pos_at(sig);
        self.footer_seen = false;
        self.pending_data = None;
        // The comments before a data statement are its TOC entry: dropped with it.
        self.buf.advance(sig + hl);
        self.enter_data()?;
        let key = self.resolve(&head.table);
        // An unselected table is skipped before its rows are read, so that -T also leaves
        // out a table whose rows could not be converted.
        if !self.cfg.selected(&key.0, &key.1) || self.cfg.dest == Dest::None {
            self.close_open()?;
            self.seen.insert(key);
            return self.skip_statement();
        }
        // Without a column list the values follow CREATE TABLE, generated columns included
        // (as DEFAULT); the CSV leaves those out, like pg_dump's COPY column list.
        if head.cols.is_none() {
            self.warn_uncertain_order(&key);
        }
        let (cols, keep): (Vec<String>, Vec<bool>) = match &head.cols {
            Some(c) => (c.clone(), vec![true; c.len()]),
            None => match self.all_columns(&key) {
                Some(d) if !d.is_empty() || head.default_values => (
                    d.iter()
                        .filter(|c| !c.generated)
                        .map(|c| c.name.clone())
                        .collect(),
                    d.iter().map(|c| !c.generated).collect(),
                ),
                _ => {
                    return Err(Error::input(
                        pos,
                        format!(
                            "INSERT into {}.{} has no column list and the dump has no CREATE TABLE for it: re-dump with --column-inserts",
                            key.0, key.1
                        ),
                    ));
                }
            },
        };
        self.open_table(&key, &cols)?;
        let mut out = Vec::new();
        let mut pending_rows = 0u64;
        if head.default_values {
            self.row_csv(&[], &keep, &key, 1, &mut out)?;
            pending_rows = 1;
        } else {
            let mut r = 0u64;
            loop {
                let i = self.skip_ws()?;
                if self.buf.avail()[i] != b'(' {
                    return Err(self.err(i, "expected '(' to start a row of VALUES"));
                }
                self.buf.advance(i);
                let mut sc = inserts::RowScan::default();
                let len = loop {
                    match sc
                        .scan(self.buf.avail(), self.std_strings)
                        .map_err(|(off, msg)| self.err(off, msg))?
                    {
                        Some(n) => break n,
                        None => {
                            if !self.buf.fill()? {
                                return Err(self.err(0, CUT_OFF));
                            }
                        }
                    }
                };
                let row = inserts::parse_row(&self.buf.avail()[..len], self.std_strings)
                    .map_err(|(off, msg)| self.err(off, msg))?;
                r += 1;
                self.row_csv(&row, &keep, &key, r, &mut out)?;
                pending_rows += 1;
                self.buf.advance(len);
                if out.len() >= 1 << 20 {
                    self.write_open(&out, pending_rows)?;
                    out.clear();
                    pending_rows = 0;
                }
                let i = self.skip_ws()?;
                if self.buf.avail()[i] == b',' {
                    self.buf.advance(i + 1);
                } else {
                    self.buf.advance(i);
                    break;
                }
            }
        }
        self.write_open(&out, pending_rows)?;
        // The tail: [ON CONFLICT DO NOTHING] ;
        let tl = loop {
            if let Some(k) = memchr::memchr(b';', self.buf.avail()) {
                break k + 1;
            }
            if self.buf.avail().len() > 4096 {
                return Err(self.err(0, "unexpected text at the end of INSERT"));
            }
            if !self.buf.fill()? {
                return Err(self.err(0, CUT_OFF));
            }
        };
        inserts::parse_tail(&self.buf.avail()[..tl], self.std_strings)
            .map_err(|(off, msg)| self.err(off, msg))?;
        let end = self.line_end(tl)?;
        self.buf.advance(end);
        Ok(())
    }

    /// INSERTs without column names give values in the source table's physical column
    /// order. For an INHERITS child that order is not in the dump whenever the child declares
    /// any column of its own: a column added to a parent after the child was created comes
    /// last in the child, but the dump declares it with the parent; a child created alone and
    /// attached later (`ALTER TABLE ... INHERIT`) keeps its own order even for the columns it
    /// shares with the parent (`test_type_diff2_c1` in PostgreSQL's regression database),
    /// though the dump's `CREATE TABLE ... INHERITS` puts the parent's first (issue 35 item
    /// 5). Only a child that declares nothing, of one parent whose own order is fixed, is
    /// sure. Neither psql nor we can tell, so say so once per table.
    pub(super) fn warn_uncertain_order(&mut self, key: &(String, String)) {
        let Some(def) = self.def(key) else {
            return;
        };
        let uncertain = order_uncertain(&self.defs, def, 0);
        if uncertain && !self.cfg.quiet && self.order_warned.insert(key.clone()) {
            crate::io::progress::message(&format!(
                "pgdump2csv: warning: {}.{} inherits columns, and INSERTs without column names do not show its column order (a column added to a parent later comes last in the child; a table attached to a parent keeps its own order); check the CSV, or re-dump with --column-inserts",
                crate::io::names::Escaped(&key.0),
                crate::io::names::Escaped(&key.1)
            ));
        }
    }

    /// Appends row `r` (1-based) of an INSERT as CSV, leaving out generated columns.
    pub(super) fn row_csv(
        &self,
        row: &[Value],
        keep: &[bool],
        key: &(String, String),
        r: u64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        if row.len() != keep.len() {
            return Err(self.err(
                0,
                format!(
                    "INSERT into {}.{}: row {r} of the statement has {} values for {} columns",
                    key.0,
                    key.1,
                    row.len(),
                    keep.len()
                ),
            ));
        }
        let mut first = true;
        for (v, &k) in row.iter().zip(keep) {
            if !k {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            match v {
                Value::Null => self.fw.field(out, None),
                Value::Text(t) => self.fw.field(out, Some(t)),
                Value::Default => {
                    return Err(self.err(
                        0,
                        format!(
                            "INSERT into {}.{}: DEFAULT for a column that is not generated; its value is not in the dump",
                            key.0, key.1
                        ),
                    ));
                }
            }
        }
        out.push(b'\n');
        Ok(())
    }
}

/// Whether the physical column order of `def` (an INHERITS child or not) is not fixed by the
/// dump: see [`Converter::warn_uncertain_order`]. A parent the dump does not declare is
/// taken as uncertain.
fn order_uncertain(defs: &TableDefs, def: &TableDef, depth: u32) -> bool {
    match def.inherits.as_slice() {
        [] => false,
        [parent] => {
            !def.columns.is_empty()
                || depth > 32
                || defs
                    .find(parent)
                    .is_none_or(|p| order_uncertain(defs, p, depth + 1))
        }
        _ => true,
    }
}
