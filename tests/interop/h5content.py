#!/usr/bin/env python3
"""Canonical content of an HDF5 file, and a content comparison of two files.

    h5content.py dump FILE
    h5content.py compare A B [--ignore-attr PATH ...]

`dump` prints JSON: every group, dataset, committed datatype and attribute by
path, with datatypes fully described (class, size, byte order, sign,
precision; strings: variable vs fixed size, charset, padding; compound:
member names, offsets and types in order; enum: base and members; array:
dims and base), dataspaces (null, scalar, or simple dims) and exact values
(ints as ints, floats as float.hex(), strings as str; bytes that are valid
UTF-8 decoded to str).

Storage is deliberately absent: contiguous vs chunked, chunk shape, filters,
max dims, fill values, allocation time, message and object-header versions,
attribute and link order. Two files whose content is identical but which are
stored differently compare equal (SCHEMA.md, "What compatible means").

`compare` exits 0 when the contents are identical, 1 with a short list of
differences (path, then what differs), 2 on usage errors. An --ignore-attr
PATH is an object path and an attribute name joined by "/" (for example
`/metadata/label`, `//scope_profiler_schema` or `/scope_profiler_schema` for a
root attribute).
"""

import argparse
import json
import sys

import h5py
import numpy as np
from h5py import h5a, h5s, h5t

MAX_REPORTED = 20

_ORDER = {h5t.ORDER_LE: "LE", h5t.ORDER_BE: "BE", h5t.ORDER_NONE: "none"}
_SIGN = {h5t.SGN_NONE: "unsigned", h5t.SGN_2: "signed"}
_CSET = {h5t.CSET_ASCII: "ascii", h5t.CSET_UTF8: "utf-8"}
_STRPAD = {h5t.STR_NULLTERM: "nullterm", h5t.STR_NULLPAD: "nullpad", h5t.STR_SPACEPAD: "spacepad"}
_NORM = {h5t.NORM_IMPLIED: "implied", h5t.NORM_MSBSET: "msbset", h5t.NORM_NONE: "none"}
_CLASS = {
    h5t.INTEGER: "integer",
    h5t.FLOAT: "float",
    h5t.TIME: "time",
    h5t.STRING: "string",
    h5t.BITFIELD: "bitfield",
    h5t.OPAQUE: "opaque",
    h5t.COMPOUND: "compound",
    h5t.REFERENCE: "reference",
    h5t.ENUM: "enum",
    h5t.VLEN: "vlen",
    h5t.ARRAY: "array",
}


def describe_type(tid):
    """A JSON-able description of an HDF5 datatype (content, not storage)."""
    cls = tid.get_class()
    d = {"class": _CLASS.get(cls, "class-%d" % cls), "size": tid.get_size()}
    if cls in (h5t.INTEGER, h5t.BITFIELD):
        d["order"] = _ORDER.get(tid.get_order(), tid.get_order())
        d["precision"] = tid.get_precision()
        d["offset"] = tid.get_offset()
        if cls == h5t.INTEGER:
            d["sign"] = _SIGN.get(tid.get_sign(), tid.get_sign())
    elif cls == h5t.FLOAT:
        d["order"] = _ORDER.get(tid.get_order(), tid.get_order())
        d["precision"] = tid.get_precision()
        d["offset"] = tid.get_offset()
        spos, epos, esize, mpos, msize = tid.get_fields()
        d["fields"] = {"sign": spos, "exponent": [epos, esize], "mantissa": [mpos, msize]}
        d["ebias"] = tid.get_ebias()
        d["norm"] = _NORM.get(tid.get_norm(), tid.get_norm())
    elif cls == h5t.STRING:
        variable = tid.is_variable_str()
        d["variable"] = bool(variable)
        if variable:
            del d["size"]  # the in-memory size of a vlen string is not content
        d["charset"] = _CSET.get(tid.get_cset(), tid.get_cset())
        d["padding"] = _STRPAD.get(tid.get_strpad(), tid.get_strpad())
    elif cls == h5t.COMPOUND:
        d["members"] = [
            {
                "name": tid.get_member_name(i).decode("utf-8", "replace"),
                "offset": tid.get_member_offset(i),
                "type": describe_type(tid.get_member_type(i)),
            }
            for i in range(tid.get_nmembers())
        ]
    elif cls == h5t.ENUM:
        d["base"] = describe_type(tid.get_super())
        d["members"] = [
            [tid.get_member_name(i).decode("utf-8", "replace"), int(tid.get_member_value(i))]
            for i in range(tid.get_nmembers())
        ]
    elif cls == h5t.ARRAY:
        d["dims"] = list(tid.get_array_dims())
        d["base"] = describe_type(tid.get_super())
    elif cls == h5t.VLEN:
        del d["size"]
        d["base"] = describe_type(tid.get_super())
    elif cls == h5t.OPAQUE:
        d["tag"] = tid.get_tag().decode("utf-8", "replace")
    return d


def describe_space(sid):
    kind = sid.get_simple_extent_type()
    if kind == h5s.SCALAR:
        return "scalar"
    if kind == h5s.NULL:
        return "null"
    return list(sid.get_simple_extent_dims())


def _text(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"bytes": b.hex()}


def _plain(v):
    """numpy / h5py value → JSON-able value; floats as float.hex()."""
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "iu":
            return v.tolist()
        if v.dtype.kind == "f":
            return [float(x).hex() for x in v.ravel().tolist()] if v.ndim == 1 else [_plain(x) for x in v]
        return [_plain(x) for x in v]
    if isinstance(v, np.void):  # one compound record (or an opaque blob)
        if v.dtype.names is None:
            return {"bytes": bytes(v).hex()}
        return [_plain(v[name]) for name in v.dtype.names]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v).hex()
    if isinstance(v, bytes):
        return _text(v)
    if isinstance(v, str):
        return v
    if isinstance(v, h5py.Empty):
        return None
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return repr(v)


def _attrs(obj):
    out = {}
    for name in obj.attrs:
        aid = h5a.open(obj.id, name.encode("utf-8"))
        tid = aid.get_type()
        try:
            value = obj.attrs[name]
        except (OSError, TypeError, ValueError) as err:  # unreadable by h5py: record why
            value = "<unreadable: %s>" % err
        out[name] = {
            "type": describe_type(tid),
            "space": describe_space(aid.get_space()),
            "value": _plain(value),
        }
    return out


def dump(path):
    """Content of the file at `path` as {object path: description}."""
    content = {}
    with h5py.File(path, "r") as f:

        def visit(gpath, group):
            content[gpath] = {"kind": "group", "attrs": _attrs(group)}
            for name in sorted(group.keys()):
                child_path = gpath.rstrip("/") + "/" + name
                link = group.get(name, getlink=True)
                if isinstance(link, h5py.SoftLink):
                    content[child_path] = {"kind": "softlink", "target": link.path}
                    continue
                if isinstance(link, h5py.ExternalLink):
                    content[child_path] = {"kind": "externallink", "target": [link.filename, link.path]}
                    continue
                obj = group[name]
                if isinstance(obj, h5py.Group):
                    visit(child_path, obj)
                elif isinstance(obj, h5py.Dataset):
                    content[child_path] = {
                        "kind": "dataset",
                        "type": describe_type(obj.id.get_type()),
                        "space": describe_space(obj.id.get_space()),
                        "value": _plain(obj[()]),
                        "attrs": _attrs(obj),
                    }
                else:
                    content[child_path] = {
                        "kind": "datatype",
                        "type": describe_type(obj.id),
                        "attrs": _attrs(obj),
                    }

        visit("/", f)
    return content


def _first_value_difference(a, b):
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "length %d vs %d" % (len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                n = sum(1 for p, q in zip(a, b) if p != q)
                return "%d element(s) differ, first at [%d]: %s vs %s" % (n, i, _short(x), _short(y))
    return "%s vs %s" % (_short(a), _short(b))


def _short(v):
    s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if len(s) <= 160 else s[:157] + "..."


def _compare_entry(path, ea, eb, out):
    for key in ("type", "space", "target"):
        if ea.get(key) != eb.get(key):
            out.append("%s: %s %s vs %s" % (path, key, _short(ea.get(key)), _short(eb.get(key))))
    if "value" in ea and ea.get("value") != eb.get("value"):
        out.append("%s: value %s" % (path, _first_value_difference(ea["value"], eb["value"])))


def differences(a, b, ignore_attrs=()):
    """List of human-readable differences between two dumps."""
    ignored = set()
    for p in ignore_attrs:
        obj, _, attr = p.rpartition("/")
        ignored.add((obj or "/", attr))
    out = []
    for path in sorted(set(a) | set(b)):
        if path not in b:
            out.append("%s: only in A (%s)" % (path, a[path]["kind"]))
            continue
        if path not in a:
            out.append("%s: only in B (%s)" % (path, b[path]["kind"]))
            continue
        ea, eb = a[path], b[path]
        if ea["kind"] != eb["kind"]:
            out.append("%s: kind %s vs %s" % (path, ea["kind"], eb["kind"]))
            continue
        _compare_entry(path, ea, eb, out)
        aa, ab = ea.get("attrs", {}), eb.get("attrs", {})
        for name in sorted(set(aa) | set(ab)):
            if (path, name) in ignored:
                continue
            label = "%s@%s" % (path, name)
            if name not in ab:
                out.append("%s: attribute only in A" % label)
            elif name not in aa:
                out.append("%s: attribute only in B" % label)
            else:
                _compare_entry(label, aa[name], ab[name], out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_dump = sub.add_parser("dump", help="print the canonical JSON content of FILE")
    p_dump.add_argument("file")
    p_cmp = sub.add_parser("compare", help="exit 0 if A and B have identical content, else 1")
    p_cmp.add_argument("a")
    p_cmp.add_argument("b")
    p_cmp.add_argument("--ignore-attr", action="append", default=[], metavar="PATH")
    args = parser.parse_args(argv)

    if args.command == "dump":
        json.dump(dump(args.file), sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    diffs = differences(dump(args.a), dump(args.b), args.ignore_attr)
    if not diffs:
        return 0
    print("%s and %s differ (%d difference(s)):" % (args.a, args.b, len(diffs)))
    for line in diffs[:MAX_REPORTED]:
        print("  " + line)
    if len(diffs) > MAX_REPORTED:
        print("  ... and %d more" % (len(diffs) - MAX_REPORTED))
    return 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. `dump FILE | head`
        sys.exit(1)
