//! Groups and their links, whatever the storage: a symbol table (v1 B-tree, symbol-table
//! nodes, local heap), compact link messages, or dense storage (fractal heap and v2
//! B-tree name index). Each link is read on its own, so one bad link fails only itself.

use crate::sort::SortSlice;
use std::sync::Arc;

use super::attribute::{Attribute, Attributes};
use super::{check_count, decode, first, lock, File, LinkEntry, LinkKind};
use crate::hdf5lite::error::{Error, Result};
use crate::hdf5lite::raw::btree_v1;
use crate::hdf5lite::raw::btree_v2::{self, RecordType};
use crate::hdf5lite::raw::cursor::Cursor;
use crate::hdf5lite::raw::fractal_heap::FractalHeap;
use crate::hdf5lite::raw::local_heap::LocalHeap;
use crate::hdf5lite::raw::messages::{self, LinkInfo, LinkTarget, MessageType, SymbolTable};
use crate::hdf5lite::raw::object_header::ObjectHeader;
use crate::hdf5lite::raw::symbol_table_node;
use crate::io::ReadAt;

/// The links of a group, sorted by name, each read on its own: a link that cannot be read
/// is an `Err` (after the readable ones).
pub type Links = std::vec::IntoIter<Result<LinkEntry>>;

/// A group.
#[derive(Debug)]
pub struct Group<'f, R: ReadAt> {
    file: &'f File<R>,
    path: String,
    header: Arc<ObjectHeader>,
}

impl<'f, R: ReadAt> Group<'f, R> {
    pub(super) fn new(file: &'f File<R>, path: String, header: Arc<ObjectHeader>) -> Self {
        Group { file, path, header }
    }

    /// The absolute path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The address hard links to this group hold (its object header's, relative to the
    /// superblock's base address): the group's identity, whatever path reached it.
    pub fn address(&self) -> u64 {
        self.header
            .address
            .saturating_sub(self.file.superblock.base_address)
    }

    /// The links one at a time, sorted by name. Fails as a whole only when the group's
    /// link storage itself cannot be read.
    pub fn iter_links(&self) -> Result<Links> {
        if let Some(links) = lock(&self.file.links).get(&self.header.address) {
            return Ok(links
                .iter()
                .cloned()
                .map(Ok)
                .collect::<Vec<_>>()
                .into_iter());
        }
        let items = self
            .read_links()
            .map_err(|e| e.in_object(self.path.clone()))?;
        if items.iter().all(Result::is_ok) {
            let links: Vec<LinkEntry> = items.iter().flatten().cloned().collect();
            lock(&self.file.links).insert(self.header.address, Arc::new(links));
        }
        Ok(items.into_iter())
    }

    /// Every link, sorted by name; fails if any one cannot be read.
    pub fn links(&self) -> Result<Vec<LinkEntry>> {
        self.iter_links()?.collect()
    }

    /// The link `name`, if present. Other links that cannot be read do not matter.
    pub fn link(&self, name: &str) -> Result<Option<LinkEntry>> {
        Ok(self.iter_links()?.flatten().find(|l| l.name == name))
    }

    fn read_links(&self) -> Result<Vec<Result<LinkEntry>>> {
        let src = self.file.src();
        let h = &self.header;
        let limits = self.file.limits;
        let mut out: Vec<Result<LinkEntry>> = Vec::new();
        if let Some(m) = first(h, MessageType::SYMBOL_TABLE) {
            let st = decode(m, &src, SymbolTable::parse)?;
            let heap = LocalHeap::read(&src, st.local_heap)?;
            for leaf in btree_v1::group_leaves(&src, st.btree)? {
                match symbol_table_node::read_node(&src, leaf) {
                    Err(e) => out.push(Err(e)),
                    Ok(entries) => {
                        for e in entries {
                            out.push(heap.string_at(e.name_offset).and_then(|name| {
                                let name = String::from_utf8(name.to_vec()).map_err(|_| {
                                    Error::format("link name is not UTF-8").at(leaf)
                                })?;
                                Ok(LinkEntry {
                                    name,
                                    kind: LinkKind::Hard(e.object_address),
                                })
                            }));
                            check_count(out.len(), limits, &self.path)?;
                        }
                    }
                }
            }
        }
        for m in h.messages_of(MessageType::LINK) {
            out.push(decode(m, &src, messages::Link::parse).map(entry));
        }
        if let Some(m) = first(h, MessageType::LINK_INFO) {
            let info = decode(m, &src, LinkInfo::parse)?;
            if let (Some(heap), Some(index)) = (info.fractal_heap, info.name_index) {
                let heap = FractalHeap::read(&src, heap)?;
                let (_, records) = btree_v2::records(&src, index, RecordType::LINK_NAME)?;
                check_count(records.len(), limits, &self.path)?;
                let heap_at = src.absolute(heap.address)?;
                for r in records {
                    out.push((|| {
                        let id = r
                            .get(4..)
                            .ok_or_else(|| Error::format("short link record").at(heap_at))?;
                        let bytes = heap.object(&src, id)?;
                        let mut c = Cursor::new(&bytes, heap_at, src.widths());
                        messages::Link::parse(&mut c).map(entry)
                    })());
                }
            }
        }
        check_count(out.len(), limits, &self.path)?;
        sort_by_name(&mut out, |l| &l.name);
        Ok(out)
    }

    /// The attributes one at a time, sorted by name (see [`Attributes`]).
    pub fn iter_attributes(&self) -> Result<Attributes<'f, R>> {
        Attributes::read(self.file, &self.header, &self.path)
    }

    /// Every attribute, sorted by name; fails if any one cannot be read.
    pub fn attributes(&self) -> Result<Vec<Attribute>> {
        self.iter_attributes()?.collect()
    }

    /// The attribute `name`, if present: names are compared before anything else is
    /// decoded, so other attributes that cannot be read do not matter.
    pub fn attribute(&self, name: &str) -> Result<Option<Attribute>> {
        self.iter_attributes()?.find_name(name)
    }
}

/// Sorts readable items by name and puts the unreadable ones after them, in file order.
pub(super) fn sort_by_name<T>(items: &mut [Result<T>], name: impl Fn(&T) -> &str) {
    items.sort_stable_by(|a, b| match (a, b) {
        (Ok(a), Ok(b)) => name(a).cmp(name(b)),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => std::cmp::Ordering::Equal,
    });
}

fn entry(l: messages::Link) -> LinkEntry {
    LinkEntry {
        name: l.name,
        kind: match l.target {
            LinkTarget::Hard(a) => LinkKind::Hard(a),
            LinkTarget::Soft(p) => LinkKind::Soft(p),
            LinkTarget::External(raw) => external(&raw).unwrap_or(LinkKind::Other),
            LinkTarget::UserDefined { .. } => LinkKind::Other,
        },
    }
}

/// An external link's value: a version-and-flags byte (0), then the file name and the
/// object path, each null-terminated.
fn external(raw: &[u8]) -> Option<LinkKind> {
    let (&0, rest) = raw.split_first()? else {
        return None;
    };
    let mut parts = rest.split(|&b| b == 0);
    let file = String::from_utf8(parts.next()?.to_vec()).ok()?;
    let path = String::from_utf8(parts.next()?.to_vec()).ok()?;
    Some(LinkKind::External { file, path })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_link_values() {
        assert_eq!(
            external(b"\0other.h5\0/x/y\0"),
            Some(LinkKind::External {
                file: "other.h5".into(),
                path: "/x/y".into()
            })
        );
        // Version 1 is unknown; a missing path or bad UTF-8 is malformed.
        assert_eq!(external(b"\x01a.h5\0/x\0"), None);
        assert_eq!(external(b"\0a.h5"), None);
        assert_eq!(external(b"\0\xff\0/x\0"), None);
        assert_eq!(external(b""), None);
    }

    #[test]
    fn unreadable_items_sort_last() {
        let mut items: Vec<Result<String>> =
            vec![Ok("b".into()), Err(Error::format("x")), Ok("a".into())];
        sort_by_name(&mut items, |s| s.as_str());
        assert_eq!(items[0].as_deref().unwrap(), "a");
        assert_eq!(items[1].as_deref().unwrap(), "b");
        assert!(items[2].is_err());
    }
}
