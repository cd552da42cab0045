//! Reading many profiles for `sp runs`, `sp scaling` and the N-way `sp check`: arguments
//! expanded (a directory gives every `.h5` under it, a quoted `*`/`?` pattern the files it
//! matches), files read on every core, and the files that cannot be read named with their
//! reason: fatal under `--strict`, else reported on stderr while the rest are tabulated.

use std::path::{Path, PathBuf};

use sp::analysis::compare::Metric;
use sp::analysis::report::compute::Runner;
use sp::analysis::runs::{self, Run};
use sp::analysis::Selection;
use sp::hdf5lite::reader::File;

use super::local_file::LocalFile;
use super::{threads::Threads, Failure};

/// The files named by `args`, in the order given (a directory's and a pattern's sorted).
pub fn expand(args: &[String]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for arg in args {
        let path = PathBuf::from(arg);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let before = files.len();
            walk(&path, &mut files).map_err(|e| Failure::io(&path, "cannot list", e))?;
            files[before..].sort();
        } else if !path.exists() && name.contains(['*', '?']) {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
            let dir = dir.unwrap_or(Path::new("."));
            let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| Failure::io(dir, "cannot list", e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| glob(name, n))
                })
                .collect();
            if found.is_empty() {
                return Err(Failure::new(format!("no file matches {arg}")));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "h5") {
            out.push(path);
        }
    }
    Ok(())
}

/// `*` and `?` wildcards over a file name.
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            (pi, ni) = (pi + 1, ni + 1);
        } else if pi < p.len() && p[pi] == '*' {
            (star, mark, pi) = (Some(pi), ni, pi + 1);
        } else if let Some(s) = star {
            (pi, mark) = (s + 1, mark + 1);
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

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
        let run = LocalFile::open(path)
            .map_err(|e| Failure::io(path, "cannot open", e))
            .and_then(|s| File::open(s).map_err(|e| Failure::hdf5(path, e)))
            .and_then(|f| {
                runs::read(&name, &f, selection, metric).map_err(|e| Failure::analysis(path, e))
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

#[cfg(test)]
mod tests {
    #[test]
    fn globs() {
        assert!(super::glob("run_*.h5", "run_12.h5"));
        assert!(super::glob("r?n*", "run"));
        assert!(!super::glob("*.h5", "a.spt"));
    }
}
