//! The raw view: the HDF5 tree of any file, listed by the library's walk
//! ([`sp::hdf5lite::tree`]) exactly as `sp ls FILE --data` prints it, one entry per object
//! so the page can indent and fold it. A part that cannot be read is listed with the
//! reason and the rest of the file stays readable.

use serde_json::{json, Value as Json};
use sp::hdf5lite::reader::File;
use sp::hdf5lite::tree::{self, Node, NodeKind, Options, Walk};
use sp::io::ReadAt;

/// Elements of each dataset read and shown (as `sp ls` shows in text).
pub const PREVIEW_ELEMENTS: u64 = 8;

/// Objects listed at most; a file with more says how many were left out.
pub const MAX_NODES: usize = 20_000;

/// The listing of `file`: `entries` (each `{path, name, depth, kind, head, lines,
/// problems}`, where `head` is the object's line of `sp ls` after its path and `lines` the
/// attribute and value lines under it), `summary` (one sentence) and `truncated`.
pub fn listing<R: ReadAt>(name: &str, file: &File<R>) -> Result<Json, String> {
    let options = Options {
        values: true,
        max_elements: Some(PREVIEW_ELEMENTS),
    };
    let walk = Walk::new(file, "/", options)
        .map_err(|e| format!("The HDF5 tree of {name} cannot be read: {e}."))?;
    let mut entries = Vec::new();
    let (mut groups, mut datasets, mut problems, mut left) = (0usize, 0usize, 0usize, 0usize);
    for node in walk {
        if entries.len() == MAX_NODES {
            left += 1;
            continue;
        }
        match node.kind {
            NodeKind::Group { .. } => groups += 1,
            NodeKind::Dataset(_) => datasets += 1,
            _ => {}
        }
        let n = node.problems().count();
        problems += n;
        entries.push(entry(node, n)?);
    }
    let mut summary = format!(
        "{name}: {} and {}",
        sp::analysis::units::plural(groups as u64, "group"),
        sp::analysis::units::plural(datasets as u64, "dataset")
    );
    if problems > 0 {
        summary.push_str(&format!(
            "; {} could not be read (marked !)",
            sp::analysis::units::plural(problems as u64, "part")
        ));
    }
    if left > 0 {
        summary.push_str(&format!(
            "; the first {MAX_NODES} objects are listed, {left} more are not"
        ));
    }
    summary.push('.');
    Ok(json!({ "entries": entries, "summary": summary, "truncated": left }))
}

/// One object: its `sp ls` lines, split into the head line and the lines under it.
fn entry(node: Node, problems: usize) -> Result<Json, String> {
    let kind = match &node.kind {
        NodeKind::Group { .. } => "group",
        NodeKind::Dataset(_) => "dataset",
        NodeKind::Datatype { .. } => "datatype",
        NodeKind::Link(_) => "link",
        NodeKind::Unreadable(_) => "unreadable",
    };
    let path = node.path.clone();
    let name = path
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("/");
    let depth = path.matches('/').count() - usize::from(path == "/");
    let mut text = Vec::new();
    tree::write_text(&mut text, std::iter::once(node))
        .map_err(|e| format!("Listing {path} failed: {e}."))?;
    let text = String::from_utf8_lossy(&text);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let head = first
        .strip_prefix(path.as_str())
        .unwrap_or(first)
        .trim_start();
    Ok(json!({
        "path": path,
        "name": name,
        "depth": depth,
        "kind": kind,
        "head": head,
        "lines": lines.collect::<Vec<_>>(),
        "problems": problems,
    }))
}
