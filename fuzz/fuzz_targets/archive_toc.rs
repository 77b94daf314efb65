//! Fuzzes the custom-archive header and TOC reader (`dump::archive`) on arbitrary bytes.
//!
//! `fuzz_toc` must return for any input: no panic, and no allocation sized by a length field
//! the input has not backed with bytes (libFuzzer's `-rss_limit_mb` catches those).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    dumpshard::pg::dump::archive::fuzz_toc(data);
});
