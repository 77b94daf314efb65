//! pksort: external, typed, byte-preserving primary-key sort for CSV (see `dumpshard::tools::pksort`).

fn main() -> std::process::ExitCode {
    dumpshard::io::cli::run("pksort", || {
        dumpshard::tools::pksort::run(dumpshard::io::cli::parse_args()?)
    })
}
