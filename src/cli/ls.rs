//! `sp ls`: the tree of any HDF5 file — groups, datasets with datatype, shape and storage,
//! attributes with their values — as readable text or as one JSON document. It is how a
//! user without HDF5 tools looks inside a file.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use serde_json::{json, Map, Value as Json};
use sp::hdf5lite::filters::{self, Filter, FilterId};
use sp::hdf5lite::model::{ByteOrder, CharSet, Datatype, Shape, StrPad, StringLength};
use sp::hdf5lite::reader::{self, Attribute, File, LinkKind, Object, ObjectKind, Storage, Value};
use sp::hdf5lite::{ErrorKind, Result};
use sp::io::ReadAt;

use super::local_file::LocalFile;
use super::Failure;

/// Show the groups, datasets and attributes of an HDF5 file.
#[derive(Debug, Args)]
#[command(after_long_help = JSON_HELP, after_help = "\
Examples:
  sp ls run.h5                        the whole tree, attributes with their values
  sp ls run.h5 /rank_region_index     one group and everything under it
  sp ls run.h5 /ranks/0/starts --data one dataset with its values
  sp ls run.h5 --json --data > run.json

See `sp ls --help` for the JSON format.")]
pub struct Opts {
    /// The HDF5 file.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Show only this object (and, for a group, everything under it).
    #[arg(value_name = "PATH", default_value = "/")]
    path: String,

    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,

    /// Include dataset values (text mode shortens long ones with `…`; JSON never does).
    #[arg(long)]
    data: bool,
}

const JSON_HELP: &str = "\
JSON output: one object keyed by object path, in byte order of the paths (\"/\" first):
  {\"kind\": \"group\", \"attributes\": {...}}
  {\"kind\": \"dataset\", \"datatype\": DT, \"shape\": [..] | null, \"maxshape\": [..] | null,
   \"layout\": \"compact\" | \"contiguous\" | \"chunked\", \"chunks\": [..] | null,
   \"filters\": [filter ids], \"attributes\": {...}, \"value\": V (only with --data)}
  {\"kind\": \"datatype\"}                          a committed datatype
  {\"kind\": \"unsupported\", \"reason\": str}        an object this reader cannot decode
  {\"kind\": \"soft link\", \"target\": path}                 not followed
  {\"kind\": \"external link\", \"file\": name, \"target\": path}  not followed
  {\"kind\": \"user-defined link\", \"target\": null}
A group reached again through a second hard link has \"same_as\": its first path, and
its members are listed once, under the first.
attributes: {name: {\"datatype\": DT, \"shape\": [..] | null, \"value\": V}}; a null shape
is a scalar; null maxshape entries are unlimited.
DT: {\"class\": \"integer\", \"size\", \"signed\", \"order\": \"little\" | \"big\"}
    {\"class\": \"float\", \"size\", \"order\"}
    {\"class\": \"string\", \"length\": n | \"variable\", \"charset\": \"ascii\" | \"utf8\",
     \"padding\": \"nullterm\" | \"nullpad\" | \"spacepad\"}
    {\"class\": \"compound\", \"size\": n | null (null when a member is variable-length),
     \"members\": [{\"name\", \"offset\", \"datatype\"}]}
    {\"class\": \"enum\", \"base\": DT, \"members\": [[name, int]]}
    {\"class\": \"array\", \"base\": DT, \"dims\": [..]}
V: a scalar's value, or the list of elements in row-major order. Integers are JSON
integers; floats are the hex bit pattern of the value as an f64 (\"0x3ff0000000000000\"
is 1.0), so every bit survives; strings have their padding removed and are JSON strings
when valid UTF-8, else {\"bytes\": \"<hex>\"}; enums are {\"name\": str | null, \"value\":
int}; compounds are [[member, V], ...]; array-type elements are lists.
This is the format of tests/corpus/*.json, which h5py's own reading produced.";

/// Elements shown per array in text mode before `…`.
const TEXT_ELEMENTS: usize = 8;
/// Characters of a string shown in text mode before `…`.
const TEXT_CHARS: usize = 64;

pub fn run(opts: Opts) -> Result<(), Failure> {
    let name = opts.file.display();
    let source = LocalFile::open(&opts.file)
        .map_err(|e| Failure::in_file(&name, format!("cannot open: {e}")))?;
    let file = File::open(source)
        .map_err(|e| Failure::in_file(&name, format!("not a readable HDF5 file: {e}")))?;
    let entries = walk(&file, &opts.path, opts.data).map_err(|e| Failure::in_file(&name, e))?;

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let written = if opts.json {
        let doc = to_json(&entries);
        serde_json::to_writer(&mut out, &doc)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write_text(&mut out, &entries)
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // `sp ls big.h5 | head` is not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::new(format!("cannot write the listing: {e}"))),
    }
}

/// One object of the listing, with everything either output shows of it.
#[derive(Debug)]
struct Entry {
    path: String,
    node: Node,
}

#[derive(Debug)]
enum Node {
    Group {
        attributes: Vec<(Attribute, Value)>,
        same_as: Option<String>,
    },
    Dataset(Box<DatasetInfo>),
    Datatype,
    /// An object this reader cannot decode (external storage, an unknown filter, …).
    Unsupported(String),
    Link {
        kind: &'static str,
        /// The other file, for an external link.
        file: Option<String>,
        target: Option<String>,
    },
}

#[derive(Debug)]
struct DatasetInfo {
    datatype: Datatype,
    shape: Option<Shape>,
    max_shape: Option<Vec<u64>>,
    storage: Storage,
    attributes: Vec<(Attribute, Value)>,
    /// Every element, when asked for.
    values: Option<Vec<Value>>,
}

/// An object still to be read, or an entry already complete, in listing order.
enum Pending<'f, R: ReadAt> {
    Visit(String, Object<'f, R>),
    Done(Entry),
}

/// Reads the object at `root` and, for a group, everything under it, depth first with
/// members sorted by name. A group is descended into once however many hard links reach
/// it, so a cyclic file ends.
fn walk<R: ReadAt>(file: &File<R>, root: &str, data: bool) -> Result<Vec<Entry>> {
    let root = normalize(root);
    let mut out = Vec::new();
    let mut seen: HashMap<u64, String> = HashMap::new();
    let top = file.object(&root)?;
    if let Object::Group(g) = &top {
        seen.insert(g.address(), root.clone());
    }
    let mut stack = vec![Pending::Visit(root, top)];
    while let Some(next) = stack.pop() {
        let (path, object) = match next {
            Pending::Done(entry) => {
                out.push(entry);
                continue;
            }
            Pending::Visit(path, object) => (path, object),
        };
        let g = match object {
            Object::Dataset(d) => {
                let node = match dataset_info(file, &d, data) {
                    Ok(info) => Node::Dataset(Box::new(info)),
                    Err(e) if e.kind() == ErrorKind::Unsupported => {
                        Node::Unsupported(e.message().to_string())
                    }
                    Err(e) => return Err(e),
                };
                out.push(Entry { node, path });
                continue;
            }
            Object::Group(g) => g,
        };
        out.push(Entry {
            path: path.clone(),
            node: Node::Group {
                attributes: with_values(file, g.attributes()?)?,
                same_as: None,
            },
        });
        let mut members = Vec::new();
        for link in g.links()? {
            let child = join(&path, &link.name);
            let done = |node| {
                Pending::Done(Entry {
                    path: child.clone(),
                    node,
                })
            };
            let addr = match link.kind {
                LinkKind::Hard(a) => a,
                LinkKind::Soft(target) => {
                    members.push(done(Node::Link {
                        kind: "soft link",
                        file: None,
                        target: Some(target),
                    }));
                    continue;
                }
                LinkKind::External { file, path } => {
                    members.push(done(Node::Link {
                        kind: "external link",
                        file: Some(file),
                        target: Some(path),
                    }));
                    continue;
                }
                LinkKind::Other => {
                    members.push(done(Node::Link {
                        kind: "user-defined link",
                        file: None,
                        target: None,
                    }));
                    continue;
                }
            };
            let object = match file.object_at(addr, &child) {
                // Committed datatypes are listed as such; the header is read again only then.
                Err(e) if e.kind() == ErrorKind::Unsupported => {
                    members.push(done(match file.kind_at(addr, &child)? {
                        ObjectKind::Datatype => Node::Datatype,
                        _ => Node::Unsupported(e.message().to_string()),
                    }));
                    continue;
                }
                other => other?,
            };
            match (&object, seen.get(&addr)) {
                (Object::Group(again), Some(first)) => members.push(done(Node::Group {
                    attributes: with_values(file, again.attributes()?)?,
                    same_as: Some(first.clone()),
                })),
                (Object::Group(_), None) => {
                    seen.insert(addr, child.clone());
                    members.push(Pending::Visit(child, object));
                }
                (Object::Dataset(_), _) => members.push(Pending::Visit(child, object)),
            }
        }
        stack.extend(members.into_iter().rev());
    }
    Ok(out)
}

fn dataset_info<R: ReadAt>(
    file: &File<R>,
    d: &reader::Dataset<'_, R>,
    data: bool,
) -> Result<DatasetInfo> {
    Ok(DatasetInfo {
        datatype: d.datatype().clone(),
        shape: d.shape(),
        max_shape: d.max_shape(),
        storage: d.storage(),
        attributes: with_values(file, d.attributes()?)?,
        values: if data { Some(d.read_values()?) } else { None },
    })
}

fn with_values<R: ReadAt>(
    file: &File<R>,
    attrs: Vec<Attribute>,
) -> Result<Vec<(Attribute, Value)>> {
    attrs
        .into_iter()
        .map(|a| {
            let v = a.value(file)?;
            Ok((a, v))
        })
        .collect()
}

fn normalize(path: &str) -> String {
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

// ------------------------------------------------------------------------------ JSON

/// The listing as one JSON document (see [`JSON_HELP`]).
fn to_json(entries: &[Entry]) -> Json {
    let mut doc = BTreeMap::new();
    for e in entries {
        let v = match &e.node {
            Node::Group {
                attributes,
                same_as,
            } => {
                let mut m = Map::new();
                m.insert("kind".into(), json!("group"));
                m.insert("attributes".into(), attrs_json(attributes));
                if let Some(first) = same_as {
                    m.insert("same_as".into(), json!(first));
                }
                Json::Object(m)
            }
            Node::Dataset(d) => dataset_json(d),
            Node::Datatype => json!({"kind": "datatype"}),
            Node::Unsupported(reason) => json!({"kind": "unsupported", "reason": reason}),
            Node::Link { kind, file, target } => {
                let mut m = Map::new();
                m.insert("kind".into(), json!(kind));
                if let Some(f) = file {
                    m.insert("file".into(), json!(f));
                }
                m.insert("target".into(), json!(target));
                Json::Object(m)
            }
        };
        doc.insert(e.path.clone(), v);
    }
    Json::Object(doc.into_iter().collect())
}

fn dataset_json(d: &DatasetInfo) -> Json {
    let (layout, chunks, filters) = match &d.storage {
        Storage::Compact => ("compact", Json::Null, json!([])),
        Storage::Contiguous => ("contiguous", Json::Null, json!([])),
        Storage::Chunked { chunk, filters, .. } => (
            "chunked",
            json!(chunk),
            json!(filters.iter().map(|f| f.id.0).collect::<Vec<_>>()),
        ),
    };
    let maxshape = match (&d.shape, &d.max_shape) {
        (Some(Shape::Simple(_)), Some(m)) => Json::Array(
            m.iter()
                .map(|&x| if x == u64::MAX { Json::Null } else { json!(x) })
                .collect(),
        ),
        _ => Json::Null,
    };
    let mut m = Map::new();
    m.insert("kind".into(), json!("dataset"));
    m.insert("datatype".into(), datatype_json(&d.datatype));
    m.insert("shape".into(), shape_json(&d.shape));
    m.insert("maxshape".into(), maxshape);
    m.insert("layout".into(), json!(layout));
    m.insert("chunks".into(), chunks);
    m.insert("filters".into(), filters);
    m.insert("attributes".into(), attrs_json(&d.attributes));
    if let Some(values) = &d.values {
        let value = match (&d.shape, values.as_slice()) {
            (Some(Shape::Scalar), [v]) => value_json(v),
            _ => Json::Array(values.iter().map(value_json).collect()),
        };
        m.insert("value".into(), value);
    }
    Json::Object(m)
}

fn attrs_json(attrs: &[(Attribute, Value)]) -> Json {
    Json::Object(
        attrs
            .iter()
            .map(|(a, v)| {
                (
                    a.name().to_string(),
                    json!({
                        "datatype": datatype_json(a.datatype()),
                        "shape": shape_json(&a.shape()),
                        "value": value_json(v),
                    }),
                )
            })
            .collect(),
    )
}

fn order_json(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::Big => "big",
        ByteOrder::Little => "little",
    }
}

fn datatype_json(dt: &Datatype) -> Json {
    match dt {
        Datatype::Integer {
            size,
            signed,
            order,
        } => {
            json!({"class": "integer", "size": size, "signed": signed, "order": order_json(*order)})
        }
        Datatype::Float { size, order } => {
            json!({"class": "float", "size": size, "order": order_json(*order)})
        }
        Datatype::String {
            length,
            charset,
            padding,
        } => json!({
            "class": "string",
            "length": match length {
                StringLength::Fixed(n) => json!(n),
                StringLength::Variable => json!("variable"),
            },
            "charset": match charset { CharSet::Utf8 => "utf8", CharSet::Ascii => "ascii" },
            "padding": match padding {
                StrPad::NullTerm => "nullterm",
                StrPad::NullPad => "nullpad",
                StrPad::SpacePad => "spacepad",
            },
        }),
        Datatype::Compound { size, members } => json!({
            "class": "compound",
            // h5py shows only the in-memory size of a compound with variable-length members.
            "size": if dt.is_variable_length() { Json::Null } else { json!(size) },
            "members": members
                .iter()
                .map(|m| json!({"name": m.name, "offset": m.offset, "datatype": datatype_json(&m.datatype)}))
                .collect::<Vec<_>>(),
        }),
        Datatype::Enum { base, members } => json!({
            "class": "enum",
            "base": datatype_json(base),
            "members": members
                .iter()
                .map(|m| json!([m.name, enum_value(base, &m.value).map_or(Json::Null, int_json)]))
                .collect::<Vec<_>>(),
        }),
        Datatype::Array { base, dims } => {
            json!({"class": "array", "base": datatype_json(base), "dims": dims})
        }
    }
}

/// An enum member's value in its (integer) base type.
fn enum_value(base: &Datatype, bytes: &[u8]) -> Option<i128> {
    match base {
        Datatype::Integer {
            size,
            signed,
            order,
        } => reader::value::int(bytes, *size, *signed, *order, 0).ok(),
        _ => None,
    }
}

fn int_json(v: i128) -> Json {
    if let Ok(i) = i64::try_from(v) {
        json!(i)
    } else if let Ok(u) = u64::try_from(v) {
        json!(u)
    } else {
        // Wider than JSON numbers carry exactly.
        json!(v.to_string())
    }
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::Int(i) => int_json(*i),
        Value::Float(f) => json!(format!("0x{:016x}", f.to_bits())),
        Value::String(s) => json!(s),
        Value::Bytes(b) => json!({"bytes": hex(b)}),
        Value::Enum { name, value } => json!({"name": name, "value": int_json(*value)}),
        Value::Compound(ms) => {
            Json::Array(ms.iter().map(|(n, v)| json!([n, value_json(v)])).collect())
        }
        Value::Array(vs) => Json::Array(vs.iter().map(value_json).collect()),
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn shape_json(s: &Option<Shape>) -> Json {
    match s {
        Some(Shape::Simple(d)) => json!(d),
        _ => Json::Null,
    }
}

// ------------------------------------------------------------------------------ text

/// The listing as an indented tree: one line per object, attributes (and values with
/// `--data`) indented under it.
fn write_text(out: &mut impl Write, entries: &[Entry]) -> io::Result<()> {
    for e in entries {
        let mut line = e.path.clone();
        match &e.node {
            Node::Group { same_as, .. } => {
                line.push_str("  group");
                if let Some(first) = same_as {
                    let _ = write!(line, " (same as {first})");
                }
            }
            Node::Dataset(d) => {
                let _ = write!(
                    line,
                    "  dataset  {}  {}  {}",
                    datatype_text(&d.datatype),
                    shape_text(&d.shape, d.max_shape.as_deref()),
                    storage_text(&d.storage)
                );
            }
            Node::Datatype => line.push_str("  committed datatype"),
            Node::Unsupported(reason) => {
                let _ = write!(line, "  not readable here: {reason}");
            }
            Node::Link { kind, file, target } => {
                let _ = write!(line, "  {kind}");
                match (file, target) {
                    (Some(f), Some(t)) => {
                        let _ = write!(line, " -> {f}:{t}");
                    }
                    (None, Some(t)) => {
                        let _ = write!(line, " -> {t}");
                    }
                    _ => {}
                }
            }
        }
        writeln!(out, "{line}")?;
        let attributes = match &e.node {
            Node::Group { attributes, .. } => attributes.as_slice(),
            Node::Dataset(d) => d.attributes.as_slice(),
            _ => &[],
        };
        for (a, v) in attributes {
            writeln!(
                out,
                "    @{}: {} {} = {}",
                a.name(),
                datatype_text(a.datatype()),
                shape_text(&a.shape(), None),
                value_text(v)
            )?;
        }
        if let Node::Dataset(d) = &e.node {
            if let Some(values) = &d.values {
                let v = match (&d.shape, values.as_slice()) {
                    (Some(Shape::Scalar), [v]) => value_text(v),
                    _ => list_text(values.iter().map(value_text), values.len(), "[", "]"),
                };
                writeln!(out, "    = {v}")?;
            }
        }
    }
    Ok(())
}

/// A datatype in HDF5 terms: `i64 LE`, `vlen utf-8 string`, `compound{a: f64 LE, …}`.
fn datatype_text(dt: &Datatype) -> String {
    let order = |size: u32, o: ByteOrder| match (size, o) {
        (1, _) => "",
        (_, ByteOrder::Little) => " LE",
        (_, ByteOrder::Big) => " BE",
    };
    match dt {
        Datatype::Integer {
            size,
            signed,
            order: o,
        } => format!(
            "{}{}{}",
            if *signed { "i" } else { "u" },
            u64::from(*size) * 8,
            order(*size, *o)
        ),
        Datatype::Float { size, order: o } => {
            format!("f{}{}", u64::from(*size) * 8, order(*size, *o))
        }
        Datatype::String {
            length,
            charset,
            padding,
        } => {
            let cs = match charset {
                CharSet::Ascii => "ascii",
                CharSet::Utf8 => "utf-8",
            };
            match length {
                StringLength::Variable => format!("vlen {cs} string"),
                StringLength::Fixed(n) => {
                    let pad = match padding {
                        StrPad::NullTerm => "null-terminated",
                        StrPad::NullPad => "null-padded",
                        StrPad::SpacePad => "space-padded",
                    };
                    format!("{cs} string[{n}] {pad}")
                }
            }
        }
        Datatype::Compound { members, .. } => {
            let parts: Vec<String> = members
                .iter()
                .map(|m| format!("{}: {}", m.name, datatype_text(&m.datatype)))
                .collect();
            format!("compound{{{}}}", parts.join(", "))
        }
        Datatype::Enum { base, members } => {
            let parts: Vec<String> = members
                .iter()
                .map(|m| match enum_value(base, &m.value) {
                    Some(v) => format!("{} = {v}", m.name),
                    None => m.name.clone(),
                })
                .collect();
            format!("enum {} {{{}}}", datatype_text(base), parts.join(", "))
        }
        Datatype::Array { base, dims } => {
            let d: Vec<String> = dims.iter().map(u64::to_string).collect();
            format!("array[{}] of {}", d.join("×"), datatype_text(base))
        }
    }
}

/// `scalar`, `[3, 4]`, `[0] of max [∞]`, or `null` for a null dataspace.
fn shape_text(shape: &Option<Shape>, max: Option<&[u64]>) -> String {
    let dims = |d: &[u64]| {
        let parts: Vec<String> = d
            .iter()
            .map(|&x| {
                if x == u64::MAX {
                    "∞".to_string()
                } else {
                    x.to_string()
                }
            })
            .collect();
        format!("[{}]", parts.join(", "))
    };
    match shape {
        None => "null".into(),
        Some(Shape::Scalar) => "scalar".into(),
        Some(Shape::Simple(d)) => match max {
            Some(m) if m != d.as_slice() => format!("{} of max {}", dims(d), dims(m)),
            _ => dims(d),
        },
    }
}

/// `contiguous`, `compact`, `chunked(1024) shuffle+deflate(4)`.
fn storage_text(s: &Storage) -> String {
    match s {
        Storage::Compact => "compact".into(),
        Storage::Contiguous => "contiguous".into(),
        Storage::Chunked { chunk, filters, .. } => {
            let c: Vec<String> = chunk.iter().map(u64::to_string).collect();
            let mut out = format!("chunked({})", c.join(", "));
            if !filters.is_empty() {
                let f: Vec<String> = filters.iter().map(filter_text).collect();
                let _ = write!(out, " {}", f.join("+"));
            }
            out
        }
    }
}

fn filter_text(f: &Filter) -> String {
    match f.id {
        FilterId::DEFLATE => match f.client_data.first() {
            Some(level) => format!("deflate({level})"),
            None => "deflate".into(),
        },
        FilterId::SHUFFLE | FilterId::FLETCHER32 => filters::display_name(f).to_string(),
        id => format!("{}({})", filters::display_name(f), id.0),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::String(s) => {
            let shown: String = s.chars().take(TEXT_CHARS).collect();
            if shown.len() < s.len() {
                format!("{:?}…", shown)
            } else {
                format!("{s:?}")
            }
        }
        Value::Bytes(b) => format!("bytes {}", hex(&b[..b.len().min(TEXT_CHARS)])),
        Value::Enum { name: Some(n), .. } => n.clone(),
        Value::Enum { name: None, value } => value.to_string(),
        Value::Compound(ms) => list_text(
            ms.iter().map(|(n, v)| format!("{n}: {}", value_text(v))),
            ms.len(),
            "{",
            "}",
        ),
        Value::Array(vs) => list_text(vs.iter().map(value_text), vs.len(), "[", "]"),
    }
}

/// At most [`TEXT_ELEMENTS`] items, then `… (n in all)`.
fn list_text(items: impl Iterator<Item = String>, n: usize, open: &str, close: &str) -> String {
    let mut parts: Vec<String> = items.take(TEXT_ELEMENTS).collect();
    if n > TEXT_ELEMENTS {
        parts.push(format!("… ({n} in all)"));
    }
    format!("{open}{}{close}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sp::hdf5lite::model::{CompoundMember, EnumMember};

    #[test]
    fn datatypes_in_hdf5_terms() {
        assert_eq!(datatype_text(&Datatype::I64), "i64 LE");
        assert_eq!(
            datatype_text(&Datatype::Integer {
                size: 1,
                signed: false,
                order: ByteOrder::Big
            }),
            "u8"
        );
        assert_eq!(
            datatype_text(&Datatype::Float {
                size: 4,
                order: ByteOrder::Big
            }),
            "f32 BE"
        );
        assert_eq!(datatype_text(&Datatype::VLEN_UTF8), "vlen utf-8 string");
        assert_eq!(
            datatype_text(&Datatype::String {
                length: StringLength::Fixed(6),
                charset: CharSet::Ascii,
                padding: StrPad::SpacePad
            }),
            "ascii string[6] space-padded"
        );
        let compound = Datatype::Compound {
            size: 16,
            members: vec![
                CompoundMember {
                    name: "total".into(),
                    offset: 0,
                    datatype: Datatype::I64,
                },
                CompoundMember {
                    name: "mean".into(),
                    offset: 8,
                    datatype: Datatype::F64,
                },
            ],
        };
        assert_eq!(
            datatype_text(&compound),
            "compound{total: i64 LE, mean: f64 LE}"
        );
        assert_eq!(
            datatype_text(&Datatype::bool_enum()),
            "enum i8 {FALSE = 0, TRUE = 1}"
        );
        let e = Datatype::Enum {
            base: Box::new(Datatype::Integer {
                size: 2,
                signed: true,
                order: ByteOrder::Big,
            }),
            members: vec![EnumMember {
                name: "BLUE".into(),
                value: vec![0, 42],
            }],
        };
        assert_eq!(datatype_text(&e), "enum i16 BE {BLUE = 42}");
        let arr = Datatype::Array {
            base: Box::new(Datatype::U32),
            dims: vec![2, 3],
        };
        assert_eq!(datatype_text(&arr), "array[2×3] of u32 LE");
    }

    #[test]
    fn shapes_and_storage() {
        assert_eq!(shape_text(&None, None), "null");
        assert_eq!(shape_text(&Some(Shape::Scalar), None), "scalar");
        assert_eq!(
            shape_text(&Some(Shape::Simple(vec![3, 4])), Some(&[3, 4])),
            "[3, 4]"
        );
        assert_eq!(
            shape_text(&Some(Shape::vector(0)), Some(&[u64::MAX])),
            "[0] of max [∞]"
        );
        let deflate = Filter {
            id: FilterId::DEFLATE,
            name: None,
            flags: 0,
            client_data: vec![4],
        };
        let shuffle = Filter {
            id: FilterId::SHUFFLE,
            name: None,
            flags: 0,
            client_data: vec![8],
        };
        let lzf = Filter {
            id: FilterId::LZF,
            name: Some("lzf".into()),
            flags: 1,
            client_data: vec![],
        };
        assert_eq!(
            storage_text(&Storage::Chunked {
                chunk: vec![1024],
                index: sp::hdf5lite::reader::ChunkIndex::BTreeV1,
                filters: vec![shuffle, deflate, lzf],
            }),
            "chunked(1024) shuffle+deflate(4)+lzf(32000)"
        );
        assert_eq!(storage_text(&Storage::Contiguous), "contiguous");
    }

    #[test]
    fn values_in_text_are_shortened() {
        let long = Value::Array((0..20).map(Value::Int).collect());
        assert_eq!(value_text(&long), "[0, 1, 2, 3, 4, 5, 6, 7, … (20 in all)]");
        assert_eq!(value_text(&Value::Float(0.1)), "0.1");
        assert_eq!(value_text(&Value::Float(f64::NAN)), "NaN");
        assert_eq!(value_text(&Value::String("a\"b".into())), "\"a\\\"b\"");
        let s = "x".repeat(100);
        assert_eq!(
            value_text(&Value::String(s)),
            format!("\"{}\"…", "x".repeat(64))
        );
        assert_eq!(
            value_text(&Value::Compound(vec![
                ("a".into(), Value::Int(1)),
                (
                    "b".into(),
                    Value::Enum {
                        name: None,
                        value: 7
                    }
                )
            ])),
            "{a: 1, b: 7}"
        );
        assert_eq!(value_text(&Value::Bytes(vec![0xff, 0xfe])), "bytes fffe");
    }

    #[test]
    fn json_values_keep_every_bit() {
        assert_eq!(value_json(&Value::Float(1.0)), json!("0x3ff0000000000000"));
        assert_eq!(value_json(&Value::Int(u64::MAX.into())), json!(u64::MAX));
        assert_eq!(value_json(&Value::Int(-1)), json!(-1));
        assert_eq!(
            value_json(&Value::Int(i128::MIN)),
            json!(i128::MIN.to_string())
        );
        assert_eq!(
            value_json(&Value::Bytes(vec![0xff, 0x01])),
            json!({"bytes": "ff01"})
        );
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalize(""), "/");
        assert_eq!(normalize("a//b/"), "/a/b");
        assert_eq!(join("/", "x"), "/x");
        assert_eq!(join("/a", "x"), "/a/x");
    }
}
