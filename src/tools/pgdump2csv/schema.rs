//! The dump's tables as pgdump2csv names them: the shared schema builder's
//! ([`crate::pg::dump::tabledefs`]) tables keyed by schema and name, the schema always given.

use super::Converter;
use crate::pg::dump::ddl::{ColumnDef, QName};
use crate::pg::dump::tabledefs::TableDef;

impl Converter<'_> {
    /// Schema and name of a table as the dump names it, qualified by the search path.
    pub(super) fn resolve(&self, q: &QName) -> (String, String) {
        let q = self.defs.place(q);
        // `defs` has a default schema, so every placed name has one.
        (q.schema.unwrap_or_default(), q.name)
    }

    /// What the DDL says about a table (also when only an `ALTER` named it).
    pub(super) fn def(&self, key: &(String, String)) -> Option<&TableDef> {
        self.defs.find(&QName {
            schema: Some(key.0.clone()),
            name: key.1.clone(),
        })
    }

    /// All columns of a table in physical order, inherited ones first; `None` if the DDL does
    /// not name the table or one of its ancestors.
    pub(super) fn all_columns(&self, key: &(String, String)) -> Option<Vec<ColumnDef>> {
        let (cols, complete) = self.defs.all_columns(self.def(key)?);
        complete.then_some(cols)
    }
}
