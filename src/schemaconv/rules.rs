//! The table of rules: per target, which statement kinds are kept, rewritten or dropped, why,
//! and the vendor documentation page (with its version) each rule comes from.
//!
//! A statement's kind is the string [`super::classify`] makes of it (`CREATE TABLE`,
//! `ALTER TABLE ADD PRIMARY KEY`, `SET xmloption`, ...). A matcher is such a string in which
//! `*` stands for one or more words. The first rule of the target that matches decides; a
//! statement no rule matches is kept and reported as unknown to the rules on PostgreSQL, and
//! left out as a blocker on CockroachDB and YugabyteDB (`crdb-not-known`, `yb-not-known`).
//!
//! No CockroachDB or YugabyteDB server was available where these rules were written: each
//! one rests on the cited page, and on the referees of the tests (tests/referee_yb.rs: real
//! PostgreSQL 11.22 and 15 servers for YugabyteDB's bases; tests/referee_crdb.rs: each
//! CockroachDB release's published grammar, [`super::grammar`]).

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

/// What a rule's change does to the data or to what the schema means, for the report's
/// order and for `--strict` (which refuses [`Impact::Blocker`] and [`Impact::Meaning`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    /// Changes nothing the schema creates or the data holds (a header `SET` left out, a key
    /// moved into its `CREATE TABLE`, a type spelled as the target spells it).
    None,
    /// The statement runs, but something means something else than in the source: values
    /// held as text, a constraint or a type's operators lost, rows no longer seen through a
    /// parent.
    Meaning,
    /// Written as the dump has it, but only part of the target's support for the form is
    /// known to the rules (CockroachDB's functions, procedures and triggers): a person must
    /// read it against the target's limitations. `--strict` lists and refuses these.
    Review,
    /// The target refuses the statement, or loses data or a constraint with it. A blocked
    /// statement is left out of the files (with what depends on it), so the rest loads.
    Blocker,
}

impl Impact {
    /// The words in the report.
    pub fn word(self) -> &'static str {
        match self {
            Impact::None => "no change",
            Impact::Meaning => "change of meaning",
            Impact::Review => "review",
            Impact::Blocker => "blocker",
        }
    }
}

/// The releases a rule holds for, as [`super::version::TargetVersion::key`] values
/// (`since..=until`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holds {
    /// First release key it holds for (0: every release accepted).
    pub since: u32,
    /// Last release key it holds for (`u32::MAX`: every later release accepted).
    pub until: u32,
}

/// Every accepted release.
pub const ALL: Holds = Holds {
    since: 0,
    until: u32::MAX,
};

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
    /// What it does to the data or the schema's meaning.
    pub impact: Impact,
    /// The releases it holds for.
    pub holds: Holds,
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
const CRDB_SQL_Y: &str =
    "https://github.com/cockroachdb/cockroach/blob/release-26.2/pkg/sql/parser/sql.y";
const CRDB_TYPES: &str = "https://www.cockroachlabs.com/docs/v26.2/data-types";
const CRDB_INT: &str = "https://www.cockroachlabs.com/docs/v26.2/int";
const CRDB_JSONB: &str = "https://www.cockroachlabs.com/docs/v26.2/jsonb";
const CRDB_TRIGGERS_24_3: &str = "https://www.cockroachlabs.com/docs/v24.3/triggers";
const CRDB_SESSION_VARS: &str = "https://www.cockroachlabs.com/docs/v24.3/session-variables";
const YB_COMPAT_2024_2: &str =
    "https://docs.yugabyte.com/v2024.2/explore/ysql-language-features/postgresql-compatibility/";

/// CockroachDB before v24.3 (only v24.1 is accepted there).
const CRDB_BEFORE_24_3: Holds = Holds {
    since: 0,
    until: 2402,
};
/// CockroachDB v24.3 and later.
const CRDB_FROM_24_3: Holds = Holds {
    since: 2403,
    until: u32::MAX,
};
/// YugabyteDB on PostgreSQL 11 (2.20, 2024.1, 2024.2): release keys up to 2024-12.
pub const YB_PG11: Holds = Holds {
    since: 0,
    until: 202412,
};
/// YugabyteDB before 2026.1 (whose stable docs are the first to describe INHERITS).
pub const YB_BEFORE_2026_1: Holds = Holds {
    since: 0,
    until: 202605,
};
/// YugabyteDB 2026.1 and later.
const YB_FROM_2026_1: Holds = Holds {
    since: 202606,
    until: u32::MAX,
};

macro_rules! rule {
    ($id:literal, $t:ident, $m:literal, $a:ident, $r:literal, $d:expr) => {
        rule!($id, $t, $m, $a, None, ALL, $r, $d)
    };
    ($id:literal, $t:ident, $m:literal, $a:ident, $i:ident, $h:expr, $r:literal, $d:expr) => {
        Rule {
            id: $id,
            target: Target::$t,
            matcher: $m,
            action: Action::$a,
            reason: $r,
            doc: $d,
            impact: Impact::$i,
            holds: $h,
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
        "crdb-check-function-bodies",
        Cockroachdb,
        "SET check_function_bodies",
        Keep,
        "CockroachDB implements check_function_bodies; its default (on) would make CREATE FUNCTION check bodies that pg_dump writes before the tables they use",
        CRDB_SESSION_VARS
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
        "crdb-identity",
        Cockroachdb,
        "ALTER TABLE ADD IDENTITY",
        Rewrite,
        "CockroachDB takes ALTER TABLE ... ALTER COLUMN ... ADD GENERATED ... AS IDENTITY since v24.1, but not pg_dump's SEQUENCE NAME option, and pg_dump's setval() sets the sequence by that name: written as CREATE SEQUENCE with the identity's name and options, the column's DEFAULT nextval() and the sequence OWNED BY the column; setval() then sets its value",
        CRDB_SQL_Y
    ),
    rule!(
        "crdb-exclude",
        Cockroachdb,
        "ALTER TABLE ADD EXCLUDE",
        Drop,
        Blocker,
        ALL,
        "CockroachDB has no exclusion constraints (not in sql.y's constraint_elem): the constraint is left out and not enforced",
        CRDB_SQL_Y
    ),
    rule!(
        "crdb-range-type",
        Cockroachdb,
        "CREATE TYPE AS RANGE",
        Drop,
        Meaning,
        ALL,
        "CockroachDB has no range types (CREATE TYPE takes ENUM and composite forms only): the type is left out and its columns hold the range's text form (rule crdb-range-column)",
        "https://www.cockroachlabs.com/docs/v26.2/create-type"
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
        None,
        ALL,
        "the partition's rows are loaded into its partitioned table (rule crdb-partition-rows), so there is nothing to attach (CockroachDB's PARTITION BY is a different feature: it places ranges of one table's primary key)",
        CRDB_PARTITION
    ),
    rule!(
        "crdb-attach-index",
        Cockroachdb,
        "ALTER INDEX ATTACH PARTITION",
        Drop,
        "the partitions are not created (rule crdb-partition-rows): the partitioned table's own index covers all its rows",
        CRDB_PARTITION
    ),
    rule!(
        "crdb-inherit",
        Cockroachdb,
        "ALTER TABLE INHERIT",
        Drop,
        Meaning,
        ALL,
        "CockroachDB does not support table inheritance",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-domain",
        Cockroachdb,
        "CREATE DOMAIN",
        Drop,
        "CockroachDB has no domains up to v26.2 (sql.y answers CREATE DOMAIN with an unimplemented error, cockroach#27796): each column of the domain gets its base type, NOT NULL and CHECK instead (rule crdb-domain-column)",
        CRDB_SQL_Y
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
        Review,
        ALL,
        "CockroachDB supports SQL and PL/pgSQL user-defined functions only in part: review each one",
        "https://www.cockroachlabs.com/docs/v26.2/user-defined-functions"
    ),
    rule!(
        "crdb-procedure",
        Cockroachdb,
        "CREATE PROCEDURE",
        Keep,
        Review,
        ALL,
        "CockroachDB supports stored procedures only in part: review each one",
        "https://www.cockroachlabs.com/docs/v26.2/stored-procedures"
    ),
    rule!(
        "crdb-trigger-none",
        Cockroachdb,
        "CREATE TRIGGER",
        Drop,
        Blocker,
        CRDB_BEFORE_24_3,
        "CockroachDB has triggers from v24.3 on: before it the trigger is left out and does not fire",
        CRDB_TRIGGERS_24_3
    ),
    rule!(
        "crdb-trigger",
        Cockroachdb,
        "CREATE TRIGGER",
        Keep,
        Review,
        CRDB_FROM_24_3,
        "row-level BEFORE/AFTER triggers with PL/pgSQL functions exist since v24.3; statement-level, INSTEAD OF, REFERENCING and UPDATE OF triggers do not: review each one",
        "https://www.cockroachlabs.com/docs/v26.2/triggers"
    ),
    rule!(
        "crdb-begin",
        Cockroachdb,
        "BEGIN",
        Keep,
        "pg_dump's BEGIN around large objects' data; CockroachDB implements transactions",
        "https://www.cockroachlabs.com/docs/v26.2/begin-transaction"
    ),
    rule!(
        "crdb-commit",
        Cockroachdb,
        "COMMIT",
        Keep,
        "pg_dump's COMMIT after large objects' data; CockroachDB implements transactions",
        "https://www.cockroachlabs.com/docs/v26.2/commit-transaction"
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
        "yb-set-access-method",
        Yugabytedb,
        "SET default_table_access_method",
        Drop,
        "YSQL tables are stored in DocDB whatever the setting, and releases on PostgreSQL 11 (2.20 to 2024.2) refuse it (42704; yb-voyager strips it too)",
        YB_VOYAGER_PG
    ),
    rule!(
        "yb-exclude",
        Yugabytedb,
        "ALTER TABLE ADD EXCLUDE",
        Drop,
        Blocker,
        ALL,
        "YSQL does not support exclusion constraints (issue 3944 in its unsupported-features table): the constraint is left out and not enforced",
        YB_COMPAT
    ),
    rule!(
        "yb-inherit-flat",
        Yugabytedb,
        "ALTER TABLE INHERIT",
        Drop,
        Meaning,
        YB_BEFORE_2026_1,
        "INHERITS is refused before 2026.1 ('INHERITS not supported yet', issue 5956), so the child is flattened (rule yb-inherits-flat) and the link left out",
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
        "crdb-int-width",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "integer and smallint are written INT4 and INT2: CockroachDB's INTEGER is INT8 unless default_int_size is 4, which would widen the column",
        CRDB_INT
    ),
    rule!(
        "crdb-json-text",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        ALL,
        "CockroachDB's JSON is JSONB, which drops duplicate keys, key order and white space; the column is text holding the JSON as written, so the data stays as dumped, but it is not checked as JSON and JSON operators need a cast (::JSONB)",
        CRDB_JSONB
    ),
    rule!(
        "crdb-cidr-inet",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        ALL,
        "CockroachDB has no cidr (its data-types page lists INET only): the column is INET, which accepts every cidr value, but does not refuse host bits and prints a /32 or /128 network without its mask",
        CRDB_TYPES
    ),
    rule!(
        "crdb-macaddr-text",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "CockroachDB has no macaddr/macaddr8: the column is text with a CHECK that the value is PostgreSQL's output form (lower-case hex pairs joined by ':'), which is what the dump holds",
        CRDB_TYPES
    ),
    rule!(
        "crdb-geometric-text",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        ALL,
        "CockroachDB has no geometric types (point, line, lseg, box, path, polygon, circle; its GEOMETRY is the spatial type): the column is text holding PostgreSQL's text form, without the geometric operators",
        CRDB_TYPES
    ),
    rule!(
        "crdb-xml-text",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        ALL,
        "CockroachDB has no xml type: the column is text holding the document as dumped, no longer checked as XML",
        CRDB_TYPES
    ),
    rule!(
        "crdb-type-unsupported",
        Cockroachdb,
        "CREATE TABLE",
        Keep,
        Blocker,
        ALL,
        "a column type that is not on CockroachDB's data-types page (money, pg_lsn, txid_snapshot, CITEXT before v25.3, ...) or not created by the dump (an extension's type): the statement is kept as written and CockroachDB will refuse it",
        CRDB_TYPES
    ),
    rule!(
        "crdb-typed-table",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        "a typed table (CREATE TABLE ... OF type, not in sql.y) is written with the type's attributes as its columns, so it can be created and its primary key declared inline; the link to the type is left out",
        CRDB_SQL_Y
    ),
    rule!(
        "crdb-identity-always",
        Cockroachdb,
        "ALTER TABLE ADD IDENTITY",
        Rewrite,
        Meaning,
        ALL,
        "GENERATED ALWAYS becomes a DEFAULT: an INSERT that gives the column a value is no longer refused",
        CRDB_SQL_Y
    ),
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
        Meaning,
        ALL,
        "CockroachDB does not support table inheritance: the parents' columns are written into the table and INHERITS is left out; its rows stay its own (a query on the parent no longer sees them)",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-partition-by",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        None,
        ALL,
        "PostgreSQL's PARTITION BY is left out: the partitioned table becomes one table holding every partition's rows (rule crdb-partition-rows), as pg_dump --load-via-partition-root would load it",
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
        Meaning,
        ALL,
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
        None,
        YB_FROM_2026_1,
        "INHERITS is kept: YSQL's stable documentation (2026.1) describes table inheritance",
        YB_INHERIT
    ),
    rule!(
        "yb-inherits-flat",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        YB_BEFORE_2026_1,
        "releases before 2026.1 refuse INHERITS ('INHERITS not supported yet', issue 5956): the parents' columns are written into the table and INHERITS is left out; its rows stay its own (a query on the parent no longer sees them)",
        YB_VOYAGER_PG
    ),
    rule!(
        "yb-generated-pg11",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        YB_PG11,
        "GENERATED ALWAYS AS (...) STORED is PostgreSQL 12 syntax, refused by YSQL on PostgreSQL 11 (2.20 to 2024.2; issue 10695): the column is created plain, and since pg_dump leaves generated columns out of the data it stays NULL until computed (UPDATE the table SET the column to its expression after the load); a generated column that is NOT NULL or in the key leaves the table out (rule yb-generated-key)",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-typed-table",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        "a typed table (CREATE TABLE ... OF type) is written with the type's attributes as its columns, so its primary key can be declared inline (YSQL stores rows by it); the link to the type is left out",
        YB_CREATE_TABLE
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

const PG_DEPEND: &str = "https://www.postgresql.org/docs/17/ddl-depend.html";
const PG12: &str = "https://www.postgresql.org/docs/release/12.0/";
const PG13: &str = "https://www.postgresql.org/docs/release/13.0/";
const PG14: &str = "https://www.postgresql.org/docs/release/14.0/";
const PG15: &str = "https://www.postgresql.org/docs/release/15.0/";
const PG16: &str = "https://www.postgresql.org/docs/release/16.0/";
const PG17: &str = "https://www.postgresql.org/docs/release/17.0/";
const PG18: &str = "https://www.postgresql.org/docs/release/18.0/";
/// The system catalogs the names of src/schemaconv/catalog/ come from.
const PG_CATALOGS: &str = "https://www.postgresql.org/docs/17/catalogs.html";
/// yb-voyager's schema analysis (the statements it reports YugabyteDB refuses).
const YB_VOYAGER_ANALYZE: &str =
    "https://docs.yugabyte.com/stable/yugabyte-voyager/known-issues/postgresql/";
/// YugabyteDB on PostgreSQL 11 or 15, whose base is older than PostgreSQL 16: every release.
const YB_ALL: Holds = ALL;

/// The checks run on every statement the rules keep or rewrite for a release (after the
/// rule of its kind, src/schemaconv/refuse.rs holds each one's test): forms the release's
/// PostgreSQL base or the target itself refuses, found in the statement's text, and what
/// depends on a statement left out. A `Drop` check leaves the statement out with its impact
/// (a blocker, or nothing lost for a planner or storage setting); a `Rewrite` check edits it.
/// tests/referee_yb.rs runs what is kept on a real PostgreSQL 11.22 and 15 (YSQL's bases).
pub static CHECKS: &[Rule] = &[
    rule!(
        "uses-left-out",
        Any,
        "*",
        Drop,
        Blocker,
        ALL,
        "the statement uses an object that is left out of the schema (named beside it), so the target would refuse it: it is left out too",
        PG_DEPEND
    ),
    rule!(
        "goes-with-left-out",
        Any,
        "*",
        Drop,
        None,
        ALL,
        "the statement is about an object that is left out of the schema (named beside it): it goes with it, with that object's impact",
        PG_DEPEND
    ),
    rule!(
        "yb-not-known",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        ALL,
        "no rule shows that YugabyteDB takes this statement form (the rules keep only forms run on the release's PostgreSQL base and not refused by YugabyteDB's own pages): left out; create it by hand if the target takes it",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-known",
        Yugabytedb,
        "*",
        Keep,
        None,
        ALL,
        "a statement form run on the release's PostgreSQL base (tests/referee_yb.rs) that YugabyteDB's pages do not refuse (pg_dump's BEGIN and COMMIT around large objects' data)",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-set-newer",
        Yugabytedb,
        "SET *",
        Drop,
        None,
        ALL,
        "a session setting the release's PostgreSQL base does not have (PostgreSQL 11 or 15 refuses it, 42704: transaction_timeout is PostgreSQL 17's); pg_dump writes it only to bound its own restore session",
        PG17
    ),
    rule!(
        "yb-multirange-name",
        Yugabytedb,
        "CREATE TYPE AS RANGE",
        Rewrite,
        None,
        YB_PG11,
        "multirange_type_name is PostgreSQL 14's (PostgreSQL 11 refuses it: 'type attribute not recognized'): written without it; the range type is created, its multirange type is not (what uses it is left out)",
        PG14
    ),
    rule!(
        "yb-sql-body",
        Yugabytedb,
        "CREATE *",
        Drop,
        Blocker,
        YB_PG11,
        "a function or procedure body in SQL-standard form (BEGIN ATOMIC ... END, RETURN expr) is PostgreSQL 14's; PostgreSQL 11 refuses it",
        PG14
    ),
    rule!(
        "yb-procedure-out",
        Yugabytedb,
        "CREATE PROCEDURE",
        Drop,
        Blocker,
        YB_PG11,
        "procedures with OUT parameters are PostgreSQL 14's; PostgreSQL 11 refuses them ('procedures cannot have OUT arguments')",
        PG14
    ),
    rule!(
        "yb-newer-type",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        ALL,
        "the statement uses a built-in type that only a later PostgreSQL than the release's base has (named beside it; the base refuses it, 42704)",
        PG_CATALOGS
    ),
    rule!(
        "yb-newer-function",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        ALL,
        "the statement calls a built-in function that only a later PostgreSQL than the release's base has (named beside it; the base refuses it, 42883)",
        PG_CATALOGS
    ),
    rule!(
        "yb-newer-opclass",
        Yugabytedb,
        "CREATE INDEX",
        Drop,
        Blocker,
        ALL,
        "the index uses an operator class that only a later PostgreSQL than the release's base has (named beside it: BRIN's bloom and minmax_multi classes are PostgreSQL 14's)",
        PG_CATALOGS
    ),
    rule!(
        "yb-numeric-scale",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_PG11,
        "numeric with a negative scale (numeric(3,-2)) is PostgreSQL 15's; PostgreSQL 11 refuses it ('NUMERIC scale -2 must be between 0 and precision 3')",
        PG15
    ),
    rule!(
        "yb-with-ties",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_PG11,
        "FETCH FIRST ... WITH TIES is PostgreSQL 13's; PostgreSQL 11 refuses it",
        PG13
    ),
    rule!(
        "yb-nulls-not-distinct",
        Yugabytedb,
        "*",
        Rewrite,
        Meaning,
        YB_PG11,
        "UNIQUE ... NULLS NOT DISTINCT is PostgreSQL 15's; PostgreSQL 11 refuses it: written without it, so rows whose key holds a NULL are no longer refused as duplicates",
        PG15
    ),
    rule!(
        "yb-fk-partitioned",
        Yugabytedb,
        "ALTER TABLE ADD FOREIGN KEY",
        Drop,
        Blocker,
        YB_PG11,
        "a foreign key that references a partitioned table is PostgreSQL 12's; PostgreSQL 11 refuses it ('cannot reference partitioned table'): left out and not enforced",
        PG12
    ),
    rule!(
        "yb-fk-set-columns",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_PG11,
        "ON DELETE SET NULL/SET DEFAULT with a column list is PostgreSQL 15's; PostgreSQL 11 refuses it",
        PG15
    ),
    rule!(
        "yb-security-invoker",
        Yugabytedb,
        "CREATE VIEW",
        Drop,
        Blocker,
        YB_PG11,
        "a view's security_invoker option is PostgreSQL 15's; PostgreSQL 11 refuses it ('unrecognized parameter')",
        PG15
    ),
    rule!(
        "yb-sql-json",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_ALL,
        "SQL/JSON syntax (IS JSON, JSON_OBJECT('k' VALUE v), JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_TABLE, ...) is PostgreSQL 16's and 17's; PostgreSQL 11 and 15 refuse it",
        PG16
    ),
    rule!(
        "yb-xml-no-indent",
        Yugabytedb,
        "*",
        Rewrite,
        None,
        YB_ALL,
        "XMLSERIALIZE(... NO INDENT) is how PostgreSQL 16 and later print a view's XMLSERIALIZE; 11 and 15 refuse the words and do not indent anyway: written without them",
        PG16
    ),
    rule!(
        "yb-xml-indent",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_ALL,
        "XMLSERIALIZE(... INDENT) is PostgreSQL 16's; PostgreSQL 11 and 15 refuse it",
        PG16
    ),
    rule!(
        "yb-pg18-forms",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_ALL,
        "PostgreSQL 18's forms (VIRTUAL generated columns, NOT ENFORCED constraints, WITHOUT OVERLAPS keys, PERIOD foreign keys) are refused by PostgreSQL 11 and 15",
        PG18
    ),
    rule!(
        "yb-generated-key",
        Yugabytedb,
        "CREATE TABLE",
        Drop,
        Blocker,
        YB_PG11,
        "a generated column that is NOT NULL or in the primary key: PostgreSQL 11 has no generated columns and pg_dump leaves their values out of the data, so every row would be refused: the table is left out",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-index-method",
        Yugabytedb,
        "CREATE INDEX",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB's index methods are lsm (btree, hash) and ybgin (gin): GiST, BRIN and SP-GiST indexes are refused (GiST issue 1337 in the unsupported-features table; yb-voyager reports brin and spgist): the index is left out",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-gin-form",
        Yugabytedb,
        "CREATE INDEX",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB refuses multi-column GIN indexes (issue 10652) and DESC or HASH on a GIN column (issue 10653): the index is left out",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-index-storage",
        Yugabytedb,
        "CREATE INDEX",
        Rewrite,
        None,
        YB_ALL,
        "YugabyteDB refuses storage parameters on indexes (issue 23467: fillfactor, fastupdate, deduplicate_items): written without them; they tune PostgreSQL's own index pages only",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-table-storage",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        None,
        YB_ALL,
        "a table's storage parameters (fillfactor, toast.*, autovacuum_*) tune PostgreSQL's heap, which YSQL tables do not use: written without them (yb-voyager reports ALTER TABLE ... SET for the same reason)",
        YB_VOYAGER_ANALYZE
    ),
    rule!(
        "yb-unlogged",
        Yugabytedb,
        "CREATE *",
        Rewrite,
        None,
        YB_ALL,
        "YugabyteDB refuses UNLOGGED tables (issue 1129): written as a plain one, which YugabyteDB replicates; UNLOGGED only spared PostgreSQL's WAL",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-deferrable",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB refuses deferrable constraints other than foreign keys (issue 1709): the constraint is left out and not enforced",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-constraint-trigger",
        Yugabytedb,
        "CREATE CONSTRAINT TRIGGER",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB refuses constraint triggers (issue 4700): the trigger is left out and does not fire",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-trigger-transition",
        Yugabytedb,
        "CREATE TRIGGER",
        Drop,
        Blocker,
        YB_ALL,
        "yb-voyager reports triggers with a REFERENCING clause (transition tables) as refused by YugabyteDB: the trigger is left out and does not fire",
        YB_VOYAGER_ANALYZE
    ),
    rule!(
        "yb-view-check-option",
        Yugabytedb,
        "CREATE VIEW",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB refuses views WITH CHECK OPTION ('VIEW WITH CASCADED CHECK OPTION not supported yet', reported by yb-voyager's tests on 2025.1): the view is left out",
        YB_VOYAGER_ANALYZE
    ),
    rule!(
        "yb-xml-functions",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_BEFORE_2026_1,
        "YugabyteDB before 2026.1 has no XML functions (issue 1043): a statement calling one is left out",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-xml-text",
        Yugabytedb,
        "CREATE TABLE",
        Rewrite,
        Meaning,
        YB_BEFORE_2026_1,
        "YugabyteDB before 2026.1 has no XML (issue 1043; yb-voyager: data ingestion on xml is not supported): the column is text holding the document as dumped, no longer checked as XML",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-large-object",
        Yugabytedb,
        "*",
        Drop,
        Blocker,
        YB_ALL,
        "no YugabyteDB page says large objects (lo_create, lowrite, ALTER/COMMENT ON LARGE OBJECT) are supported, and yb-voyager does not migrate them: left out",
        YB_VOYAGER_ANALYZE
    ),
    rule!(
        "yb-access-method",
        Yugabytedb,
        "CREATE ACCESS METHOD",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB refuses CREATE ACCESS METHOD (issue 10693): left out; tables that used it are created with YugabyteDB's own storage",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-conversion",
        Yugabytedb,
        "CREATE * CONVERSION",
        Drop,
        Blocker,
        YB_ALL,
        "YugabyteDB refuses CREATE CONVERSION (issue 10866): left out",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-statistics",
        Yugabytedb,
        "CREATE STATISTICS",
        Drop,
        None,
        YB_ALL,
        "extended planner statistics (CREATE/ALTER STATISTICS) change query plans only, and no YugabyteDB page says they are supported: left out",
        YB_COMPAT_2024_2
    ),
    rule!(
        "yb-alter-physical",
        Yugabytedb,
        "ALTER TABLE *",
        Drop,
        None,
        YB_ALL,
        "YugabyteDB refuses ALTER TABLE's storage and planner variants (ALTER COLUMN SET STATISTICS/STORAGE/COMPRESSION/(options), CLUSTER ON: issue 1124, as yb-voyager reports them); they change no data or constraint: left out",
        YB_VOYAGER_ANALYZE
    ),
];

/// CockroachDB's statement grammar, per release.
const CRDB_GRAMMAR: &str = "https://www.cockroachlabs.com/docs/v26.2/sql-grammar";
const CRDB_INDEX: &str = "https://www.cockroachlabs.com/docs/v26.2/create-index";
const CRDB_COLLATE: &str = "https://www.cockroachlabs.com/docs/v26.2/collate";
const CRDB_TRIGGERS: &str = "https://www.cockroachlabs.com/docs/v26.2/triggers";
const CRDB_UDF: &str = "https://www.cockroachlabs.com/docs/v26.2/user-defined-functions";
const CRDB_SEQUENCE: &str = "https://www.cockroachlabs.com/docs/v26.2/create-sequence";

/// The checks for CockroachDB (src/schemaconv/refuse.rs): rewrites to the forms its grammar
/// takes, what its pages refuse although its grammar parses it, and last the grammar itself.
pub static CRDB_CHECKS: &[Rule] = &[
    rule!(
        "crdb-partition-rows",
        Cockroachdb,
        "CREATE TABLE",
        Drop,
        None,
        ALL,
        "a partition of a partitioned table: CockroachDB has no declarative partitions (its PARTITION BY places ranges of one table's primary key), so pgdump2csv writes the partition's rows into its partitioned table's CSV, as pg_dump --load-via-partition-root would, and the partition is not created; its indexes, keys and triggers go with it, and the partition bounds no longer check new rows",
        CRDB_PARTITION
    ),
    rule!(
        "crdb-not-known",
        Cockroachdb,
        "*",
        Drop,
        Blocker,
        ALL,
        "no rule shows that CockroachDB takes this statement form: left out; create it by hand if the target takes it",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-collate-qualified",
        Cockroachdb,
        "*",
        Rewrite,
        None,
        ALL,
        "pg_dump qualifies every collation (COLLATE pg_catalog.\"C\"); CockroachDB's grammar takes the bare name: written COLLATE \"C\" (and pg_catalog.\"default\" left out, the default it names)",
        CRDB_COLLATE
    ),
    rule!(
        "crdb-no-inherit",
        Cockroachdb,
        "*",
        Rewrite,
        None,
        ALL,
        "CHECK (...) NO INHERIT: CockroachDB has no inheritance, so every CHECK holds for its own table only, which is what NO INHERIT says: written without the words",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-table-storage",
        Cockroachdb,
        "CREATE TABLE",
        Rewrite,
        None,
        ALL,
        "a table's storage parameters (fillfactor, toast.*, autovacuum_*) tune PostgreSQL's heap, which CockroachDB does not use (its grammar refuses toast.*): written without them",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-unlogged",
        Cockroachdb,
        "CREATE *",
        Rewrite,
        None,
        ALL,
        "UNLOGGED only spares PostgreSQL's WAL; CockroachDB replicates every table and sequence: written as a plain one",
        CRDB_COMPAT
    ),
    rule!(
        "crdb-function-hints",
        Cockroachdb,
        "CREATE *",
        Rewrite,
        None,
        ALL,
        "PARALLEL, COST and ROWS only tell PostgreSQL's planner about a function, and CockroachDB's grammar refuses them: written without them",
        CRDB_UDF
    ),
    rule!(
        "crdb-deferrable",
        Cockroachdb,
        "ALTER TABLE ADD FOREIGN KEY",
        Rewrite,
        Meaning,
        ALL,
        "CockroachDB has no deferrable constraints (its grammar refuses DEFERRABLE): the foreign key is written without it, so it is checked at each statement, not at COMMIT",
        "https://www.cockroachlabs.com/docs/v26.2/foreign-key"
    ),
    rule!(
        "crdb-nulls-not-distinct",
        Cockroachdb,
        "*",
        Rewrite,
        Meaning,
        ALL,
        "CockroachDB has no NULLS NOT DISTINCT (its grammar refuses it): written without it, so rows whose key holds a NULL are no longer refused as duplicates",
        CRDB_INDEX
    ),
    rule!(
        "crdb-composite-text",
        Cockroachdb,
        "CREATE TYPE AS composite",
        Rewrite,
        Meaning,
        ALL,
        "a composite type's geometric or xml attribute: CockroachDB has neither type, so the attribute is text holding PostgreSQL's text form (as table columns are: rules crdb-geometric-text, crdb-xml-text)",
        CRDB_TYPES
    ),
    rule!(
        "crdb-index-only",
        Cockroachdb,
        "CREATE INDEX",
        Rewrite,
        None,
        ALL,
        "CREATE INDEX ... ON ONLY (pg_dump's form for a partitioned parent): the partitions are tables of their own here, so the index is the parent's alone either way: written without ONLY, which CockroachDB's grammar refuses",
        CRDB_INDEX
    ),
    rule!(
        "crdb-sequence-int",
        Cockroachdb,
        "CREATE SEQUENCE",
        Rewrite,
        None,
        ALL,
        "CREATE SEQUENCE ... AS integer/smallint: CockroachDB's INTEGER is INT8 (bound 2^63-1), so the type is written INT4/INT2 as its columns are (rule crdb-int-width), keeping PostgreSQL's bounds",
        CRDB_SEQUENCE
    ),
    rule!(
        "crdb-index-method",
        Cockroachdb,
        "CREATE INDEX",
        Drop,
        Blocker,
        ALL,
        "CockroachDB's index methods are btree (its default), GIN (inverted) and GiST for spatial types only; hash means a hash-sharded index; BRIN and SP-GiST do not exist: the index is left out",
        CRDB_INDEX
    ),
    rule!(
        "crdb-trigger-form",
        Cockroachdb,
        "CREATE TRIGGER",
        Drop,
        Blocker,
        CRDB_FROM_24_3,
        "CockroachDB's triggers are row-level BEFORE/AFTER triggers calling a PL/pgSQL function of the schema: statement-level, INSTEAD OF, REFERENCING, UPDATE OF and constraint triggers, and built-in trigger functions (tsvector_update_trigger), are not supported: left out, it does not fire",
        CRDB_TRIGGERS
    ),
    rule!(
        "crdb-function-language",
        Cockroachdb,
        "CREATE *",
        Drop,
        Blocker,
        ALL,
        "CockroachDB's functions and procedures are LANGUAGE SQL or PL/pgSQL: a C or internal function is left out",
        CRDB_UDF
    ),
    rule!(
        "crdb-grammar",
        Cockroachdb,
        "*",
        Drop,
        Blocker,
        ALL,
        "the release's statement grammar (derived from the railroad diagrams CockroachDB publishes for it; src/schemaconv/grammar/) refuses the statement as converted (where, beside it): left out",
        CRDB_GRAMMAR
    ),
];

/// A check of [`CHECKS`] by id.
pub fn check_rule(id: &str) -> &'static Rule {
    CHECKS
        .iter()
        .chain(CRDB_CHECKS)
        .find(|r| r.id == id)
        .expect("check rule exists")
}

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

impl Holds {
    /// Whether the release with order key `key` is in the range.
    pub fn covers(&self, key: u32) -> bool {
        self.since <= key && key <= self.until
    }
}

impl Rule {
    /// Whether the rule holds for the release with order key `key` (PostgreSQL and -O/-x
    /// rules hold for every release).
    pub fn holds_for(&self, key: u32) -> bool {
        self.holds.covers(key)
    }
}

/// The first rule of `target` matching `kind` that holds for the release with order key
/// `key` (the -O/-x rules are not among them).
pub fn find(target: Target, key: u32, kind: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.target == target && r.holds_for(key) && matches(r.matcher, kind))
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

    /// A rule whose releases are limited has a counterpart on the other side of the
    /// boundary, so every accepted release finds a rule for the statement.
    #[test]
    fn version_boundaries_have_both_sides() {
        let id = |t, key, kind| find(t, key, kind).map(|r| r.id);
        assert_eq!(
            id(Target::Cockroachdb, 2401, "CREATE TRIGGER"),
            Some("crdb-trigger-none")
        );
        assert_eq!(
            id(Target::Cockroachdb, 2403, "CREATE TRIGGER"),
            Some("crdb-trigger")
        );
        assert_eq!(
            id(Target::Yugabytedb, 202412, "ALTER TABLE INHERIT"),
            Some("yb-inherit-flat")
        );
        assert_eq!(
            id(Target::Yugabytedb, 202606, "ALTER TABLE INHERIT"),
            Some("yb-alter")
        );
        assert_eq!(
            id(Target::Cockroachdb, 2403, "SET check_function_bodies"),
            Some("crdb-check-function-bodies")
        );
    }

    /// A check that rests on a PostgreSQL release's notes (a form that release introduced)
    /// holds for exactly the YugabyteDB releases whose PostgreSQL base is older: PostgreSQL
    /// 11's rules planted on a release built on 15 fail here.
    #[test]
    fn base_checks_hold_for_older_bases_only() {
        use crate::schemaconv::TargetKind;
        use crate::schemaconv::version::{TargetVersion, YB_SERIES};
        for r in CHECKS.iter().filter(|r| r.target == Target::Yugabytedb) {
            let Some(since) = r
                .doc
                .split("docs/release/")
                .nth(1)
                .and_then(|v| v.split('.').next())
                .and_then(|v| v.parse::<u32>().ok())
            else {
                continue;
            };
            for &(major, minor, _, pg) in YB_SERIES {
                let v = TargetVersion {
                    kind: TargetKind::Yugabytedb,
                    major,
                    minor,
                };
                assert_eq!(
                    r.holds_for(v.key()),
                    pg < since,
                    "{}: PostgreSQL {since}'s form, YugabyteDB {major}.{minor} is on PostgreSQL {pg}",
                    r.id
                );
            }
        }
    }

    /// Every rule cites a versioned page and has a unique id.
    #[test]
    fn rules_cite_versioned_pages() {
        let mut ids = std::collections::HashSet::new();
        for r in RULES
            .iter()
            .chain(TABLE_RULES)
            .chain(CHECKS)
            .chain(CRDB_CHECKS)
        {
            assert!(ids.insert(r.id), "duplicate rule id {}", r.id);
            assert!(
                r.doc.contains("/v26.")
                    || r.doc.contains("/v24.3/")
                    || r.doc.contains("/release-26.2/")
                    || r.doc.contains("/docs/17/")
                    || r.doc.contains("postgresql.org/docs/release/")
                    || r.doc.contains("docs.yugabyte.com/v2024.2/")
                    || r.doc.contains("docs.yugabyte.com/stable/"),
                "{}: {}",
                r.id,
                r.doc
            );
        }
    }
}
