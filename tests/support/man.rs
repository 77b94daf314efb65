//! Keeps `man/<tool>.1` and the shell completions under `completions/` in step with
//! `--help`: both are rendered from the same clap definition, and this check fails when a
//! committed file is stale. Run the tests with `DUMPSHARD_BLESS=1` to rewrite them after
//! changing options.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use clap_complete::Shell;

/// Every tool of the toolkit, in pipeline order. It names the other tools in each page's
/// SEE ALSO, and tests/install.rs checks it against `src/bin/*.rs` and the committed pages
/// and completions. Adding a tool is one line here and a row in tests/contract.rs (then rebless:
/// each page's SEE ALSO changes).
pub const TOOLS: &[&str] = &["pgdump2csv", "csvcheck", "pksort", "csvsplit", "csvload"];

/// The shells completions are generated for, each with the file a tool's script goes to,
/// relative to `completions/`: the same layout `install.sh` copies under
/// `share/bash-completion/completions`, `share/zsh/site-functions` and
/// `share/fish/vendor_completions.d`.
pub const SHELLS: &[(Shell, &str)] = &[
    (Shell::Bash, "bash/{}"),
    (Shell::Zsh, "zsh/_{}"),
    (Shell::Fish, "fish/{}.fish"),
];

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where `tool`'s completion script for the shell whose pattern is `pattern` is committed.
pub fn completion_path(pattern: &str, tool: &str) -> PathBuf {
    root().join("completions").join(pattern.replace("{}", tool))
}

/// Renders `cmd` as a man page with a SEE ALSO section naming the other tools and
/// dumpshard(7), and as bash, zsh and fish completions, and compares each with the
/// committed file (`man/<name>.1`, `completions/...`).
pub fn check_man_page(cmd: clap::Command) {
    let name = cmd.get_name().to_string();
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .expect("render man page");
    page.extend_from_slice(see_also(&name).as_bytes());
    check_file(&root().join("man").join(format!("{name}.1")), &page, &name);

    for &(shell, pattern) in SHELLS {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut cmd.clone(), &name, &mut script);
        check_file(&completion_path(pattern, &name), &script, &name);
    }
}

/// The roff SEE ALSO section of `name`'s page. clap_mangen has no such section, so it is
/// appended after the rendered page (the last section, where man-pages(7) puts it).
fn see_also(name: &str) -> String {
    let mut refs: Vec<String> = TOOLS
        .iter()
        .filter(|t| **t != name)
        .map(|t| format!("\\fB{t}\\fR(1)"))
        .collect();
    refs.push("\\fBdumpshard\\fR(7)".to_string());
    format!(".SH \"SEE ALSO\"\n{}\n", refs.join(",\n"))
}

/// Compares `want` with the file at `path`, or writes it there under `DUMPSHARD_BLESS`.
fn check_file(path: &Path, want: &[u8], tool: &str) {
    if std::env::var_os("DUMPSHARD_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create directory");
        std::fs::write(path, want).expect("write generated file");
        return;
    }
    let have = std::fs::read(path).unwrap_or_default();
    assert!(
        have == want,
        "{} is out of date with {tool} --help; rerun the tests with DUMPSHARD_BLESS=1",
        path.display()
    );
}
