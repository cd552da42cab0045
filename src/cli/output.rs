//! Outputs for the commands: [`sp::io::atomic`] publishes each file whole or not at all;
//! here a writing subcommand also arranges, in [`prepare`], that SIGINT, SIGTERM or SIGHUP
//! remove the unfinished output and exit with 128 + the signal number, as a shell reports a
//! process the signal killed.

use std::io::{self, Write};
use std::path::Path;

pub use sp::io::atomic::AtomicOutput;

use super::Failure;

/// Checks, before any work, that `destination` can be written (see
/// [`sp::io::atomic::check_destination`]), then starts the signal watcher.
pub fn prepare(destination: &Path) -> Result<(), Failure> {
    sp::io::atomic::check_destination(destination)?;
    watch_signals(destination);
    Ok(())
}

/// Starts (once per process) the thread that turns SIGINT, SIGTERM and SIGHUP into: remove
/// every registered temporary file, print one line naming `destination`, exit 128 + signal.
#[cfg(unix)]
fn watch_signals(destination: &Path) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;

    static STARTED: std::sync::Once = std::sync::Once::new();
    let destination = destination.to_path_buf();
    STARTED.call_once(|| {
        // Without the watcher a signal still ends the process (the default action); only
        // the temporary file would stay behind.
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("sp-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let name = match signal {
                        SIGINT => "SIGINT",
                        SIGTERM => "SIGTERM",
                        _ => "SIGHUP",
                    };
                    // The registry stays locked until exit: nothing is published after.
                    sp::io::atomic::abandon_all(|| {
                        let _ = io::stdout().flush();
                        eprintln!("{}", interrupted_line(name, &destination));
                        std::process::exit(128 + signal)
                    })
                }
            });
    });
}

#[cfg(not(unix))]
fn watch_signals(_destination: &Path) {}

/// The one line an interrupted run prints (after clearing a progress bar on a terminal).
fn interrupted_line(signal: &str, destination: &Path) -> String {
    use std::io::IsTerminal;
    let clear = if io::stderr().is_terminal() {
        "\r\x1b[K"
    } else {
        ""
    };
    format!(
        "{clear}sp: interrupted by {signal}; {} was not written",
        destination.display()
    )
}
