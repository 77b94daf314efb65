//! Reading plain-format `pg_dump` output (a psql script): the statement lexer, the DDL facts
//! the converter needs, COPY text decoding and INSERT parsing, the file naming rules, and
//! pg_dump's name patterns.

pub mod archive;
pub mod copytext;
pub mod ddl;
pub mod inserts;
pub mod naming;
pub mod pattern;
pub mod psql;
pub mod sql;
pub mod tabledefs;
