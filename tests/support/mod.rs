//! Helpers shared by every module of the one integration-test crate (tests/tests.rs).

pub mod cli;
pub mod cmd;
pub mod csvparse;
pub mod man;
pub mod pg;
