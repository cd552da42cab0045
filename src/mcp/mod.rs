//! `sp mcp`: a Model Context Protocol server, so an AI agent can read profiles through
//! tools instead of parsing tables. It speaks JSON-RPC 2.0 over any byte stream, one
//! message per line ([`serve`]), and offers the reference's profile tools with the same
//! arguments and results as `scope_profiler.mcp_server.tools`: `inspect_profile`,
//! `compare_profiles` and `plot_profile` ([`tools`]).
//!
//! The server touches no file itself: a front end hands it a [`Files`], which opens a
//! profile by its path and writes a chart, so the protocol and the tools run wherever the
//! library does. [`local::LocalFiles`] is the one for native hosts.
//!
//! The transport is our own, not the `rmcp` crate: it is one loop over lines and
//! `serde_json`, which sp already uses, where `rmcp` brings tokio and about fifty more
//! crates (+2.3 MB to a minimal stdio server) and needs a newer Rust than sp supports.
//!
//! ```
//! use sp::mcp::{serve, Files};
//! # struct NoFiles;
//! # impl Files for NoFiles {
//! #     type Source = Vec<u8>;
//! #     fn open(&self, _: &str) -> std::io::Result<Vec<u8>> { Err(std::io::ErrorKind::NotFound.into()) }
//! #     fn write(&self, _: Option<&str>, _: &str, _: &[u8]) -> std::io::Result<String> { Err(std::io::ErrorKind::Unsupported.into()) }
//! # }
//! let input = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#;
//! let mut output = Vec::new();
//! serve(&input[..], &mut output, &NoFiles).unwrap();
//! let reply: serde_json::Value = serde_json::from_slice(&output).unwrap();
//! assert_eq!(reply["result"]["tools"][0]["name"], "inspect_profile");
//! ```

#[cfg(any(unix, windows))]
pub mod local;
pub mod protocol;
mod schema;
pub mod tools;

use std::io::{self, BufRead, Write};

use crate::io::ReadAt;

pub use protocol::handle;

/// The longest message accepted, in bytes: the tools' arguments are a few paths and
/// patterns, so a longer line is refused (a parse error) rather than buffered.
pub const MAX_MESSAGE: usize = 4 << 20;

/// What the tools may do to the file system: open a profile and write a chart.
pub trait Files {
    /// A profile's bytes, read at offsets.
    type Source: ReadAt + Sync;

    /// Opens the file at `path` (as the client gave it).
    fn open(&self, path: &str) -> io::Result<Self::Source>;

    /// Writes `bytes` as the file `name` in the directory `dir` (created if missing), or
    /// in a new temporary directory when `dir` is `None`, and returns the path written.
    fn write(&self, dir: Option<&str>, name: &str, bytes: &[u8]) -> io::Result<String>;
}

/// Serves requests from `input` until it ends: each line one JSON-RPC message, each reply
/// one line on `output`, flushed. Only an I/O error on `input` or `output` ends it early;
/// a malformed message gets an error reply and the next line is read.
pub fn serve(
    mut input: impl BufRead,
    mut output: impl Write,
    files: &impl Files,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let (read, complete) = read_line(&mut input, &mut line)?;
        if read == 0 {
            return Ok(());
        }
        let reply = if complete {
            handle(&line, files)
        } else {
            Some(protocol::too_long())
        };
        if let Some(reply) = reply {
            output.write_all(reply.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
}

/// Reads one line into `line` (without its end), keeping at most [`MAX_MESSAGE`] bytes:
/// the bytes consumed, and whether the line fit.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<(usize, bool)> {
    let mut read = 0;
    let mut fits = true;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((read, fits));
        }
        let (chunk, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if fits && line.len() + chunk.len() <= MAX_MESSAGE {
            line.extend_from_slice(chunk);
        } else {
            fits = false;
            line.clear();
        }
        let used = end.unwrap_or(buf.len());
        input.consume(used);
        read += used;
        if end.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok((read, fits));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_bounded() {
        let mut input = &b"ab\r\ncd"[..];
        let mut line = Vec::new();
        assert_eq!(read_line(&mut input, &mut line).unwrap(), (4, true));
        assert_eq!(line, b"ab");
        line.clear();
        assert_eq!(read_line(&mut input, &mut line).unwrap(), (2, true));
        assert_eq!(line, b"cd");
        let long = vec![b'x'; MAX_MESSAGE + 1];
        let mut input = io::BufReader::with_capacity(1000, &long[..]);
        line.clear();
        assert_eq!(
            read_line(&mut input, &mut line).unwrap(),
            (MAX_MESSAGE + 1, false)
        );
        assert!(line.is_empty());
    }
}
