//! Understanding the statements of a dump that matter for conversion and checking: `CREATE
//! TABLE` (columns, types, NOT NULL, generated columns, inline primary keys), `ALTER TABLE ...
//! ADD CONSTRAINT ... PRIMARY KEY`, `ALTER ... SET NOT NULL`, `CREATE TYPE ... AS ENUM`, `CREATE
//! DOMAIN`, `COPY ... FROM stdin`, `INSERT INTO ... VALUES`, and the `SET`s that change how the
//! rest must be read (search_path, standard_conforming_strings, client_encoding).
//! pgdump2csv passes everything but the data through to its schema files untouched; csvcheck
//! reads a schema file's (or a whole dump's) tables, enums and domains with
//! [`StreamStatements`].

use super::sql::tokenize;

mod parse;
mod stream;

use parse::P;
pub use stream::StreamStatements;

/// A possibly schema-qualified name; `schema` is `None` when the dump did not qualify it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QName {
    /// Schema, if given.
    pub schema: Option<String>,
    /// Object name.
    pub name: String,
}

impl QName {
    /// The one search_path rule of the toolkit (pgdump2csv's file names, csvcheck's tables):
    /// an unqualified name gets the schema it would be created in, the first schema of the
    /// search path other than `pg_catalog` (old dumps `SET search_path = s, pg_catalog` and
    /// write bare names). Without such a schema the name stays unqualified.
    pub fn placed(self, search_path: &[String]) -> QName {
        let schema = self.schema.or_else(|| {
            search_path
                .iter()
                .find(|s| s.as_str() != "pg_catalog")
                .cloned()
        });
        QName {
            schema,
            name: self.name,
        }
    }
}

/// A column as declared in `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    /// Name.
    pub name: String,
    /// Type as written, whitespace-normalised.
    pub type_name: String,
    /// `NOT NULL` (or part of an inline primary key).
    pub not_null: bool,
    /// `GENERATED ALWAYS AS (...) STORED`: pg_dump leaves it out of COPY.
    pub generated: bool,
}

/// What a statement means to the converter.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `CREATE TABLE`.
    CreateTable {
        /// Table.
        table: QName,
        /// Columns in declaration order.
        columns: Vec<ColumnDef>,
        /// Primary key declared inline.
        pk: Vec<String>,
        /// `INHERITS (...)` parents, whose columns come first.
        inherits: Vec<QName>,
        /// `OF type`: a typed table, whose columns are the composite type's attributes.
        of_type: Option<QName>,
    },
    /// `CREATE TYPE name AS (attribute type, ...)`: a composite type.
    CreateComposite {
        /// Type.
        name: QName,
        /// Attributes in order (as columns: never NOT NULL nor generated).
        attributes: Vec<ColumnDef>,
    },
    /// `ALTER TABLE ... ADD [CONSTRAINT x] PRIMARY KEY (cols)`.
    AddPrimaryKey {
        /// Table.
        table: QName,
        /// Key columns.
        cols: Vec<String>,
    },
    /// `ALTER TABLE ... ALTER COLUMN c SET NOT NULL`.
    SetNotNull {
        /// Table.
        table: QName,
        /// Column.
        col: String,
    },
    /// `CREATE TYPE name AS ENUM ('label', ...)`.
    CreateEnum {
        /// Type.
        name: QName,
        /// Labels in declaration order, decoded.
        labels: Vec<String>,
    },
    /// `CREATE DOMAIN name [AS] type [COLLATE c] [DEFAULT e] [[CONSTRAINT n] NOT NULL | NULL |
    /// CHECK (e)] ...`.
    CreateDomain {
        /// Domain.
        name: QName,
        /// Base type as written, whitespace-normalised (may itself be a domain or enum).
        base_type: String,
        /// `NOT NULL` among the constraints.
        not_null: bool,
        /// Has `CHECK` constraints (expressions are not kept: nothing here evaluates them).
        has_check: bool,
    },
    /// `SET search_path = ...` or `SELECT pg_catalog.set_config('search_path', ...)`.
    SearchPath(Vec<String>),
    /// `SET standard_conforming_strings = on|off`.
    StdStrings(bool),
    /// `SET client_encoding = '...'`.
    ClientEncoding(String),
    /// `COPY table [(cols)] FROM stdin`.
    Copy {
        /// Target table.
        table: QName,
        /// Column list; empty when the table has no dumpable columns.
        cols: Vec<String>,
    },
    /// `INSERT INTO ...`: parsed separately by the inserts module.
    Insert,
    /// `COPY` in a form pg_dump does not write (e.g. from a file).
    OtherCopy,
    /// Anything else.
    Other,
}

pub(super) type PResult<T> = Result<T, (usize, String)>;

/// Reads the first keyword cheaply, without tokenizing the whole statement.
fn first_word(s: &[u8]) -> &[u8] {
    let mut i = 0;
    loop {
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        if s[i..].starts_with(b"--") {
            i = memchr::memchr(b'\n', &s[i..]).map_or(s.len(), |k| i + k + 1);
            continue;
        }
        break;
    }
    let j = s[i..]
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .map_or(s.len(), |k| i + k);
    &s[i..j]
}

/// Classifies one statement (from its first significant byte through its `;`).
pub fn classify(stmt: &[u8], std_strings: bool) -> PResult<Stmt> {
    let w = first_word(stmt).to_ascii_lowercase();
    match w.as_slice() {
        b"insert" => return Ok(Stmt::Insert),
        b"create" | b"alter" | b"set" | b"select" | b"copy" => {}
        _ => return Ok(Stmt::Other),
    }
    let toks = tokenize(stmt, std_strings)?;
    let mut p = P {
        t: &toks,
        i: 0,
        src: stmt,
    };
    match w.as_slice() {
        b"create" => p.create(),
        b"alter" => p.alter(),
        b"set" => p.set(),
        b"select" => p.select(),
        b"copy" => p.copy(),
        _ => Ok(Stmt::Other),
    }
}

/// Columns of a table in physical order, given the full column lists of its `INHERITS`
/// parents (in declaration order) and its own declared columns: the parents' columns come
/// first (pg_dump declares only the child's own), and a column declared again is kept once,
/// with NOT NULL merged.
pub fn merge_inherited(
    parents: impl IntoIterator<Item = Vec<ColumnDef>>,
    own: &[ColumnDef],
) -> Vec<ColumnDef> {
    let mut cols: Vec<ColumnDef> = Vec::new();
    for parent in parents {
        for c in parent {
            if !cols.iter().any(|x| x.name == c.name) {
                cols.push(c);
            }
        }
    }
    for c in own {
        match cols.iter_mut().find(|x| x.name == c.name) {
            Some(x) => {
                x.not_null |= c.not_null;
                // The child's own definition wins: PostgreSQL lets a child compute a column
                // its parent stores (`b int GENERATED ALWAYS AS (a*2) STORED` under a plain
                // parent `b`), and then the child's data leaves it out. A parent's generated
                // column stays generated in every child (PostgreSQL requires it).
                x.generated |= c.generated;
            }
            None => cols.push(c.clone()),
        }
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: Option<&str>, n: &str) -> QName {
        QName {
            schema: s.map(Into::into),
            name: n.into(),
        }
    }

    #[test]
    fn typed_tables_and_composite_types() {
        let Stmt::CreateComposite { name, attributes } = classify(
            b"CREATE TYPE s.ct AS (a integer, \"B\" character varying(3) COLLATE pg_catalog.\"C\", c numeric(5,2));",
            true,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(name, q(Some("s"), "ct"));
        let cols: Vec<_> = attributes
            .iter()
            .map(|c| (c.name.as_str(), c.type_name.as_str()))
            .collect();
        assert_eq!(
            cols,
            [
                ("a", "integer"),
                ("B", "character varying(3)"),
                ("c", "numeric(5,2)")
            ]
        );
        assert!(matches!(
            classify(b"CREATE TYPE e AS ENUM ('x');", true).unwrap(),
            Stmt::CreateEnum { .. }
        ));
        assert_eq!(
            classify(b"CREATE TYPE r AS RANGE (subtype = int4);", true).unwrap(),
            Stmt::Other
        );
        let Stmt::CreateTable { of_type, .. } =
            classify(b"CREATE TABLE public.t OF s.ct;", true).unwrap()
        else {
            panic!()
        };
        assert_eq!(of_type, Some(q(Some("s"), "ct")));
    }

    #[test]
    fn create_table() {
        let sql = b"CREATE TABLE public.\"Order\" (\n    id bigint NOT NULL,\n    \"weird \"\"col\"\", name\" character varying(20) DEFAULT 'a,b'::character varying,\n    total numeric(10,2),\n    tags text[] COLLATE pg_catalog.\"C\",\n    g integer GENERATED ALWAYS AS ((id * 2)) STORED,\n    ident integer GENERATED BY DEFAULT AS IDENTITY,\n    CONSTRAINT c CHECK ((total > (0)::numeric))\n);";
        let Stmt::CreateTable {
            table, columns, pk, ..
        } = classify(sql, true).unwrap()
        else {
            panic!()
        };
        assert_eq!(table, q(Some("public"), "Order"));
        assert!(pk.is_empty());
        let names: Vec<_> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["id", "weird \"col\", name", "total", "tags", "g", "ident"]
        );
        assert_eq!(columns[1].type_name, "character varying(20)");
        assert_eq!(columns[2].type_name, "numeric(10,2)");
        assert_eq!(columns[3].type_name, "text[]");
        assert!(columns[0].not_null && !columns[1].not_null);
        assert!(columns[4].generated && !columns[5].generated);
        let sql = b"CREATE TABLE t (a int PRIMARY KEY, b timestamp with time zone, PRIMARY KEY (a, b)) INHERITS (public.p, q);";
        let Stmt::CreateTable {
            columns,
            pk,
            inherits,
            ..
        } = classify(sql, true).unwrap()
        else {
            panic!()
        };
        assert_eq!(inherits, [q(Some("public"), "p"), q(None, "q")]);
        assert_eq!(pk, ["a", "b"]);
        assert_eq!(columns[1].type_name, "timestamp with time zone");
        assert!(columns[1].not_null);
    }

    #[test]
    fn enums_and_domains() {
        assert_eq!(
            classify(
                b"CREATE TYPE public.\"Mood\" AS ENUM (\n    'sad',\n    'it''s fine',\n    ''\n);",
                true
            )
            .unwrap(),
            Stmt::CreateEnum {
                name: q(Some("public"), "Mood"),
                labels: vec!["sad".into(), "it's fine".into(), String::new()]
            }
        );
        assert_eq!(
            classify(b"CREATE TYPE e AS ENUM ();", true).unwrap(),
            Stmt::CreateEnum {
                name: q(None, "e"),
                labels: vec![]
            }
        );
        // Other kinds of types (composite ones aside: typed tables take their attributes,
        // see typed_tables_and_composite_types) are just other statements.
        for sql in [
            &b"CREATE TYPE public.r AS RANGE (subtype = integer);"[..],
            b"CREATE TYPE public.shell;",
        ] {
            assert_eq!(classify(sql, true).unwrap(), Stmt::Other);
        }
        assert_eq!(
            classify(
                b"CREATE DOMAIN public.posint AS integer NOT NULL\n\tCONSTRAINT posint_check CHECK ((VALUE > 0));",
                true
            )
            .unwrap(),
            Stmt::CreateDomain {
                name: q(Some("public"), "posint"),
                base_type: "integer".into(),
                not_null: true,
                has_check: true
            }
        );
        assert_eq!(
            classify(
                b"CREATE DOMAIN d numeric(10, 2)[] COLLATE \"C\" DEFAULT (1 IS NOT NULL) NULL;",
                true
            )
            .unwrap(),
            Stmt::CreateDomain {
                name: q(None, "d"),
                base_type: "numeric(10, 2)[]".into(),
                not_null: false,
                has_check: false
            }
        );
        assert_eq!(
            classify(b"CREATE DOMAIN s.d2 AS s.d CONSTRAINT nn NOT NULL;", true).unwrap(),
            Stmt::CreateDomain {
                name: q(Some("s"), "d2"),
                base_type: "s.d".into(),
                not_null: true,
                has_check: false
            }
        );
    }

    /// The child's own definition of a column wins over the parent's: its own generated
    /// column is generated (and not in its data) even where the parent stores it.
    #[test]
    fn child_generated_column_wins() {
        let col = |n: &str, generated: bool| ColumnDef {
            name: n.into(),
            type_name: "integer".into(),
            not_null: false,
            generated,
        };
        let merged = merge_inherited(
            vec![vec![col("a", false), col("b", false)]],
            &[col("a", false), col("b", true)],
        );
        assert_eq!(merged, [col("a", false), col("b", true)]);
        let merged = merge_inherited(vec![vec![col("g", true)]], &[col("g", false)]);
        assert_eq!(
            merged,
            [col("g", true)],
            "a parent's generated column stays generated"
        );
    }

    #[test]
    fn a_column_named_exclude() {
        let sql = b"CREATE TABLE t (\n    id integer,\n    exclude text,\n    EXCLUDE USING gist (id WITH =)\n);";
        let Stmt::CreateTable { columns, .. } = classify(sql, true).unwrap() else {
            panic!()
        };
        let names: Vec<_> = columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["id", "exclude"]);
    }

    #[test]
    fn others() {
        assert_eq!(
            classify(
                b"ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (a, \"B\");",
                true
            )
            .unwrap(),
            Stmt::AddPrimaryKey {
                table: q(Some("public"), "t"),
                cols: vec!["a".into(), "B".into()]
            }
        );
        assert_eq!(
            classify(b"COPY public.t (a, \"b c\") FROM stdin;", true).unwrap(),
            Stmt::Copy {
                table: q(Some("public"), "t"),
                cols: vec!["a".into(), "b c".into()]
            }
        );
        assert_eq!(
            classify(b"COPY public.t  FROM stdin;", true).unwrap(),
            Stmt::Copy {
                table: q(Some("public"), "t"),
                cols: vec![]
            }
        );
        assert_eq!(
            classify(b"SET search_path = sales, pg_catalog;", true).unwrap(),
            Stmt::SearchPath(vec!["sales".into(), "pg_catalog".into()])
        );
        assert_eq!(
            classify(
                b"SELECT pg_catalog.set_config('search_path', '', false);",
                true
            )
            .unwrap(),
            Stmt::SearchPath(vec![])
        );
        assert_eq!(
            classify(b"SET standard_conforming_strings = off;", true).unwrap(),
            Stmt::StdStrings(false)
        );
        assert_eq!(
            classify(b"SET client_encoding = 'UTF8';", true).unwrap(),
            Stmt::ClientEncoding("UTF8".into())
        );
        assert_eq!(
            classify(b"-- c\nINSERT INTO t VALUES (1);", true).unwrap(),
            Stmt::Insert
        );
        assert_eq!(
            classify(b"CREATE INDEX i ON t (a);", true).unwrap(),
            Stmt::Other
        );
        assert_eq!(
            classify(
                b"ALTER TABLE ONLY public.t ALTER COLUMN a SET NOT NULL;",
                true
            )
            .unwrap(),
            Stmt::SetNotNull {
                table: q(Some("public"), "t"),
                col: "a".into()
            }
        );
    }
}
