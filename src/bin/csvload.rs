//! `csvload`: loads manifests' CSV files into PostgreSQL exactly once; see `dumpshard::csvload`.

fn main() -> std::process::ExitCode {
    dumpshard::cli::run("csvload", || {
        dumpshard::csvload::run(dumpshard::cli::parse_args()?)
    })
}
