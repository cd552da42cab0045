//! `sp completions SHELL` and `sp man [SUBCOMMAND]`: shell completions and roff man pages
//! generated from the clap definitions, so they always match the arguments `sp` accepts.

use std::io::Write;

use clap::{Args, CommandFactory, ValueEnum};

use super::{Cli, Failure};

/// Print a shell completion script
///
/// Examples:
///   sp completions bash > ~/.local/share/bash-completion/completions/sp
///   sp completions zsh > ~/.zfunc/_sp        # a directory on $fpath
///   sp completions fish > ~/.config/fish/completions/sp.fish
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsOpts {
    /// The shell.
    #[arg(value_enum)]
    shell: Shell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Print the man page of sp (roff), or of one subcommand
///
/// Examples:
///   sp man | man -l -
///   sp man convert > sp-convert.1
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ManOpts {
    /// A subcommand, for its own page (sp-SUBCOMMAND(1)).
    subcommand: Option<String>,
}

pub fn run_completions(opts: CompletionsOpts) -> Result<(), Failure> {
    let shell = match opts.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    // Generated into memory: the generator panics on a write error, stdout may be closed.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "sp", &mut script);
    print(&script)
}

pub fn run_man(opts: ManOpts) -> Result<(), Failure> {
    let sp = Cli::command();
    let man = match &opts.subcommand {
        None => clap_mangen::Man::new(sp),
        Some(name) => {
            let Some(sub) = sp.find_subcommand(name).cloned() else {
                return Err(Failure::new(format!("no subcommand {name:?}")));
            };
            clap_mangen::Man::new(sub).title(format!("sp-{name}"))
        }
    };
    let mut page = Vec::new();
    man.render(&mut page).map_err(Failure::Stdout)?;
    print(&page)
}

fn print(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(Failure::Stdout)
}
