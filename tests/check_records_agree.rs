//! csvload `--check-records` against csvcheck (issue 36: the load became the check of a
//! table loaded in one transaction): on records made of commas, quotes, carriage returns,
//! line ends, `\.` and UTF-8, cut by the toolkit's record scanner, the load's check refuses
//! exactly the records csvcheck refuses for their form, in csvcheck's words; and the binary
//! COPY path, which checks a record's form as it splits it, refuses the same in the same
//! words (or leaves a `\r\n` record to COPY text, where the form check runs).

use crate::support::cmd::Cmd;
use dumpshard::csv::records::{ChunkReader, Field};
use dumpshard::pg::types::binary::{BinType, Stop, csv_to_binary};
use dumpshard::tools::csvload::load::check::{Checker, Keys};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// What csvcheck says of each record of `input` as a table of two text columns: record
/// number -> its messages.
fn csvcheck_says(input: &[u8]) -> BTreeMap<u64, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.csv"), input).unwrap();
    let o = Cmd::new("csvcheck")
        .args([
            "--columns",
            "a:text,b:text",
            "--bad-rows-reasons",
            "why.csv",
            "-q",
            "in.csv",
        ])
        .current_dir(dir.path())
        .run()
        .output;
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut said: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    let why = std::fs::read(dir.path().join("why.csv")).unwrap_or_default();
    for r in csv::Reader::from_reader(&why[..]).records() {
        let r = r.unwrap();
        said.entry(r[1].parse().unwrap())
            .or_default()
            .push(r[6].to_string());
    }
    said
}

/// What `--check-records` says of each record (each on its own, as if it were the first
/// refused): record number -> its words.
fn load_says(input: &[u8]) -> BTreeMap<u64, String> {
    let mut cr = ChunkReader::new(input, "in.csv", 1 << 20);
    cr.keep_unterminated(true);
    let keys = Keys::new(1);
    let name = |_: u64| String::new();
    let mut ch = Checker::new(&keys, 0, &[], &[], b"", 2, 0, &name);
    let mut said = BTreeMap::new();
    while let Some(c) = cr.next_chunk(Vec::new()).unwrap() {
        for k in 0..c.len() {
            if let Err(w) = ch.form(k, c.record(k)) {
                said.insert(c.first_record + k as u64, w);
            }
        }
    }
    said
}

/// Each record on the binary COPY path (two text columns) and alone through the form check:
/// the same refusals in the same words, but for a record ending in CR LF (or a bare CR) or
/// starting `\.`, which binary COPY leaves to COPY text (where the form check runs).
fn binary_agrees(input: &[u8]) -> Result<(), TestCaseError> {
    let mut cr = ChunkReader::new(input, "in.csv", 1 << 20);
    cr.keep_unterminated(true);
    let keys = Keys::new(1);
    let name = |_: u64| String::new();
    while let Some(c) = cr.next_chunk(Vec::new()).unwrap() {
        for k in 0..c.len() {
            let rec = c.record(k);
            let alone = Checker::new(&keys, 0, &[], &[], b"", 2, 0, &name).form(0, rec);
            let (mut out, mut fields, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
            let mut each = |_: usize, _: &[u8], _: &[Field]| Ok(());
            let bin = csv_to_binary(
                [rec],
                b"",
                &[BinType::Bytes, BinType::Bytes],
                &mut out,
                &mut fields,
                &mut scratch,
                Some(&mut each),
            );
            let body = rec.strip_suffix(b"\n").unwrap_or(rec);
            match bin {
                Ok(()) => prop_assert_eq!(&alone, &Ok(()), "{:?}", String::from_utf8_lossy(rec)),
                Err(Stop::Refused(0, w)) => {
                    prop_assert_eq!(&alone, &Err(w), "{:?}", String::from_utf8_lossy(rec))
                }
                Err(Stop::Text) => prop_assert!(
                    body.ends_with(b"\r") || body.starts_with(b"\\."),
                    "{:?}: as text",
                    String::from_utf8_lossy(rec)
                ),
                Err(e) => prop_assert!(false, "{:?}", e),
            }
        }
    }
    Ok(())
}

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a", "a", "bc", ",", ",", "\"", "\"\"", "\r", "\n", "\\.", "é", " ",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn refuses_what_csvcheck_refuses(
        records in prop::collection::vec(
            (prop::collection::vec(token(), 0..8), prop::sample::select(vec!["\n", "\n", "\n", "\r\n", ""])),
            1..10,
        )
    ) {
        let mut input = String::new();
        for (toks, end) in &records {
            input.extend(toks.iter().copied());
            input.push_str(end);
        }
        // A file that ends inside quotes is the record scanner's to refuse (csvload stops
        // reading there), not the form check's.
        if input.matches('"').count() % 2 == 1 {
            input.push_str("\"\n");
        }
        binary_agrees(input.as_bytes())?;
        let check = csvcheck_says(input.as_bytes());
        let load = load_says(input.as_bytes());
        prop_assert_eq!(
            load.keys().collect::<Vec<_>>(),
            check.keys().collect::<Vec<_>>(),
            "refused records differ on {:?}: load {:?}, csvcheck {:?}",
            input,
            load,
            check
        );
        for (rec, w) in &load {
            prop_assert!(
                check[rec].iter().any(|m| m.starts_with(w.as_str())),
                "record {} of {:?}: the load says {:?}, csvcheck {:?}",
                rec,
                input,
                w,
                check[rec]
            );
        }
    }
}
