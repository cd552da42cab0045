//! The command line: argument parsing (clap), one module per subcommand, and the one place
//! where errors become prose. Exit status 0 on success, 1 on failure, 2 on a usage error.

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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Convert(convert::Opts),
    Inspect(inspect::Opts),
    Export(export::Opts),
    Ls(ls::Opts),
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("sp: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}
