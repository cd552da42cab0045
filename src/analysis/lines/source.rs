//! The text of a source line, as the reference reads it (`linecache.getline`, stripped):
//! the file named as the debug info names it, relative to the working directory (and,
//! where the reference finds nothing, to the directories of the `.sps` files); lines
//! split at `\n`, `\r\n` and `\r`; nothing for a file that cannot be read or is not UTF-8
//! (a leading byte-order mark dropped). Each file is read once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::render::python_strip;

/// Source files read so far.
#[derive(Debug, Default)]
pub struct Sources {
    files: HashMap<String, Option<Vec<String>>>,
    dirs: Vec<PathBuf>,
}

impl Sources {
    /// Sources found relative to the working directory, then to the directory of
    /// each of `files`.
    pub fn beside(files: &[crate::paths::InputPath]) -> Sources {
        let mut dirs: Vec<PathBuf> = files
            .iter()
            .filter_map(|f| f.as_path().parent())
            .map(Path::to_path_buf)
            .collect();
        dirs.dedup();
        Sources::new(dirs)
    }

    /// Sources found relative to the working directory, then to each of `dirs`.
    pub fn new(dirs: Vec<PathBuf>) -> Sources {
        Sources {
            files: HashMap::new(),
            dirs,
        }
    }

    /// Line `line` (from 1) of `file`, stripped; `None` if there is no such line.
    pub fn line(&mut self, file: &str, line: u32) -> Option<String> {
        let lines = self
            .files
            .entry(file.to_owned())
            .or_insert_with(|| read(file, &self.dirs))
            .as_ref()?;
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        lines.get(i).map(|l| python_strip(l).to_owned())
    }
}

fn read(file: &str, dirs: &[PathBuf]) -> Option<Vec<String>> {
    if file.is_empty() || file == "??" {
        return None;
    }
    let path = Path::new(file);
    let bytes = std::fs::read(path).ok().or_else(|| {
        if path.is_absolute() {
            return None;
        }
        dirs.iter().find_map(|d| std::fs::read(d.join(path)).ok())
    })?;
    let text = String::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Some(split_lines(text))
}

/// Universal newlines, as Python's text files read them.
fn split_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['\n', '\r']) {
            Some(i) => {
                out.push(rest[..i].to_owned());
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
            None => {
                out.push(rest.to_owned());
                rest = "";
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_at_every_newline_python_knows() {
        assert_eq!(split_lines("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(split_lines("a\n\n"), ["a", ""]);
        assert!(split_lines("").is_empty());
    }

    #[test]
    fn unreadable_files_give_no_text() {
        let mut sources = Sources::default();
        assert_eq!(sources.line("??", 3), None);
        assert_eq!(sources.line("no/such/file.c", 1), None);
        assert_eq!(sources.line("Cargo.toml", 0), None);
        assert_eq!(sources.line("Cargo.toml", 1).as_deref(), Some("[package]"));
        let mut beside = Sources::new(vec![PathBuf::from("src")]);
        assert_eq!(
            beside.line("lib.rs", 1),
            std::fs::read_to_string("src/lib.rs")
                .ok()
                .and_then(|t| t.lines().next().map(|l| l.trim().to_owned()))
        );
    }
}
