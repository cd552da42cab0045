//! The listing as one JSON document: what `sp ls --json` prints and the browser page's raw
//! view reads.
//!
//! The document is one object keyed by object path, in byte order of the paths (`/` first):
//!
//! ```text
//! {"kind": "group", "attributes": ATTRS}                 (+ "same_as": path, when a group
//!                                                          is reached again; its members
//!                                                          are listed once, under the first)
//! {"kind": "dataset", "datatype": DT, "shape": SHAPE, "maxshape": SHAPE,
//!  "layout": "compact" | "contiguous" | "chunked" | "external" | "virtual",
//!  "chunks": [..] | null, "filters": [FILTER], "attributes": ATTRS,
//!  "value": V | "error": str}                            (value or error only with values;
//!                                                          + "count": n when a cap kept
//!                                                          fewer of its n elements)
//! {"kind": "datatype", "datatype": DT, "attributes": ATTRS}   a committed datatype
//! {"kind": "soft link", "target": path}                  not followed
//! {"kind": "external link", "file": name, "target": path}
//! {"kind": "user-defined link", "target": null}
//! {"kind": "unreadable", "error": str}                   an object that cannot be read
//! ```
//! Any object may also have `"errors": [str]`: links or attributes of it that cannot be
//! read at all.
//!
//! - ATTRS: `{name: {"datatype": DT, "shape": SHAPE, "value": V | "error": str}}`.
//! - SHAPE: `[]` for a scalar, `[d, …]`, `null` for a null dataspace (no elements); in
//!   `maxshape`, `null` entries are unlimited.
//! - FILTER: `{"id": n, "name": str, "client_data": [n, …]}`.
//! - DT, by class:
//!   `{"class": "integer", "size", "signed", "order": "little" | "big"}` (+ `"precision"`
//!   and `"offset"` in bits when it uses fewer than all its bits);
//!   `{"class": "float", "size", "order"}`;
//!   `{"class": "string", "length": n | "variable", "charset": "ascii" | "utf8",
//!   "padding": "nullterm" | "nullpad" | "spacepad"}`;
//!   `{"class": "compound", "size": n | null (null when a member is variable-length),
//!   "members": [{"name", "offset", "datatype"}]}`;
//!   `{"class": "enum", "base": DT, "members": [[name, int]]}`;
//!   `{"class": "array", "base": DT, "dims": [..]}`;
//!   `{"class": "vlen", "base": DT}` (a variable-length sequence);
//!   `{"class": "bitfield", "size", "order", "precision", "offset"}`;
//!   `{"class": "opaque", "size", "tag"}`;
//!   `{"class": "reference", "kind": "object" | "region"}`;
//!   `{"class": "time", "size", "order"}`;
//!   `{"class": "unsupported", "code": n, "size": n, "reason": str}`.
//! - V: a scalar's value, or the list of elements in row-major order. Integers are JSON
//!   integers (a decimal string past 64 bits); floats are JSON numbers in the shortest text
//!   that reads back to the same value in their own width (an f32 as an f32), and NaN,
//!   Infinity and -Infinity are the strings `"NaN"`, `"Infinity"`, `"-Infinity"`; strings
//!   have their padding removed and are JSON strings when valid UTF-8, else
//!   `{"bytes": "<hex>"}`, as are opaque elements; enums are `{"name": str | null,
//!   "value": int}`; compounds are `[[member, V], …]`; arrays and variable-length sequences
//!   are lists; object references are the target's path (`null` for a null reference,
//!   `{"address": n}` for an object no path reaches); region references are
//!   `{"path": str, "selection": "all" | "none" | {"points": [[..], …]} |
//!   {"blocks": [[[first..], [last..]], …]}}`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use super::display::{enum_value, hex};
use super::{AttributeNode, DatasetNode, LinkNode, Node, NodeKind};
use crate::hdf5lite::filters::{self, Filter};
use crate::hdf5lite::model::{
    ByteOrder, CharSet, Datatype, ReferenceKind, Shape, StrPad, StringLength,
};
use crate::hdf5lite::reader::{Reference, Selection, Storage, Value};

/// The JSON document [`write_json`] writes, described for a person (`sp ls --help` shows
/// it).
pub const JSON_FORMAT: &str = "\
JSON output: one object keyed by object path, in byte order of the paths (\"/\" first):
  {\"kind\": \"group\", \"attributes\": ATTRS}       (+ \"same_as\": first path, for a group
                                                  reached again; its members are listed once)
  {\"kind\": \"dataset\", \"datatype\": DT, \"shape\": SHAPE, \"maxshape\": SHAPE,
   \"layout\": \"compact\" | \"contiguous\" | \"chunked\" | \"external\" | \"virtual\",
   \"chunks\": [..] | null, \"filters\": [{\"id\", \"name\", \"client_data\"}],
   \"attributes\": ATTRS, \"value\": V | \"error\": reason}   (value or error with --data)
  {\"kind\": \"datatype\", \"datatype\": DT, \"attributes\": ATTRS}     a committed datatype
  {\"kind\": \"soft link\", \"target\": path}                         not followed
  {\"kind\": \"external link\", \"file\": name, \"target\": path}      not followed
  {\"kind\": \"user-defined link\", \"target\": null}
  {\"kind\": \"unreadable\", \"error\": reason}         an object that cannot be read
Any object may also have \"errors\": [reason]: links or attributes of it that cannot be
read at all.
ATTRS: {name: {\"datatype\": DT, \"shape\": SHAPE, \"value\": V | \"error\": reason}}
SHAPE: [] for a scalar, [d, ...], or null for a null dataspace (no elements); null
maxshape entries are unlimited.
DT: {\"class\": \"integer\", \"size\", \"signed\", \"order\": \"little\" | \"big\"}
      (+ \"precision\", \"offset\" in bits when not all bits are used)
    {\"class\": \"float\", \"size\", \"order\"}
    {\"class\": \"string\", \"length\": n | \"variable\", \"charset\": \"ascii\" | \"utf8\",
     \"padding\": \"nullterm\" | \"nullpad\" | \"spacepad\"}
    {\"class\": \"compound\", \"size\": n | null (null when a member is variable-length),
     \"members\": [{\"name\", \"offset\", \"datatype\"}]}
    {\"class\": \"enum\", \"base\": DT, \"members\": [[name, int]]}
    {\"class\": \"array\", \"base\": DT, \"dims\": [..]}
    {\"class\": \"vlen\", \"base\": DT}                 a variable-length sequence
    {\"class\": \"bitfield\", \"size\", \"order\", \"precision\", \"offset\"}
    {\"class\": \"opaque\", \"size\", \"tag\"}
    {\"class\": \"reference\", \"kind\": \"object\" | \"region\"}
    {\"class\": \"time\", \"size\", \"order\"}
    {\"class\": \"unsupported\", \"code\", \"size\", \"reason\"}
V: a scalar's value, or the list of elements in row-major order.
  Integers are JSON integers (a decimal string past 64 bits).
  Floats are JSON numbers, in the shortest text that reads back to the same value in
  their own width (an f32 as an f32: 0.1, not 0.10000000149011612); NaN, Infinity and
  -Infinity are the strings \"NaN\", \"Infinity\" and \"-Infinity\".
  Strings have their padding removed and are JSON strings when valid UTF-8, else
  {\"bytes\": \"<hex>\"}, as are opaque elements.
  Enums are {\"name\": str | null, \"value\": int}; compounds are [[member, V], ...];
  arrays and variable-length sequences are lists.
  Object references are the target's path (null for a null reference); region
  references are {\"path\": str, \"selection\": \"all\" | \"none\" | {\"points\": [[..], ...]}
  | {\"blocks\": [[[first..], [last..]], ...]}}.
This is the format of tests/corpus/*.json, which h5py's own reading produced.";

/// Writes the nodes as one JSON document (see the [module docs](self)), followed by a
/// newline.
pub fn write_json(out: &mut impl Write, nodes: impl IntoIterator<Item = Node>) -> io::Result<()> {
    let mut doc = BTreeMap::new();
    for node in nodes {
        let mut s = String::new();
        node_json(&mut s, &node);
        doc.insert(node.path, s);
    }
    out.write_all(b"{")?;
    for (i, (path, node)) in doc.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        let mut key = String::new();
        string(&mut key, path);
        out.write_all(key.as_bytes())?;
        out.write_all(b":")?;
        out.write_all(node.as_bytes())?;
    }
    out.write_all(b"}\n")
}

/// A JSON object written one member at a time.
struct Obj<'a> {
    s: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    fn new(s: &'a mut String) -> Self {
        s.push('{');
        Obj { s, first: true }
    }

    /// Starts member `key`; the caller writes its value into the returned string.
    fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.s.push(',');
        }
        self.first = false;
        string(self.s, key);
        self.s.push(':');
        self.s
    }

    fn str(&mut self, key: &str, v: &str) {
        string(self.key(key), v);
    }

    fn raw(&mut self, key: &str, v: impl std::fmt::Display) {
        let _ = write!(self.key(key), "{v}");
    }

    fn end(self) {
        self.s.push('}');
    }
}

fn node_json(s: &mut String, node: &Node) {
    let mut o = Obj::new(s);
    match &node.kind {
        NodeKind::Group {
            attributes,
            same_as,
        } => {
            o.str("kind", "group");
            attributes_json(o.key("attributes"), attributes);
            if let Some(first) = same_as {
                o.str("same_as", first);
            }
        }
        NodeKind::Dataset(d) => dataset_json(&mut o, d),
        NodeKind::Datatype {
            datatype,
            attributes,
        } => {
            o.str("kind", "datatype");
            datatype_json(o.key("datatype"), datatype);
            attributes_json(o.key("attributes"), attributes);
        }
        NodeKind::Link(LinkNode::Soft { target }) => {
            o.str("kind", "soft link");
            o.str("target", target);
        }
        NodeKind::Link(LinkNode::External { file, target }) => {
            o.str("kind", "external link");
            o.str("file", file);
            o.str("target", target);
        }
        NodeKind::Link(LinkNode::UserDefined) => {
            o.str("kind", "user-defined link");
            o.raw("target", "null");
        }
        NodeKind::Unreadable(e) => {
            o.str("kind", "unreadable");
            o.str("error", &e.to_string());
        }
    }
    if !node.errors.is_empty() {
        let s = o.key("errors");
        s.push('[');
        for (i, e) in node.errors.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            string(s, &e.to_string());
        }
        s.push(']');
    }
    o.end();
}

fn dataset_json(o: &mut Obj<'_>, d: &DatasetNode) {
    o.str("kind", "dataset");
    datatype_json(o.key("datatype"), &d.datatype);
    shape_json(o.key("shape"), d.shape.as_ref());
    let max = o.key("maxshape");
    match (&d.shape, &d.max_shape) {
        (Some(Shape::Simple(_)), Some(m)) => list(max, m, |s, &x| {
            if x == u64::MAX {
                s.push_str("null");
            } else {
                let _ = write!(s, "{x}");
            }
        }),
        (Some(Shape::Scalar), _) => max.push_str("[]"),
        _ => max.push_str("null"),
    }
    let (layout, chunks, filters): (&str, Option<&[u64]>, &[Filter]) = match &d.storage {
        Storage::Compact => ("compact", None, &[]),
        Storage::Contiguous => ("contiguous", None, &[]),
        Storage::External => ("external", None, &[]),
        Storage::Virtual => ("virtual", None, &[]),
        Storage::Chunked { chunk, filters, .. } => ("chunked", Some(chunk), filters),
    };
    o.str("layout", layout);
    match chunks {
        Some(c) => list(o.key("chunks"), c, |s, x| {
            let _ = write!(s, "{x}");
        }),
        None => o.raw("chunks", "null"),
    }
    list(o.key("filters"), filters, |s, f| {
        let mut fo = Obj::new(s);
        fo.raw("id", f.id.0);
        fo.str("name", filters::display_name(f));
        list(fo.key("client_data"), &f.client_data, |s, v| {
            let _ = write!(s, "{v}");
        });
        fo.end();
    });
    attributes_json(o.key("attributes"), &d.attributes);
    match &d.values {
        None => {}
        Some(Err(e)) => o.str("error", &e.to_string()),
        Some(Ok(values)) => {
            let v = o.key("value");
            match (&d.shape, values.as_slice()) {
                (Some(Shape::Scalar), [one]) => value_json(v, &d.datatype, one),
                _ => list(v, values, |s, x| value_json(s, &d.datatype, x)),
            }
            if (values.len() as u64) < d.len {
                o.raw("count", d.len);
            }
        }
    }
}

fn attributes_json(s: &mut String, attributes: &[AttributeNode]) {
    let mut o = Obj::new(s);
    for a in attributes {
        let mut ao = Obj::new(o.key(&a.name));
        datatype_json(ao.key("datatype"), &a.datatype);
        shape_json(ao.key("shape"), a.shape.as_ref());
        match &a.value {
            Ok(v) => value_json(ao.key("value"), &a.datatype, v),
            Err(e) => ao.str("error", &e.to_string()),
        }
        ao.end();
    }
    o.end();
}

fn shape_json(s: &mut String, shape: Option<&Shape>) {
    match shape {
        None => s.push_str("null"),
        Some(Shape::Scalar) => s.push_str("[]"),
        Some(Shape::Simple(d)) => list(s, d, |s, x| {
            let _ = write!(s, "{x}");
        }),
    }
}

fn order(o: ByteOrder) -> &'static str {
    match o {
        ByteOrder::Big => "big",
        ByteOrder::Little => "little",
    }
}

fn datatype_json(s: &mut String, dt: &Datatype) {
    let mut o = Obj::new(s);
    match dt {
        Datatype::Integer {
            size,
            signed,
            order: ord,
        } => {
            o.str("class", "integer");
            o.raw("size", size);
            o.raw("signed", signed);
            o.str("order", order(*ord));
        }
        Datatype::NarrowInteger {
            size,
            signed,
            order: ord,
            bits,
        } => {
            o.str("class", "integer");
            o.raw("size", size);
            o.raw("signed", signed);
            o.str("order", order(*ord));
            o.raw("precision", bits.precision);
            o.raw("offset", bits.offset);
        }
        Datatype::Float { size, order: ord } => {
            o.str("class", "float");
            o.raw("size", size);
            o.str("order", order(*ord));
        }
        Datatype::String {
            length,
            charset,
            padding,
        } => {
            o.str("class", "string");
            match length {
                StringLength::Fixed(n) => o.raw("length", n),
                StringLength::Variable => o.str("length", "variable"),
            }
            o.str(
                "charset",
                match charset {
                    CharSet::Utf8 => "utf8",
                    CharSet::Ascii => "ascii",
                },
            );
            o.str(
                "padding",
                match padding {
                    StrPad::NullTerm => "nullterm",
                    StrPad::NullPad => "nullpad",
                    StrPad::SpacePad => "spacepad",
                },
            );
        }
        Datatype::Compound { size, members } => {
            o.str("class", "compound");
            // h5py shows only the in-memory size of a compound with variable-length members.
            if dt.is_variable_length() {
                o.raw("size", "null");
            } else {
                o.raw("size", size);
            }
            list(o.key("members"), members, |s, m| {
                let mut mo = Obj::new(s);
                mo.str("name", &m.name);
                mo.raw("offset", m.offset);
                datatype_json(mo.key("datatype"), &m.datatype);
                mo.end();
            });
        }
        Datatype::Enum { base, members } => {
            o.str("class", "enum");
            datatype_json(o.key("base"), base);
            list(o.key("members"), members, |s, m| {
                s.push('[');
                string(s, &m.name);
                s.push(',');
                match enum_value(base, &m.value) {
                    Some(v) => int_json(s, v),
                    None => s.push_str("null"),
                }
                s.push(']');
            });
        }
        Datatype::Array { base, dims } => {
            o.str("class", "array");
            datatype_json(o.key("base"), base);
            list(o.key("dims"), dims, |s, d| {
                let _ = write!(s, "{d}");
            });
        }
        Datatype::Sequence { base } => {
            o.str("class", "vlen");
            datatype_json(o.key("base"), base);
        }
        Datatype::Bitfield {
            size,
            order: ord,
            bits,
        } => {
            o.str("class", "bitfield");
            o.raw("size", size);
            o.str("order", order(*ord));
            o.raw("precision", bits.precision);
            o.raw("offset", bits.offset);
        }
        Datatype::Opaque { size, tag } => {
            o.str("class", "opaque");
            o.raw("size", size);
            o.str("tag", tag);
        }
        Datatype::Reference { kind, .. } => {
            o.str("class", "reference");
            o.str(
                "kind",
                match kind {
                    ReferenceKind::Object => "object",
                    ReferenceKind::Region => "region",
                },
            );
        }
        Datatype::Time { size, order: ord } => {
            o.str("class", "time");
            o.raw("size", size);
            o.str("order", order(*ord));
        }
        Datatype::Unsupported {
            class,
            size,
            reason,
        } => {
            o.str("class", "unsupported");
            o.raw("code", class);
            o.raw("size", size);
            o.str("reason", reason);
        }
    }
    o.end();
}

/// One value of type `dt` (its floats printed in their own width).
fn value_json(s: &mut String, dt: &Datatype, v: &Value) {
    match v {
        Value::Int(i) => int_json(s, *i),
        Value::Float(x) => float_json(s, *x, float_size(dt)),
        Value::String(text) => string(s, text),
        Value::Bytes(b) => {
            s.push_str("{\"bytes\":\"");
            s.push_str(&hex(b));
            s.push_str("\"}");
        }
        Value::Enum { name, value } => {
            let mut o = Obj::new(s);
            match name {
                Some(n) => o.str("name", n),
                None => o.raw("name", "null"),
            }
            int_json(o.key("value"), *value);
            o.end();
        }
        Value::Compound(members) => {
            let types: Vec<&Datatype> = match dt {
                Datatype::Compound { members, .. } => members.iter().map(|m| &m.datatype).collect(),
                _ => Vec::new(),
            };
            s.push('[');
            for (i, (name, v)) in members.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push('[');
                string(s, name);
                s.push(',');
                value_json(s, types.get(i).copied().unwrap_or(dt), v);
                s.push(']');
            }
            s.push(']');
        }
        Value::Array(items) => {
            let base = match dt {
                Datatype::Array { base, .. } | Datatype::Sequence { base } => base.as_ref(),
                other => other,
            };
            list(s, items, |s, x| value_json(s, base, x));
        }
        Value::Reference(r) => reference_json(s, r),
    }
}

/// Bytes of the floats inside `dt`, for printing them in their own width.
fn float_size(dt: &Datatype) -> u32 {
    match dt {
        Datatype::Float { size, .. } => *size,
        _ => 8,
    }
}

fn reference_json(s: &mut String, r: &Reference) {
    match r {
        Reference::Null => s.push_str("null"),
        Reference::Object { path: Some(p), .. } => string(s, p),
        Reference::Object {
            address,
            path: None,
        } => {
            let _ = write!(s, "{{\"address\":{address}}}");
        }
        Reference::Region {
            address,
            path,
            selection,
        } => {
            let mut o = Obj::new(s);
            match path {
                Some(p) => o.str("path", p),
                None => o.raw("address", address),
            }
            let sel = o.key("selection");
            let coords = |s: &mut String, c: &Vec<u64>| {
                list(s, c, |s, x| {
                    let _ = write!(s, "{x}");
                })
            };
            match selection {
                Selection::All => string(sel, "all"),
                Selection::None => string(sel, "none"),
                Selection::Points(points) => {
                    sel.push_str("{\"points\":");
                    list(sel, points, coords);
                    sel.push('}');
                }
                Selection::Blocks(blocks) => {
                    sel.push_str("{\"blocks\":");
                    list(sel, blocks, |s, (lo, hi)| {
                        s.push('[');
                        coords(s, lo);
                        s.push(',');
                        coords(s, hi);
                        s.push(']');
                    });
                    sel.push('}');
                }
            }
            o.end();
        }
    }
}

/// A JSON integer, or a decimal string past what 64 bits hold exactly.
fn int_json(s: &mut String, v: i128) {
    if i64::try_from(v).is_ok() || u64::try_from(v).is_ok() {
        let _ = write!(s, "{v}");
    } else {
        let _ = write!(s, "\"{v}\"");
    }
}

/// A float as the shortest JSON number that reads back to the same value in `size` bytes
/// (binary16 values print as their exact binary32 text); NaN and the infinities as strings.
fn float_json(s: &mut String, x: f64, size: u32) {
    if x.is_nan() {
        s.push_str("\"NaN\"");
    } else if x.is_infinite() {
        s.push_str(if x > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    } else if size <= 4 {
        // Rust's Debug text is the shortest that round-trips, in the value's own width,
        // and is valid JSON for finite values ("1.0", "1e-7", "-0.0").
        let _ = write!(s, "{:?}", x as f32);
    } else {
        let _ = write!(s, "{x:?}");
    }
}

/// A JSON list of `items`, each written by `each`.
fn list<T>(s: &mut String, items: &[T], mut each: impl FnMut(&mut String, &T)) {
    s.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        each(s, item);
    }
    s.push(']');
}

/// A JSON string literal.
fn string(s: &mut String, text: &str) {
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", u32::from(c));
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64, size: u32) -> String {
        let mut s = String::new();
        float_json(&mut s, x, size);
        s
    }

    #[test]
    fn floats_are_shortest_numbers_in_their_own_width() {
        assert_eq!(float(1.0, 8), "1.0");
        assert_eq!(float(0.1, 8), "0.1");
        assert_eq!(float(f64::from(0.1f32), 4), "0.1");
        assert_eq!(float(f64::from(0.1f32), 8), "0.10000000149011612");
        assert_eq!(float(1e300, 8), "1e300");
        assert_eq!(float(5e-324, 8), "5e-324");
        assert_eq!(float(-0.0, 8), "-0.0");
        assert_eq!(float(-0.0999755859375, 2), "-0.099975586");
        assert_eq!(float(f64::NAN, 4), "\"NaN\"");
        assert_eq!(float(f64::INFINITY, 8), "\"Infinity\"");
        assert_eq!(float(f64::NEG_INFINITY, 2), "\"-Infinity\"");
        for x in [0.1f64, 1.0 / 3.0, 1e-310, 123456789.123, -2.25e-300] {
            assert_eq!(float(x, 8).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
    }

    #[test]
    fn integers_and_strings() {
        let mut s = String::new();
        int_json(&mut s, i128::from(u64::MAX));
        s.push(' ');
        int_json(&mut s, -1);
        s.push(' ');
        int_json(&mut s, i128::MIN);
        assert_eq!(s, format!("{} -1 \"{}\"", u64::MAX, i128::MIN));
        let mut s = String::new();
        string(&mut s, "a\"b\\c\n\u{1}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é\"");
    }

    #[test]
    fn values_follow_their_datatype() {
        let f32s = Datatype::Array {
            base: Box::new(Datatype::Float {
                size: 4,
                order: ByteOrder::Big,
            }),
            dims: vec![2],
        };
        let mut s = String::new();
        let v = Value::Array(vec![Value::Float(f64::from(0.1f32)), Value::Float(2.5)]);
        value_json(&mut s, &f32s, &v);
        assert_eq!(s, "[0.1,2.5]");
        let mut s = String::new();
        let region = Value::Reference(Reference::Region {
            address: 800,
            path: Some("/d".into()),
            selection: Selection::Blocks(vec![(vec![1, 2], vec![2, 3])]),
        });
        value_json(&mut s, &Datatype::I64, &region);
        assert_eq!(s, r#"{"path":"/d","selection":{"blocks":[[[1,2],[2,3]]]}}"#);
        let mut s = String::new();
        value_json(&mut s, &Datatype::I64, &Value::Bytes(vec![0xff, 1]));
        assert_eq!(s, r#"{"bytes":"ff01"}"#);
    }
}
