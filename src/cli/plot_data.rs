//! `sp export plot-data|prof FILES… -o DIR`: the profiles opened, the options
//! ([`PlotDataArgs`]) turned into [`files::files`] (or [`files::prof`]), and each file
//! written atomically.

use std::path::{Path, PathBuf};

use sp::analysis::plot_data::args::PlotDataArgs;
use sp::analysis::plot_data::{files, Run};
use sp::analysis::Selection;

use super::local_file::{open_profile, profile_index};
use super::Failure;

/// Writes the export of `paths` over `selection` (with `prof`, the `.prof` files alone)
/// into the directory `dir`.
pub fn run(
    prof: bool,
    args: &PlotDataArgs,
    paths: &[PathBuf],
    selection: Selection,
    dir: &Path,
) -> Result<(), Failure> {
    let absolute = |p: &PathBuf| {
        std::fs::canonicalize(p)
            .unwrap_or(p.clone())
            .display()
            .to_string()
    };
    let (request, opts) =
        (args.request(selection, paths.iter().map(absolute).collect())).map_err(Failure::usage)?;
    let opened = paths
        .iter()
        .map(|p| open_profile(p))
        .collect::<Result<Vec<_>, _>>()?;
    let indexed = (paths.iter().zip(&opened))
        .map(|(p, f)| profile_index(p, f))
        .collect::<Result<Vec<_>, _>>()?;
    let inputs: Vec<_> = (indexed.iter())
        .map(|(p, r, l)| sp::chart::plot::Input::new("", p, r.as_ref(), l))
        .collect();
    let runs: Vec<Run> = inputs.iter().map(Run::from).collect();
    let export = if prof { files::prof } else { files::files };
    let outputs = export(&runs, &request, &opts).map_err(|e| Failure::analysis(&paths[0], e))?;
    std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir, "cannot create", e))?;
    for out in outputs {
        super::options::write_atomically(&dir.join(out.name), &out.bytes)?;
    }
    Ok(())
}
