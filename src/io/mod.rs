//! Layer 1, plumbing: bytes in and bytes out, failures, signals and temporaries, progress.
//!
//! Nothing here imports a layer above it (csv, pg, keys, manifest, tools); `tests/layers.rs`
//! checks the imports. ARCHITECTURE.md maps the layers.

pub mod cli;
pub mod error;
pub mod gzblocks;
pub mod input;
pub mod names;
pub mod output;
pub mod progress;
pub mod signals;
pub mod stream;
