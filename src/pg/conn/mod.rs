//! PostgreSQL client connection knowledge, as libpq has it: connection strings and URLs
//! ([`conninfo`]), the connection service file ([`service`]), the password file
//! ([`pgpass`]), and a string completed from the service, the PG* environment and the
//! defaults into a host list ([`hosts`]), and TLS with libpq's `sslmode` rules and OpenSSL's
//! certificate verification ([`tls`] and [`tlsconnect`], over [`certverify`]). Any tool that connects uses these,
//! so every tool reaches the server, database and user psql would, with the same TLS decision.

pub mod certverify;
pub mod conninfo;
pub mod hosts;
pub mod pgpass;
pub mod service;
pub mod tls;
pub mod tlsconnect;
