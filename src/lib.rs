//! dumpshard: shared library behind the five tools `pgdump2csv`, `csvcheck`, `pksort`,
//! `csvsplit` and `csvload` (ARCHITECTURE.md in the repository maps the layers and data flow).
//!
//! The pieces every tool needs live here: opening inputs with compression sniffing
//! ([`input`]), atomic outputs ([`output`]), one error type with positions and exit codes
//! ([`error`], [`cli`]), the CSV contract ([`csvout`]) and quote-aware record scanning
//! ([`records`]), typed memcomparable keys ([`keys`]), and the manifest that connects the
//! tools ([`manifest`]).

pub mod cli;
pub mod csvcheck;
pub mod csvload;
pub mod csvout;
pub mod csvsplit;
pub mod error;
pub mod gzblocks;
pub mod input;
pub mod keys;
pub mod manifest;
pub mod names;
pub mod output;
pub mod pgdump;
pub mod pgdump2csv;
pub mod pgtypes;
pub mod pksort;
pub mod progress;
pub mod records;
pub mod schemaconv;
pub mod signals;
pub mod stream;

pub use error::{Error, Pos, Result};
