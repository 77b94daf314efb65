//! The schema builder: what the dump's DDL declares about each table (columns with inherited ones,
//! typed tables' from their composite types), names placed by the search path.

use super::Converter;
use crate::pgdump::ddl::{self, ColumnDef, QName};

impl Converter<'_> {
    /// Schema and name of a table as the dump names it, qualified by the search path.
    pub(super) fn resolve(&self, q: &QName) -> (String, String) {
        // A file needs a schema: where the search path gives none, the name is PostgreSQL's
        // default creation schema.
        let q = q.clone().placed(&self.search_path);
        (q.schema.unwrap_or_else(|| "public".into()), q.name)
    }

    /// All columns of a table in physical order: inherited ones first (pg_dump declares only
    /// the local ones in the child's CREATE TABLE), a column declared in both kept once.
    pub(super) fn all_columns(&self, key: &(String, String), depth: u32) -> Option<Vec<ColumnDef>> {
        let def = self.defs.get(key)?;
        // The depth bound stops inheritance cycles, which PostgreSQL refuses anyway.
        let parents: Vec<Vec<ColumnDef>> = if depth < 32 {
            def.inherits
                .iter()
                .map(|p| self.all_columns(p, depth + 1))
                .collect::<Option<_>>()?
        } else {
            Vec::new()
        };
        Some(ddl::merge_inherited(parents, &def.columns))
    }
}
