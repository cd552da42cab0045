//! The terminal: printing a report to stdout with names escaped when it is a terminal, and
//! the width a table must fit.

use std::io::{IsTerminal, StdoutLock, Write};

use sp::text::Show;

use super::Failure;

/// Runs `write` on the locked stdout with how names are shown there (escaped on a
/// terminal, as they are on a pipe otherwise), then flushes. A closed pipe
/// (`sp … | head`) ends quietly, by the one rule in `cli::main`.
pub fn print(
    write: impl FnOnce(&mut StdoutLock<'static>, Show) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let show = Show::for_terminal(stdout.is_terminal());
    let mut out = stdout.lock();
    write(&mut out, show)
        .and_then(|()| out.flush())
        .map_err(Failure::Stdout)
}

/// The width a table must fit: `COLUMNS` when set, else the width of the terminal on
/// stdout, else 100 (output to a file or a pipe).
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout())
                .map(|(terminal_size::Width(w), _)| usize::from(w))
        })
        .filter(|&w| w >= 40)
        .unwrap_or(100)
}
