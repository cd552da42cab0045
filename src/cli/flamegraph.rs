//! `sp export flamegraph` and `sp export folded`: the shell over the aggregated call stacks
//! ([`sp::analysis::stacks`]) and their flame graph ([`sp::chart::flamegraph`]). Every
//! output is computed before any is written, then each is published atomically.

use std::path::Path;

use clap::Args;
use sp::analysis::Selection;
use sp::chart::color::Theme;
use sp::chart::flamegraph::{self, Options, Order, RenderError, Rendering};
use sp::chart::svg::Sizing;
use sp::chart::Format;

use super::local_file::{open_profile, profile_index};
use super::output::{prepare, AtomicOutput};
use super::Failure;

/// The options of the stack exports (flamegraph, folded).
#[derive(Debug, Args)]
pub struct StackOpts {
    /// flamegraph, folded, plot-data, prof: use only the regions whose name matches a regex.
    #[arg(short, long, num_args = 1..)]
    pub include: Option<Vec<String>>,
    /// flamegraph, folded, plot-data, prof: skip the regions whose name matches a regex.
    #[arg(short, long, num_args = 1..)]
    pub exclude: Option<Vec<String>>,
    /// flamegraph, folded: one output per rank, named OUT_rank<N>.EXT, instead of every
    /// rank merged.
    #[arg(long)]
    per_rank: bool,
    /// flamegraph: document width in pixels.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(200..=20000))]
    width: u32,
    /// flamegraph: leave out frames with less than this percentage of the time.
    #[arg(long, default_value_t = 0.1, value_name = "PERCENT")]
    threshold: f64,
    /// flamegraph: a fixed pixel size and an XML prolog (a standalone file), instead of a
    /// viewBox alone that scales to the element it is inlined into.
    #[arg(long)]
    fixed_width: bool,
    /// flamegraph: colours for a light or a dark background.
    #[arg(long, default_value = "light", value_parser = super::options::named(&Theme::ALL))]
    theme: Theme,
}

impl StackOpts {
    /// Refuses the stack options for the other formats (a usage error).
    pub fn only_for_stacks(&self) -> Result<(), Failure> {
        if self.include.is_some() || self.exclude.is_some() || self.per_rank {
            return Err(Failure::usage(
                "--include, --exclude and --per-rank apply to flamegraph and folded only",
            ));
        }
        Ok(())
    }

    /// Writes the flame graph (or with `folded`, the folded stacks) of `file` to `output`.
    pub fn run(
        &self,
        folded: bool,
        file: &Path,
        output: &Path,
        ranks: Selection,
    ) -> Result<(), Failure> {
        if !(0.0..=100.0).contains(&self.threshold) {
            return Err(Failure::usage("--threshold is a percentage, from 0 to 100"));
        }
        let mut selection = Selection::new(self.include.as_deref(), self.exclude.as_deref(), None)?;
        selection.ranks = ranks.ranks;
        let h5 = open_profile(file)?;
        let (profile, reader, label) = profile_index(file, &h5)?;
        let rows = sp::analysis::events::source(reader.as_ref());
        let rendering = if folded {
            Rendering::Folded
        } else {
            let options = Options {
                width: self.width as f32,
                threshold: self.threshold / 100.0,
                order: Order::Name,
                theme: self.theme,
                desc: format!(
                    "Drawn by sp {}: sp export flamegraph {}",
                    env!("CARGO_PKG_VERSION"),
                    file.display()
                ),
                ..Options::default()
            };
            let sizing = match self.fixed_width {
                true => Sizing::Fixed,
                false => Sizing::Scalable,
            };
            let format = Format::of_path(&output.to_string_lossy(), 1.0);
            Rendering::Picture {
                options,
                format,
                sizing,
            }
        };
        let outputs = flamegraph::render(
            &profile,
            rows,
            &selection,
            &label,
            self.per_rank,
            &rendering,
        )
        .map_err(|e| match e {
            RenderError::Data(e) => Failure::analysis(file, e),
            RenderError::Encode(e) => Failure::in_file(output.display(), e),
        })?;
        let mut pending = Vec::with_capacity(outputs.len());
        for (rank, bytes) in outputs {
            let path =
                rank.map_or_else(|| output.to_path_buf(), |r| sp::paths::per_rank(output, r));
            prepare(&path)?;
            pending.push(AtomicOutput::with_bytes(&path, &bytes)?);
        }
        Ok(pending.into_iter().try_for_each(AtomicOutput::commit)?)
    }
}
