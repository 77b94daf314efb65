//! Keeps `man/<tool>.1` in step with `--help`: the page is rendered from the same clap
//! definition, and this check fails when the committed page is stale. Run the tests with
//! `DUMPSHARD_BLESS=1` to rewrite the pages after changing options.

use std::path::Path;

/// Renders `cmd` as a man page and compares it with `man/<name>.1`.
pub fn check_man_page(cmd: clap::Command) {
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .expect("render man page");
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("man")
        .join(format!("{name}.1"));
    if std::env::var_os("DUMPSHARD_BLESS").is_some() {
        std::fs::write(&path, &out).expect("write man page");
        return;
    }
    let have = std::fs::read(&path).unwrap_or_default();
    assert!(
        have == out,
        "{} is out of date with {name} --help; rerun the tests with DUMPSHARD_BLESS=1",
        path.display()
    );
}
