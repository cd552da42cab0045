//! `sp mcp`: the shell over [`sp::mcp`] — stdin, stdout and the local files.

/// Serve MCP tools (inspect_profile, compare_profiles, plot_profile) on stdin and stdout
///
/// JSON-RPC 2.0, one message per line. Register it with a client: claude mcp add sp -- sp mcp
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Opts {}

pub fn run(_: Opts) -> Result<(), super::Failure> {
    let (input, output) = (std::io::stdin().lock(), std::io::stdout().lock());
    sp::mcp::serve(input, output, &sp::mcp::local::LocalFiles).map_err(super::Failure::Stdout)
}
