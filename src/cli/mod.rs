//! The command line: argument parsing (clap), one module per subcommand, and the one place
//! where errors become prose ([`Failure`]). Exit status 0 on success (and on a closed
//! stdout), 1 on failure (and on a check over its budget), 2 on a usage error.

mod compare;
mod compare_many;
mod completions;
mod convert;
mod export;
mod flamegraph;
mod inspect;
mod lines;
pub(crate) mod local_file;
mod ls;
mod many;
mod mcp;
mod options;
mod output;
mod plot;
mod plot_data;
mod report;
mod runs;
mod scaling;
mod terminal;
mod tui;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use crate::failure::Failure;

/// Merge scope-profiler native traces into HDF5 profiles, with no Python and no libhdf5.
#[derive(Debug, Parser)]
#[command(name = "sp", version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SP_COMMIT"), ")"), about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Convert(convert::Opts),
    Inspect(inspect::Opts),
    Export(export::Opts),
    Diff(compare::DiffOpts),
    Check(compare::CheckOpts),
    Ls(ls::Opts),
    Runs(runs::Opts),
    Scaling(scaling::Opts),
    Tui(tui::Opts),
    Plot(plot::Opts),
    Report(report::Opts),
    Lines(lines::Opts),
    Mcp(mcp::Opts),
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
        Command::Convert(opts) => convert::run(opts).map(|()| true),
        Command::Inspect(opts) => inspect::run(opts).map(|()| true),
        Command::Export(opts) => export::run(opts).map(|()| true),
        Command::Diff(opts) => compare::run_diff(opts).map(|()| true),
        Command::Check(opts) => compare::run_check(opts),
        Command::Ls(opts) => ls::run(opts).map(|()| true),
        Command::Runs(opts) => runs::run(opts).map(|()| true),
        Command::Scaling(opts) => scaling::run(opts).map(|()| true),
        Command::Tui(opts) => tui::run(opts).map(|()| true),
        Command::Plot(opts) => plot::run(opts).map(|()| true),
        Command::Report(opts) => report::run(opts).map(|()| true),
        Command::Lines(opts) => lines::run(opts),
        Command::Mcp(opts) => mcp::run(opts).map(|()| true),
        Command::Completions(opts) => completions::run_completions(opts).map(|()| true),
        Command::Man(opts) => completions::run_man(opts).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        // A check found a regression over its budget (the report says which).
        Ok(false) => ExitCode::FAILURE,
        // The reader of stdout went away (`sp inspect … | head`): stop quietly.
        Err(failure) if failure.is_closed_stdout() => ExitCode::SUCCESS,
        Err(failure) => {
            // Names quoted from a file reach a terminal escaped (sp::text).
            let stderr = std::io::stderr();
            let show = sp::text::Show::for_terminal(stderr.is_terminal());
            eprintln!("sp: {}", show.text(&failure.to_string()));
            ExitCode::from(failure.exit_code())
        }
    }
}
