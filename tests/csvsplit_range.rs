//! Integration tests of `csvsplit --by-range` and `--filter` with the real binaries: the range
//! recipe (split into key ranges, pksort each shard) equals one pksort of the whole input byte
//! for byte, with disjoint ranges (property test with nasty keys, duplicates and NULLs);
//! `--split-points`; `--filter` with a local command standing in for an uploader.

use crate::support::cmd::Cmd;
use crate::support::cmd::Within;
use proptest::prelude::*;
use serde_json::Value;
use std::cmp::Ordering;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(bin: &str, dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let c = Cmd::program(bin).args(args).current_dir(dir);
    match stdin {
        Some(d) => c.stdin(d),
        None => c,
    }
    .run()
    .output
}

fn csvsplit(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    run(env!("CARGO_BIN_EXE_csvsplit"), dir, args, stdin)
}

fn pksort(dir: &Path, args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_pksort"), dir, args, None)
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "failed ({:?}): {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// One generated record: a text key (None = NULL), an int key, and a unique id.
#[derive(Debug, Clone)]
struct Rec {
    text: Option<String>,
    int: Option<i64>,
}

fn field(v: &Option<String>) -> String {
    match v {
        None => String::new(),
        Some(s) if s.is_empty() || s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') => {
            format!("\"{}\"", s.replace('"', "\"\""))
        }
        Some(s) => s.clone(),
    }
}

fn csv(recs: &[Rec], header: bool) -> Vec<u8> {
    let mut out = String::new();
    if header {
        out.push_str("t,i,id\n");
    }
    for (id, r) in recs.iter().enumerate() {
        let i = r.int.map(|i| i.to_string());
        out.push_str(&format!("{},{},{id}\n", field(&r.text), field(&i)));
    }
    out.into_bytes()
}

fn text_value() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        1 => Just(None),
        4 => prop::sample::select(vec![
            "", "a", "a,b", "q\"uote", "two\nlines", "ä", "cr\r", "z", " sp", "A", "a\"\"",
        ])
        .prop_map(|s| Some(s.to_string())),
        2 => "[a-c,\"\n]{0,4}".prop_map(Some),
    ]
}

fn int_value() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![
        1 => Just(None),
        4 => (-4i64..4).prop_map(Some),
        1 => any::<i64>().prop_map(Some),
    ]
}

/// Compares two optional values with NULLs first or last.
fn cmp_opt<T: Ord>(a: &Option<T>, b: &Option<T>, nulls_first: bool) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) if nulls_first => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) if nulls_first => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.cmp(y),
    }
}

/// Which key a case uses.
#[derive(Debug, Clone, Copy)]
enum Key {
    Text,
    Int,
    IntText,
}

impl Key {
    fn args(self) -> &'static str {
        match self {
            Key::Text => "1",
            Key::Int => "2:int",
            Key::IntText => "2:int,1",
        }
    }

    fn cmp(self, a: &Rec, b: &Rec, nf: bool) -> Ordering {
        let t = || {
            cmp_opt(
                &a.text.as_ref().map(|s| s.as_bytes()),
                &b.text.as_ref().map(|s| s.as_bytes()),
                nf,
            )
        };
        match self {
            Key::Text => t(),
            Key::Int => cmp_opt(&a.int, &b.int, nf),
            Key::IntText => cmp_opt(&a.int, &b.int, nf).then_with(t),
        }
    }
}

/// The ids (third column) of the records of a CSV shard, in order.
fn ids(data: &[u8], header: bool) -> Vec<usize> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(header)
        .from_reader(data);
    r.records()
        .map(|x| x.expect("valid CSV")[2].parse().expect("id"))
        .collect()
}

fn check_recipe(
    recs: &[Rec],
    key: Key,
    nulls_first: bool,
    n: usize,
    header: bool,
    via_stdin: bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = csv(recs, header);
    std::fs::write(d.join("in.csv"), &input).unwrap();
    let nulls = if nulls_first { "first" } else { "last" };
    let ns = n.to_string();
    let mut args = vec![
        "--by-range",
        "-k",
        key.args(),
        "--nulls",
        nulls,
        "-n",
        &ns,
        "-o",
        "r-{n}.csv",
        "--write-manifest",
        "m.json",
        // A small sample per range, so that the sample is often smaller than the input.
        "--samples-per-range",
        "3",
    ];
    if header {
        args.push("--header");
    }
    if !via_stdin {
        args.push("in.csv");
    }
    ok(&csvsplit(d, &args, via_stdin.then_some(&input[..])));
    let mut sort_args = vec!["-k", key.args(), "--nulls", nulls, "--on-dup", "keep"];
    if header {
        sort_args.push("--header");
    }
    let mut concat = Vec::new();
    let mut prev_max: Option<usize> = None;
    for i in 0..n {
        let shard = format!("r-{i}.csv");
        let sorted = format!("s-{i}.csv");
        let mut a = sort_args.clone();
        a.extend([shard.as_str(), "-o", sorted.as_str()]);
        ok(&pksort(d, &a));
        let raw = std::fs::read(d.join(&shard)).unwrap();
        let got = ids(&raw, header);
        // Input order kept within the shard.
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "shard {i} order: {got:?}"
        );
        // Disjoint ranges, in shard order: every key of this shard is above every key of
        // the shards before.
        if let (Some(p), Some(min)) = (
            prev_max,
            got.iter()
                .copied()
                .min_by(|&x, &y| key.cmp(&recs[x], &recs[y], nulls_first)),
        ) {
            assert_eq!(
                key.cmp(&recs[p], &recs[min], nulls_first),
                Ordering::Less,
                "shard {i} overlaps an earlier one: {:?} vs {:?}",
                recs[p],
                recs[min]
            );
        }
        if let Some(max) = got
            .iter()
            .copied()
            .max_by(|&x, &y| key.cmp(&recs[x], &recs[y], nulls_first))
        {
            prev_max = Some(max);
        }
        let s = std::fs::read(d.join(&sorted)).unwrap();
        let body = if header && !s.is_empty() {
            let nl = s.iter().position(|&b| b == b'\n').unwrap();
            s[nl + 1..].to_vec()
        } else {
            s
        };
        concat.extend_from_slice(&body);
    }
    let mut a = sort_args.clone();
    a.extend(["in.csv", "-o", "whole.csv"]);
    ok(&pksort(d, &a));
    let whole = std::fs::read(d.join("whole.csv")).unwrap();
    let whole = if header {
        let nl = whole.iter().position(|&b| b == b'\n').unwrap();
        whole[nl + 1..].to_vec()
    } else {
        whole
    };
    assert_eq!(
        String::from_utf8_lossy(&concat),
        String::from_utf8_lossy(&whole),
        "sorted shards, concatenated, differ from one sort of the whole"
    );
    let m: Value = serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
    assert_eq!(m["mode"], "range");
    assert_eq!(m["non_overlapping"], true);
    assert_eq!(m["records"], recs.len() as u64);
    assert_eq!(m["shards"].as_array().unwrap().len(), n);
    assert_eq!(m["range"]["split_points"].as_array().unwrap().len(), {
        if recs.is_empty() { 0 } else { n - 1 }
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn range_shards_sorted_equal_one_sort(
        recs in prop::collection::vec((text_value(), int_value())
            .prop_map(|(text, int)| Rec { text, int }), 0..120),
        key in prop::sample::select(vec![Key::Text, Key::Int, Key::IntText]),
        nulls_first in any::<bool>(),
        n in 1usize..5,
        header in any::<bool>(),
        via_stdin in any::<bool>(),
    ) {
        check_recipe(&recs, key, nulls_first, n, header, via_stdin);
    }
}

#[test]
fn many_duplicates_and_one_huge_key() {
    // Most records share one key: it lands whole in one range.
    let recs: Vec<Rec> = (0..500)
        .map(|i| Rec {
            text: Some(if i % 5 == 0 {
                format!("k{i}")
            } else {
                "same".into()
            }),
            int: None,
        })
        .collect();
    check_recipe(&recs, Key::Text, true, 4, true, false);
}

#[test]
fn split_points_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), "id,v\n5,a\n1,b\n10,c\n3,d\n7,e\n10,f\n").unwrap();
    std::fs::write(d.join("pts"), "3\n\"7\"\n").unwrap();
    // N from the file (-n left out); a key equal to a point goes to the range above it.
    ok(&csvsplit(
        d,
        &[
            "--by-range",
            "-k",
            "id:int",
            "--split-points",
            "pts",
            "--header",
            "-o",
            "p{n}.csv",
            "--write-manifest",
            "m.json",
            "in.csv",
        ],
        None,
    ));
    let r = |i: usize| std::fs::read_to_string(d.join(format!("p{i}.csv"))).unwrap();
    assert_eq!(r(0), "id,v\n1,b\n");
    assert_eq!(r(1), "id,v\n5,a\n3,d\n");
    assert_eq!(r(2), "id,v\n10,c\n7,e\n10,f\n");
    let m: Value = serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
    assert_eq!(m["range"]["source"], "file");
    assert_eq!(m["shards"][0]["lower_key"], Value::Null);
    assert_eq!(m["shards"][1]["lower_key"], serde_json::json!(["3"]));
    assert_eq!(m["shards"][1]["upper_key"], serde_json::json!(["7"]));
    assert_eq!(m["shards"][2]["upper_key"], Value::Null);

    // -n that does not match; points out of order; a point that is not an int.
    let bad = |pts: &str, extra: &[&str], want: &str| {
        std::fs::write(d.join("bad"), pts).unwrap();
        let mut a = vec![
            "--by-range",
            "-k",
            "id:int",
            "--split-points",
            "bad",
            "--header",
            "-o",
            "b{n}.csv",
            "in.csv",
        ];
        a.extend_from_slice(extra);
        let o = csvsplit(d, &a, None);
        assert_eq!(o.status.code(), Some(2), "{pts:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(want), "{pts:?}: {e}");
        assert!(!d.join("b0.csv").exists(), "nothing written for {pts:?}");
    };
    bad(
        "3\n7\n",
        &["-n", "2"],
        "does not match the 2 split point(s)",
    );
    bad("7\n3\n", &[], "is less than the one before");
    bad("3\nx\n", &[], "'x' is not a valid int");
    bad("3,4\n", &[], "has 2 field(s)");

    // --write-split-points writes what --split-points reads back, the same shards result.
    ok(&csvsplit(
        d,
        &[
            "--by-range",
            "-k",
            "id:int",
            "-n",
            "3",
            "--header",
            "-o",
            "w{n}.csv",
            "--write-split-points",
            "w.pts",
            "in.csv",
        ],
        None,
    ));
    ok(&csvsplit(
        d,
        &[
            "--by-range",
            "-k",
            "id:int",
            "--split-points",
            "w.pts",
            "--header",
            "-o",
            "x{n}.csv",
            "in.csv",
        ],
        None,
    ));
    for i in 0..3 {
        assert_eq!(
            std::fs::read(d.join(format!("w{i}.csv"))).unwrap(),
            std::fs::read(d.join(format!("x{i}.csv"))).unwrap()
        );
    }
}

#[test]
fn range_needs_a_key_and_n() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), "1\n").unwrap();
    let o = csvsplit(d, &["--by-range", "-n", "2", "in.csv"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a key"));
    let o = csvsplit(d, &["--by-range", "-k", "1", "in.csv"], None);
    assert_eq!(o.status.code(), Some(2));
}

/// The stand-in uploader: copies the shard to `$DIR/up/$FILE`, and records how many filters
/// run at once (a directory per running filter).
const UPLOADER: &str = r#"R="$DIR/run.$(echo "$FILE" | tr / _)"; mkdir "$R" && ls -d "$DIR"/run.* | wc -l >> "$DIR/concurrent" && mkdir -p "$(dirname "$DIR/up/$FILE")" && cat > "$DIR/up/$FILE" && rmdir "$R""#;

fn filter_run(d: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_csvsplit"));
    c.args(args)
        .current_dir(d)
        .env("DIR", d)
        .stdin(Stdio::null())
        .output_within()
        .expect("run")
}

fn max_concurrent(d: &Path) -> usize {
    std::fs::read_to_string(d.join("concurrent"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse::<usize>().unwrap())
        .max()
        .unwrap()
}

#[test]
fn filter_uploads_every_shard_with_manifest_crcs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut input = String::from("id,v\n");
    for i in 0..3000 {
        input.push_str(&format!("{},\"v,{i}\"\n", (i * 7919) % 3001));
    }
    std::fs::write(d.join("in.csv"), &input).unwrap();
    for (mode, out) in [
        (vec!["-r", "700"], "s/p-{n}.csv"),
        (vec!["-n", "3"], "s/p-{n}.csv.gz"),
        (vec!["--by-range", "-k", "id:int", "-n", "5"], "s/p-{n}.csv"),
        (vec!["--by-hash", "id", "-n", "6"], "s/p-{n}.csv.gz"),
    ] {
        let _ = std::fs::remove_dir_all(d.join("up"));
        let _ = std::fs::remove_file(d.join("concurrent"));
        let mut a = mode.clone();
        a.extend([
            "--header",
            "-o",
            out,
            "-j",
            "2",
            "--filter",
            UPLOADER,
            "--write-manifest",
            "m.json",
            // Each mode replaces the manifest of the one before.
            "--force",
            "in.csv",
        ]);
        let o = filter_run(d, &a);
        ok(&o);
        // Nothing written locally under the shard names.
        assert!(!d.join("s").exists(), "{mode:?}: local shards");
        let m: Value = serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
        let shards = m["shards"].as_array().unwrap();
        let mut records = 0;
        for s in shards {
            let name = s["file"].as_str().unwrap();
            let up = std::fs::read(d.join("up").join(name)).unwrap();
            assert_eq!(up.len() as u64, s["file_bytes"].as_u64().unwrap(), "{name}");
            let raw = if name.ends_with(".gz") {
                let mut v = Vec::new();
                std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&up[..]), &mut v)
                    .unwrap();
                v
            } else {
                up
            };
            let crc = format!("{:08x}", crc32(&raw));
            assert_eq!(s["crc32"].as_str().unwrap(), crc, "{mode:?} {name}");
            records += s["records"].as_u64().unwrap();
        }
        assert_eq!(records, 3000);
        assert!(
            max_concurrent(d) <= 2,
            "{mode:?}: more than -j 2 filters at once"
        );
        assert_eq!(m["filter"], UPLOADER);
    }
}

/// CRC-32 (IEEE), bitwise: the test's own, independent of the crate csvsplit uses.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn filter_j1_runs_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input: String = (0..2000).map(|i| format!("{i},x\n")).collect();
    std::fs::write(d.join("in.csv"), &input).unwrap();
    let o = filter_run(
        d,
        &[
            "--by-range",
            "-k",
            "1:int",
            "-n",
            "4",
            "-o",
            "p{n}.csv",
            "-j",
            "1",
            "--filter",
            UPLOADER,
            "in.csv",
        ],
    );
    ok(&o);
    assert_eq!(max_concurrent(d), 1);
    let mut all = Vec::new();
    for i in 0..4 {
        all.extend(std::fs::read(d.join("up").join(format!("p{i}.csv"))).unwrap());
    }
    assert_eq!(
        String::from_utf8(all).unwrap(),
        input,
        "sorted input: ranges concatenate back"
    );
}

#[test]
fn failing_filter_names_the_shard() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Shards of about 300 kB: far more than a pipe holds, so a filter that stops reading
    // makes the writes fail whatever the timing.
    let pad = "x".repeat(300);
    let input: String = (0..3000).map(|i| format!("{i},{pad}\n")).collect();
    std::fs::write(d.join("in.csv"), &input).unwrap();
    for cmd in [
        // Fails after reading everything.
        r#"cat > /dev/null; test "$FILE" != p1.csv"#,
        // Fails without reading.
        r#"test "$FILE" != p1.csv && cat > /dev/null"#,
        // Succeeds without reading everything: a shard cut short is an error too.
        r#"if test "$FILE" = p1.csv; then head -c 10 > /dev/null; else cat > /dev/null; fi"#,
    ] {
        let o = filter_run(
            d,
            &[
                "-n",
                "3",
                "-o",
                "p{n}.csv",
                "--filter",
                cmd,
                "--write-manifest",
                "m.json",
                "in.csv",
            ],
        );
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {e}");
        assert!(e.contains("p1.csv") && e.contains("--filter"), "{cmd}: {e}");
        assert!(
            !d.join("m.json").exists(),
            "{cmd}: no manifest after a failure"
        );
    }
}

/// Whether process `pid` is gone (or a zombie, waiting for a reaper).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn interrupted_split_stops_the_filters_it_was_feeding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_csvsplit"));
    crate::support::cmd::default_signals(&mut cmd);
    let mut child = cmd
        .args([
            "-r",
            "2000000",
            "-o",
            "p{n}.csv",
            "--filter",
            r#"echo $$ > "$DIR/pid.tmp" && mv "$DIR/pid.tmp" "$DIR/pid"; cat > /dev/null && touch "$DIR/done""#,
        ])
        .current_dir(d)
        .env("DIR", d)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut si = child.stdin.take().unwrap();
    // More than the 1 MiB csvsplit reads before it looks at records, and fewer records
    // (1,048,576) than -r: no shard is ever complete. With -r 1000000 the first shard was,
    // and its filter, fed to the end, could finish before the kill (a flaky failure in CI).
    si.write_all(&b"1,a\n".repeat(1 << 20)).unwrap();
    si.flush().unwrap();
    // Wait for the filter to start (the shard is open: csvsplit waits for more input).
    let mut waited = 0;
    let pid = loop {
        if let Ok(p) = std::fs::read_to_string(d.join("pid")) {
            break p.trim().parse::<u32>().unwrap();
        }
        waited += 1;
        assert!(waited < 6000, "the filter did not start");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status_within()
        .unwrap();
    assert!(st.success());
    let out = crate::support::cmd::wait_timeout(
        &mut child,
        crate::support::cmd::TIMEOUT,
        "csvsplit after SIGTERM",
    );
    assert_eq!(out.code(), Some(128 + 15));
    drop(si);
    // Without the kill, the filter would now see the end of its input and finish.
    while !gone(pid) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        !d.join("done").exists(),
        "the filter took a cut shard for a whole one"
    );
}
