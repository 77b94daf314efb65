//! `csvsplit`: shards a CSV into import-ready files; see `dumpshard::tools::csvsplit`.

fn main() -> std::process::ExitCode {
    dumpshard::io::cli::run("csvsplit", || {
        dumpshard::tools::csvsplit::run(dumpshard::io::cli::parse_args()?)
    })
}
