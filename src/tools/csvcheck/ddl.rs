//! csvcheck's view of a `pg_dump` schema file or whole plain dump: each table's columns (in
//! the order of its data), types, NOT NULL and primary key, and the enums and domains those
//! types name.
//!
//! Statements are split and classified by pgdump2csv's reader ([`crate::pg::dump::ddl`]), so
//! both tools read a dump's SQL the same psql-compatible way (quoting, `E''` strings, dollar
//! quotes, nested comments, `BEGIN ATOMIC` bodies, meta-commands), streaming, with `COPY` data
//! skipped. The tables (`CREATE TABLE` with `INHERITS` parents and typed tables, `ALTER TABLE
//! ... ADD CONSTRAINT ... PRIMARY KEY`, `ALTER TABLE ... SET NOT NULL`, names placed by `SET
//! search_path`) come from the schema builder pgdump2csv uses too
//! ([`crate::pg::dump::tabledefs`]); this module adds `CREATE TYPE ... AS ENUM`, `CREATE DOMAIN`,
//! the order of each table's data, and the column lists of `COPY` and `INSERT` statements,
//! which give the data's column order where `CREATE TABLE` cannot.

use crate::io::error::{Error, Result};
use crate::pg::dump::ddl::{ColumnDef, QName, Stmt, StreamStatements};
use crate::pg::dump::tabledefs::{Redeclare, TableDef, TableDefs, matches};
use crate::pg::types::{Catalog, Domain, EnumType, PgType, check_type_name, parse_type};
use std::collections::HashMap;
use std::io::Read;
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
    /// Columns in the order of the table's data (pg_dump's COPY column list), generated
    /// columns left out (their values are not in the data).
    pub columns: Vec<DdlColumn>,
    /// Generated columns (computed on load, not in the data).
    pub generated: Vec<String>,
    /// Primary key columns.
    pub primary_key: Vec<String>,
    /// Why the file cannot tell the order of the table's columns in its data, when it
    /// cannot (see [`parse`]); `columns` is then in the order `CREATE TABLE` suggests.
    pub order_unknown: Option<String>,
}

/// What a schema file declares.
#[derive(Debug, Default)]
pub struct Ddl {
    /// Tables in order of appearance.
    pub tables: Vec<DdlTable>,
    /// Enums and domains.
    pub catalog: Catalog,
}

/// Parses the statements of an in-memory schema file (see [`parse_reader`]).
pub fn parse(sql: &[u8]) -> Result<Ddl> {
    parse_reader(sql, "<schema>")
}

/// Parses the statements of a schema file or a whole plain dump, streaming: the data of
/// `COPY` blocks is skipped unread, so memory is bounded by the largest statement. An error
/// is a statement the reader could not make sense of, with its position in `name`.
///
/// The column order of a table's data is what `CREATE TABLE` shows, except for a table
/// that inherits (`INHERITS`): a column added to a parent after the child was created
/// comes after the child's own columns, and `CREATE TABLE` cannot show that. The order is
/// then known only when the file holds the table's `COPY ... (columns) FROM stdin` or
/// `INSERT INTO ... (columns)` (a whole dump, plain or `--column-inserts`), when every data column is declared in the child itself (pg_dump lists a
/// table's own columns in their physical order), or when the child declares no data
/// column of its own and inherits from one parent whose order is known. Otherwise
/// [`DdlTable::order_unknown`] says why.
pub fn parse_reader(r: impl Read, name: &str) -> Result<Ddl> {
    let mut defs = TableDefs::new(None, Redeclare::Adds);
    let mut copies: Vec<(QName, Vec<String>)> = Vec::new();
    let mut catalog = Catalog::default();
    let mut stmts = StreamStatements::new(r, name);
    while let Some((_, st)) = stmts.next_stmt()? {
        if let Some(t) = defs.apply(&st)
            && let Some(dup) = t.duplicate_column()
        {
            return Err(Error::input(
                stmts.last_pos(),
                format!(
                    "CREATE TABLE {} declares column {dup} twice",
                    qualified(&t.name)
                ),
            ));
        }
        match st {
            Stmt::Copy { table, cols } => copies.push((defs.place(&table), cols)),
            // A --column-inserts dump names the columns in each INSERT, as COPY does.
            Stmt::Insert => {
                if let Some((table, cols)) = stmts.last_insert_columns() {
                    let table = defs.place(&table);
                    if !copies.iter().any(|(q, _)| *q == table) {
                        copies.push((table, cols));
                    }
                }
            }
            Stmt::CreateEnum { name, labels } => {
                let name = defs.place(&name);
                let e = Arc::new(EnumType {
                    name: qualified(&name),
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
                let name = defs.place(&name);
                // Resolved now, against what is declared so far: a domain over a domain or an
                // enum names one created before it, as pg_dump orders them.
                let d = Arc::new(Domain {
                    name: qualified(&name),
                    base: parse_type(&base_type, &catalog),
                    not_null,
                    has_check,
                });
                register(&mut catalog.domains, &name, d);
            }
            _ => {}
        }
    }
    let tables: Vec<DdlTable> = defs
        .tables()
        .iter()
        .filter(|d| d.declared)
        .map(|d| {
            let all = defs.all_columns(d).0;
            let copy = copies
                .iter()
                .find(|(q, _)| matches(&d.name, q))
                .map(|(_, cols)| cols);
            let (order, order_unknown) = match copy {
                Some(cols) => match by_copy_list(&all, cols) {
                    Ok(o) => (o, None),
                    Err(why) => (data_names(&all), Some(why)),
                },
                None => match data_order(&defs, d, 0) {
                    Ok(o) => (o, None),
                    Err(why) => (data_names(&all), Some(why)),
                },
            };
            let columns = order
                .iter()
                .filter_map(|n| all.iter().find(|c| c.name == *n))
                .map(|c| DdlColumn {
                    not_null: d.is_not_null(c),
                    name: c.name.clone(),
                    type_text: c.type_name.clone(),
                })
                .collect();
            DdlTable {
                schema: d.name.schema.clone(),
                name: d.name.name.clone(),
                columns,
                generated: all
                    .iter()
                    .filter(|c| c.generated)
                    .map(|c| c.name.clone())
                    .collect(),
                primary_key: d.pk.clone(),
                order_unknown,
            }
        })
        .collect();
    Ok(Ddl { tables, catalog })
}

/// Names of the columns that are in the data (not generated), in the given order.
fn data_names(cols: &[ColumnDef]) -> Vec<String> {
    cols.iter()
        .filter(|c| !c.generated)
        .map(|c| c.name.clone())
        .collect()
}

/// The data order from pg_dump's COPY column list, which must name exactly the table's
/// data columns.
fn by_copy_list(all: &[ColumnDef], copy: &[String]) -> Result<Vec<String>, String> {
    let mut want = data_names(all);
    let mut got = copy.to_vec();
    want.sort();
    got.sort();
    if want != got {
        return Err(format!(
            "its COPY column list ({}) does not match the data columns of its CREATE TABLE ({})",
            copy.join(", "),
            data_names(all).join(", ")
        ));
    }
    Ok(copy.to_vec())
}

/// The order of a table's data columns as far as `CREATE TABLE` statements determine it
/// (the rule is spelled out at [`parse_reader`]), or why they do not.
fn data_order(defs: &TableDefs, d: &TableDef, depth: u32) -> Result<Vec<String>, String> {
    let all = defs.all_columns(d).0;
    if d.inherits.is_empty() {
        return Ok(data_names(&all));
    }
    let me = qualified(&d.name);
    let parents: Vec<&TableDef> = d
        .inherits
        .iter()
        .map(|q| {
            defs.find(q).filter(|p| p.declared).ok_or_else(|| {
                format!(
                    "{me} inherits from {}, which the file does not declare",
                    qualified(q)
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let local = |n: &str| d.columns.iter().any(|c| c.name == n);
    let data = data_names(&all);
    let (own, inherited): (Vec<&String>, Vec<&String>) = data.iter().partition(|n| local(n));
    if inherited.is_empty() {
        // pg_dump lists a table's own columns in their physical order; a hand-written
        // CREATE TABLE gets the parents' columns first. Either is right when they agree.
        let declared: Vec<String> = d
            .columns
            .iter()
            .filter(|c| data.contains(&c.name))
            .map(|c| c.name.clone())
            .collect();
        if declared == data {
            return Ok(data);
        }
        return Err(format!(
            "{me} declares its columns in the order ({}), which is not its parents' order \
             ({}): as pg_dump writes it the declared order is the data's, as PostgreSQL \
             creates it the parents' order is",
            declared.join(", "),
            data.join(", ")
        ));
    }
    if !own.is_empty() {
        return Err(format!(
            "{me} inherits columns ({}) and declares columns of its own ({}); a column added to \
             a parent after {me} was created comes after its own columns, and CREATE TABLE \
             does not show which did",
            join(&inherited),
            join(&own)
        ));
    }
    let mut from_parents: Vec<(&TableDef, Vec<String>)> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for p in &parents {
        let new: Vec<String> = data_names(&defs.all_columns(p).0)
            .into_iter()
            .filter(|n| !taken.contains(n))
            .collect();
        taken.extend(new.iter().cloned());
        if !new.is_empty() {
            from_parents.push((p, new));
        }
    }
    match from_parents.as_slice() {
        [] => Ok(data),
        [(p, _)] if depth < 32 => Ok(data_order(defs, p, depth + 1)?
            .into_iter()
            .filter(|n| data.contains(n))
            .collect()),
        [_] => Err(format!("{me}: inheritance is too deep")),
        _ => Err(format!(
            "{me} inherits columns from several parents ({}); a column added to one of them \
             after {me} was created comes last, and CREATE TABLE does not show which did",
            from_parents
                .iter()
                .map(|(p, _)| qualified(&p.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn join(names: &[&String]) -> String {
    names
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn qualified(q: &QName) -> String {
    match &q.schema {
        Some(s) => format!("{s}.{}", q.name),
        None => q.name.clone(),
    }
}

/// Enters a type under its bare and its qualified name. Names are kept as the lexer folded
/// them (unquoted ones lower case, quoted ones as written), which is how
/// [`parse_type`] normalises the type names of columns.
/// The enums and domains a pgdump2csv manifest carries, as [`parse_reader`] builds them from
/// the schema file (a manifest written before it carried them gives an empty catalog).
pub fn manifest_catalog(m: &crate::manifest::Manifest) -> Catalog {
    let mut catalog = Catalog::default();
    for e in &m.enums {
        let name = QName {
            schema: e.schema.clone(),
            name: e.name.clone(),
        };
        let t = Arc::new(EnumType {
            name: qualified(&name),
            labels: e.labels.iter().map(|l| l.clone().into_bytes()).collect(),
        });
        register(&mut catalog.enums, &name, t);
    }
    // In declaration order: a domain over a domain names one before it.
    for d in &m.domains {
        let name = QName {
            schema: d.schema.clone(),
            name: d.name.clone(),
        };
        let t = Arc::new(Domain {
            name: qualified(&name),
            base: parse_type(&d.base_type, &catalog),
            not_null: d.not_null,
            has_check: d.has_check,
        });
        register(&mut catalog.domains, &name, t);
    }
    catalog
}

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
                .map(|t| match &t.schema {
                    Some(s) => format!("{s}.{}", t.name),
                    None => t.name.clone(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Err(format!(
            "table name '{name}' is ambiguous; qualify it with its schema"
        )),
    }
}

/// Resolves a DDL column's type against the file's enums and domains; an error is a type
/// PostgreSQL would have refused (see [`check_type_name`]).
pub fn column_type(ddl: &Ddl, c: &DdlColumn) -> Result<PgType, String> {
    check_type_name(&c.type_text, &ddl.catalog, false)
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
        assert_eq!(column_type(&d, &t.columns[1]).unwrap(), PgType::Varchar(16));
        assert_eq!(
            column_type(&d, &t.columns[4]).unwrap(),
            PgType::Numeric(Some((10, 2)))
        );
        assert_eq!(
            column_type(&d, &t.columns[5]).unwrap(),
            PgType::Array(Box::new(PgType::Text))
        );
        assert_eq!(column_type(&d, &t.columns[6]).unwrap(), PgType::TimestampTz);
        match column_type(&d, &t.columns[2]).unwrap() {
            PgType::Enum(e) => {
                assert!(e.labels.contains(&b"it's fine"[..]));
                assert_eq!(e.labels.len(), 3);
                assert_eq!(e.name, "public.mood");
            }
            other => panic!("not an enum: {other:?}"),
        }
        match column_type(&d, &t.columns[7]).unwrap() {
            PgType::Array(e) => assert!(matches!(*e, PgType::Enum(_)), "{e:?}"),
            other => panic!("not an array of enums: {other:?}"),
        }
        match column_type(&d, &t.columns[3]).unwrap() {
            PgType::Domain(dm) => {
                assert!(dm.not_null && dm.has_check);
                assert_eq!(dm.base, PgType::Int4);
            }
            other => panic!("not a domain: {other:?}"),
        }
        match column_type(&d, &t.columns[8]).unwrap() {
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
        assert!(matches!(
            column_type(&d, &t.columns[1]).unwrap(),
            PgType::Enum(_)
        ));
        match column_type(&d, &t.columns[2]).unwrap() {
            PgType::Domain(dm) => assert_eq!(dm.name, "sales.code"),
            other => panic!("not a domain: {other:?}"),
        }
        assert!(matches!(
            column_type(&d, &t.columns[3]).unwrap(),
            PgType::Enum(_)
        ));
        assert_eq!(find(&d, "other.t").unwrap().columns[0].name, "x");
    }

    /// A child lists only its own columns: the parent's come first.
    /// A typed table's columns are its composite type's attributes (before: none, so
    /// nothing was checked and `zz` passed as an integer).
    #[test]
    fn typed_table_columns() {
        let d = parse(
            b"SET search_path = s, pg_catalog;\n\
              CREATE TYPE ct AS (a integer, b text);\n\
              CREATE TABLE t OF ct;\n\
              ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (a);\n",
        )
        .unwrap();
        let t = find(&d, "s.t").unwrap();
        let cols: Vec<_> = t
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.type_text.as_str(), c.not_null))
            .collect();
        assert_eq!(cols, [("a", "integer", true), ("b", "text", false)]);
        assert_eq!(t.primary_key, ["a"]);
    }

    #[test]
    fn inherited_columns() {
        let sql =
            b"CREATE TABLE public.p (id int NOT NULL, g int GENERATED ALWAYS AS (id) STORED);\n\
            CREATE TABLE public.c (id int, note text) INHERITS (public.p);\n\
            ALTER TABLE public.c ALTER COLUMN note SET NOT NULL;\n\
            CREATE TABLE public.c2 (note text, id int) INHERITS (public.p);\n\
            CREATE TABLE public.c3 (note text) INHERITS (public.p);\n\
            CREATE TABLE public.c4 () INHERITS (public.c);\n\
            CREATE TABLE public.q (x int);\n\
            CREATE TABLE public.c5 () INHERITS (public.p, public.q);\n";
        let d = parse(sql).unwrap();
        let c = find(&d, "c").unwrap();
        let cols: Vec<_> = c
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.not_null))
            .collect();
        assert_eq!(cols, [("id", true), ("note", true)]);
        assert_eq!(c.generated, ["g"]);
        assert!(c.order_unknown.is_none());
        // Declared order differs from the parents' order: pg_dump and CREATE TABLE disagree.
        assert!(find(&d, "c2").unwrap().order_unknown.is_some());
        // Inherited and own columns: a parent may have gained columns later.
        let why = find(&d, "c3").unwrap().order_unknown.clone().unwrap();
        assert!(why.contains("inherits columns (id)"), "{why}");
        // Only inherited columns from one parent keep its order.
        let c4 = find(&d, "c4").unwrap();
        assert!(c4.order_unknown.is_none());
        let names: Vec<_> = c4.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["id", "note"]);
        // From two parents: either may have gained columns.
        assert!(find(&d, "c5").unwrap().order_unknown.is_some());
    }

    /// A child's own generated column hides the parent's stored one from its data, and a
    /// whole dump's COPY column list gives the data order.
    #[test]
    fn generated_in_child_and_copy_order() {
        let sql = b"CREATE TABLE public.p (a int, b int);\n\
            CREATE TABLE public.c (a int, b int GENERATED ALWAYS AS ((a * 2)) STORED) INHERITS (public.p);\n\
            CREATE TABLE public.l (note text) INHERITS (public.p);\n\
            COPY public.l (a, note, b) FROM stdin;\n1\tx\t2\n\\.\n\
            COPY public.c (a) FROM stdin;\n\\.\n";
        let d = parse(sql).unwrap();
        let c = find(&d, "c").unwrap();
        let names: Vec<_> = c.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a"]);
        assert_eq!(c.generated, ["b"]);
        let l = find(&d, "l").unwrap();
        assert!(l.order_unknown.is_none());
        let names: Vec<_> = l.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "note", "b"]);
        assert_eq!(column_type(&d, &l.columns[2]).unwrap(), PgType::Int4);
    }

    /// Refused as PostgreSQL refuses them: a column twice, an impossible type modifier, a
    /// CREATE TABLE that never closes.
    #[test]
    fn refuses_what_postgresql_refuses() {
        let e = parse(b"CREATE TABLE t (a int, b text, a int);").unwrap_err();
        assert!(e.to_string().contains("declares column a twice"), "{e}");
        let d = parse(b"CREATE TABLE t (a varchar(-1), b numeric(0), c varchar(x));").unwrap();
        let t = find(&d, "t").unwrap();
        for c in &t.columns {
            assert!(column_type(&d, c).is_err(), "{}", c.type_text);
        }
        let e = parse(b"SET x = 1;\nCREATE TABLE t (a int,\n b text\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("<schema>:2: (byte 11) CREATE TABLE never closes"),
            "{e}"
        );
        let e = parse(b"CREATE TABLE t (a int; CREATE TABLE u (b int);\n").unwrap_err();
        assert!(e.to_string().contains("never closes"), "{e}");
    }

    #[test]
    fn errors_name_the_offset() {
        let sql = b"CREATE TABLE t (a int);\nCREATE TABLE u (a int, \"b);\n";
        let e = parse(sql).unwrap_err().to_string();
        assert!(e.starts_with("<schema>:2: (byte 47) "), "{e}");
    }
}
