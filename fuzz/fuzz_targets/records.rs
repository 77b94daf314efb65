//! Fuzzes the CSV record scanner (`records::ChunkReader`) and field splitter
//! (`records::split_fields`): chunks must give back the input byte for byte, cut only at
//! record ends, and the fields of each record must tile it between commas.
//!
//! Input: one flag byte (bits 0-5: chunk target size; bit 6: keep an unterminated tail),
//! then the CSV.
#![no_main]

use dumpshard::csv::records::{
    ChunkReader, Malformed, split_fields, split_fields_upto, strip_terminator,
};
use libfuzzer_sys::fuzz_target;

/// A reader that hands out at most a few bytes per call, so records straddle reads.
struct Trickle<'a>(&'a [u8], usize);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(self.1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, csv)) = data.split_first() else {
        return;
    };
    let target = 1 + (flags & 63) as usize;
    let mut rd = ChunkReader::new(Trickle(csv, 1 + (flags as usize & 7)), "in", target);
    rd.keep_unterminated(flags & 64 != 0);
    let mut seen = Vec::new();
    let mut records = 0u64;
    let mut fields = Vec::new();
    let mut upto = Vec::new();
    let mut open_tail = false;
    loop {
        let c = match rd.next_chunk(Vec::new()) {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(_) => return, // unterminated quote at the end: reported, fine
        };
        assert!(!c.is_empty(), "an empty chunk before the end");
        assert_eq!(c.first_byte as usize, seen.len(), "first_byte");
        assert_eq!(c.first_record, records + 1, "first_record");
        assert_eq!(
            *c.ends.last().unwrap(),
            c.data.len(),
            "a chunk ends at a record end"
        );
        let mut prev = 0;
        for (i, &e) in c.ends.iter().enumerate() {
            assert!(e > prev, "record ends increase");
            let rec = c.record(i);
            // Only the last record of the input may lack its newline.
            assert!(!open_tail, "a record after one without a newline");
            open_tail = rec.last() != Some(&b'\n');
            match split_fields(rec, &mut fields) {
                Ok(()) => {
                    let body = strip_terminator(rec);
                    assert!(!fields.is_empty());
                    assert_eq!(fields[0].start, 0);
                    assert_eq!(fields.last().unwrap().end, body.len());
                    for w in fields.windows(2) {
                        assert_eq!(body[w[0].end], b',');
                        assert_eq!(w[1].start, w[0].end + 1);
                    }
                    for f in &fields {
                        let v = f.value(rec);
                        assert!(v.len() <= f.end - f.start);
                        if !f.quoted {
                            assert!(!v.contains(&b'"'));
                        }
                    }
                    let n = flags as usize % (fields.len() + 1);
                    split_fields_upto(rec, n, &mut upto).expect("a prefix of good fields");
                    assert_eq!(&upto[..], &fields[..n]);
                }
                Err(Malformed::BareQuote(at) | Malformed::TextAfterQuote(at)) => {
                    assert!(at < rec.len());
                }
                Err(Malformed::Unterminated) => {}
            }
            prev = e;
        }
        records += c.len() as u64;
        seen.extend_from_slice(&c.data);
    }
    assert_eq!(seen, csv, "chunks give back the input byte for byte");
});
