//! Typed keys shared by the tools: parsing `-k COLUMN[:TYPE][:desc]` specs, resolving them
//! against a header or a manifest's primary key ([`spec`]), and encoding key values into
//! memcomparable bytes ([`key`]), so that comparing two encoded keys with `memcmp` gives the
//! typed PostgreSQL order.
//!
//! [`keyset`] is the duplicate-key set of csvcheck and csvload `--check-records`.
//!
//! pksort sorts, merges and checks with these keys; csvsplit records each shard's first and
//! last key and whether the shards are sorted and non-overlapping.

pub mod key;
pub mod keyset;
pub mod spec;

pub use key::{BadValue, KeyType, encode};
pub use spec::{ColumnRef, KeyArg, KeyPart, KeySpec, Nulls, resolve_column, show};
