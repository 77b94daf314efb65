//! Layer 3, PostgreSQL knowledge: what pg_dump writes ([`dump`]: plain dumps, COPY text,
//! INSERTs, DDL facts, archives), what each type accepts ([`types`]) and how a client finds
//! its server ([`conn`]: connection strings, services, the password file). Imports only
//! plumbing and CSV mechanics.

pub mod conn;
pub mod dump;
pub mod types;
