//! The schema builder shared by pgdump2csv and csvcheck: what a dump's DDL declares about each
//! table (its own columns, typed tables' columns from their composite types, `INHERITS`
//! parents, primary key, `SET NOT NULL`), with unqualified names placed by the search path.
//!
//! Both tools feed it the statements [`crate::pg::dump::ddl`] classifies, so a table means the
//! same to both; what each then does with it (pgdump2csv's CSV column lists and manifest,
//! csvcheck's data-order rules, enums and domains) stays with the tool.

use super::ddl::{ColumnDef, QName, Stmt, merge_inherited};
use std::collections::HashMap;

/// Inheritance deeper than this is not followed: it stops cycles, which PostgreSQL refuses.
const MAX_DEPTH: u32 = 32;

/// A table as the DDL declares it.
#[derive(Debug, Clone)]
pub struct TableDef {
    /// Name, placed by the search path (see [`TableDefs::place`]).
    pub name: QName,
    /// Columns declared in the table itself, in order (a typed table's are its type's
    /// attributes); inherited ones are not here (see [`TableDefs::all_columns`]).
    pub columns: Vec<ColumnDef>,
    /// `INHERITS` parents, placed.
    pub inherits: Vec<QName>,
    /// Primary key columns, inline or from `ALTER TABLE ... ADD ... PRIMARY KEY`.
    pub pk: Vec<String>,
    /// Columns made NOT NULL by `ALTER TABLE ... SET NOT NULL`.
    pub not_null: Vec<String>,
    /// Whether a `CREATE TABLE` was seen; an `ALTER` of a table not (yet) created makes an
    /// undeclared entry that a later `CREATE TABLE` fills in.
    pub declared: bool,
}

impl TableDef {
    fn new(name: QName) -> TableDef {
        TableDef {
            name,
            columns: Vec::new(),
            inherits: Vec::new(),
            pk: Vec::new(),
            not_null: Vec::new(),
            declared: false,
        }
    }

    /// Whether column `c` of this table (its own or inherited) is NOT NULL: declared so, in
    /// the primary key, or made so by `ALTER ... SET NOT NULL`.
    pub fn is_not_null(&self, c: &ColumnDef) -> bool {
        c.not_null || self.pk.contains(&c.name) || self.not_null.contains(&c.name)
    }

    /// A column name the table declares twice, which PostgreSQL refuses.
    pub fn duplicate_column(&self) -> Option<&str> {
        let cols = &self.columns;
        cols.iter()
            .enumerate()
            .find(|(k, c)| cols[..*k].iter().any(|x| x.name == c.name))
            .map(|(_, c)| c.name.as_str())
    }
}

/// What a second `CREATE TABLE` of the same (placed) name does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redeclare {
    /// It replaces the first one's columns and parents (a `pg_dumpall` script creates a
    /// table again in the next database): pgdump2csv, which converts as it reads.
    Replaces,
    /// Both are kept, and a lookup finds the first (csvcheck reports the name as ambiguous).
    Adds,
}

/// The schema builder: tables and composite types in order of appearance, and the search path.
#[derive(Debug)]
pub struct TableDefs {
    search_path: Vec<String>,
    default_schema: Option<String>,
    redeclare: Redeclare,
    tables: Vec<TableDef>,
    /// First table of each schema-qualified name, so lookups of qualified names do not scan.
    index: HashMap<QName, usize>,
    composites: Vec<(QName, Vec<ColumnDef>)>,
}

impl TableDefs {
    /// An empty builder. `default_schema` is the schema of an unqualified name the search
    /// path does not place (pgdump2csv: `public`, where PostgreSQL creates it; csvcheck: none,
    /// and an unqualified reference then matches a table of any schema).
    pub fn new(default_schema: Option<&str>, redeclare: Redeclare) -> TableDefs {
        TableDefs {
            search_path: Vec::new(),
            default_schema: default_schema.map(str::to_string),
            redeclare,
            tables: Vec::new(),
            index: HashMap::new(),
            composites: Vec::new(),
        }
    }

    /// A name as the dump means it: placed by the search path ([`QName::placed`]), else in
    /// the default schema.
    pub fn place(&self, q: &QName) -> QName {
        let mut q = q.clone().placed(&self.search_path);
        if q.schema.is_none() {
            q.schema.clone_from(&self.default_schema);
        }
        q
    }

    /// Takes in what a statement declares; other statements are ignored. For a `CREATE
    /// TABLE`, returns the table as now declared.
    pub fn apply(&mut self, st: &Stmt) -> Option<&TableDef> {
        match st {
            Stmt::SearchPath(p) => self.search_path.clone_from(p),
            Stmt::CreateComposite { name, attributes } => {
                let name = self.place(name);
                if self.redeclare == Redeclare::Replaces {
                    self.composites.retain(|(q, _)| *q != name);
                }
                self.composites.push((name, attributes.clone()));
            }
            Stmt::CreateTable {
                table,
                columns,
                pk,
                inherits,
                of_type,
            } => {
                let name = self.place(table);
                // A typed table (CREATE TABLE t OF type) has the type's attributes as columns.
                let columns = match of_type.as_ref().map(|t| self.place(t)) {
                    Some(ty) if columns.is_empty() => self
                        .composites
                        .iter()
                        .find(|(q, _)| matches(q, &ty))
                        .map(|(_, a)| a.clone())
                        .unwrap_or_default(),
                    _ => columns.clone(),
                };
                let inherits = inherits.iter().map(|q| self.place(q)).collect();
                let at = match self.redeclare {
                    Redeclare::Replaces => self.find_index(&name),
                    Redeclare::Adds => self
                        .tables
                        .iter()
                        .position(|t| !t.declared && matches(&name, &t.name)),
                };
                let at = match at {
                    Some(i) => {
                        // An undeclared entry made by an ALTER takes the declared name.
                        if self.tables[i].name != name {
                            if self.index.get(&self.tables[i].name) == Some(&i) {
                                self.index.remove(&self.tables[i].name);
                            }
                            self.tables[i].name = name.clone();
                            self.index.entry(name).or_insert(i);
                        }
                        i
                    }
                    None => self.push(name),
                };
                let t = &mut self.tables[at];
                t.declared = true;
                t.columns = columns;
                t.inherits = inherits;
                if !pk.is_empty() {
                    t.pk.clone_from(pk);
                }
                return Some(&self.tables[at]);
            }
            Stmt::AddPrimaryKey { table, cols } => {
                let at = self.entry(table);
                self.tables[at].pk.clone_from(cols);
            }
            Stmt::SetNotNull { table, col } => {
                let at = self.entry(table);
                self.tables[at].not_null.push(col.clone());
            }
            _ => {}
        }
        None
    }

    /// Index of the table `q` (placed) names, made undeclared if there is none yet.
    fn entry(&mut self, q: &QName) -> usize {
        let q = self.place(q);
        match self.find_index(&q) {
            Some(i) => i,
            None => self.push(q),
        }
    }

    fn push(&mut self, name: QName) -> usize {
        let i = self.tables.len();
        if name.schema.is_some() {
            self.index.entry(name.clone()).or_insert(i);
        }
        self.tables.push(TableDef::new(name));
        i
    }

    fn find_index(&self, q: &QName) -> Option<usize> {
        if q.schema.is_some() {
            // The index holds the first table of each qualified name; an unqualified table
            // (no search path, no default schema) is never the one a qualified name means.
            self.index.get(q).copied()
        } else {
            // Of several tables of that name, a declared one before one only ALTERed.
            let pos = |declared: bool| {
                self.tables
                    .iter()
                    .position(|t| t.declared >= declared && matches(&t.name, q))
            };
            pos(true).or_else(|| pos(false))
        }
    }

    /// The table a placed name refers to (the first, if several match): an unqualified
    /// name matches a table of any schema.
    pub fn find(&self, q: &QName) -> Option<&TableDef> {
        self.find_index(q).map(|i| &self.tables[i])
    }

    /// The tables, in order of first mention, undeclared ones included.
    pub fn tables(&self) -> &[TableDef] {
        &self.tables
    }

    /// All columns of a table in physical order: those of its `INHERITS` parents first
    /// (pg_dump declares only the child's own), a column declared again kept once with NOT
    /// NULL merged ([`merge_inherited`]). The flag says whether every ancestor is known (at
    /// least by an `ALTER`); the columns of one that is not are missing.
    pub fn all_columns(&self, t: &TableDef) -> (Vec<ColumnDef>, bool) {
        self.columns_at(t, 0)
    }

    fn columns_at(&self, t: &TableDef, depth: u32) -> (Vec<ColumnDef>, bool) {
        let mut complete = true;
        let mut parents = Vec::new();
        if depth < MAX_DEPTH {
            for q in &t.inherits {
                match self.find(q) {
                    Some(p) => {
                        let (cols, ok) = self.columns_at(p, depth + 1);
                        complete &= ok;
                        parents.push(cols);
                    }
                    None => complete = false,
                }
            }
        }
        (merge_inherited(parents, &t.columns), complete)
    }
}

/// Whether a table or type named `have` is the one reference `want` names; an unqualified
/// reference matches any schema.
pub fn matches(have: &QName, want: &QName) -> bool {
    have.name == want.name && (want.schema.is_none() || have.schema == want.schema)
}

#[cfg(test)]
mod tests {
    use crate::manifest::Manifest;

    /// pgdump2csv's manifest and csvcheck's schema reading give the same table definitions
    /// for DDL with quoted identifiers, search_path changes, a typed table, inheritance and
    /// ALTER TABLE ONLY ... PRIMARY KEY / SET NOT NULL, as both now use this builder.
    #[test]
    fn both_tools_see_the_same_tables() {
        let sql = "SET search_path = \"Sales\", pg_catalog;\n\
            CREATE TYPE ct AS (a integer, \"B c\" text);\n\
            CREATE TABLE \"Typed\" OF ct;\n\
            SET search_path = public, pg_catalog;\n\
            CREATE TABLE parent (id bigint NOT NULL, \"Note\" character varying(10));\n\
            CREATE TABLE \"Child\" () INHERITS (parent);\n\
            CREATE TABLE \"Sales\".\"Kid\" (extra numeric(5,2)) INHERITS (public.\"Child\");\n\
            SET search_path = \"Sales\", pg_catalog;\n\
            COPY \"Typed\" (a, \"B c\") FROM stdin;\n1\tx\n\\.\n\
            COPY \"Kid\" (id, \"Note\", extra) FROM stdin;\n3\tz\t1.5\n\\.\n\
            SET search_path = public, pg_catalog;\n\
            COPY \"Child\" (id, \"Note\") FROM stdin;\n2\ty\n\\.\n\
            COPY parent (id, \"Note\") FROM stdin;\n\\.\n\
            ALTER TABLE ONLY \"Child\" ALTER COLUMN \"Note\" SET NOT NULL;\n\
            ALTER TABLE ONLY public.\"Child\" ADD CONSTRAINT c_pkey PRIMARY KEY (id);\n\
            SET search_path = \"Sales\", pg_catalog;\n\
            ALTER TABLE ONLY \"Typed\" ADD CONSTRAINT t_pkey PRIMARY KEY (a);\n";
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("in.sql");
        std::fs::write(&input, sql).unwrap();
        let (out, m) = (d.path().join("out"), d.path().join("m.json"));
        crate::tools::pgdump2csv::convert_for_test(&input, &out, &m).unwrap();
        let m = Manifest::read(&m).unwrap();
        let ddl = crate::tools::csvcheck::ddl::parse(sql.as_bytes()).unwrap();
        let mut seen = Vec::new();
        for t in &m.tables {
            let name = format!("{}.{}", t.schema, t.name);
            let c = crate::tools::csvcheck::ddl::find(&ddl, &name).unwrap();
            assert!(c.order_unknown.is_none(), "{name}");
            let from_dump: Vec<_> = t
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.type_name.clone().unwrap(), c.not_null))
                .collect();
            let from_ddl: Vec<_> = c
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.type_text.clone(), c.not_null))
                .collect();
            assert_eq!(from_dump, from_ddl, "{name}");
            assert_eq!(t.primary_key, c.primary_key, "{name}");
            seen.push((name, from_dump, t.primary_key.clone()));
        }
        let s = |x: &str| x.to_string();
        let col = |n: &str, t: &str, nn: bool| (s(n), s(t), nn);
        assert_eq!(
            seen,
            [
                (
                    s("Sales.Typed"),
                    vec![col("a", "integer", true), col("B c", "text", false)],
                    vec![s("a")]
                ),
                (
                    s("Sales.Kid"),
                    vec![
                        col("id", "bigint", true),
                        col("Note", "character varying(10)", false),
                        col("extra", "numeric(5,2)", false)
                    ],
                    vec![]
                ),
                (
                    s("public.Child"),
                    vec![
                        col("id", "bigint", true),
                        col("Note", "character varying(10)", true)
                    ],
                    vec![s("id")]
                ),
                (
                    s("public.parent"),
                    vec![
                        col("id", "bigint", true),
                        col("Note", "character varying(10)", false)
                    ],
                    vec![]
                ),
            ]
        );
    }
}
