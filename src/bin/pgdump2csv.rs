//! `pgdump2csv`: see `dumpshard::pgdump2csv` and `man pgdump2csv`.
fn main() -> std::process::ExitCode {
    dumpshard::cli::run("pgdump2csv", || {
        dumpshard::pgdump2csv::run(dumpshard::cli::parse_args()?)
    })
}
