//! A file copied into a [`FileWriter`], object by object, leaving out the paths a caller
//! names: what `sp report --events never` embeds (a profile without its event columns).
//!
//! Groups, datasets and their attributes keep their names, datatypes, shapes and bytes;
//! datasets are written contiguous and unfiltered. Variable-length strings are decoded and
//! written again; other variable-length data, committed datatypes and soft or external
//! links are refused as unsupported, since the copy could not keep them.

use std::collections::HashSet;

use super::reader::Value;
use super::reader::{Attribute, File, LinkKind, Object};
use super::writer::{FileWriter, ObjectId, StorageLayout};
use super::{Data, Datatype, Error, Result, StringLength};
use crate::io::ReadAt;

/// `file` as a writer holding every object whose path `keep` accepts (a group left out
/// takes everything below it with it).
pub fn copy<R: ReadAt>(file: &File<R>, keep: &dyn Fn(&str) -> bool) -> Result<FileWriter> {
    let mut out = FileWriter::new();
    let root = file.root()?;
    copy_attributes(file, &root.attributes()?, &mut out, FileWriter::ROOT)?;
    let mut seen = HashSet::from([root.address()]);
    let mut pending = vec![(root, FileWriter::ROOT, 0u32)];
    while let Some((group, id, depth)) = pending.pop() {
        if depth >= file.limits().max_depth {
            return Err(Error::limits("groups nest too deeply").in_object(group.path()));
        }
        for link in group.links()? {
            let path = join(group.path(), &link.name);
            if !keep(&path) {
                continue;
            }
            let LinkKind::Hard(addr) = link.kind else {
                return Err(
                    Error::unsupported("a soft, external or user-defined link").in_object(path)
                );
            };
            if !seen.insert(addr) {
                return Err(Error::unsupported("an object linked twice").in_object(path));
            }
            match file.object_at(addr, &path)? {
                Object::Group(child) => {
                    let child_id = out.create_group(id, &link.name)?;
                    copy_attributes(file, &child.attributes()?, &mut out, child_id)?;
                    pending.push((child, child_id, depth + 1));
                }
                Object::Dataset(dataset) => {
                    let datatype = dataset.datatype().clone();
                    let shape = dataset
                        .shape()
                        .ok_or_else(|| Error::unsupported("a null dataspace").in_object(&path))?;
                    let data = if is_vlen_string(&datatype) {
                        Data::strings(&dataset.read_strings()?)
                    } else if datatype.is_variable_length() {
                        return Err(
                            Error::unsupported("variable-length data other than strings")
                                .in_object(path),
                        );
                    } else {
                        Data::Fixed(dataset.read_raw()?)
                    };
                    let layout = StorageLayout::Contiguous;
                    let child_id =
                        out.create_dataset(id, &link.name, datatype, shape, data, layout)?;
                    copy_attributes(file, &dataset.attributes()?, &mut out, child_id)?;
                }
                Object::Datatype(_) => {
                    return Err(Error::unsupported("a committed datatype").in_object(path))
                }
            }
        }
    }
    Ok(out)
}

fn copy_attributes<R: ReadAt>(
    file: &File<R>,
    attributes: &[Attribute],
    out: &mut FileWriter,
    id: ObjectId,
) -> Result<()> {
    for attribute in attributes {
        let datatype = attribute.datatype().clone();
        let at = || format!("@{}", attribute.name());
        let shape = attribute
            .shape()
            .ok_or_else(|| Error::unsupported("a null dataspace").in_object(at()))?;
        let data = if is_vlen_string(&datatype) {
            let strings = match attribute.value(file)? {
                Value::String(s) => [s].into_iter().collect(),
                Value::Array(items) => items
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s),
                        _ => Err(Error::unsupported("a string that is not UTF-8").in_object(at())),
                    })
                    .collect::<Result<_>>()?,
                _ => return Err(Error::unsupported("a string that is not UTF-8").in_object(at())),
            };
            Data::VlenStrings(strings)
        } else if datatype.is_variable_length() {
            return Err(
                Error::unsupported("variable-length data other than strings").in_object(at()),
            );
        } else {
            let count = shape.element_count().unwrap_or(u64::MAX);
            let need = datatype.element_size().and_then(|s| s.checked_mul(count));
            let raw = attribute.raw();
            match need.and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n <= raw.len() => Data::Fixed(raw[..n].to_vec()),
                _ => return Err(Error::format("attribute shorter than its shape").in_object(at())),
            }
        };
        out.set_attribute(id, attribute.name(), datatype, shape, data)?;
    }
    Ok(())
}

fn is_vlen_string(datatype: &Datatype) -> bool {
    matches!(
        datatype,
        Datatype::String {
            length: StringLength::Variable,
            ..
        }
    )
}

fn join(parent: &str, name: &str) -> String {
    if parent == "/" {
        format!("/{name}")
    } else {
        format!("{parent}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::Shape;

    /// A file with a group, datasets of fixed and string types and attributes of both.
    fn sample() -> Vec<u8> {
        let mut w = FileWriter::new();
        let strings = || Datatype::String {
            length: StringLength::Variable,
            charset: crate::hdf5lite::CharSet::Utf8,
            padding: crate::hdf5lite::StrPad::NullTerm,
        };
        w.set_attribute(
            FileWriter::ROOT,
            "label",
            strings(),
            Shape::Scalar,
            Data::strings(&["run"]),
        )
        .unwrap();
        let index = w.create_group(FileWriter::ROOT, "index").unwrap();
        let ids = w
            .create_dataset(
                index,
                "ids",
                Datatype::I64,
                Shape::Simple(vec![3]),
                Data::i64s(&[1, 2, 3]),
                StorageLayout::Contiguous,
            )
            .unwrap();
        w.set_attribute(
            ids,
            "scale",
            Datatype::F64,
            Shape::Scalar,
            Data::f64s(&[0.5]),
        )
        .unwrap();
        w.create_dataset(
            index,
            "names",
            strings(),
            Shape::Simple(vec![2]),
            Data::strings(&["a", "bé"]),
            StorageLayout::Contiguous,
        )
        .unwrap();
        let events = w.create_group(FileWriter::ROOT, "events").unwrap();
        w.create_dataset(
            events,
            "durations",
            Datatype::I64,
            Shape::Simple(vec![2]),
            Data::i64s(&[7, 8]),
            StorageLayout::Contiguous,
        )
        .unwrap();
        let mut bytes = Vec::new();
        w.finish(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn copies_everything_kept_and_nothing_else() {
        let bytes = sample();
        let file = File::open(bytes.as_slice()).unwrap();
        let writer = copy(&file, &|path| path != "/events").unwrap();
        let mut copied = Vec::new();
        writer.finish(&mut copied).unwrap();
        let back = File::open(copied.as_slice()).unwrap();
        let ids = back.dataset("/index/ids").unwrap();
        assert_eq!(ids.read_i64s().unwrap(), [1, 2, 3]);
        let scale = ids.attribute("scale").unwrap().unwrap();
        assert_eq!(scale.value(&back).unwrap(), Value::Float(0.5));
        let names = back
            .dataset("/index/names")
            .unwrap()
            .read_strings()
            .unwrap();
        assert_eq!(names, ["a", "bé"]);
        let label = back.root().unwrap().attribute("label").unwrap().unwrap();
        assert_eq!(label.value(&back).unwrap(), Value::String("run".into()));
        let root_links: Vec<String> = back
            .root()
            .unwrap()
            .links()
            .unwrap()
            .into_iter()
            .map(|l| l.name)
            .collect();
        assert_eq!(root_links, ["index"]);
    }
}
