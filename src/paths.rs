//! Paths as the reference spells them, by their letters alone (no file system): the
//! lexical normal form and order of Python's `PurePosixPath` ([`InputPath`]), the names
//! `import-native`'s directory scan picks up ([`matches_scan`], SCHEMA.md §5.2), and
//! `os.path.relpath` ([`relative_to`]), which names a run in `diff` and `check`.

use std::cmp::Ordering;
use std::path::{Component, Path, PathBuf};

/// An input path in the reference's lexical normal form (`./a//b` → `a/b`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPath {
    text: String,
}

impl InputPath {
    /// Normalises `raw` as Python's `PurePosixPath` does.
    pub fn new(raw: &str) -> Self {
        let absolute = raw.starts_with('/');
        // POSIX keeps exactly two leading slashes; Python's pathlib does the same.
        let double = raw.starts_with("//") && !raw.starts_with("///");
        let parts: Vec<&str> = raw
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        let root = if double {
            "//"
        } else if absolute {
            "/"
        } else {
            ""
        };
        let joined = parts.join("/");
        let text = match (root, joined.is_empty()) {
            ("", true) => ".".to_owned(),
            (root, _) => format!("{root}{joined}"),
        };
        InputPath { text }
    }

    /// The path joined with a directory entry's name.
    pub fn join(&self, name: &str) -> Self {
        InputPath::new(&format!("{}/{}", self.text, name))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn as_path(&self) -> &Path {
        Path::new(&self.text)
    }

    /// `PurePosixPath` parts: the root (if any) then each component.
    fn parts(&self) -> Vec<&str> {
        let root_len = self.text.len() - self.text.trim_start_matches('/').len();
        let mut parts = Vec::new();
        if root_len > 0 {
            parts.push(&self.text[..root_len]);
        }
        parts.extend(
            self.text[root_len..]
                .split('/')
                .filter(|p| !p.is_empty() && *p != "."),
        );
        parts
    }
}

impl Ord for InputPath {
    fn cmp(&self, other: &Self) -> Ordering {
        self.parts().cmp(&other.parts())
    }
}

impl PartialOrd for InputPath {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for InputPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether a directory entry's name is picked up by a directory scan.
pub fn matches_scan(name: &str) -> bool {
    name.ends_with(".spt") || is_rank_profile_name(name)
}

/// The glob `*_rank[0-9]*.h5`: `_rank` followed by a digit somewhere before a final `.h5`.
fn is_rank_profile_name(name: &str) -> bool {
    let Some(stem_end) = name.len().checked_sub(3).filter(|_| name.ends_with(".h5")) else {
        return false;
    };
    let bytes = name.as_bytes();
    (0..stem_end).any(|i| {
        bytes[i..].starts_with(b"_rank")
            && i + 6 <= stem_end
            && bytes.get(i + 5).is_some_and(u8::is_ascii_digit)
    })
}

/// `path` as the reference names a run (`os.path.relpath`): relative to the working
/// directory, `.` and `..` resolved by the letters of the path.
#[cfg(not(target_arch = "wasm32"))]
pub fn relative_to_cwd(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    relative_to(path, &cwd).display().to_string()
}

/// `path` relative to the absolute directory `base`, both normalised lexically: what
/// Python's `os.path.relpath(path, base)` gives.
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let normal = |p: &Path| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::ParentDir => {
                    parts.pop();
                }
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                _ => {}
            }
        }
        parts
    };
    let target = normal(&base.join(path));
    let base = normal(base);
    let common = target.iter().zip(&base).take_while(|(t, b)| t == b).count();
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for part in &target[common..] {
        out.push(part);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Whether the file name `name` matches `pattern`, whose `*` stands for any run of
/// characters and `?` for one character, as a shell's wildcards do.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
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

/// `flame.svg` → `flame_rank3.svg`, as the reference names its per-rank files.
pub fn per_rank(output: &Path, rank: u32) -> PathBuf {
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match output.extension() {
        Some(ext) => format!("{stem}_rank{rank}.{}", ext.to_string_lossy()),
        None => format!("{stem}_rank{rank}"),
    };
    output.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_like_pure_posix_path() {
        for (raw, want) in [
            ("./a//x.spt", "a/x.spt"),
            ("a/./x", "a/x"),
            ("a/", "a"),
            (".", "."),
            ("./", "."),
            ("/abs//p", "/abs/p"),
            ("a/../b", "a/../b"),
        ] {
            assert_eq!(InputPath::new(raw).as_str(), want, "{raw}");
        }
    }

    #[test]
    fn sorts_component_wise() {
        // Character order would put "a-b/x" (0x2d) before "a/x" (0x2f); parts put "a" first.
        let mut v = [
            InputPath::new("a-b/x"),
            InputPath::new("a/x"),
            InputPath::new("/z"),
        ];
        v.sort();
        let got: Vec<&str> = v.iter().map(InputPath::as_str).collect();
        assert_eq!(got, ["/z", "a/x", "a-b/x"]);
    }

    #[test]
    fn scan_patterns() {
        assert!(matches_scan("run_rank00000.spt"));
        assert!(matches_scan(".hidden.spt"));
        assert!(matches_scan("x.spt"));
        assert!(matches_scan("p_rank0.h5"));
        assert!(matches_scan("p_rank12_extra.h5"));
        assert!(!matches_scan("profiling_data.h5"));
        assert!(!matches_scan("p_rankx0.h5"));
        assert!(!matches_scan("p_rank.h5"));
        assert!(!matches_scan("p_rank0.H5"));
        assert!(!matches_scan("notes.txt"));
    }

    /// What Python's `os.path.relpath(path, start)` gives for the same paths.
    #[test]
    fn names_are_relative_like_relpath() {
        let base = Path::new("/home/u/runs");
        let rel = |p: &str| relative_to(Path::new(p), base).display().to_string();
        assert_eq!(rel("a.h5"), "a.h5");
        assert_eq!(rel("./sub/../a.h5"), "a.h5");
        assert_eq!(rel("/home/u/runs/x/a.h5"), "x/a.h5");
        assert_eq!(rel("/home/u/other/a.h5"), "../other/a.h5");
        assert_eq!(rel("../../../../a.h5"), "../../../a.h5");
        assert_eq!(rel("/home/u/runs"), ".");
    }

    #[test]
    fn globs() {
        assert!(glob_matches("run_*.h5", "run_12.h5"));
        assert!(glob_matches("r?n*", "run"));
        assert!(!glob_matches("*.h5", "a.spt"));
        assert!(!glob_matches("run_?.h5", "run_12.h5"));
    }

    #[test]
    fn per_rank_names() {
        assert_eq!(
            per_rank(Path::new("out/flame.svg"), 3),
            Path::new("out/flame_rank3.svg")
        );
        assert_eq!(per_rank(Path::new("stacks"), 0), Path::new("stacks_rank0"));
    }
}
