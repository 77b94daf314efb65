//! `csvcheck`: validate CSV against a PostgreSQL table schema; see `dumpshard::tools::csvcheck`.

fn main() -> std::process::ExitCode {
    dumpshard::io::cli::run("csvcheck", || {
        dumpshard::tools::csvcheck::run(dumpshard::io::cli::parse_args()?)
    })
}
