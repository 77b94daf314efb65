//! Fuzzes the whole pgdump2csv converter on arbitrary bytes: a run either succeeds or returns
//! an error, and either way leaves no temporary file behind. A successful run wrote a manifest
//! that reads back, and every CSV it lists has the bytes and rows it claims, each record with
//! one field per column.
//!
//! Input: one flag byte (bit 0: require pg_dump's header and footer; bit 1: --header;
//! bit 2: --null '\N'; bit 3: --post-data), then the dump (compressed input is sniffed).
#![no_main]

use clap::Parser;
use dumpshard::manifest::{Manifest, resolve_file};
use dumpshard::tools::pgdump2csv::{Args, run};
use dumpshard::csv::records::{ChunkReader, split_fields};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, dump)) = data.split_first() else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let p = |n: &str| dir.path().join(n).into_os_string();
    std::fs::write(p("dump.sql"), dump).expect("write dump");
    let mut argv: Vec<OsString> = vec!["pgdump2csv".into(), p("dump.sql"), "-o".into(), p("out")];
    argv.extend([
        "--schema".into(),
        p("schema.sql"),
        "--write-manifest".into(),
        p("m.json"),
    ]);
    if flags & 1 == 0 {
        argv.push("--no-dump-check".into());
    }
    if flags & 2 != 0 {
        argv.push("--header".into());
    }
    if flags & 4 != 0 {
        argv.extend(["--null".into(), "\\N".into()]);
    }
    if flags & 8 != 0 {
        argv.extend(["--post-data".into(), p("post.sql")]);
    }
    let args = Args::try_parse_from(argv).expect("valid command line");
    let ok = run(args).is_ok();
    assert_eq!(
        ok,
        dir.path().join("m.json").exists(),
        "manifest exists iff the run succeeded"
    );
    for d in [dir.path().to_path_buf(), dir.path().join("out")] {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            assert!(
                !name.ends_with(".tmp"),
                "temporary file left behind: {name}"
            );
        }
    }
    if ok {
        check_outputs(&dir.path().join("m.json"));
    }
});

fn check_outputs(manifest: &std::path::Path) {
    let m = Manifest::read(manifest).expect("the manifest reads back");
    let mut fields = Vec::new();
    for t in &m.tables {
        let Some(file) = &t.file else { continue };
        let csv = std::fs::read(resolve_file(manifest, file)).expect("listed CSV exists");
        assert_eq!(csv.len() as u64, t.bytes, "{file}: bytes");
        let mut rd = ChunkReader::new(&csv[..], file, csv.len() + 1);
        let mut records = 0u64;
        while let Some(c) = rd.next_chunk(Vec::new()).expect("output is CSV") {
            for rec in c.records() {
                assert_eq!(rec.last(), Some(&b'\n'), "{file}: records end in a newline");
                split_fields(rec, &mut fields).expect("output fields split");
                if !t.columns.is_empty() {
                    assert_eq!(fields.len(), t.columns.len(), "{file}: fields per record");
                }
                records += 1;
            }
        }
        assert_eq!(records, t.rows + t.header as u64, "{file}: rows");
    }
}
