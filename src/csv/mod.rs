//! Layer 2, CSV mechanics: where a record ends ([`records`]) and how a value is written
//! ([`csvout`], the CSV contract). Imports only plumbing.

pub mod csvout;
pub mod records;
pub mod totext;
