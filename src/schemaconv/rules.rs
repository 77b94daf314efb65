//! The table of rules: per target, which statement kinds are kept, rewritten or dropped, why,
//! and the vendor documentation page (with its version) each rule comes from.
//!
//! A statement's kind is the string [`super::classify`] makes of it (`CREATE TABLE`,
//! `ALTER TABLE ADD PRIMARY KEY`, `SET xmloption`, ...). A matcher is such a string in which
//! `*` stands for one or more words. The first rule of the target that matches decides; a
//! statement no rule matches is kept and reported as unknown to the rules.
//!
//! No CockroachDB or YugabyteDB server was available where these rules were written: each
//! one rests on the cited page, not on a test against the server.

/// Which target a rule is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Any target (the -O / -x rules).
    Any,
    /// PostgreSQL.
    Postgresql,
    /// CockroachDB.
    Cockroachdb,
    /// YugabyteDB (YSQL).
    Yugabytedb,
}

/// What a rule does with a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Written as the dump has it.
    Keep,
    /// Rewritten by the converter (the rule id says how).
    Rewrite,
    /// Left out, with the reason.
    Drop,
}

/// One rule.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, named in the report and in the comment that replaces a dropped statement.
    pub id: &'static str,
    /// The target it is for.
    pub target: Target,
    /// The statement kinds it matches (`*`: one or more words).
    pub matcher: &'static str,
    /// What it does.
    pub action: Action,
    /// Why, in one sentence a person reads.
    pub reason: &'static str,
    /// The documentation page it rests on, with the version in the link.
    pub doc: &'static str,
}

const PG_RESTORE: &str = "https://www.postgresql.org/docs/17/app-pgrestore.html";
const CRDB_PK: &str = "https://www.cockroachlabs.com/docs/v26.2/primary-key";
const CRDB_COMPAT: &str = "https://www.cockroachlabs.com/docs/v26.2/postgresql-compatibility";
const CRDB_SET: &str = "https://www.cockroachlabs.com/docs/v26.2/set-vars";
const CRDB_PARTITION: &str = "https://www.cockroachlabs.com/docs/v26.2/partitioning";
const YB_CREATE_TABLE: &str =
    "https://docs.yugabyte.com/stable/api/ysql/the-sql-language/statements/ddl_create_table/";
const YB_COMPAT: &str =
    "https://docs.yugabyte.com/stable/explore/ysql-language-features/postgresql-compatibility/";
const YB_VOYAGER_PG: &str =
    "https://docs.yugabyte.com/stable/yugabyte-voyager/known-issues/postgresql/";
const YB_INHERIT: &str = "https://docs.yugabyte.com/stable/api/ysql/the-sql-language/ddl-inherit/";

macro_rules! rule {
    ($id:literal, $t:ident, $m:literal, $a:ident, $r:literal, $d:expr) => {
        Rule {
            id: $id,
            target: Target::$t,
            matcher: $m,
            action: Action::$a,
            reason: $r,
            doc: $d,
        }
    };
}

/// Every rule, in the order they are tried.
pub static RULES: &[Rule] = &[
    // -O / -x: pg_restore's meaning, whatever the target.
    rule!(
        "no-owner",
        Any,
        "ALTER * OWNER TO",
        Drop,
        "-O/--no-owner: objects belong to the user who runs the schema, as with pg_restore -O",
        PG_RESTORE
    ),
    rule!(
        "no-owner-session",
        Any,
        "SET SESSION AUTHORIZATION",
        Drop,
        "-O/--no-owner: the schema runs as the user who loads it, as with pg_restore -O",
        PG_RESTORE
    ),
    rule!(
        "no-owner-session-reset",
        Any,
        "RESET SESSION AUTHORIZATION",
        Drop,
        "-O/--no-owner: the schema runs as the user who loads it, as with pg_restore -O",
        PG_RESTORE
    ),
    rule!(
        "no-privileges",
        Any,
        "GRANT",
        Drop,
        "-x/--no-privileges: access privileges are left out, as with pg_restore -x",
        PG_RESTORE
    ),
    rule!(
        "no-privileges-revoke",
        Any,
        "REVOKE",
        Drop,
        "-x/--no-privileges: access privileges are left out, as with pg_restore -x",
        PG_RESTORE
    ),
    rule!(
        "no-privileges-default",
        Any,
        "ALTER DEFAULT PRIVILEGES",
        Drop,
        "-x/--no-privileges: default privileges are left out, as with pg_restore -x",
        PG_RESTORE
    ),
    // PostgreSQL: the dump's own DDL.
    rule!(
        "pg-as-dumped",
        Postgresql,
        "*",
        Keep,
        "the target is PostgreSQL: the statement as pg_dump wrote it",
        PG_RESTORE
    ),
    // CockroachDB.
    rule!(
        "crdb-set-read",
        Cockroachdb,
        "SET search_path",
        Keep,
        "the rest of the script is read with it; CockroachDB implements the session variable",
        CRDB_SET
    ),
    rule!(
        "crdb-set-read-encoding",
        Cockroachdb,
        "SET client_encoding",
        Keep,
        "the rest of the script is read with it; CockroachDB implements the session variable",
        CRDB_SET
    ),
    rule!(
        "crdb-set-read-strings",
        Cockroachdb,
        "SET standard_conforming_strings",
        Keep,
        "the rest of the script is read with it; CockroachDB implements the session variable",
        CRDB_SET
    ),
    rule!(
        "crdb-set-session",
        Cockroachdb,
        "SET *",
        Drop,
        "a PostgreSQL session setting of pg_dump's header that changes nothing the schema creates; CockroachDB refuses the session variables it does not implement",
        CRDB_SET
    ),
    rule!(
        "crdb-set-config",
        Cockroachdb,
        "SELECT set_config",
        Drop,
        "pg_dump's empty search_path only guards the restore against objects shadowing built-ins; every name in the dump is schema-qualified, so CockroachDB's default search path creates the same objects",
        CRDB_SET
    ),
    rule!(
        "crdb-setval",
        Cockroachdb,
        "SELECT setval",
        Keep,
        "CockroachDB implements setval() for sequences",
        "https://www.cockroachlabs.com/docs/v26.2/create-sequence"
    ),
    rule!(
        "crdb-table",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "a table is created as PostgreSQL wrote it, with the changes listed beside it",
        "https://www.cockroachlabs.com/docs/v26.2/create-table"
    ),
    rule!(
        "crdb-pk-moved",
        Cockroachdb,
        "ALTER TABLE ADD PRIMARY KEY",
        Drop,
        "the primary key is declared in the table's CREATE TABLE instead (rule crdb-pk-inline): a CockroachDB table created without one gets a hidden rowid key, and changing it later rewrites the table",
        CRDB_PK
    ),
    rule!(
        "crdb-attach-partition",
        Cockroachdb,
        "ALTER TABLE ATTACH PARTITION",
        Drop,
        "PostgreSQL's declarative partitions become tables of their own, each with its own rows (CockroachDB's PARTITION BY is a different feature: it places ranges of one table's primary key)",
        CRDB_PARTITION
    ),
    rule!(
        "crdb-attach-index",
        Cockroachdb,
        "ALTER INDEX ATTACH PARTITION",
        Drop,
        "the partitions are tables of their own (rule crdb-attach-partition), so their indexes are too",
        CRDB_PARTITION
    ),
    rule!(
        "crdb-inherit",
        Cockroachdb,
        "ALTER TABLE INHERIT",
        Drop,
        "CockroachDB does not support table inheritance",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-domain",
        Cockroachdb,
        "CREATE DOMAIN",
        Drop,
        "CockroachDB v26.2 has no domains (CREATE DOMAIN arrives in v26.3): each column of the domain gets its base type, NOT NULL and CHECK instead (rule crdb-domain-column)",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-domain-alter",
        Cockroachdb,
        "ALTER DOMAIN *",
        Drop,
        "the domain is not created (rule crdb-domain)",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-comment-domain",
        Cockroachdb,
        "COMMENT ON DOMAIN",
        Drop,
        "the domain is not created (rule crdb-domain)",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-owner",
        Cockroachdb,
        "ALTER * OWNER TO",
        Keep,
        "CockroachDB implements OWNER TO; the role must exist in the target (or use -O)",
        "https://www.cockroachlabs.com/docs/v26.2/alter-table"
    ),
    rule!(
        "crdb-grant",
        Cockroachdb,
        "GRANT",
        Keep,
        "CockroachDB implements GRANT; the roles must exist in the target (or use -x)",
        "https://www.cockroachlabs.com/docs/v26.2/grant"
    ),
    rule!(
        "crdb-revoke",
        Cockroachdb,
        "REVOKE",
        Keep,
        "CockroachDB implements REVOKE (or use -x)",
        "https://www.cockroachlabs.com/docs/v26.2/revoke"
    ),
    rule!(
        "crdb-default-privileges",
        Cockroachdb,
        "ALTER DEFAULT PRIVILEGES",
        Keep,
        "CockroachDB implements ALTER DEFAULT PRIVILEGES (or use -x)",
        "https://www.cockroachlabs.com/docs/v26.2/alter-default-privileges"
    ),
    rule!(
        "crdb-schema",
        Cockroachdb,
        "CREATE SCHEMA",
        Keep,
        "CockroachDB implements user-defined schemas",
        "https://www.cockroachlabs.com/docs/v26.2/create-schema"
    ),
    rule!(
        "crdb-enum",
        Cockroachdb,
        "CREATE TYPE AS ENUM",
        Keep,
        "CockroachDB implements enum types",
        "https://www.cockroachlabs.com/docs/v26.2/enum"
    ),
    rule!(
        "crdb-enum-alter",
        Cockroachdb,
        "ALTER TYPE",
        Keep,
        "CockroachDB implements ALTER TYPE for enums",
        "https://www.cockroachlabs.com/docs/v26.2/alter-type"
    ),
    rule!(
        "crdb-composite",
        Cockroachdb,
        "CREATE TYPE AS composite",
        Keep,
        "CockroachDB implements composite types",
        "https://www.cockroachlabs.com/docs/v26.2/create-type"
    ),
    rule!(
        "crdb-sequence",
        Cockroachdb,
        "CREATE SEQUENCE",
        Keep,
        "CockroachDB implements sequences",
        "https://www.cockroachlabs.com/docs/v26.2/create-sequence"
    ),
    rule!(
        "crdb-sequence-owned",
        Cockroachdb,
        "ALTER SEQUENCE OWNED BY",
        Keep,
        "CockroachDB implements ALTER SEQUENCE ... OWNED BY",
        "https://www.cockroachlabs.com/docs/v26.2/alter-sequence"
    ),
    rule!(
        "crdb-serial-default",
        Cockroachdb,
        "ALTER TABLE SET DEFAULT",
        Keep,
        "a serial column's DEFAULT nextval('seq'::regclass) is how CockroachDB writes a sequence-backed default itself (serial_normalization = sql_sequence)",
        "https://www.cockroachlabs.com/docs/v26.2/serial"
    ),
    rule!(
        "crdb-foreign-key",
        Cockroachdb,
        "ALTER TABLE ADD FOREIGN KEY",
        Keep,
        "CockroachDB implements foreign keys added by ALTER TABLE",
        "https://www.cockroachlabs.com/docs/v26.2/foreign-key"
    ),
    rule!(
        "crdb-unique",
        Cockroachdb,
        "ALTER TABLE ADD UNIQUE",
        Keep,
        "CockroachDB implements UNIQUE constraints added by ALTER TABLE",
        "https://www.cockroachlabs.com/docs/v26.2/alter-table"
    ),
    rule!(
        "crdb-check",
        Cockroachdb,
        "ALTER TABLE ADD CHECK",
        Keep,
        "CockroachDB implements CHECK constraints added by ALTER TABLE",
        "https://www.cockroachlabs.com/docs/v26.2/alter-table"
    ),
    rule!(
        "crdb-index",
        Cockroachdb,
        "CREATE INDEX",
        Keep,
        "CockroachDB implements secondary indexes",
        "https://www.cockroachlabs.com/docs/v26.2/create-index"
    ),
    rule!(
        "crdb-view",
        Cockroachdb,
        "CREATE VIEW",
        Keep,
        "CockroachDB implements views",
        "https://www.cockroachlabs.com/docs/v26.2/create-view"
    ),
    rule!(
        "crdb-matview",
        Cockroachdb,
        "CREATE MATERIALIZED VIEW",
        Keep,
        "CockroachDB implements materialized views",
        "https://www.cockroachlabs.com/docs/v26.2/views"
    ),
    rule!(
        "crdb-refresh",
        Cockroachdb,
        "REFRESH MATERIALIZED VIEW",
        Keep,
        "CockroachDB implements REFRESH",
        "https://www.cockroachlabs.com/docs/v26.2/refresh"
    ),
    rule!(
        "crdb-function",
        Cockroachdb,
        "CREATE FUNCTION",
        Keep,
        "CockroachDB supports SQL and PL/pgSQL user-defined functions only in part: review each one",
        "https://www.cockroachlabs.com/docs/v26.2/user-defined-functions"
    ),
    rule!(
        "crdb-procedure",
        Cockroachdb,
        "CREATE PROCEDURE",
        Keep,
        "CockroachDB supports stored procedures only in part: review each one",
        "https://www.cockroachlabs.com/docs/v26.2/stored-procedures"
    ),
    rule!(
        "crdb-trigger",
        Cockroachdb,
        "CREATE TRIGGER",
        Keep,
        "row-level BEFORE/AFTER triggers with PL/pgSQL functions exist since v24.3; statement-level, INSTEAD OF, REFERENCING and UPDATE OF triggers do not: review each one",
        "https://www.cockroachlabs.com/docs/v26.2/triggers"
    ),
    rule!(
        "crdb-comment",
        Cockroachdb,
        "COMMENT ON *",
        Keep,
        "CockroachDB implements COMMENT ON",
        "https://www.cockroachlabs.com/docs/v26.2/comment-on"
    ),
    // YugabyteDB (YSQL reuses PostgreSQL's query layer).
    rule!(
        "yb-table",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        "a table is created as PostgreSQL wrote it, with the changes listed beside it",
        YB_CREATE_TABLE
    ),
    rule!(
        "yb-pk-moved",
        Yugabytedb,
        "ALTER TABLE ADD PRIMARY KEY",
        Drop,
        "the primary key is declared in the table's CREATE TABLE instead (rule yb-pk-inline): YugabyteDB stores rows by their primary key, so adding one later rewrites the table, and it cannot be added to a partitioned table at all",
        YB_VOYAGER_PG
    ),
    rule!(
        "yb-set",
        Yugabytedb,
        "SET *",
        Keep,
        "YSQL accepts PostgreSQL's session settings",
        YB_COMPAT
    ),
    rule!(
        "yb-select",
        Yugabytedb,
        "SELECT *",
        Keep,
        "YSQL implements set_config() and setval() as PostgreSQL does",
        YB_COMPAT
    ),
    rule!(
        "yb-create",
        Yugabytedb,
        "CREATE *",
        Keep,
        "YSQL implements the statement as PostgreSQL does (its unsupported features are listed on the cited page)",
        YB_COMPAT
    ),
    rule!(
        "yb-alter",
        Yugabytedb,
        "ALTER *",
        Keep,
        "YSQL implements the statement as PostgreSQL does (its unsupported features are listed on the cited page)",
        YB_COMPAT
    ),
    rule!(
        "yb-comment",
        Yugabytedb,
        "COMMENT ON *",
        Keep,
        "YSQL implements COMMENT ON",
        YB_COMPAT
    ),
    rule!(
        "yb-grant",
        Yugabytedb,
        "GRANT",
        Keep,
        "YSQL implements GRANT; the roles must exist in the target (or use -x)",
        YB_COMPAT
    ),
    rule!(
        "yb-revoke",
        Yugabytedb,
        "REVOKE",
        Keep,
        "YSQL implements REVOKE (or use -x)",
        YB_COMPAT
    ),
    rule!(
        "yb-refresh",
        Yugabytedb,
        "REFRESH MATERIALIZED VIEW",
        Keep,
        "YSQL implements materialized views",
        YB_COMPAT
    ),
];

/// Sub-rules the `CREATE TABLE` converter applies (named in the report beside the statement).
pub static TABLE_RULES: &[Rule] = &[
    rule!(
        "crdb-pk-inline",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "the primary key that pg_dump adds after the data is declared here, so the table is created with it",
        CRDB_PK
    ),
    rule!(
        "crdb-inherits",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "CockroachDB does not support table inheritance: the parents' columns are written into the table and INHERITS is left out; its rows stay its own (a query on the parent no longer sees them)",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-partition-by",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "PostgreSQL's PARTITION BY is left out: the partitioned table and each partition become tables of their own (rule crdb-attach-partition)",
        CRDB_PARTITION
    ),
    rule!(
        "crdb-domain-column",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "a column of a domain type gets the domain's base type, its NOT NULL and its CHECK (VALUE replaced by the column)",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-range-column",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "CockroachDB has no range types: the column becomes text holding PostgreSQL's text form of the range ('[1,5)'), which nothing checks",
        CRDB_COMPAT
    ),
    rule!(
        "yb-pk-inline",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        "the primary key that pg_dump adds after the data is declared here, with the sharding --yb-sharding chose (hash: first column HASH, rest ASC; range: all ASC; keep: YugabyteDB's default)",
        YB_CREATE_TABLE
    ),
    rule!(
        "yb-inherits",
        Yugabytedb,
        "CREATE TABLE",
        Keep,
        "INHERITS is kept: YSQL's current (stable) documentation describes table inheritance, while yb-voyager's known issues say older releases refuse it ('INHERITS not supported yet'): check your version",
        YB_INHERIT
    ),
    rule!(
        "crdb-pk-alter-kept",
        Cockroachdb,
        "ALTER TABLE ADD PRIMARY KEY",
        Keep,
        "the table's CREATE TABLE is in a form the converter does not rewrite (or was not in the dump), so the key stays where pg_dump put it: review the table",
        CRDB_PK
    ),
    rule!(
        "yb-pk-alter-kept",
        Yugabytedb,
        "ALTER TABLE ADD PRIMARY KEY",
        Keep,
        "the table's CREATE TABLE is in a form the converter does not rewrite (or was not in the dump), so the key stays where pg_dump put it: review the table",
        YB_VOYAGER_PG
    ),
];

/// Whether `kind` matches `pattern` (`*`: one or more words).
pub fn matches(pattern: &str, kind: &str) -> bool {
    fn go(p: &[&str], k: &[&str]) -> bool {
        match p.split_first() {
            None => k.is_empty(),
            Some((&"*", rest)) => (1..=k.len()).any(|n| go(rest, &k[n..])),
            Some((w, rest)) => k.first() == Some(w) && go(rest, &k[1..]),
        }
    }
    let p: Vec<&str> = pattern.split(' ').collect();
    let k: Vec<&str> = kind.split(' ').collect();
    go(&p, &k)
}

/// The first rule of `target` matching `kind` (the -O/-x rules are not among them).
pub fn find(target: Target, kind: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.target == target && matches(r.matcher, kind))
}

/// The -O/-x rule that drops `kind`, if the flag asking for it is given.
pub fn flag_rule(kind: &str, no_owner: bool, no_privileges: bool) -> Option<&'static Rule> {
    RULES.iter().find(|r| {
        r.target == Target::Any
            && matches(r.matcher, kind)
            && if r.id.starts_with("no-owner") {
                no_owner
            } else {
                no_privileges
            }
    })
}

/// A sub-rule of the table converter by id.
pub fn table_rule(id: &str) -> &'static Rule {
    TABLE_RULES
        .iter()
        .find(|r| r.id == id)
        .expect("table rule exists")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matcher() {
        assert!(matches("ALTER * OWNER TO", "ALTER TABLE OWNER TO"));
        assert!(matches(
            "ALTER * OWNER TO",
            "ALTER MATERIALIZED VIEW OWNER TO"
        ));
        assert!(!matches("ALTER * OWNER TO", "ALTER OWNER TO"));
        assert!(matches("SET *", "SET xmloption"));
        assert!(!matches("SET *", "SET"));
        assert!(matches("*", "LISTEN"));
    }

    /// Every rule cites a versioned page and has a unique id.
    #[test]
    fn rules_cite_versioned_pages() {
        let mut ids = std::collections::HashSet::new();
        for r in RULES.iter().chain(TABLE_RULES) {
            assert!(ids.insert(r.id), "duplicate rule id {}", r.id);
            assert!(
                r.doc.contains("/v26.")
                    || r.doc.contains("/docs/17/")
                    || r.doc.contains("docs.yugabyte.com/stable/"),
                "{}: {}",
                r.id,
                r.doc
            );
        }
    }
}
