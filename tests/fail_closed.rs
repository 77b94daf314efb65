//! Issue 19's "exit 0 means complete" and "nothing is overwritten" promises, tool by tool:
//! a `csvsplit --filter` that reads only part of a shard fails the run; every tool refuses an
//! existing output it did not create unless `--force`; every input option of every tool is
//! refused as an output of the same run (the output guard's registration, table-driven).

use crate::support::cmd::Cmd;
use std::path::Path;

/// A filter that exits 0 after reading only the first bytes of a shard small enough to fit
/// in the pipe's buffer: every write succeeded before it exited, so only what is left unread
/// in the pipe tells. Failed before the fix (exit 0, manifest written).
#[test]
fn filter_reading_part_of_a_small_shard_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input: String = (0..300).map(|i| format!("{i},row {i}\n")).collect();
    std::fs::write(d.join("in.csv"), &input).unwrap();
    let r = Cmd::new("csvsplit")
        .current_dir(d)
        .args([
            "-n",
            "3",
            "-o",
            "p{n}.csv",
            "--write-manifest",
            "m.json",
            "--filter",
        ])
        .arg(r#"if test "$FILE" = p1.csv; then head -c 10 > /dev/null; else cat > /dev/null; fi"#)
        .arg("in.csv")
        .expect(2);
    let e = r.stderr_str();
    assert!(e.contains("p1.csv") && e.contains("unread"), "{e}");
    assert!(!d.join("m.json").exists(), "no manifest after a failure");
    // A filter that reads everything still succeeds.
    Cmd::new("csvsplit")
        .current_dir(d)
        .args([
            "-n",
            "3",
            "-o",
            "p{n}.csv",
            "--write-manifest",
            "m.json",
            "--filter",
        ])
        .arg("cat > /dev/null")
        .arg("in.csv")
        .expect(0);
    assert!(d.join("m.json").exists());
}
