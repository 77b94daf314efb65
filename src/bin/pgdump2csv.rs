//! `pgdump2csv`: see `dumpshard::tools::pgdump2csv` and `man pgdump2csv`.
fn main() -> std::process::ExitCode {
    dumpshard::io::cli::run("pgdump2csv", || {
        dumpshard::tools::pgdump2csv::run(dumpshard::io::cli::parse_args()?)
    })
}
