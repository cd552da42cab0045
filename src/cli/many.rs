//! Reading many profiles for `sp runs`, `sp scaling` and the N-way `sp check` (named by
//! [`sp::io::inputs::expand`]): files read on every core, and the files that cannot be read
//! named with their reason: fatal under `--strict`, else reported on stderr while the rest
//! are tabulated.

use std::path::PathBuf;

use sp::analysis::compare::Metric;
use sp::analysis::report::compute::Runner;
use sp::analysis::runs::Run;
use sp::analysis::Selection;

use super::Failure;
use sp::analysis::report::threads::Threads;

/// Files that could not be read, each with its reason.
pub type Failed = Vec<(String, String)>;

/// Reads `files` on every core. Unreadable files are an error under `strict`; else they
/// are said on stderr and returned with their reason.
pub fn read(
    files: &[PathBuf],
    selection: &Selection,
    metric: Metric,
    strict: bool,
) -> Result<(Vec<Run>, Failed), Failure> {
    let mut results: Vec<Option<Result<Run, Failure>>> = (0..files.len()).map(|_| None).collect();
    let job = |i: usize| {
        let path = &files[i];
        let name = path.display().to_string();
        let run = super::local_file::open_profile(path).and_then(|f| {
            (f.run(&name, selection, metric)).map_err(|e| Failure::analysis(path, e))
        });
        Ok(run)
    };
    Threads
        .run(files.len(), job, |i, r| results[i] = Some(r))
        .map_err(|e| Failure::new(e.to_string()))?;
    let (mut ok, mut failed) = (Vec::new(), Vec::new());
    for (path, result) in files.iter().zip(results) {
        match result {
            Some(Ok(run)) => ok.push(run),
            Some(Err(f)) if strict => return Err(f),
            Some(Err(f)) => {
                eprintln!("sp: skipped: {}", sp::text::escape(&f.to_string()));
                failed.push((path.display().to_string(), f.to_string()));
            }
            None => {}
        }
    }
    Ok((ok, failed))
}
