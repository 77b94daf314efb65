//! csvcheck's view of a `pg_dump` schema file or whole plain dump: each table's columns (in
//! the order of its data), types, NOT NULL and primary key, and the enums and domains those
//! types name.
//!
//! Statements are split and classified by pgdump2csv's reader ([`crate::pgdump::ddl`]), so
//! both tools read a dump's SQL the same psql-compatible way (quoting, `E''` strings, dollar
//! quotes, nested comments, `BEGIN ATOMIC` bodies, meta-commands), streaming, with `COPY` data
//! skipped. This module only assembles what the statements declare: `CREATE TABLE` (with
//! `INHERITS` parents), `CREATE TYPE ... AS ENUM`, `CREATE DOMAIN`, `ALTER TABLE ... ADD
//! CONSTRAINT ... PRIMARY KEY` and `ALTER TABLE ... SET NOT NULL`, with unqualified names
//! placed by `SET search_path`, and the column lists of `COPY` and `INSERT` statements,
//! which give the data's column order where `CREATE TABLE` cannot.

use crate::error::{Error, Result};
use crate::pgdump::ddl::{ColumnDef, QName, Stmt, StreamStatements, merge_inherited};
use crate::pgtypes::{Catalog, Domain, EnumType, PgType, check_type_name, parse_type};
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
    let mut decls: Vec<Decl> = Vec::new();
    let mut alters = Vec::new();
    let mut copies: Vec<(QName, Vec<String>)> = Vec::new();
    let mut catalog = Catalog::default();
    let mut search_path: Vec<String> = Vec::new();
    let mut composites: Vec<(QName, Vec<ColumnDef>)> = Vec::new();
    let mut stmts = StreamStatements::new(r, name);
    while let Some((_, st)) = stmts.next_stmt()? {
        match st {
            Stmt::SearchPath(p) => search_path = p,
            Stmt::CreateComposite { name, attributes } => {
                composites.push((name.placed(&search_path), attributes));
            }
            Stmt::CreateTable {
                table,
                columns,
                pk,
                inherits,
                of_type,
            } => {
                let table = table.placed(&search_path);
                // A typed table (CREATE TABLE t OF type) has the type's attributes as columns.
                let columns = match of_type.map(|t| t.placed(&search_path)) {
                    Some(ty) if columns.is_empty() => composites
                        .iter()
                        .find(|(q, _)| matches(&q.schema, &q.name, &ty))
                        .map(|(_, a)| a.clone())
                        .unwrap_or_default(),
                    _ => columns,
                };
                if let Some(dup) = columns
                    .iter()
                    .enumerate()
                    .find(|(k, c)| columns[..*k].iter().any(|x| x.name == c.name))
                {
                    return Err(Error::input(
                        stmts.last_pos(),
                        format!(
                            "CREATE TABLE {} declares column {} twice",
                            qualified(&table.schema, &table.name),
                            dup.1.name
                        ),
                    ));
                }
                decls.push(Decl {
                    schema: table.schema,
                    name: table.name,
                    columns,
                    pk,
                    inherits: inherits
                        .into_iter()
                        .map(|q| q.placed(&search_path))
                        .collect(),
                });
            }
            Stmt::Copy { table, cols } => copies.push((table.placed(&search_path), cols)),
            // A --column-inserts dump names the columns in each INSERT, as COPY does.
            Stmt::Insert => {
                if let Some((table, cols)) = stmts.last_insert_columns() {
                    let table = table.placed(&search_path);
                    if !copies.iter().any(|(q, _)| *q == table) {
                        copies.push((table, cols));
                    }
                }
            }
            Stmt::AddPrimaryKey { table, cols } => {
                alters.push(Alter::Pk(table.placed(&search_path), cols));
            }
            Stmt::SetNotNull { table, col } => {
                alters.push(Alter::NotNull(table.placed(&search_path), col));
            }
            Stmt::CreateEnum { name, labels } => {
                let name = name.placed(&search_path);
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
                let name = name.placed(&search_path);
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
            let all = all_columns(&decls, d, 0);
            let copy = copies
                .iter()
                .find(|(q, _)| matches(&d.schema, &d.name, q))
                .map(|(_, cols)| cols);
            let (order, order_unknown) = match copy {
                Some(cols) => match by_copy_list(&all, cols) {
                    Ok(o) => (o, None),
                    Err(why) => (data_names(&all), Some(why)),
                },
                None => match data_order(&decls, d, 0) {
                    Ok(o) => (o, None),
                    Err(why) => (data_names(&all), Some(why)),
                },
            };
            let mut t = DdlTable {
                schema: d.schema.clone(),
                name: d.name.clone(),
                columns: Vec::new(),
                generated: all
                    .iter()
                    .filter(|c| c.generated)
                    .map(|c| c.name.clone())
                    .collect(),
                primary_key: d.pk.clone(),
                order_unknown,
            };
            for n in order {
                if let Some(c) = all.iter().find(|c| c.name == n) {
                    t.columns.push(DdlColumn {
                        not_null: c.not_null || t.primary_key.contains(&c.name),
                        name: c.name.clone(),
                        type_text: c.type_name.clone(),
                    });
                }
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
fn data_order(decls: &[Decl], d: &Decl, depth: u32) -> Result<Vec<String>, String> {
    let all = all_columns(decls, d, depth);
    if d.inherits.is_empty() {
        return Ok(data_names(&all));
    }
    let me = qualified(&d.schema, &d.name);
    let parents: Vec<&Decl> = d
        .inherits
        .iter()
        .map(|q| {
            decls
                .iter()
                .find(|p| matches(&p.schema, &p.name, q))
                .ok_or_else(|| {
                    format!(
                        "{me} inherits from {}, which the file does not declare",
                        qualified(&q.schema, &q.name)
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
    let mut from_parents: Vec<(&Decl, Vec<String>)> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for p in &parents {
        let new: Vec<String> = data_names(&all_columns(decls, p, depth + 1))
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
        [(p, _)] if depth < 32 => Ok(data_order(decls, p, depth + 1)?
            .into_iter()
            .filter(|n| data.contains(n))
            .collect()),
        [_] => Err(format!("{me}: inheritance is too deep")),
        _ => Err(format!(
            "{me} inherits columns from several parents ({}); a column added to one of them \
             after {me} was created comes last, and CREATE TABLE does not show which did",
            from_parents
                .iter()
                .map(|(p, _)| qualified(&p.schema, &p.name))
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
