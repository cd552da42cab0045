//! The command line: argument parsing (clap), one module per subcommand, and the one place
//! where errors become prose ([`Failure`]). Exit status 0 on success (and on a closed
//! stdout), 1 on failure, 2 on a usage error.

mod completions;
mod convert;
mod export;
mod failure;
mod inputs;
mod inspect;
mod local_file;
mod ls;
mod output;
mod summary;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use failure::Failure;

/// Merge scope-profiler native traces into HDF5 profiles, with no Python and no libhdf5.
#[derive(Debug, Parser)]
#[command(name = "sp", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Convert(convert::Opts),
    Inspect(inspect::Opts),
    Export(export::Opts),
    Ls(ls::Opts),
    Completions(completions::CompletionsOpts),
    Man(completions::ManOpts),
}

/// Parses the arguments, runs the subcommand, and maps the outcome to an exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors.
            let code = e.exit_code();
            let _ = e.print();
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Convert(opts) => convert::run(opts),
        Command::Inspect(opts) => inspect::run(opts),
        Command::Export(opts) => export::run(opts),
        Command::Ls(opts) => ls::run(opts),
        Command::Completions(opts) => completions::run_completions(opts),
        Command::Man(opts) => completions::run_man(opts),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of stdout went away (`sp inspect … | head`): stop quietly.
        Err(failure) if failure.is_closed_stdout() => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("sp: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}
