//! csvcheck's view of a `pg_dump` schema file: each table's columns, types, NOT NULL and
//! primary key, and the enums and domains those types name.
//!
//! Statements are split and classified by pgdump2csv's reader ([`crate::pgdump::ddl`]), so
//! both tools read a dump's SQL the same psql-compatible way (quoting, `E''` strings, dollar
//! quotes, nested comments, `BEGIN ATOMIC` bodies, meta-commands). This module only assembles
//! what the statements declare: `CREATE TABLE` (with `INHERITS` parents), `CREATE TYPE ... AS
//! ENUM`, `CREATE DOMAIN`, `ALTER TABLE ... ADD CONSTRAINT ... PRIMARY KEY` and `ALTER TABLE
//! ... SET NOT NULL`, with unqualified names placed by `SET search_path`.

use crate::pgdump::ddl::{ColumnDef, QName, Stmt, merge_inherited, statements};
use crate::pgtypes::{Catalog, Domain, EnumType, PgType, parse_type};
use std::collections::HashMap;
use std::sync::Arc;

/// One column of a table from the DDL.
#[derive(Debug, Clone)]
pub struct DdlColumn {
    /// Name, unquoted.
    pub name: String,
    /// Type as written.
    pub type_text: String,
    /// `NOT NULL` (or primary key).
    pub not_null: bool,
}

/// A table from the DDL.
#[derive(Debug, Clone)]
pub struct DdlTable {
    /// Schema, if the name was qualified (or placed by `SET search_path`).
    pub schema: Option<String>,
    /// Name.
    pub name: String,
    /// Columns in order, inherited ones first, generated columns left out (their values are
    /// not in the data).
    pub columns: Vec<DdlColumn>,
    /// Primary key columns.
    pub primary_key: Vec<String>,
}

/// What a schema file declares.
#[derive(Debug, Default)]
pub struct Ddl {
    /// Tables in order of appearance.
    pub tables: Vec<DdlTable>,
    /// Enums and domains.
    pub catalog: Catalog,
}

/// A table as its `CREATE TABLE` declares it, before parents' columns and later `ALTER`s.
struct Decl {
    schema: Option<String>,
    name: String,
    columns: Vec<ColumnDef>,
    pk: Vec<String>,
    inherits: Vec<QName>,
}

/// `ALTER TABLE`s kept until every table is declared: pg_dump puts the primary keys in its
/// post-data section, after the tables.
enum Alter {
    Pk(QName, Vec<String>),
    NotNull(QName, String),
}

/// Parses the statements of a schema file. An error is a statement the reader could not make
/// sense of, with its byte offset in `sql`.
pub fn parse(sql: &[u8]) -> Result<Ddl, (usize, String)> {
    let mut decls: Vec<Decl> = Vec::new();
    let mut alters = Vec::new();
    let mut catalog = Catalog::default();
    let mut search_path: Vec<String> = Vec::new();
    for st in statements(sql) {
        let (_, st) = st?;
        match st {
            Stmt::SearchPath(p) => search_path = p,
            Stmt::CreateTable {
                table,
                columns,
                pk,
                inherits,
            } => {
                let table = placed(table, &search_path);
                decls.push(Decl {
                    schema: table.schema,
                    name: table.name,
                    columns,
                    pk,
                    inherits: inherits
                        .into_iter()
                        .map(|q| placed(q, &search_path))
                        .collect(),
                });
            }
            Stmt::AddPrimaryKey { table, cols } => {
                alters.push(Alter::Pk(placed(table, &search_path), cols));
            }
            Stmt::SetNotNull { table, col } => {
                alters.push(Alter::NotNull(placed(table, &search_path), col));
            }
            Stmt::CreateEnum { name, labels } => {
                let name = placed(name, &search_path);
                let e = Arc::new(EnumType {
                    name: qualified(&name.schema, &name.name),
                    labels: labels.into_iter().map(String::into_bytes).collect(),
                });
                register(&mut catalog.enums, &name, e);
            }
            Stmt::CreateDomain {
                name,
                base_type,
                not_null,
                has_check,
            } => {
                let name = placed(name, &search_path);
                // Resolved now, against what is declared so far: a domain over a domain or an
                // enum names one created before it, as pg_dump orders them.
                let d = Arc::new(Domain {
                    name: qualified(&name.schema, &name.name),
                    base: parse_type(&base_type, &catalog),
                    not_null,
                    has_check,
                });
                register(&mut catalog.domains, &name, d);
            }
            _ => {}
        }
    }
    let mut tables: Vec<DdlTable> = decls
        .iter()
        .map(|d| {
            let columns = all_columns(&decls, d, 0);
            let mut t = DdlTable {
                schema: d.schema.clone(),
                name: d.name.clone(),
                columns: Vec::new(),
                primary_key: d.pk.clone(),
            };
            // Generated columns are computed on load; pg_dump leaves them out of the data.
            for c in columns.into_iter().filter(|c| !c.generated) {
                t.columns.push(DdlColumn {
                    not_null: c.not_null || t.primary_key.contains(&c.name),
                    name: c.name,
                    type_text: c.type_name,
                });
            }
            t
        })
        .collect();
    for a in alters {
        match a {
            Alter::Pk(q, cols) => {
                if let Some(t) = tables.iter_mut().find(|t| matches(&t.schema, &t.name, &q)) {
                    for c in &mut t.columns {
                        c.not_null |= cols.contains(&c.name);
                    }
                    t.primary_key = cols;
                }
            }
            Alter::NotNull(q, col) => {
                if let Some(t) = tables.iter_mut().find(|t| matches(&t.schema, &t.name, &q))
                    && let Some(c) = t.columns.iter_mut().find(|c| c.name == col)
                {
                    c.not_null = true;
                }
            }
        }
    }
    Ok(Ddl { tables, catalog })
}

/// Gives an unqualified name the schema it would be created in: the first schema of the
/// search path (old dumps `SET search_path = s, pg_catalog` and write bare names). Without a
/// search path the name stays unqualified, matching a bare `--table` only.
fn placed(q: QName, search_path: &[String]) -> QName {
    let schema = q.schema.or_else(|| {
        search_path
            .iter()
            .find(|s| s.as_str() != "pg_catalog")
            .cloned()
    });
    QName {
        schema,
        name: q.name,
    }
}

/// Whether a declared table is the one an `ALTER` or `INHERITS` names; an unqualified
/// reference matches any schema.
fn matches(schema: &Option<String>, name: &str, q: &QName) -> bool {
    name == q.name && (q.schema.is_none() || *schema == q.schema)
}

/// All columns of a table in physical order: those of its `INHERITS` parents first (pg_dump
/// declares only the child's own), a column declared again kept once with NOT NULL merged.
fn all_columns(decls: &[Decl], d: &Decl, depth: u32) -> Vec<ColumnDef> {
    // The depth bound stops inheritance cycles, which PostgreSQL refuses anyway.
    let parents = d.inherits.iter().filter(|_| depth < 32).filter_map(|q| {
        let parent = decls.iter().find(|p| matches(&p.schema, &p.name, q))?;
        Some(all_columns(decls, parent, depth + 1))
    });
    merge_inherited(parents.collect::<Vec<_>>(), &d.columns)
}

fn qualified(schema: &Option<String>, name: &str) -> String {
    match schema {
        Some(s) => format!("{s}.{name}"),
        None => name.to_string(),
    }
}

/// Enters a type under its bare and its qualified name. Names are kept as the lexer folded
/// them (unquoted ones lower case, quoted ones as written), which is how
/// [`parse_type`] normalises the type names of columns.
fn register<T>(map: &mut HashMap<String, Arc<T>>, q: &QName, v: Arc<T>) {
    map.insert(q.name.clone(), v.clone());
    if let Some(s) = &q.schema {
        map.insert(format!("{s}.{}", q.name), v);
    }
}

/// The table `name` (bare or `schema.name`).
pub fn find<'a>(ddl: &'a Ddl, name: &str) -> Result<&'a DdlTable, String> {
    let (schema, bare) = match name.split_once('.') {
        Some((s, n)) => (Some(s), n),
        None => (None, name),
    };
    let found: Vec<&DdlTable> = ddl
        .tables
        .iter()
        .filter(|t| t.name == bare && (schema.is_none() || t.schema.as_deref() == schema))
        .collect();
    match found.as_slice() {
        [t] => Ok(t),
        [] => Err(format!(
            "table '{name}' is not in the schema file (it has: {})",
            ddl.tables
                .iter()
                .map(|t| qualified(&t.schema, &t.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Err(format!(
            "table name '{name}' is ambiguous; qualify it with its schema"
        )),
    }
}

/// Resolves a DDL column's type against the file's enums and domains.
pub fn column_type(ddl: &Ddl, c: &DdlColumn) -> PgType {
    parse_type(&c.type_text, &ddl.catalog)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQL: &str = r#"
-- pg_dump output
\restrict abc
SET statement_timeout = 0;
CREATE TYPE public.mood AS ENUM (
    'sad',
    'ok',
    'it''s fine'
);
CREATE DOMAIN public.posint AS integer NOT NULL
	CONSTRAINT posint_check CHECK ((VALUE > 0));
CREATE DOMAIN public.smallpos AS public.posint CHECK ((VALUE < 10));
CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $_$ select 1; CREATE TABLE no (x int); $_$;
CREATE FUNCTION public.g() RETURNS int LANGUAGE sql
BEGIN ATOMIC
 SELECT 1; CREATE TABLE nope (x int);
END;
CREATE TABLE public."Items" (
    id bigint NOT NULL,
    "Name" character varying(16) DEFAULT 'a;b'::character varying,
    m public.mood,
    n public.posint,
    price numeric(10, 2),
    tags text[],
    total numeric GENERATED ALWAYS AS ((price * 2)) STORED,
    at timestamp(3) with time zone,
    moods public.mood[],
    sp public.smallpos,
    CONSTRAINT c CHECK ((price > 0))
);
CREATE TABLE other (a int PRIMARY KEY, b text);
/* a /* nested */ comment; */
ALTER TABLE ONLY public."Items"
    ADD CONSTRAINT items_pkey PRIMARY KEY (id, "Name");
ALTER TABLE public."Items" ALTER COLUMN m SET NOT NULL;
\unrestrict abc
"#;

    #[test]
    fn reads_pg_dump_schema() {
        let d = parse(SQL.as_bytes()).unwrap();
        let t = find(&d, "Items").unwrap();
        assert_eq!(t.schema.as_deref(), Some("public"));
        let names: Vec<_> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["id", "Name", "m", "n", "price", "tags", "at", "moods", "sp"]
        );
        assert_eq!(t.primary_key, ["id", "Name"]);
        assert!(t.columns[1].not_null, "pk column is not null");
        assert!(t.columns[2].not_null, "SET NOT NULL applied");
        assert!(
            !t.columns[3].not_null,
            "the domain's NOT NULL is the domain's"
        );
        assert_eq!(column_type(&d, &t.columns[1]), PgType::Varchar(16));
        assert_eq!(
            column_type(&d, &t.columns[4]),
            PgType::Numeric(Some((10, 2)))
        );
        assert_eq!(
            column_type(&d, &t.columns[5]),
            PgType::Array(Box::new(PgType::Text))
        );
        assert_eq!(column_type(&d, &t.columns[6]), PgType::TimestampTz);
        match column_type(&d, &t.columns[2]) {
            PgType::Enum(e) => {
                assert!(e.labels.contains(&b"it's fine"[..]));
                assert_eq!(e.labels.len(), 3);
                assert_eq!(e.name, "public.mood");
            }
            other => panic!("not an enum: {other:?}"),
        }
        match column_type(&d, &t.columns[7]) {
            PgType::Array(e) => assert!(matches!(*e, PgType::Enum(_)), "{e:?}"),
            other => panic!("not an array of enums: {other:?}"),
        }
        match column_type(&d, &t.columns[3]) {
            PgType::Domain(dm) => {
                assert!(dm.not_null && dm.has_check);
                assert_eq!(dm.base, PgType::Int4);
            }
            other => panic!("not a domain: {other:?}"),
        }
        match column_type(&d, &t.columns[8]) {
            PgType::Domain(dm) => match &dm.base {
                PgType::Domain(inner) => assert_eq!(inner.name, "public.posint"),
                other => panic!("not a domain over a domain: {other:?}"),
            },
            other => panic!("not a domain: {other:?}"),
        }
        let o = find(&d, "public.other").err();
        assert!(o.is_some(), "unqualified table is not public.other");
        let o = find(&d, "other").unwrap();
        assert_eq!(o.primary_key, ["a"]);
        assert!(o.columns[0].not_null);
        assert!(find(&d, "nope").is_err(), "a function body is not DDL");
        assert!(find(&d, "no").is_err(), "a dollar-quoted body is not DDL");
        assert_eq!(d.tables.len(), 2);
    }

    /// Old dumps set a search path and write bare names; quoted type names keep their case.
    #[test]
    fn search_path_and_quoted_types() {
        let sql = b"SET search_path = sales, pg_catalog;\n\
            CREATE TYPE \"Tone\" AS ENUM ('Hi');\n\
            CREATE DOMAIN code AS character(3) NOT NULL;\n\
            CREATE TABLE t (a integer, b \"Tone\", c sales.code, d sales.\"Tone\");\n\
            ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (a);\n\
            SET search_path = other;\n\
            CREATE TABLE t (x int);\n";
        let d = parse(sql).unwrap();
        assert!(find(&d, "t").is_err(), "two tables named t");
        let t = find(&d, "sales.t").unwrap();
        assert_eq!(t.primary_key, ["a"]);
        assert!(t.columns[0].not_null);
        assert!(matches!(column_type(&d, &t.columns[1]), PgType::Enum(_)));
        match column_type(&d, &t.columns[2]) {
            PgType::Domain(dm) => assert_eq!(dm.name, "sales.code"),
            other => panic!("not a domain: {other:?}"),
        }
        assert!(matches!(column_type(&d, &t.columns[3]), PgType::Enum(_)));
        assert_eq!(find(&d, "other.t").unwrap().columns[0].name, "x");
    }

    /// A child lists only its own columns: the parent's come first.
    #[test]
    fn inherited_columns() {
        let sql =
            b"CREATE TABLE public.p (id int NOT NULL, g int GENERATED ALWAYS AS (id) STORED);\n\
            CREATE TABLE public.c (note text, id int) INHERITS (public.p);\n\
            ALTER TABLE public.c ALTER COLUMN note SET NOT NULL;\n";
        let d = parse(sql).unwrap();
        let c = find(&d, "c").unwrap();
        let cols: Vec<_> = c
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.not_null))
            .collect();
        assert_eq!(cols, [("id", true), ("note", true)]);
    }

    #[test]
    fn errors_name_the_offset() {
        let sql = b"CREATE TABLE t (a int);\nCREATE TABLE u (a int, \"b);\n";
        let (off, msg) = parse(sql).unwrap_err();
        assert_eq!(off, 47, "{msg}");
    }
}
