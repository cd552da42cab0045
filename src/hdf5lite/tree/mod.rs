//! The tree of any HDF5 file as a listing: a [`Walk`] that yields one [`Node`] per object,
//! depth first with members sorted by name, and the two ways to print it, as indented text
//! ([`write_text`]) and as one JSON document ([`write_json`], documented in [`json`]).
//! `sp ls` and the browser page's raw view are both this module.
//!
//! Faults stay where they are: an object, link, attribute or value that cannot be read is
//! listed with the reason, and the walk goes on.
//!
//! ```
//! use sp::hdf5lite::reader::File;
//! use sp::hdf5lite::tree::{self, Options};
//! # fn demo(bytes: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
//! let file = File::open(bytes)?;
//! let mut out = Vec::new();
//! tree::write_text(&mut out, tree::Walk::new(&file, "/", Options::default())?)?;
//! # Ok(()) }
//! ```

mod display;
pub mod json;
mod text;

use std::collections::HashMap;

use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::model::{Datatype, Shape};
use crate::hdf5lite::reader::{
    Attribute, Attributes, Dataset, File, LinkKind, Object, Storage, Value,
};
use crate::io::ReadAt;

pub use display::{Extent, ValueText};
pub use json::{write_json, JSON_FORMAT};
pub use text::write_text;

/// What a walk reads besides the structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Read dataset values.
    pub values: bool,
    /// Read at most this many elements of each dataset (the first ones, row-major); `None`
    /// reads them all.
    pub max_elements: Option<u64>,
}

impl Default for Options {
    /// Structure and attributes only.
    fn default() -> Self {
        Options {
            values: false,
            max_elements: None,
        }
    }
}

/// One object of the listing.
#[derive(Debug)]
pub struct Node {
    /// The absolute path by which the walk reached it.
    pub path: String,
    pub kind: NodeKind,
    /// Parts of the object that could not be read and belong to no named item: a link
    /// or attribute whose name cannot be read.
    pub errors: Vec<Error>,
}

/// What a node is.
#[derive(Debug)]
pub enum NodeKind {
    Group {
        attributes: Vec<AttributeNode>,
        /// The first path of a group reached again through another hard link (its members
        /// are listed once, under the first).
        same_as: Option<String>,
    },
    Dataset(Box<DatasetNode>),
    /// A committed (named) datatype.
    Datatype {
        datatype: Datatype,
        attributes: Vec<AttributeNode>,
    },
    /// A link that is not followed: soft, external or user-defined.
    Link(LinkNode),
    /// An object whose header or dataset description cannot be read.
    Unreadable(Error),
}

/// A link the walk does not follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkNode {
    Soft { target: String },
    External { file: String, target: String },
    UserDefined,
}

/// One attribute and its value.
#[derive(Debug)]
pub struct AttributeNode {
    pub name: String,
    pub datatype: Datatype,
    /// `None` for a null dataspace.
    pub shape: Option<Shape>,
    pub value: Result<Value>,
}

/// A dataset's description, and its values when asked for.
#[derive(Debug)]
pub struct DatasetNode {
    pub datatype: Datatype,
    /// `None` for a null dataspace.
    pub shape: Option<Shape>,
    pub max_shape: Option<Vec<u64>>,
    pub storage: Storage,
    pub attributes: Vec<AttributeNode>,
    /// The elements read (row-major), when values were asked for.
    pub values: Option<Result<Vec<Value>>>,
    /// Elements in the dataset (more than `values` holds when a cap cut them).
    pub len: u64,
}

impl Node {
    /// Every problem of this node: its own, its attributes' and its values'.
    pub fn problems(&self) -> impl Iterator<Item = &Error> {
        let (attributes, own, values): (&[AttributeNode], Option<&Error>, Option<&Error>) =
            match &self.kind {
                NodeKind::Group { attributes, .. } | NodeKind::Datatype { attributes, .. } => {
                    (attributes, None, None)
                }
                NodeKind::Dataset(d) => (
                    &d.attributes,
                    None,
                    d.values.as_ref().and_then(|v| v.as_ref().err()),
                ),
                NodeKind::Unreadable(e) => (&[], Some(e), None),
                NodeKind::Link(_) => (&[], None, None),
            };
        self.errors
            .iter()
            .chain(own)
            .chain(attributes.iter().filter_map(|a| a.value.as_ref().err()))
            .chain(values)
    }
}

/// What a listing could not read, tallied while its nodes stream past
/// (`walk.inspect(|n| problems.note(n))`): `sp ls --strict` fails on any.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Problems {
    /// Problems seen: objects, links, attributes and values that could not be read.
    pub count: usize,
    /// The first one's reason.
    pub first: Option<String>,
}

impl Problems {
    /// Counts `node`'s problems ([`Node::problems`]).
    pub fn note(&mut self, node: &Node) {
        for e in node.problems() {
            self.count += 1;
            self.first.get_or_insert_with(|| e.to_string());
        }
    }

    /// One sentence for a listing with problems; `None` when there was none.
    pub fn summary(&self) -> Option<String> {
        (self.first.as_ref())
            .map(|first| format!("{} parts could not be read; the first: {first}", self.count))
    }
}

/// An object still to be read, or a node already complete, in listing order.
enum Pending<'f, R: ReadAt> {
    Visit(String, Object<'f, R>),
    Done(Node),
}

/// The objects at and under one path, depth first with members sorted by name, one node
/// at a time. A group is descended into once however many hard links reach it, so a
/// cyclic file ends.
pub struct Walk<'f, R: ReadAt> {
    file: &'f File<R>,
    options: Options,
    stack: Vec<Pending<'f, R>>,
    seen: HashMap<u64, String>,
}

impl<'f, R: ReadAt> Walk<'f, R> {
    /// Starts at `path` ("/" for the whole file). Fails only when that object cannot be
    /// found or read.
    pub fn new(file: &'f File<R>, path: &str, options: Options) -> Result<Self> {
        let root = normalize(path);
        let top = file.object(&root)?;
        let mut seen = HashMap::new();
        if let Object::Group(g) = &top {
            seen.insert(g.address(), root.clone());
        }
        Ok(Walk {
            file,
            options,
            stack: vec![Pending::Visit(root, top)],
            seen,
        })
    }

    fn visit(&mut self, path: String, object: Object<'f, R>) -> Node {
        let mut errors = Vec::new();
        let kind = match object {
            Object::Dataset(d) => NodeKind::Dataset(Box::new(self.dataset(&d, &mut errors))),
            Object::Datatype(t) => NodeKind::Datatype {
                datatype: t.datatype().clone(),
                attributes: attributes(self.file, t.iter_attributes(), &mut errors),
            },
            Object::Group(g) => {
                let attributes = attributes(self.file, g.iter_attributes(), &mut errors);
                let mut members = Vec::new();
                match g.iter_links() {
                    Err(e) => errors.push(e),
                    Ok(links) => {
                        for link in links {
                            match link {
                                Ok(link) => {
                                    let child = join(&path, &link.name);
                                    members.push(self.member(child, link.kind));
                                }
                                Err(e) => errors.push(e),
                            }
                        }
                    }
                }
                self.stack.extend(members.into_iter().rev());
                NodeKind::Group {
                    attributes,
                    same_as: None,
                }
            }
        };
        Node { path, kind, errors }
    }

    /// What a link leads to: an object to visit, or a node complete already.
    fn member(&mut self, path: String, kind: LinkKind) -> Pending<'f, R> {
        let done = |path, kind| {
            Pending::Done(Node {
                path,
                kind,
                errors: Vec::new(),
            })
        };
        let addr = match kind {
            LinkKind::Hard(a) => a,
            LinkKind::Soft(target) => return done(path, NodeKind::Link(LinkNode::Soft { target })),
            LinkKind::External { file, path: target } => {
                return done(path, NodeKind::Link(LinkNode::External { file, target }))
            }
            LinkKind::Other => return done(path, NodeKind::Link(LinkNode::UserDefined)),
        };
        match self.file.object_at(addr, &path) {
            Err(e) => done(path, NodeKind::Unreadable(e)),
            Ok(Object::Group(g)) => match self.seen.get(&addr) {
                Some(first) => {
                    let mut errors = Vec::new();
                    let kind = NodeKind::Group {
                        attributes: attributes(self.file, g.iter_attributes(), &mut errors),
                        same_as: Some(first.clone()),
                    };
                    Pending::Done(Node { path, kind, errors })
                }
                None => {
                    self.seen.insert(addr, path.clone());
                    Pending::Visit(path, Object::Group(g))
                }
            },
            Ok(object) => Pending::Visit(path, object),
        }
    }

    fn dataset(&self, d: &Dataset<'f, R>, errors: &mut Vec<Error>) -> DatasetNode {
        let len = d.len().unwrap_or(0);
        let values = self.options.values.then(|| {
            match self.options.max_elements {
                Some(cap) if cap < len => {
                    if d.shape()
                        .is_some_and(|s| matches!(s, Shape::Simple(ref v) if v.len() == 1))
                    {
                        d.read_values_range(0, cap)
                    } else {
                        // Several dimensions: the first elements in row-major order.
                        d.read_values().map(|mut v| {
                            v.truncate(cap as usize);
                            v
                        })
                    }
                }
                _ => d.read_values(),
            }
        });
        DatasetNode {
            datatype: d.datatype().clone(),
            shape: d.shape(),
            max_shape: d.max_shape(),
            storage: d.storage(),
            attributes: attributes(self.file, d.iter_attributes(), errors),
            values,
            len,
        }
    }
}

impl<R: ReadAt> Iterator for Walk<'_, R> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        Some(match self.stack.pop()? {
            Pending::Done(node) => node,
            Pending::Visit(path, object) => self.visit(path, object),
        })
    }
}

/// Every attribute with its value; attributes that cannot be read at all go to `errors`.
fn attributes<R: ReadAt>(
    file: &File<R>,
    iter: Result<Attributes<'_, R>>,
    errors: &mut Vec<Error>,
) -> Vec<AttributeNode> {
    let iter = match iter {
        Ok(iter) => iter,
        Err(e) => {
            errors.push(e);
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for a in iter {
        match a {
            Ok(a) => out.push(attribute(file, a)),
            Err(e) => errors.push(e),
        }
    }
    out
}

fn attribute<R: ReadAt>(file: &File<R>, a: Attribute) -> AttributeNode {
    AttributeNode {
        value: a.value(file),
        name: a.name().to_string(),
        datatype: a.datatype().clone(),
        shape: a.shape(),
    }
}

/// `/a/b` from any spelling of it (`a//b/`, `/a/b`).
pub fn normalize(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    format!("/{}", parts.join("/"))
}

fn join(parent: &str, name: &str) -> String {
    if parent.ends_with('/') {
        format!("{parent}{name}")
    } else {
        format!("{parent}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_are_counted_with_the_first_reason() {
        let node = |errors: Vec<Error>| Node {
            path: "/a".into(),
            errors,
            kind: NodeKind::Link(LinkNode::UserDefined),
        };
        let mut problems = Problems::default();
        problems.note(&node(Vec::new()));
        assert_eq!(problems.summary(), None);
        problems.note(&node(vec![Error::format("one"), Error::format("two")]));
        problems.note(&node(vec![Error::format("three")]));
        assert_eq!(problems.count, 3);
        let summary = problems.summary().unwrap();
        assert!(summary.starts_with("3 parts could not be read; the first: "));
        assert!(summary.ends_with("one"), "{summary}");
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalize(""), "/");
        assert_eq!(normalize("a//b/"), "/a/b");
        assert_eq!(join("/", "x"), "/x");
        assert_eq!(join("/a", "x"), "/a/x");
    }
}
