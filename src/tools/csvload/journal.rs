//! The journal table: one row per committed batch of each file, which is what makes a load
//! exactly-once and resumable.

use super::{server_message, sql_err};
use crate::io::error::{Error, Result};
use postgres::Client;

/// The journal table, as `schema.table` (both quoted) and its parts.
#[derive(Debug, Clone)]
pub struct Journal {
    /// Schema, unquoted.
    pub schema: String,
    /// Table, unquoted.
    pub table: String,
}

impl Journal {
    /// Parses `SCHEMA.TABLE`.
    pub fn parse(s: &str) -> Result<Journal> {
        match s.split_once('.') {
            Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok(Journal {
                schema: a.into(),
                table: b.into(),
            }),
            _ => Err(Error::Usage(format!(
                "--journal '{s}': give it as SCHEMA.TABLE"
            ))),
        }
    }

    /// Quoted qualified name.
    pub fn sql(&self) -> String {
        format!(
            "{}.{}",
            super::plan::quote_ident(&self.schema),
            super::plan::quote_ident(&self.table)
        )
    }

    /// Creates the schema and table if missing. One row per committed batch; the primary key
    /// makes a second commit of the same batch (e.g. two loaders at once) fail instead of
    /// duplicating rows.
    pub fn ensure(&self, client: &mut Client) -> Result<()> {
        let sql = format!(
            "CREATE SCHEMA IF NOT EXISTS {schema};
             CREATE TABLE IF NOT EXISTS {t} (
                table_name text NOT NULL,
                file text NOT NULL,
                file_size bigint NOT NULL,
                checksum text NOT NULL,
                byte_start bigint NOT NULL,
                byte_end bigint NOT NULL,
                batch_xxh64 text NOT NULL,
                first_record bigint NOT NULL,
                records bigint NOT NULL,
                next_line bigint NOT NULL,
                last boolean NOT NULL,
                loaded_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (table_name, file, byte_start))",
            schema = super::plan::quote_ident(&self.schema),
            t = self.sql()
        );
        // Two runs starting at once may both find the schema or table missing; IF NOT EXISTS
        // does not make that safe, and the slower one fails on the catalog's unique index
        // (23505) or with 42P07/42P06. By then the other has created it: try once more.
        let mut res = client.batch_execute(&sql);
        if let Err(e) = &res
            && e.as_db_error()
                .is_some_and(|d| matches!(d.code().code(), "23505" | "42P07" | "42P06"))
        {
            res = client.batch_execute(&sql);
        }
        res.map_err(|e| {
            Error::Usage(format!(
                "creating journal {}: {}",
                self.sql(),
                server_message(&e)
            ))
        })
    }

    /// The files (journal keys) the journal holds rows of in `table`.
    pub fn files_of(&self, client: &mut Client, table: &str) -> Result<Vec<String>> {
        let q = format!(
            "SELECT DISTINCT file FROM {} WHERE table_name = $1",
            self.sql()
        );
        let rows = client.query(&q, &[&table]).map_err(|e| sql_err(&e))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Rows the journal accounts for in `table`.
    pub fn rows_of(&self, client: &mut Client, table: &str) -> Result<i64> {
        let q = format!(
            "SELECT coalesce(sum(records), 0)::bigint FROM {} WHERE table_name = $1",
            self.sql()
        );
        let row = client.query_one(&q, &[&table]).map_err(|e| sql_err(&e))?;
        Ok(row.get(0))
    }
}
