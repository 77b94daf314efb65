//! dumpshard: shared library behind the five tools `pgdump2csv`, `csvcheck`, `pksort`,
//! `csvsplit` and `csvload` (ARCHITECTURE.md in the repository maps the layers and data flow).
//!
//! The tree is the layering, each layer importing only those below it:
//! 1. [`io`]: plumbing: inputs with compression sniffing, atomic outputs, one error type with
//!    positions and exit codes, signals and temporaries, progress.
//! 2. [`csv`]: CSV mechanics: quote-aware record scanning and the CSV contract.
//! 3. [`pg`]: PostgreSQL knowledge: dump formats, types, schema conversion.
//! 4. [`keys`] (typed memcomparable keys), [`manifest`] (the JSON that connects the tools) and
//!    [`schemaconv`] (the schema for CockroachDB and YugabyteDB, with its report).
//! 5. [`tools`]: the five tools.

pub mod csv;
pub mod io;
pub mod keys;
pub mod manifest;
pub mod pg;
pub mod schemaconv;
pub mod tools;

pub use io::error::{Error, Pos, Result};
