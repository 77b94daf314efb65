//! The one integration-test crate (Cargo.toml: `autotests = false`): a module per test file,
//! all linked into one binary, so the library and the test helpers are built once. Filter by
//! module or test name as before: `cargo test --test tests pksort::` or `... NAME`.
//!
//! Adding a test file: put it in tests/ and add a `mod NAME;` line below (keep the list sorted);
//! it uses the helpers with `use crate::support::{cmd::Cmd, pg, ...};`. Every module runs in
//! threads of one process: never change the process's environment, working directory or signal
//! dispositions in a test (set them on the child's `Command` instead).

mod support;

mod archive;
mod archive_pg;
mod binary_copy_pg;
mod certverify;
mod check_records_agree;
mod conn_libpq;
mod conn_tls_recipe;
mod contract;
mod crdb_grammar;
mod csvcheck;
mod csvcheck_fixtures;
mod csvcheck_pg;
mod csvcheck_pg_prop;
mod csvcheck_prop;
mod csvload_binary_pg;
mod csvload_conn;
mod csvload_load_pg;
mod csvload_parts_pg;
mod csvload_pg;
mod csvload_postdata_pg;
mod csvload_stall;
mod csvload_target;
mod csvload_verify_pg;
mod csvsplit;
mod csvsplit_copy;
mod csvsplit_range;
mod dumpsafe;
mod fail_closed;
mod fixtures_csv;
mod fuzz_regressions;
mod gzip_padding;
mod gzpar;
mod help_words;
mod install;
mod keys_agree;
mod layers;
mod manifest_types;
mod migrate_mk;
mod migrate_stops;
mod pgdump2csv_cli;
mod pgdump2csv_jobs;
mod pgdump2csv_patterns_pg;
mod pgdump2csv_prop;
mod pipeline_pg;
mod pipes;
mod pksort;
mod progress;
mod readme;
mod referee_crdb;
mod referee_yb;
mod roundtrip_pg;
mod safety;
mod scale_out;
mod schemaconv;
mod schemaconv_versions;
mod scripts;
mod table_names_pg;
mod vocabulary;
