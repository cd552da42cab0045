//! `sp lines`: the hottest source lines of each native region, from the C API's `.sps`
//! samples, symbolized in-process (sp::analysis::lines, sp::symbolize). Merged over ranks
//! by default; `--per-rank` prints the reference's `native-lines` layout.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;
use sp::analysis::lines::run::{Lines, Request};
use sp::analysis::lines::{render, source::Sources};
use sp::analysis::parse_ranks;
use sp::analysis::pattern::Pattern;
use sp::symbolize::Options;
use sp::text::Show;

use super::options::FormatArg;
use super::{terminal, Failure};

/// Show the hottest source lines of each native region from sampled runs (*.sps).
#[derive(Debug, Args)]
pub struct Opts {
    /// `.sps` sample files, and directories holding them.
    #[arg(required = true, value_name = "FILES|DIRS")]
    inputs: Vec<String>,
    /// Lines to show per region.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Do not print the source text of each line.
    #[arg(long)]
    no_source: bool,
    /// One table per file, as `scope-profiler native-lines` prints them.
    #[arg(long)]
    per_rank: bool,
    #[command(flatten)]
    format: FormatArg,
    /// Only regions whose name matches this regex (anchored at the start).
    #[arg(long, value_name = "PATTERN")]
    region: Option<String>,
    /// Only these ranks, e.g. `0 2` or `0-3`.
    #[arg(long, num_args = 1..)]
    ranks: Option<Vec<String>>,
    /// Another directory to look for executables and libraries in (repeatable).
    #[arg(long, value_name = "DIR")]
    search: Vec<PathBuf>,
    /// Another root of separate debug files, as /usr/lib/debug (repeatable).
    #[arg(long, value_name = "DIR")]
    debug_dir: Vec<PathBuf>,
    /// Show the functions each line was inlined into (a line per inlined chain).
    #[arg(long)]
    inlines: bool,
    /// Report a damaged .sps file and go on with the others (exit status 1).
    #[arg(long)]
    keep_going: bool,
}

/// Runs `sp lines`; `Ok(false)` when `--keep-going` skipped a damaged file.
pub fn run(opts: Opts) -> Result<bool, Failure> {
    let files = sp::io::inputs::discover_samples(&opts.inputs)?;
    let region = opts.region.as_deref().map(Pattern::new).transpose();
    let region = region.map_err(|e| Failure::usage(format!("--region: {e}")))?;
    let mut lines = Lines::new(Request {
        region,
        ranks: opts.ranks.as_deref().map(parse_ranks).transpose()?,
        inlines: opts.inlines,
        symbolize: Options {
            search: opts.search.clone(),
            debug_dirs: opts.debug_dir.clone(),
        },
    });
    let damaged = lines
        .add_files(&files, opts.keep_going)
        .map_err(|d| Failure::in_file(d.path, d.message))?;
    let show = Show::for_terminal(std::io::stderr().is_terminal());
    for d in &damaged {
        eprintln!("sp: {}", show.text(&d.to_string()));
    }
    for warning in lines.warnings() {
        eprintln!("sp: warning: {}", show.text(warning));
    }
    let report = lines.finish();
    let mut sources = Sources::beside(&files);
    terminal::print(|out, show| {
        let options = render::Options {
            top: opts.top,
            source: !opts.no_source,
            inlines: opts.inlines,
            show,
        };
        let mut source = |file: &str, line: u32| sources.line(file, line);
        let format = opts.format.format;
        let text = render::text(&report, opts.per_rank, format, &options, &mut source);
        out.write_all(text.as_bytes())
    })?;
    Ok(damaged.is_empty())
}
