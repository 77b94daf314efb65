//! Helpers shared by every module of the one integration-test crate (tests/tests.rs).

pub mod cli;
pub mod cmd;
pub mod csvparse;
pub mod man;
pub mod pg;
pub mod proxy;

/// Makes a named pipe at `path`, with mkfifo(1) (the tests need no libc binding for it).
pub fn mkfifo(path: &std::path::Path) {
    use cmd::Within;
    let st = std::process::Command::new("mkfifo")
        .arg(path)
        .status_within()
        .unwrap_or_else(|e| panic!("cannot run mkfifo: {e}"));
    assert!(st.success(), "mkfifo {} failed: {st}", path.display());
}

/// 32 hex digits as a UUID in its standard form, 8-4-4-4-12 (for tests that write UUID keys).
pub fn uuid_hyphenated(hex: &str) -> String {
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
