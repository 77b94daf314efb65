//! Layer 5, the five tools, one module each: its `args.rs` (clap `Args` -> checked
//! `Config`) and its pipeline. The thin mains in `src/bin/` call `run`.

pub mod csvcheck;
pub mod csvload;
pub mod csvsplit;
pub mod pgdump2csv;
pub mod pksort;
