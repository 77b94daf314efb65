//! Layer 3, PostgreSQL knowledge: what pg_dump writes ([`dump`]: plain dumps, COPY text,
//! INSERTs, DDL facts, archives) and what each type accepts ([`types`]). Imports only
//! plumbing and CSV mechanics.

pub mod dump;
pub mod types;
