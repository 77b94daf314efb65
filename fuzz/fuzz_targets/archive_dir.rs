//! Fuzzes reading a directory archive (`dump::archive`, pg_dump -Fd): toc.dat and the data
//! files it names, built from the input in a temporary directory, with symbolic links and
//! FIFOs among the data files on request (see `fuzz_dir`).
//!
//! `fuzz_dir` must return for any input: no panic, no hang on a FIFO, nothing followed out of
//! the directory, and no allocation sized by a length field the input has not backed.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    dumpshard::pg::dump::archive::fuzz_dir(data);
});
