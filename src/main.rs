//! The `sp` command-line tool: a thin shell over the `sp` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
