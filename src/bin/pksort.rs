//! pksort: external, typed, byte-preserving primary-key sort for CSV (see `dumpshard::pksort`).

fn main() -> std::process::ExitCode {
    dumpshard::cli::run("pksort", || {
        dumpshard::pksort::run(dumpshard::cli::parse_args()?)
    })
}
