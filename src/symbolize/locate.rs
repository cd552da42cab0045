//! Where a module's file and its separate debug file are, on a native host.
//!
//! A module path is what `dladdr` gave the program: often relative to the directory it
//! ran in (`./app`, `../bin/app`). It is looked for beside the `.sps` file (the sampler
//! writes it where the program ran), then in the working directory (all the reference
//! tries), then in each `--search DIR` (as given there, and by its file name alone).
//!
//! A debug file is found as binutils finds one: by build id under
//! `<root>/.build-id/xx/rest.debug`, then by `.gnu_debuglink` name beside the module, in its
//! `.debug/` directory and under `<root>/<module's directory>/`, for each `--debug-dir`
//! root and then `/usr/lib/debug` (where Debian's `libc6-dbg` puts libm's). A candidate
//! counts only if its build id or its CRC matches.

use std::path::{Path, PathBuf};

/// The directory binutils looks for debug files under.
pub const SYSTEM_DEBUG_DIR: &str = "/usr/lib/debug";

/// The paths tried for module `recorded` of a `.sps` file in `sps_dir`, in order.
pub fn module_candidates(recorded: &str, sps_dir: &Path, search: &[PathBuf]) -> Vec<PathBuf> {
    let path = Path::new(recorded);
    let mut out = Vec::new();
    if path.is_absolute() {
        out.push(path.to_path_buf());
    } else {
        out.push(sps_dir.join(path));
        out.push(path.to_path_buf());
    }
    for dir in search {
        if !path.is_absolute() {
            out.push(dir.join(path));
        }
        if let Some(name) = path.file_name() {
            out.push(dir.join(name));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// The first of `candidates` that is a file.
pub fn first_file(candidates: &[PathBuf]) -> Option<PathBuf> {
    candidates.iter().find(|p| p.is_file()).cloned()
}

/// The roots debug files are looked for under: `--debug-dir`s, then the system's.
pub fn debug_roots(debug_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots = debug_dirs.to_vec();
    roots.push(PathBuf::from(SYSTEM_DEBUG_DIR));
    roots
}

/// `<root>/.build-id/xx/rest.debug` for each root.
pub fn build_id_candidates(build_id: &[u8], roots: &[PathBuf]) -> Vec<PathBuf> {
    let Some((first, rest)) = build_id.split_first() else {
        return Vec::new();
    };
    let rest: String = rest.iter().map(|b| format!("{b:02x}")).collect();
    roots
        .iter()
        .map(|r| {
            r.join(".build-id")
                .join(format!("{first:02x}"))
                .join(format!("{rest}.debug"))
        })
        .collect()
}

/// Where binutils looks for a `.gnu_debuglink` file `name` of module `module`.
pub fn debuglink_candidates(name: &str, module: &Path, roots: &[PathBuf]) -> Vec<PathBuf> {
    if name.is_empty() || name.contains('/') {
        return Vec::new();
    }
    let dir = module.parent().unwrap_or(Path::new("."));
    let absolute = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut out = vec![dir.join(name), dir.join(".debug").join(name)];
    for root in roots {
        let under = absolute.strip_prefix("/").unwrap_or(&absolute);
        out.push(root.join(under).join(name));
        out.push(root.join(name));
    }
    let module = std::fs::canonicalize(module).ok();
    out.retain(|p| std::fs::canonicalize(p).ok() != module);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_modules_are_looked_for_beside_the_samples_then_here_then_in_search_dirs() {
        let got = module_candidates("../bin/app", Path::new("runs/a"), &[PathBuf::from("build")]);
        let want: Vec<PathBuf> = [
            "runs/a/../bin/app",
            "../bin/app",
            "build/../bin/app",
            "build/app",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(got, want);
        let got = module_candidates("/lib/libm.so.6", Path::new("r"), &[PathBuf::from("copy")]);
        assert_eq!(
            got,
            [
                PathBuf::from("/lib/libm.so.6"),
                PathBuf::from("copy/libm.so.6")
            ]
        );
    }

    #[test]
    fn build_ids_name_a_file_under_each_root() {
        let got = build_id_candidates(&[0xd6, 0xe6, 0xf9], &debug_roots(&[PathBuf::from("dbg")]));
        assert_eq!(
            got,
            [
                PathBuf::from("dbg/.build-id/d6/e6f9.debug"),
                PathBuf::from("/usr/lib/debug/.build-id/d6/e6f9.debug")
            ]
        );
        assert!(build_id_candidates(&[], &[]).is_empty());
    }
}
