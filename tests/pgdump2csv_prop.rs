//! Property tests: values encoded the way the server writes them (COPY text, and INSERT
//! literals with standard_conforming_strings on and off) come out of `pgdump2csv` as CSV that
//! parses back to the same values, NULL and '' kept apart.

use crate::support::cmd::Cmd;
use dumpshard::csv::records::{ChunkReader, split_fields};
use dumpshard::pg::dump::copytext;
use proptest::prelude::*;

type Row = Vec<Option<String>>;

fn value() -> impl Strategy<Value = Option<String>> {
    prop::option::weighted(
        0.85,
        prop_oneof![
            Just(String::new()),
            Just("\\N".to_string()),
            Just("\\.".to_string()),
            Just("NULL".to_string()),
            "[a-z0-9 ]{0,8}",
            "[,\"\\\\\t\r\n'\\.N a\u{7f}\u{1}\u{8}\u{b}\u{c}é🦀]{0,12}",
            any::<String>().prop_map(|s| s.replace('\0', "")),
        ],
    )
}

fn table() -> impl Strategy<Value = (usize, Vec<Row>)> {
    (1usize..5).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec(prop::collection::vec(value(), n), 0..25),
        )
    })
}

fn run(dump: &str, null: &str) -> Vec<u8> {
    Cmd::new("pgdump2csv")
        .args(["-t", "t", "--null", null])
        .stdin(dump)
        .ok()
}

fn parse(csv: &[u8], null: &str) -> Vec<Row> {
    let mut r = ChunkReader::new(csv, "out", 1 << 16);
    let mut rows = Vec::new();
    let mut fields = Vec::new();
    while let Some(c) = r.next_chunk(Vec::new()).unwrap() {
        for rec in c.records() {
            split_fields(rec, &mut fields).unwrap();
            rows.push(
                fields
                    .iter()
                    .map(|f| {
                        if !f.quoted && f.raw(rec) == null.as_bytes() {
                            None
                        } else {
                            Some(String::from_utf8(f.value(rec).into_owned()).unwrap())
                        }
                    })
                    .collect(),
            );
        }
    }
    rows
}

fn wrap(body: &str) -> String {
    format!(
        "--\n-- PostgreSQL database dump\n--\n\n{body}\n--\n-- PostgreSQL database dump complete\n--\n\n"
    )
}

fn cols(n: usize) -> String {
    (0..n)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as pg_dump writes it in an INSERT (appendStringLiteral).
fn literal(v: &Option<String>, std_strings: bool) -> String {
    match v {
        None => "NULL".into(),
        Some(s) => {
            let mut o = String::from("'");
            for c in s.chars() {
                if c == '\'' || (c == '\\' && !std_strings) {
                    o.push(c);
                }
                o.push(c);
            }
            o.push('\'');
            o
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn copy_text_round_trips((n, rows) in table(), token in prop_oneof![Just(""), Just("\\N")]) {
        let mut body = format!("COPY public.t ({}) FROM stdin;\n", cols(n));
        for row in &rows {
            let mut line = Vec::new();
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    line.push(b'\t');
                }
                copytext::escape(v.as_deref().map(str::as_bytes), &mut line);
            }
            body.push_str(std::str::from_utf8(&line).unwrap());
            body.push('\n');
        }
        body.push_str("\\.\n");
        let out = run(&wrap(&body), token);
        prop_assert_eq!(parse(&out, token), rows);
    }

    #[test]
    fn insert_literals_round_trip((n, rows) in table(), std_strings in any::<bool>(), per in 1usize..4) {
        // A table without rows has no INSERT: its CREATE TABLE is what makes -t find it.
        let mut body = format!(
            "SET standard_conforming_strings = {};\n\nCREATE TABLE public.t ({});\n\n",
            if std_strings { "on" } else { "off" },
            (0..n).map(|i| format!("c{i} text")).collect::<Vec<_>>().join(", ")
        );
        for chunk in rows.chunks(per) {
            let vals: Vec<String> = chunk
                .iter()
                .map(|r| format!("({})", r.iter().map(|v| literal(v, std_strings)).collect::<Vec<_>>().join(", ")))
                .collect();
            body.push_str(&format!("INSERT INTO public.t ({}) VALUES\n\t{};\n", cols(n), vals.join(",\n\t")));
        }
        let out = run(&wrap(&body), "");
        prop_assert_eq!(parse(&out, ""), rows);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// One table's COPY block cut into pieces of any size (the hidden DUMPSHARD_COPY_CHUNK)
    /// and converted on 2 or 4 threads comes out as the bytes of one thread, and a bad row
    /// anywhere as the same error.
    #[test]
    fn pieces_on_every_core_write_one_threads_bytes(
        (n, rows) in table(),
        chunk in 1usize..300,
        jobs in prop_oneof![Just("2"), Just("4")],
        bad in prop::option::of(0usize..30),
    ) {
        let mut body = format!("COPY public.t ({}) FROM stdin;\n", cols(n));
        for (k, row) in rows.iter().enumerate() {
            if bad == Some(k) {
                body.push_str("one\ttoo\tmany\tfields\tfor\tany\n");
            }
            let mut line = Vec::new();
            for (i, v) in row.iter().enumerate() {
                if i > 0 {
                    line.push(b'\t');
                }
                copytext::escape(v.as_deref().map(str::as_bytes), &mut line);
            }
            body.push_str(std::str::from_utf8(&line).unwrap());
            body.push('\n');
        }
        body.push_str("\\.\n");
        let dump = wrap(&body);
        let go = |j: &str, chunk: Option<usize>| {
            let mut c = Cmd::new("pgdump2csv").args(["-t", "t", "-j", j]).stdin(dump.clone());
            if let Some(k) = chunk {
                c = c.env("DUMPSHARD_COPY_CHUNK", k.to_string());
            }
            let r = c.run();
            let err = r.stderr_str();
            (r.output.status.code(), r.output.stdout, err)
        };
        // On an error the output is an incomplete stream (marked so), cut wherever: only the
        // error and the exit status are compared then.
        let (one, many) = (go("1", None), go(jobs, Some(chunk)));
        prop_assert_eq!((one.0, &one.2), (many.0, &many.2));
        if one.0 == Some(0) {
            prop_assert_eq!(one.1, many.1);
        }
    }
}
