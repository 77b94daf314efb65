//! pgdump2csv's side of the schema conversion ([`crate::schemaconv`]): each DDL statement
//! goes through the session on its way to --write-schema or --write-post-data, and at the end the held
//! DDL (CockroachDB, YugabyteDB) is converted and the --report written.

use super::{Converter, Phase};
use crate::io::error::{Error, IoContext, Result};
use crate::io::output::AtomicFile;
use crate::pg::dump::ddl::Stmt;
use crate::schemaconv::{Dest, Now, TableFacts, TargetKind, report::Report};
use std::io::Write;

impl Converter<'_> {
    /// The output file the current phase writes to.
    pub(super) fn dest(&self) -> Dest {
        match (self.phase, &self.post) {
            (Phase::Post, Some(_)) => Dest::PostData,
            _ => Dest::Schema,
        }
    }

    /// Writes one DDL statement (`sig..end`, with the comments before it and the rest of its
    /// line up to `unit_end`) as the target's rules decide.
    pub(super) fn route(
        &mut self,
        sig: usize,
        end: usize,
        unit_end: usize,
        kind: &Stmt,
    ) -> Result<()> {
        let facts = match kind {
            Stmt::CreateTable {
                table, inherits, ..
            } => Some(TableFacts {
                key: self.resolve(table),
                parents: inherits.iter().map(|p| self.resolve(p)).collect(),
                add_pk: false,
            }),
            Stmt::AddPrimaryKey { table, .. } => Some(TableFacts {
                key: self.resolve(table),
                parents: Vec::new(),
                add_pk: true,
            }),
            _ => None,
        };
        let line = self.buf.pos_at(sig).line;
        let dest = self.dest();
        let avail = self.buf.avail();
        if self.conv.options().target == TargetKind::Cockroachdb
            && let Some((child, parent)) =
                crate::schemaconv::partition_link(&avail[sig..end], self.std_strings)
        {
            let q = |mut parts: Vec<String>| crate::pg::dump::ddl::QName {
                name: parts.pop().unwrap_or_default(),
                schema: parts.pop(),
            };
            let (child, parent) = (self.resolve(&q(child)), self.resolve(&q(parent)));
            self.partition_of.insert(child, parent);
        }
        let avail = self.buf.avail();
        let now = self.conv.statement(
            dest,
            line,
            &avail[..sig],
            &avail[sig..end],
            &avail[end..unit_end],
            self.std_strings,
            facts,
        );
        match now {
            Now::Write => {
                let unit = self.buf.avail()[..unit_end].to_vec();
                self.write_out(&unit)
            }
            Now::Replace(text) => {
                let avail = self.buf.avail();
                let mut unit = avail[..sig].to_vec();
                unit.extend_from_slice(&text);
                unit.extend_from_slice(&avail[end..unit_end]);
                self.write_out(&unit)
            }
            Now::Held => Ok(()),
        }
    }

    /// At the end: the converted DDL into the schema files (deferred mode), then the report.
    /// Returns the --strict error, if any, after the report is written.
    pub(super) fn finish_conversion(&mut self, tables: &[crate::manifest::Table]) -> Result<()> {
        // Each file starts with `\restrict KEY`, a blank line and, with a version, the
        // target's header line (Converter::new).
        let head = 3 + u64::from(self.cfg.conversion.version.is_some());
        let (schema, post) = self.conv.finish((head, head + self.post_head));
        for (f, text) in [(self.schema.as_mut(), schema), (self.post.as_mut(), post)] {
            if let Some(f) = f {
                let name = f.dest().to_path_buf();
                f.write_all(&text).at(name)?;
            }
        }
        let o = *self.conv.options();
        // Values the release refuses in columns its schema takes (numeric infinities on
        // PostgreSQL 11): the CSVs of tables with a numeric column read back.
        let mut refused = Vec::new();
        let mut unchecked = Vec::new();
        if crate::schemaconv::data::checks_numeric_infinity(o.version) {
            for (t, m) in self.data.iter().zip(tables) {
                let numeric: Vec<usize> = m
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| {
                        c.type_name
                            .as_deref()
                            .is_some_and(crate::schemaconv::data::is_numeric)
                    })
                    .map(|(i, _)| i)
                    .collect();
                if numeric.is_empty() || t.rows == 0 {
                    continue;
                }
                let Some(path) = &t.path else {
                    unchecked.push(format!("{}.{}", t.schema, t.name));
                    continue;
                };
                let cols: Vec<String> = m.columns.iter().map(|c| c.name.clone()).collect();
                refused.extend(crate::schemaconv::data::numeric_infinities(
                    path,
                    self.cfg.header,
                    &t.schema,
                    &t.name,
                    &cols,
                    &numeric,
                )?);
            }
        }
        if let Some(path) = &self.cfg.report {
            let r = Report {
                source: &self.buf.name,
                target: o.target,
                version: o.version,
                no_owner: o.no_owner,
                no_privileges: o.no_privileges,
                yb_sharding: (o.target == TargetKind::Yugabytedb).then_some(o.yb_sharding),
                entries: self.conv.entries(),
                tables,
                refused_values: &refused,
                unchecked_values: &unchecked,
            };
            let html = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
            let bytes = if html { r.html() } else { r.json() };
            let mut f = AtomicFile::create(path)?;
            f.write_all(&bytes).at(path)?;
            f.commit()?;
        }
        let n = self.conv.strict_failures();
        let tables_refused = {
            let mut t: Vec<(&str, &str)> = refused
                .iter()
                .map(|r| (r.schema.as_str(), r.table.as_str()))
                .collect();
            t.dedup();
            t.len()
        };
        if self.cfg.strict && (n > 0 || tables_refused > 0 || !unchecked.is_empty()) {
            let mut what = Vec::new();
            if n > 0 {
                what.push(format!(
                    "{n} statement(s) block the load, change what the schema means or are kept for review (see --report)"
                ));
            }
            if tables_refused > 0 {
                what.push(format!(
                    "{tables_refused} table(s) hold values the release refuses (the report's data section, rule {})",
                    crate::schemaconv::data::RULE
                ));
            }
            if !unchecked.is_empty() {
                what.push(format!(
                    "{} table(s) written to standard output could not be read back for values the release refuses",
                    unchecked.len()
                ));
            }
            return Err(Error::file(
                &self.buf.name,
                format!(
                    "--strict: on {}, {}; --write-schema and --write-post-data not written",
                    o.version.map_or(o.target.name().to_string(), |v| v.label()),
                    what.join("; ")
                ),
            ));
        }
        Ok(())
    }
}
