//! `csvsplit`: shards a CSV into import-ready files; see `dumpshard::csvsplit`.

fn main() -> std::process::ExitCode {
    dumpshard::cli::run("csvsplit", || {
        dumpshard::csvsplit::run(dumpshard::cli::parse_args()?)
    })
}
