//! `csvload`: loads manifests' CSV files into PostgreSQL exactly once; see `dumpshard::tools::csvload`.

fn main() -> std::process::ExitCode {
    dumpshard::io::cli::run("csvload", || {
        dumpshard::tools::csvload::run(dumpshard::io::cli::parse_args()?)
    })
}
