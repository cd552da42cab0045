//! The listing as an indented tree: one line per object, attributes and values indented
//! under it, and every part that cannot be read marked with the reason.

use std::io::{self, Write};

use super::display::{Extent, ValueText};
use super::{LinkNode, Node, NodeKind};
use crate::hdf5lite::model::{Datatype, Shape};
use crate::hdf5lite::reader::Value;
use crate::hdf5lite::Error;
use crate::text::escape;

/// Writes one line per node (`/path  dataset  i64 LE  [3]  contiguous`), its attributes
/// (`    @name: type shape = value`) and its values (`    = [1, 2, …]`), shortened for
/// reading. A value that cannot be decoded shows as `! reason`.
pub fn write_text(out: &mut impl Write, nodes: impl IntoIterator<Item = Node>) -> io::Result<()> {
    for node in nodes {
        write_node(out, &node)?;
    }
    Ok(())
}

fn write_node(out: &mut impl Write, node: &Node) -> io::Result<()> {
    // Names, link targets and messages come from the file: shown escaped (crate::text).
    let path = escape(&node.path);
    let attributes = match &node.kind {
        NodeKind::Group {
            attributes,
            same_as,
        } => {
            match same_as {
                Some(first) => writeln!(out, "{path}  group (same as {})", escape(first))?,
                None => writeln!(out, "{path}  group")?,
            }
            attributes.as_slice()
        }
        NodeKind::Dataset(d) => {
            let extent = Extent {
                shape: d.shape.as_ref(),
                max: d.max_shape.as_deref(),
            };
            writeln!(
                out,
                "{path}  dataset  {}  {extent}  {}",
                d.datatype, d.storage
            )?;
            d.attributes.as_slice()
        }
        NodeKind::Datatype {
            datatype,
            attributes,
        } => {
            writeln!(out, "{path}  committed datatype  {datatype}")?;
            attributes.as_slice()
        }
        NodeKind::Link(link) => {
            match link {
                LinkNode::Soft { target } => {
                    writeln!(out, "{path}  soft link -> {}", escape(target))?
                }
                LinkNode::External { file, target } => writeln!(
                    out,
                    "{path}  external link -> {}:{}",
                    escape(file),
                    escape(target)
                )?,
                LinkNode::UserDefined => writeln!(out, "{path}  user-defined link")?,
            }
            &[]
        }
        NodeKind::Unreadable(e) => {
            writeln!(out, "{path}  not readable here: {}", reason(e))?;
            &[]
        }
    };
    for e in &node.errors {
        writeln!(out, "    ! {}", reason(e))?;
    }
    for a in attributes {
        let extent = Extent {
            shape: a.shape.as_ref(),
            max: None,
        };
        match &a.value {
            Ok(v) => writeln!(
                out,
                "    @{}: {} {extent} = {}",
                escape(&a.name),
                a.datatype,
                ValueText::typed(v, &a.datatype)
            )?,
            Err(e) => writeln!(
                out,
                "    @{}: {} {extent} ! {}",
                escape(&a.name),
                a.datatype,
                reason(e)
            )?,
        }
    }
    if let NodeKind::Dataset(d) = &node.kind {
        match &d.values {
            None => {}
            Some(Err(e)) => writeln!(out, "    ! {}", reason(e))?,
            Some(Ok(values)) => match (&d.shape, values.as_slice()) {
                (Some(Shape::Scalar), [v]) => {
                    writeln!(out, "    = {}", ValueText::typed(v, &d.datatype))?
                }
                _ => {
                    let total = usize::try_from(d.len).unwrap_or(usize::MAX);
                    writeln!(out, "    = {}", Elements(values, &d.datatype, total))?;
                }
            },
        }
    }
    Ok(())
}

/// The first elements of a dataset, with the dataset's total count.
struct Elements<'a>(&'a [Value], &'a Datatype, usize);

impl std::fmt::Display for Elements<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Elements(values, datatype, total) = *self;
        let Some(first) = values.first() else {
            return f.write_str("[]");
        };
        ValueText::typed(first, datatype).list(
            f,
            values
                .iter()
                .map(|v| ValueText::typed(v, datatype).to_string()),
            total.max(values.len()),
            ("[", "]"),
        )
    }
}

/// An error's message, with the object path when it names a part other than the line's.
fn reason(e: &Error) -> String {
    escape(e.message()).into_owned()
}
