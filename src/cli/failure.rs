//! The error a subcommand ends with: one line of prose for stderr, and an exit status.

use std::fmt;

/// A failed command: its message (without the `sp: ` prefix) and exit status.
#[derive(Debug)]
pub struct Failure {
    message: String,
}

impl Failure {
    /// A failure of the work itself (exit status 1).
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
        }
    }

    /// A failure concerning one file: `path: message`.
    pub fn in_file(path: impl fmt::Display, message: impl fmt::Display) -> Self {
        Failure::new(format!("{path}: {message}"))
    }

    /// Exit status: 1, a failure of the work (usage errors are clap's, with status 2).
    pub fn exit_code(&self) -> u8 {
        1
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the message holds.
        f.write_str(&self.message.replace('\n', " "))
    }
}
