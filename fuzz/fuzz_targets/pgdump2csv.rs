//! Fuzzes the whole pgdump2csv converter on arbitrary bytes: a run either succeeds or returns
//! an error, and either way leaves no temporary file behind; a successful run wrote its
//! manifest.
//!
//! Input: one flag byte (bit 0: require pg_dump's header and footer; bit 1: --header;
//! bit 2: --null '\N'; bit 3: --post-data), then the dump (compressed input is sniffed).
#![no_main]

use clap::Parser;
use dumpshard::pgdump2csv::{Args, run};
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
        "--manifest".into(),
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
});
