//! The `sp` command-line tool.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
