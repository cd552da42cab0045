//! Finding the input files on a native host's file system, the two ways commands take them:
//! traces and per-rank profiles as `import-native` finds them ([`discover`]), and many
//! profiles for the commands over runs ([`expand`]).

use crate::sort::SortSlice;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::paths::{glob_matches, matches_scan, InputPath};

/// Why the inputs could not be listed: `path: message`, or the message alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputsError {
    /// The file or directory concerned, when the message does not name it.
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl InputsError {
    fn new(message: String) -> Self {
        InputsError {
            path: None,
            message,
        }
    }

    fn in_path(path: impl fmt::Display, message: String) -> Self {
        InputsError {
            path: Some(path.to_string()),
            message,
        }
    }
}

impl fmt::Display for InputsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{path}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for InputsError {}

/// The command-line inputs of `convert` as the sorted, de-duplicated list of files to read
/// (SCHEMA.md §5.2): directories are scanned (not recursively) for the names
/// [`matches_scan`] takes; paths are normalised lexically and sorted component by component
/// ([`InputPath`]).
pub fn discover(args: &[String]) -> Result<Vec<InputPath>, InputsError> {
    discover_with(
        args,
        matches_scan,
        "no .spt traces and no per-rank .h5 profiles",
    )
}

/// The `.sps` sample files named by `args` (`sp lines`), as [`discover`] lists traces:
/// directories scanned for `*.sps`, then sorted and de-duplicated, as the reference's
/// `find_sample_files` does.
pub fn discover_samples(args: &[String]) -> Result<Vec<InputPath>, InputsError> {
    discover_with(
        args,
        |n| n.ends_with(crate::samples::SUFFIX),
        "no .sps files",
    )
}

/// [`discover`] with the names a directory scan takes, and what to say when a
/// directory has none (`<none> in <dir>`).
fn discover_with(
    args: &[String],
    takes: fn(&str) -> bool,
    none: &str,
) -> Result<Vec<InputPath>, InputsError> {
    let mut found = Vec::new();
    for arg in args {
        let path = InputPath::new(arg);
        let meta = std::fs::metadata(path.as_path());
        match meta {
            Ok(m) if m.is_dir() => {
                let cannot_list = |e: std::io::Error| {
                    InputsError::in_path(&path, format!("cannot list directory: {e}"))
                };
                let mut in_dir = Vec::new();
                for entry in std::fs::read_dir(path.as_path()).map_err(cannot_list)? {
                    let entry = entry.map_err(cannot_list)?;
                    if let Some(name) = entry.file_name().to_str().filter(|n| takes(n)) {
                        in_dir.push(path.join(name));
                    }
                }
                if in_dir.is_empty() {
                    return Err(InputsError::new(format!("{none} in {path}")));
                }
                found.extend(in_dir);
            }
            Ok(_) => found.push(path),
            Err(_) => {
                return Err(InputsError::new(format!(
                    "no such file or directory: {path}"
                )))
            }
        }
    }
    found.sort_ord();
    found.dedup();
    Ok(found)
}

/// `paths` without the repeats of a name already given, as the reference keeps its file
/// arguments (the same spelling twice is one run, the first place kept).
pub fn distinct(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    (paths.into_iter())
        .filter(|p| seen.insert(p.as_os_str().to_owned()))
        .collect()
}

/// The profiles named by `args`, in the order given: a directory gives every `.h5` under
/// it, a `*`/`?` pattern (quoted past the shell) the files it matches, each sorted.
pub fn expand(args: &[String]) -> Result<Vec<PathBuf>, InputsError> {
    let cannot_list =
        |dir: &Path, e| InputsError::in_path(dir.display(), format!("cannot list: {e}"));
    let mut files = Vec::new();
    for arg in args {
        let path = PathBuf::from(arg);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let before = files.len();
            walk(&path, &mut files).map_err(|e| cannot_list(&path, e))?;
            files[before..].sort_ord();
        } else if !path.exists() && name.contains(['*', '?']) {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
            let dir = dir.unwrap_or(Path::new("."));
            let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| cannot_list(dir, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| glob_matches(name, n))
                })
                .collect();
            if found.is_empty() {
                return Err(InputsError::new(format!("no file matches {arg}")));
            }
            found.sort_ord();
            files.extend(found);
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

/// Every `.h5` file under `dir`, at any depth.
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
