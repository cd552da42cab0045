//! The `sp` command-line tool: a thin shell over the `sp` library.

mod cli;
mod tui;

fn main() -> std::process::ExitCode {
    cli::main()
}
