//! The table outputs: the one open table's file (or stdout), opened, reopened and finished, and
//! each table's header record.

use super::args::{Config, Dest};
use super::{Converter, DataTable, Open};
use crate::csv::csvout::FieldWriter;
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::{AtomicFile, Sink};
use crate::pg::dump::naming;
use std::io::Write;

impl Converter<'_> {
    /// Makes `key` the open table (opening or reopening its output), unless it is already.
    /// Returns false when the table is not selected.
    pub(super) fn open_table(&mut self, key: &(String, String), cols: &[String]) -> Result<bool> {
        if let Some(o) = &self.open
            && self.data[o.idx].schema == key.0
            && self.data[o.idx].name == key.1
        {
            return Ok(true);
        }
        let Some((idx, new)) = self.table_slot(key, cols)? else {
            return Ok(false);
        };
        if self.group_of.contains_key(&idx) {
            // Its other data is converted apart, after the script: the order would be lost.
            return Err(self.err(
                0,
                format!(
                    "data for {}.{} outside its TABLE DATA entries in the archive: not what pg_dump writes",
                    key.0, key.1
                ),
            ));
        }
        // --gzip: members of fixed-size blocks, the same bytes whatever -j.
        let (level, pool) = (self.cfg.gzip, self.pool.cloned());
        let mut sink = match &self.data[idx].path {
            Some(p) if new => Sink::blocks(Some(AtomicFile::create(p)?), level, pool),
            // Another gzip member after the file's last is still one gzip file.
            Some(p) => Sink::blocks(Some(AtomicFile::reopen_append(p)?), level, pool),
            None => match self.stdout.take() {
                Some(s) => s,
                None => Sink::blocks(None, level, pool),
            },
        };
        if new && self.cfg.header {
            let h = header_record(self.cfg, cols);
            let name = sink.name();
            sink.write_all(&h).at(name)?;
            self.data[idx].bytes += h.len() as u64;
        }
        self.open = Some(Open { idx, sink });
        Ok(true)
    }

    /// The table `key`'s entry in `data` (made when new: returns true then), or `None` when
    /// the table is not selected. Closes the open table.
    pub(super) fn table_slot(
        &mut self,
        key: &(String, String),
        cols: &[String],
    ) -> Result<Option<(usize, bool)>> {
        self.close_open()?;
        self.seen.insert(key.clone());
        // CockroachDB: a partition's rows go to its partitioned table's file (through every
        // level of sub-partitions), whose column list they must have, byte for byte.
        let part = key;
        let mut root = key;
        for _ in 0..self.partition_of.len() {
            match self.partition_of.get(root) {
                Some(p) => root = p,
                None => break,
            }
        }
        let root = root.clone();
        let key = &root;
        if key != part {
            self.seen.insert(key.clone());
            let parent_cols: Option<Vec<String>> = self.all_columns(key).map(|all| {
                all.iter()
                    .filter(|c| !c.generated)
                    .map(|c| c.name.clone())
                    .collect()
            });
            if parent_cols.is_some_and(|p| p != cols) {
                return Err(self.err(
                    0,
                    format!(
                        "the rows of partition {}.{} go to its partitioned table {}.{} on CockroachDB (rule crdb-partition-rows), but its COPY lists the columns in another order ({}): dump again with pg_dump --load-via-partition-root",
                        part.0,
                        part.1,
                        key.0,
                        key.1,
                        cols.join(", ")
                    ),
                ));
            }
        }
        if !self.cfg.selected(&key.0, &key.1) || self.cfg.dest == Dest::None {
            return Ok(None);
        }
        crate::io::progress::phase(format!("table {}.{}", key.0, key.1));
        let (idx, new) = match self.by_name.get(key) {
            Some(&i) => (i, false),
            None => {
                if self.cfg.dest == Dest::Stdout && !self.data.is_empty() {
                    return Err(Error::Usage(format!(
                        "--table matched more than one table ({} and {}.{}): use --output-dir DIR for several tables",
                        self.data[0].schema.clone() + "." + &self.data[0].name,
                        key.0,
                        key.1
                    )));
                }
                let path = match &self.cfg.dest {
                    Dest::Dir(d) => Some(d.join(naming::file_name(
                        &key.0,
                        &key.1,
                        if self.cfg.gzip.is_some() {
                            "csv.gz"
                        } else {
                            "csv"
                        },
                    ))),
                    _ => None,
                };
                self.data.push(DataTable {
                    schema: key.0.clone(),
                    name: key.1.clone(),
                    cols: cols.to_vec(),
                    path,
                    rows: 0,
                    bytes: 0,
                });
                self.by_name.insert(key.clone(), self.data.len() - 1);
                (self.data.len() - 1, true)
            }
        };
        if !new && self.data[idx].cols != cols {
            return Err(self.err(
                0,
                format!(
                    "table {}.{} appears again with a different column list",
                    key.0, key.1
                ),
            ));
        }
        Ok(Some((idx, new)))
    }

    /// Finishes the open table's file (renaming it into place).
    pub(super) fn close_open(&mut self) -> Result<()> {
        if let Some(o) = self.open.take() {
            match o.sink {
                s if s.is_stdout() => self.stdout = Some(s),
                s => s.finish()?,
            }
        }
        Ok(())
    }

    pub(super) fn write_open(&mut self, bytes: &[u8], rows: u64) -> Result<()> {
        if let Some(o) = self.open.as_mut() {
            let name = o.sink.name();
            o.sink.write_all(bytes).at(name)?;
            let t = &mut self.data[o.idx];
            t.bytes += bytes.len() as u64;
            t.rows += rows;
            crate::io::progress::add_records(rows);
        }
        Ok(())
    }
}

/// The header record of a CSV with columns `cols`.
pub(super) fn header_record(cfg: &Config, cols: &[String]) -> Vec<u8> {
    let mut h = Vec::new();
    let hw = FieldWriter::new(cfg.null.as_bytes());
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            h.push(b',');
        }
        hw.field(&mut h, Some(c.as_bytes()));
    }
    h.push(b'\n');
    h
}
