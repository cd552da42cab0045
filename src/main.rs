//! The `sp` command-line tool: a thin shell over the `sp` library. Two front ends, the
//! command line ([`cli`]) and the terminal UI ([`tui`]), share how a failure becomes one
//! line and an exit status ([`failure`]).

mod cli;
mod failure;
mod tui;

fn main() -> std::process::ExitCode {
    cli::main()
}
