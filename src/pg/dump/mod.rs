//! Reading plain-format `pg_dump` output (a psql script): the statement lexer, the DDL facts
//! the converter needs, COPY text decoding and INSERT parsing, and the file naming rules.

pub mod archive;
pub mod copytext;
pub mod ddl;
pub mod inserts;
pub mod naming;
pub mod psql;
pub mod sql;
pub mod tabledefs;
