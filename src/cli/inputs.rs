//! Finding the input files the way `import-native` does (SCHEMA.md §5.2): directories are
//! scanned (not recursively) for the names [`sp::paths::matches_scan`] takes; paths are
//! normalised lexically, de-duplicated and sorted component by component
//! ([`sp::paths::InputPath`]).

use sp::paths::{matches_scan, InputPath};

use super::Failure;

/// Expands the command-line inputs into the sorted, de-duplicated list of files to read.
pub fn discover(args: &[String]) -> Result<Vec<InputPath>, Failure> {
    let mut found = Vec::new();
    for arg in args {
        let path = InputPath::new(arg);
        let meta = std::fs::metadata(path.as_path());
        match meta {
            Ok(m) if m.is_dir() => {
                let entries = std::fs::read_dir(path.as_path())
                    .map_err(|e| Failure::in_file(&path, format!("cannot list directory: {e}")))?;
                let mut in_dir = Vec::new();
                for entry in entries {
                    let entry = entry.map_err(|e| {
                        Failure::in_file(&path, format!("cannot list directory: {e}"))
                    })?;
                    if let Some(name) = entry.file_name().to_str().filter(|n| matches_scan(n)) {
                        in_dir.push(path.join(name));
                    }
                }
                if in_dir.is_empty() {
                    return Err(Failure::new(format!(
                        "no .spt traces and no per-rank .h5 profiles in {path}"
                    )));
                }
                found.extend(in_dir);
            }
            Ok(_) => found.push(path),
            Err(_) => {
                return Err(Failure::new(format!("no such file or directory: {path}")));
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}
