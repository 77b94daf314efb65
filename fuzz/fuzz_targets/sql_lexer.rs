//! Fuzzes the dump statement lexer (`dump::sql`): statement splitting, in one piece and
//! streamed in small refills the way pgdump2csv feeds it, then tokenizing and classifying
//! (`dump::ddl`) each statement.
//!
//! Input: one flag byte (bit 0: standard_conforming_strings off; bits 1-4: refill step),
//! then the SQL.
#![no_main]

use dumpshard::pg::dump::ddl::classify;
use dumpshard::pg::dump::sql::{Scan, Statements, StmtScanner, tokenize};
use libfuzzer_sys::fuzz_target;

/// Where the statement starting at `from` ends, scanning `sql` whole.
fn end_whole(sql: &[u8], from: usize, std: bool) -> Option<usize> {
    match StmtScanner::default().scan(sql, from, std, true) {
        Scan::End(e) => Some(e),
        Scan::More(_) => None,
    }
}

/// The same, with the buffer growing by `step` bytes per refill, as pgdump2csv's reader does.
fn end_streamed(sql: &[u8], from: usize, std: bool, step: usize) -> Option<usize> {
    let mut sc = StmtScanner::default();
    let mut at = from;
    let mut k = (from + step).min(sql.len());
    loop {
        let eof = k == sql.len();
        match sc.scan(&sql[..k], at, std, eof) {
            Scan::End(e) => return Some(e),
            Scan::More(f) => {
                assert!(f >= at && f <= k, "More({f}) outside {at}..={k}");
                if eof {
                    return None;
                }
                at = f;
                k = (k + step).min(sql.len());
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, sql)) = data.split_first() else {
        return;
    };
    let std = flags & 1 == 0;
    let step = 1 + ((flags >> 1) & 15) as usize;

    // Streaming must find the same statement ends as scanning the whole buffer.
    let mut from = 0;
    while from < sql.len() {
        let whole = end_whole(sql, from, std);
        assert_eq!(
            whole,
            end_streamed(sql, from, std, step),
            "statement at {from}: whole vs streamed (step {step})"
        );
        match whole {
            Some(e) => {
                assert!(e > from && e <= sql.len() && sql[e - 1] == b';');
                from = e;
            }
            None => break,
        }
    }

    // Statements tile the input in order; every token lies inside its statement.
    let mut last = 0;
    for (start, text) in Statements::new(sql) {
        assert!(start >= last, "statement at {start} before {last}");
        assert_eq!(&sql[start..start + text.len()], text);
        last = start + text.len();
        let _ = classify(text, std);
        if let Ok(toks) = tokenize(text, std) {
            let mut prev = 0;
            for t in &toks {
                assert!(
                    prev <= t.start && t.start < t.end && t.end <= text.len(),
                    "{t:?}"
                );
                prev = t.end;
            }
        }
    }
});
