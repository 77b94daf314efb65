//! `csvcheck`: validate CSV against a PostgreSQL table schema; see `dumpshard::csvcheck`.

fn main() -> std::process::ExitCode {
    dumpshard::cli::run("csvcheck", || {
        dumpshard::csvcheck::run(dumpshard::cli::parse_args()?)
    })
}
