//! Fuzzes the INSERT literal parser (`dump::inserts`) on arbitrary statements.
//!
//! Input: one flag byte (bit 0: standard_conforming_strings off), then the statement.
#![no_main]

use dumpshard::pg::dump::inserts::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, stmt)) = data.split_first() else {
        return;
    };
    match parse(stmt, flags & 1 == 0) {
        Ok(ins) => assert!(!ins.rows.is_empty(), "an INSERT has at least one row"),
        Err((at, msg)) => {
            assert!(
                at <= stmt.len(),
                "error offset {at} past the statement: {msg}"
            );
            assert!(!msg.is_empty());
        }
    }
});
