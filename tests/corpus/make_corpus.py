"""Writes the reader's test corpus and, beside each file, h5py's own reading of it as
canonical JSON (`<name>.json`). Run from anywhere with the reference venv (it needs h5py,
netCDF4 and hdf5plugin: scripts/setup-env.sh installs them):

    python tests/corpus/make_corpus.py            # regenerate everything

The files: h5py's own (every datatype class, layout and chunk index, links, references,
dimension scales, committed datatypes, null dataspaces, the filters libhdf5 and h5py build
in and hdf5plugin's zstd), netCDF-4 files from the netCDF4 package, profiles from the
reference (scope-profiler) with each compression, and the reference's golden outputs.

Canonical JSON is what `sp ls --json --data` emits; `sp ls --help` and
`src/hdf5lite/tree/json.rs` document it. Here it is produced from h5py's reading alone.
Floats are the exact value of the element as a JSON number (an f32 widened to f64); the
test compares them bit for bit in the element's own width. Filters carry their id and
client data (h5py's names for them differ from the customary ones sp shows).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import hdf5plugin
import numpy as np
from h5py import h5d, h5t

HERE = os.path.dirname(os.path.abspath(__file__))
# The reference's golden outputs (SCHEMA.md's), when given or found beside the repository.
GOLDEN_SRC = os.path.join(HERE, "..", "..", "..", "shared", "spec", "golden")


# ---------------------------------------------------------------- canonical JSON


def order(tid):
    return "big" if tid.get_order() == h5t.ORDER_BE else "little"


def dt_desc(tid):
    cls = tid.get_class()
    if cls == h5t.INTEGER:
        d = {"class": "integer", "size": tid.get_size(),
             "signed": tid.get_sign() == h5t.SGN_2, "order": order(tid)}
        if tid.get_precision() != 8 * tid.get_size() or tid.get_offset() != 0:
            d["precision"] = tid.get_precision()
            d["offset"] = tid.get_offset()
        return d
    if cls == h5t.FLOAT:
        return {"class": "float", "size": tid.get_size(), "order": order(tid)}
    if cls == h5t.STRING:
        cset = {h5t.CSET_ASCII: "ascii", h5t.CSET_UTF8: "utf8"}[tid.get_cset()]
        pad = {h5t.STR_NULLTERM: "nullterm", h5t.STR_NULLPAD: "nullpad",
               h5t.STR_SPACEPAD: "spacepad"}[tid.get_strpad()]
        length = "variable" if tid.is_variable_str() else tid.get_size()
        return {"class": "string", "length": length, "charset": cset, "padding": pad}
    if cls == h5t.COMPOUND:
        # h5py reports the in-memory size of a compound with variable-length members, not
        # the stored one, so the canonical JSON leaves it out there.
        size = None if has_vlen(tid) else tid.get_size()
        return {"class": "compound", "size": size, "members": [
            {"name": tid.get_member_name(i).decode(), "offset": tid.get_member_offset(i),
             "datatype": dt_desc(tid.get_member_type(i))}
            for i in range(tid.get_nmembers())]}
    if cls == h5t.ENUM:
        return {"class": "enum", "base": dt_desc(tid.get_super()), "members": [
            [tid.get_member_name(i).decode(), int(tid.get_member_value(i))]
            for i in range(tid.get_nmembers())]}
    if cls == h5t.ARRAY:
        return {"class": "array", "base": dt_desc(tid.get_super()),
                "dims": list(tid.get_array_dims())}
    if cls == h5t.VLEN:
        return {"class": "vlen", "base": dt_desc(tid.get_super())}
    if cls == h5t.BITFIELD:
        # h5py's bit-field type has no precision or offset: a bit field of the types h5py
        # and numpy know uses every bit.
        return {"class": "bitfield", "size": tid.get_size(), "order": order(tid),
                "precision": 8 * tid.get_size(), "offset": 0}
    if cls == h5t.OPAQUE:
        return {"class": "opaque", "size": tid.get_size(), "tag": tid.get_tag().decode()}
    if cls == h5t.REFERENCE:
        kind = "region" if tid.equal(h5t.STD_REF_DSETREG) else "object"
        return {"class": "reference", "kind": kind}
    raise ValueError(f"datatype class {cls} not in the canonical JSON")


def has_vlen(tid):
    cls = tid.get_class()
    if cls == h5t.STRING:
        return tid.is_variable_str()
    if cls == h5t.VLEN:
        return True
    if cls == h5t.COMPOUND:
        return any(has_vlen(tid.get_member_type(i)) for i in range(tid.get_nmembers()))
    if cls in (h5t.ARRAY, h5t.ENUM):
        return has_vlen(tid.get_super())
    return False


def number(x):
    """A float as JSON: its exact value (widened to f64), or a string for NaN/infinity."""
    x = float(x)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def text(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"bytes": b.hex()}


# The file being described, for dereferencing references.
CURRENT = {}


def reference(desc, x):
    f = CURRENT["file"]
    if not x:
        return None
    target = f[x]
    if desc["kind"] == "object":
        return target.name
    space = h5py.h5r.get_region(x, target.id)
    kind = space.get_select_type()
    if kind == h5py.h5s.SEL_ALL:
        selection = "all"
    elif kind == h5py.h5s.SEL_NONE:
        selection = "none"
    elif kind == h5py.h5s.SEL_POINTS:
        selection = {"points": space.get_select_elem_pointlist().tolist()}
    else:
        selection = {"blocks": space.get_select_hyper_blocklist().tolist()}
    return {"path": target.name, "selection": selection}


def value(desc, x):
    c = desc["class"]
    if c in ("integer", "bitfield"):
        return int(x)
    if c == "float":
        return number(x)
    if c == "string":
        if isinstance(x, str):
            x = x.encode("utf-8")
        x = bytes(x)
        if desc["length"] != "variable":
            pad = desc["padding"]
            if pad == "nullterm":
                x = x.split(b"\0", 1)[0]
            elif pad == "nullpad":
                x = x.rstrip(b"\0")
            else:
                x = x.rstrip(b" ")
        return text(x)
    if c == "opaque":
        return {"bytes": bytes(x).hex()}
    if c == "enum":
        v = int(x)
        names = [n for n, m in desc["members"] if m == v]
        return {"name": names[0] if names else None, "value": v}
    if c == "compound":
        return [[m["name"], value(m["datatype"], x[m["name"]])] for m in desc["members"]]
    if c == "array":
        a = np.asarray(x).reshape(-1, *array_tail(desc["base"]))
        return [value(desc["base"], e) for e in a]
    if c == "vlen":
        return [value(desc["base"], e) for e in np.asarray(x).reshape(-1)]
    if c == "reference":
        return reference(desc, x)
    raise ValueError(c)


def array_tail(desc):
    return tuple(desc["dims"]) + array_tail(desc["base"]) if desc["class"] == "array" else ()


def values(desc, shape, raw):
    if shape is None:  # a null dataspace: no elements
        return []
    a = np.asarray(raw, dtype=object if desc["class"] in ("vlen", "reference") else None)
    tail = array_tail(desc) if desc["class"] == "array" else ()
    n = int(np.prod(shape)) if shape else 1
    if desc["class"] == "array":
        a = a.reshape((n,) + tail)
    else:
        a = a.reshape(n)
    out = [value(desc, e) for e in a]
    return out[0] if shape == [] else out


def shape_of(space):
    kind = space.get_simple_extent_type()
    if kind == h5py.h5s.NULL:
        return None
    if kind == h5py.h5s.SCALAR:
        return []
    return list(space.get_simple_extent_dims())


def attrs_json(obj):
    out = {}
    for name in sorted(obj.attrs.keys()):
        aid = obj.attrs.get_id(name)
        desc = dt_desc(aid.get_type())
        shape = shape_of(aid.get_space())
        raw = obj.attrs[name] if shape is not None else None
        out[name] = {"datatype": desc, "shape": shape, "value": values(desc, shape, raw)}
    return out


LAYOUTS = {h5d.COMPACT: "compact", h5d.CONTIGUOUS: "contiguous", h5d.CHUNKED: "chunked"}


def dataset_json(ds):
    desc = dt_desc(ds.id.get_type())
    shape = shape_of(ds.id.get_space())
    dcpl = ds.id.get_create_plist()
    filters = []
    for i in range(dcpl.get_nfilters()):
        code, _flags, client_data, _name = dcpl.get_filter(i)
        filters.append({"id": code, "client_data": list(client_data)})
    return {
        "kind": "dataset",
        "datatype": desc,
        "shape": shape,
        "maxshape": None if shape is None else list(ds.maxshape),
        "layout": LAYOUTS[dcpl.get_layout()],
        "chunks": list(ds.chunks) if ds.chunks else None,
        "filters": filters,
        "attributes": attrs_json(ds),
        "value": values(desc, shape, ds[()] if shape is not None else None),
    }


def walk(f):
    out = {"/": {"kind": "group", "attributes": attrs_json(f)}}

    def rec(group, prefix):
        for name in sorted(group.keys()):
            obj = group[name]
            path = prefix + name
            if isinstance(obj, h5py.Group):
                out[path] = {"kind": "group", "attributes": attrs_json(obj)}
                rec(obj, path + "/")
            elif isinstance(obj, h5py.Datatype):
                out[path] = {"kind": "datatype", "datatype": dt_desc(obj.id),
                             "attributes": attrs_json(obj)}
            else:
                out[path] = dataset_json(obj)

    rec(f, "/")
    return out


def write_json(h5path):
    with h5py.File(h5path, "r") as f:
        CURRENT["file"] = f
        doc = walk(f)
    with open(h5path[:-3] + ".json", "w") as out:
        json.dump(doc, out, sort_keys=True, separators=(",", ":"), allow_nan=False)
        out.write("\n")


# ---------------------------------------------------------------- the corpus


def fixed(n, cset=h5t.CSET_ASCII, pad=h5t.STR_NULLTERM):
    t = h5t.C_S1.copy()
    t.set_size(n)
    t.set_cset(cset)
    t.set_strpad(pad)
    return t


def raw_dataset(group, name, tid, data, shape=None):
    """A dataset of an exact low-level string type (h5py's high level hides padding)."""
    data = np.asarray(data)
    shape = data.shape if shape is None else shape
    space = h5py.h5s.create_simple(shape) if shape != () else h5py.h5s.create(h5py.h5s.SCALAR)
    dsid = h5d.create(group.id, name.encode(), tid, space)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=tid)


def raw_attribute(obj, name, tid, data):
    data = np.asarray(data)
    space = h5py.h5s.create_simple(data.shape) if data.shape != () else h5py.h5s.create(h5py.h5s.SCALAR)
    aid = h5py.h5a.create(obj.id, name.encode(), tid, space)
    aid.write(data, mtype=tid)


def types_content(f):
    g = f.create_group("ints")
    for size in (1, 2, 4, 8):
        for signed in (True, False):
            for bo in "<>":
                kind = "i" if signed else "u"
                dt = np.dtype(f"{bo}{kind}{size}")
                info = np.iinfo(dt)
                data = np.array([info.min, info.max, 0, 1, info.max // 3], dtype=dt)
                g.create_dataset(f"{kind}{size * 8}{'be' if bo == '>' else 'le'}", data=data)
    g = f.create_group("floats")
    special = [0.0, -0.0, 1.5, -2.25e-300, np.inf, -np.inf, np.nan, 1e308, 5e-324]
    for bo in "<>":
        name = "be" if bo == ">" else "le"
        g.create_dataset(f"f64{name}", data=np.array(special, dtype=f"{bo}f8"))
        with np.errstate(over="ignore"):
            g.create_dataset(f"f32{name}", data=np.array(special, dtype=f"{bo}f4"))
    g.create_dataset("f64_2d", data=np.arange(12, dtype="<f8").reshape(3, 4) / 7)

    g = f.create_group("strings")
    words = [b"a", b"", b"hello", b"caf\xc3\xa9"]
    for cname, cset in (("ascii", h5t.CSET_ASCII), ("utf8", h5t.CSET_UTF8)):
        for pname, pad in (("nullterm", h5t.STR_NULLTERM), ("nullpad", h5t.STR_NULLPAD),
                           ("spacepad", h5t.STR_SPACEPAD)):
            filler = b" " if pad == h5t.STR_SPACEPAD else b"\0"
            data = np.array([w.ljust(8, filler) for w in words], dtype="S8")
            raw_dataset(g, f"fixed_{cname}_{pname}", fixed(8, cset, pad), data)
        enc = "ascii" if cset == h5t.CSET_ASCII else "utf-8"
        obj = words if enc == "ascii" else [w.decode() for w in words]
        g.create_dataset(f"vlen_{cname}", data=np.array(obj, dtype=object),
                         dtype=h5py.string_dtype(enc))
    raw_dataset(g, "fixed_scalar", fixed(5, h5t.CSET_UTF8, h5t.STR_NULLPAD),
                np.array(b"xyz", dtype="S5"), shape=())
    g.create_dataset("vlen_scalar", data="scalar ☃", dtype=h5py.string_dtype())
    g.create_dataset("non_utf8", data=np.array([b"\xff\xfe"], dtype="S2"))

    inner = np.dtype([("x", "<i2"), ("y", ">f4")])
    outer = np.dtype([("id", "<u8"), ("pos", inner), ("tag", "S3"), ("w", "<f8", (2,)),
                      ("name", h5py.string_dtype())])
    rows = np.zeros(3, dtype=outer)
    for i in range(3):
        rows[i] = (i + 10, (-i, i / 4), b"t%d" % i, (i, -i), f"row{i}")
    f.create_dataset("compound_nested", data=rows)
    summary = np.dtype([(n, "<i8") for n in "abcdefghijk"])
    f.create_dataset("compound_flat", data=np.arange(22, dtype="<i8").view(summary))

    colour = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="i2")
    f.create_dataset("enum", data=np.array([0, 42, 1, 7], dtype="i2"), dtype=colour)
    f.create_dataset("bool", data=np.array([True, False, True]))
    arr = f.create_dataset("array", shape=(3,), dtype=np.dtype(("<i4", (2, 2))))
    arr[...] = np.arange(12, dtype="<i4").reshape(3, 2, 2)
    f.create_dataset("scalar_i64", data=np.int64(-5))
    f.create_dataset("empty_i64", shape=(0,), dtype="<i8")
    f.create_dataset("empty_str", shape=(0,), dtype=h5py.string_dtype())
    f.create_dataset("compact", data=np.arange(5, dtype="<i4"),
                     **compact_layout())

    a = f.attrs
    a["i64"] = np.int64(-7)
    a["u8"] = np.uint8(200)
    a["f64"] = 0.1
    a["f32be"] = np.array(2.5, dtype=">f4")
    a["str"] = "attribute ☃"
    a["strs"] = np.array(["x", "yy", ""], dtype=h5py.string_dtype())
    a["ints"] = np.arange(4, dtype=">i2")
    a["bool"] = np.bool_(True)
    a["compound"] = rows[1]
    a["enum"] = np.array(42, dtype=colour)
    a["array"] = np.arange(6, dtype="<f8").reshape(2, 3)
    raw_attribute(f, "fixed_spacepad", fixed(6, h5t.CSET_ASCII, h5t.STR_SPACEPAD),
                  np.array(b"ab    ", dtype="S6"))
    f["ints/i32le"].attrs["units"] = "ns"


def compact_layout():
    # h5py has no keyword for compact layout; a dcpl does it.
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5d.COMPACT)
    return {"dcpl": dcpl}


def groups_content(f):
    for i in range(40):
        g = f.create_group(f"g{i:02d}")
        g.attrs["index"] = i
    big = f.create_group("many")
    for i in range(300):
        big.create_dataset(f"d{i:03d}", data=np.array([i], dtype="<i4"))
    small = f.create_group("few")
    small.create_dataset("x", data=np.arange(3))
    small.create_group("nested").create_group("deeper").attrs["leaf"] = "yes"
    f.create_group("empty_group")
    meta = f["g00"]
    for i in range(20):
        meta.attrs[f"attr{i:02d}"] = f"value {i}" if i % 2 else np.int64(i * 1000)


def chunked_content(f):
    n = 20_000
    data = (np.arange(n, dtype="<i8") * 7919) % 100_003
    # 157 chunks: more than one v1 B-tree node holds (64), so the tree has two levels.
    f.create_dataset("gzip_shuffle", data=data, chunks=(128,), compression="gzip",
                     shuffle=True, maxshape=(None,))
    f.create_dataset("fletcher", data=np.arange(1000, dtype="<u4"), chunks=(100,),
                     fletcher32=True)
    f.create_dataset("all_filters", data=np.linspace(0, 1, 3000), chunks=(256,),
                     shuffle=True, compression="gzip", fletcher32=True)
    strs = np.array([f"s{i % 97}" * (i % 5) for i in range(3000)], dtype=object)
    f.create_dataset("vlen_gzip", data=strs, dtype=h5py.string_dtype(), chunks=(256,),
                     compression="gzip", shuffle=True)
    d2 = f.create_dataset("grid", shape=(10, 7), dtype="<i2", chunks=(4, 3),
                          fillvalue=-1)
    d2[0:4, 0:3] = 5
    d2[8:10, 6:7] = 9
    sparse = f.create_dataset("sparse", shape=(100,), dtype="<f8", chunks=(10,),
                              fillvalue=2.5)
    sparse[20:30] = np.arange(10)
    sparse[95] = -1
    f.create_dataset("compound_chunks", data=np.arange(40, dtype="<i8").view(
        np.dtype([("a", "<i8"), ("b", "<i8")])), chunks=(4,), compression="gzip")
    f.create_dataset("empty_chunked", shape=(0,), maxshape=(None,), dtype="<i8",
                     chunks=(16,))
    # 1490 small chunks written in order, so adjacent in the file: a range over them is a
    # few reads of the source (tests/hdf5lite_reads.rs counts them).
    f.create_dataset("many_chunks", data=np.arange(14_900, dtype="<i8"), chunks=(10,))


def chunk_indexes_content(f):
    # Layout v4 with libver latest: which index depends on maxshape and allocation.
    f.create_dataset("single", data=np.arange(50, dtype="<i4"), chunks=(50,))
    f.create_dataset("single_gzip", data=np.arange(50, dtype="<i4"), chunks=(50,),
                     compression="gzip")
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((10,))
    dcpl.set_alloc_time(h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_value(np.array(3, dtype="<i4"))
    space = h5py.h5s.create_simple((95,))
    h5d.create(f.id, b"implicit", h5t.STD_I32LE, space, dcpl=dcpl)
    f["implicit"][0:40] = np.arange(40)
    f.create_dataset("fixed_array", data=np.arange(1000, dtype="<i8"), chunks=(10,))
    fa = f.create_dataset("fixed_array_sparse", shape=(1000,), dtype="<i8", chunks=(10,),
                          fillvalue=-9)
    fa[500:520] = 1
    f.create_dataset("fixed_array_paged", data=np.arange(20_000, dtype="<i2"),
                     chunks=(10,))
    f.create_dataset("fixed_array_gzip", data=np.arange(1000, dtype="<i8"), chunks=(10,),
                     compression="gzip", shuffle=True)
    f.create_dataset("ext_array", data=np.arange(5000, dtype="<i8"), chunks=(10,),
                     maxshape=(None,))
    ea = f.create_dataset("ext_array_sparse", shape=(2000,), maxshape=(None,), dtype="<u2",
                          chunks=(7,), fillvalue=11)
    ea[1000:1010] = 4
    ea[1990:] = 5
    f.create_dataset("ext_array_gzip", data=np.arange(5000, dtype="<i8"), chunks=(10,),
                     maxshape=(None,), compression="gzip", fletcher32=True)
    f.create_dataset("btree2", data=np.arange(600, dtype="<i4").reshape(30, 20),
                     chunks=(3, 4), maxshape=(None, None))
    bt = f.create_dataset("btree2_sparse", shape=(30, 20), maxshape=(None, None),
                          dtype="<i4", chunks=(3, 4), fillvalue=-2)
    bt[10:13, 4:8] = 1
    f.create_dataset("btree2_gzip", data=np.arange(600, dtype="<f8").reshape(30, 20),
                     chunks=(3, 4), maxshape=(None, None), compression="gzip")
    # Growable but bounded: the index is laid out over the maximum chunk grid.
    g2 = f.create_dataset("fixed_array_2d_growable", shape=(5, 6), maxshape=(8, 9),
                          dtype="<i4", chunks=(2, 2), fillvalue=-4)
    g2[...] = np.arange(30, dtype="<i4").reshape(5, 6)
    g2[1, 1] = 100
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((2, 2))
    dcpl.set_alloc_time(h5d.ALLOC_TIME_EARLY)
    space = h5py.h5s.create_simple((5, 6), (8, 9))
    h5d.create(f.id, b"implicit_2d_growable", h5t.STD_I32LE, space, dcpl=dcpl)
    f["implicit_2d_growable"][...] = np.arange(30, dtype="<i4").reshape(5, 6)
    ea2 = f.create_dataset("ext_array_2d", shape=(7, 5), maxshape=(7, None), dtype="<i4",
                           chunks=(3, 2))
    ea2[...] = np.arange(35, dtype="<i4").reshape(7, 5)
    f.create_dataset("empty_ext", shape=(0,), maxshape=(None,), dtype="<i8", chunks=(16,))


def unsupported_content(f):
    # What sp lists but cannot read the values of: external storage and filters it has no
    # decoder for (blosc from hdf5plugin, szip).
    f.create_dataset("external", shape=(10,), dtype="<i4",
                     external=[("external.bin", 0, h5py.h5f.UNLIMITED)])
    f.create_dataset("blosc", data=np.arange(100, dtype="<i4"), chunks=(10,),
                     **hdf5plugin.Blosc())
    f.create_dataset("szip", data=np.arange(100, dtype="<i4"), chunks=(10,),
                     compression="szip")
    f.create_dataset("readable", data=np.arange(3, dtype="<i4"))


def references_content(f):
    """Every datatype class but time, references, dimension scales, committed datatypes
    and null dataspaces."""
    data = f.create_dataset("data", data=np.arange(20, dtype="<i4").reshape(4, 5))
    g = f.create_group("g")
    g.attrs["self"] = g.ref
    f.create_dataset("refs", data=[data.ref, g.ref, h5py.Reference()], dtype=h5py.ref_dtype)
    f.create_dataset("regions", data=[data.regionref[1:3, 2:4], data.regionref[0, 0],
                                      data.regionref[::2, 1], data.regionref[...]],
                     dtype=h5py.regionref_dtype)
    points = h5py.h5s.create_simple((4, 5))
    points.select_elements([(0, 1), (3, 4), (2, 2)])
    f.create_dataset("point_region", data=[h5py.h5r.create(f.id, b"data", h5py.h5r.DATASET_REGION,
                                                           points)],
                     dtype=h5py.regionref_dtype)
    ints = h5py.vlen_dtype(np.dtype("<i2"))
    f.create_dataset("vlen_ints", data=np.array(
        [np.arange(3, dtype="<i2"), np.arange(0, dtype="<i2"), np.arange(5, dtype="<i2")],
        dtype=object), dtype=ints)
    # Little-endian: h5py 3.16 reads a vlen of big-endian floats byte-swapped (h5dump shows
    # the file holds the right values), so it cannot be the oracle for those.
    floats = h5py.vlen_dtype(np.dtype("<f8"))
    f.create_dataset("vlen_floats_chunked", data=np.array(
        [np.linspace(0, 1, i) for i in range(40)], dtype=object), dtype=floats, chunks=(8,),
        compression="gzip")
    # A variable-length sequence attribute on the root, as netCDF writes them.
    f.attrs.create("vlen_attr", np.array([np.arange(2, dtype="<i2"), np.arange(3, dtype="<i2")],
                                         dtype=object), dtype=ints)
    f.attrs["ref_attr"] = data.ref
    f.create_dataset("opaque", data=np.array([b"ab\x00c", b"\xff\x00\x01\x02"], dtype="V4"))
    space = h5py.h5s.create_simple((4,))
    bits = h5d.create(f.id, b"bitfield", h5t.STD_B16BE, space)
    bits.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([1, 2, 0xffff, 0x8000], dtype=">u2"),
               mtype=h5t.STD_B16BE)
    f.create_dataset("f16", data=np.array([1.5, -0.1, np.inf, 65504, 6e-8], dtype="<f2"))
    f.create_dataset("u128_free_enum", data=np.array([0, 1, 255], dtype="u1"),
                     dtype=h5py.enum_dtype({"LOW": 0, "HIGH": 255}, basetype="u1"))
    f.create_dataset("null", data=h5py.Empty("<f8"))
    f.attrs["null"] = h5py.Empty("<i4")
    f["point_t"] = np.dtype([("x", "<i4"), ("y", "<f8")])
    f["point_t"].attrs["note"] = "a committed type"
    f.attrs.create("committed", np.array([(1, 2.5)], dtype=f["point_t"].dtype)[0],
                   dtype=f["point_t"])
    f.create_dataset("uses_committed", data=np.array([(3, 0.5), (4, -1.0)],
                                                     dtype=f["point_t"].dtype),
                     dtype=f["point_t"])
    # Dimension scales, as netCDF and h5py's dims API write them.
    x = f.create_dataset("x", data=np.arange(5, dtype="<f8"))
    x.make_scale("x")
    data.dims[1].attach_scale(x)


def filters_content(f):
    """Every filter sp decodes, alone and with shuffle and Fletcher-32."""
    n = 5000
    ints = (np.arange(n, dtype="<i8") * 7919) % 100_003
    f.create_dataset("lzf", data=ints, chunks=(512,), compression="lzf")
    f.create_dataset("lzf_shuffle", data=ints, chunks=(512,), compression="lzf", shuffle=True,
                     fletcher32=True)
    f.create_dataset("zstd", data=ints, chunks=(512,), **hdf5plugin.Zstd(clevel=9))
    f.create_dataset("zstd_shuffle_2d", data=np.linspace(0, 1, 1200).reshape(30, 40),
                     chunks=(7, 9), shuffle=True, **hdf5plugin.Zstd())
    strs = np.array([f"s{i % 97}" * (i % 5) for i in range(3000)], dtype=object)
    f.create_dataset("lzf_vlen", data=strs, dtype=h5py.string_dtype(), chunks=(256,),
                     compression="lzf")
    f.create_dataset("scaleoffset_int", data=np.arange(100, dtype="<i4") * 3 - 50,
                     chunks=(10,), scaleoffset=0)
    f.create_dataset("scaleoffset_u8", data=(np.arange(300) % 251).astype("u1"),
                     chunks=(64,), scaleoffset=0)
    f.create_dataset("scaleoffset_i64_fill", shape=(100,), dtype="<i8", chunks=(10,),
                     scaleoffset=0, fillvalue=-7)[10:60] = np.arange(50) * 1000
    f.create_dataset("scaleoffset_f32", data=np.linspace(-1, 1, 50).astype("<f4"),
                     chunks=(10,), scaleoffset=3)
    f.create_dataset("scaleoffset_f64", data=np.linspace(-10, 10, 50), chunks=(25,),
                     scaleoffset=2)
    f.create_dataset("nbit_full_width", data=np.arange(40, dtype="<i4"), chunks=(10,),
                     compression=h5py.h5z.FILTER_NBIT)


def netcdf_files():
    """netCDF-4 files written by the netCDF4 package (netCDF-C): dimensions (with an
    unlimited one), groups, vlen strings, compound, enum and vlen types, zlib, shuffle and
    fletcher32."""
    import netCDF4

    path = os.path.join(HERE, "netcdf4.h5")
    with netCDF4.Dataset(path, "w", format="NETCDF4") as nc:
        nc.title = "sp reader corpus"
        nc.createDimension("time", None)
        nc.createDimension("lat", 4)
        nc.createDimension("lon", 3)
        t = nc.createVariable("time", "f8", ("time",))
        t.units = "hours since 2000-01-01"
        t[:] = np.arange(6) * 1.5
        temp = nc.createVariable("temp", "f4", ("time", "lat", "lon"), zlib=True, shuffle=True,
                                 fletcher32=True, fill_value=-999.0)
        temp.units = "K"
        temp[:] = (np.arange(72).reshape(6, 4, 3) / 7 + 270).astype("f4")
        lat = nc.createVariable("lat", "i2", ("lat",))
        lat[:] = [-45, -15, 15, 45]
        names = nc.createVariable("names", str, ("lon",))
        names[:] = np.array(["alpha", "", "gamma"], dtype=object)
        wind = nc.createEnumType(np.uint8, "wind_t", {"calm": 0, "breeze": 1, "gale": 2})
        w = nc.createVariable("wind", wind, ("lat",))
        w[:] = np.array([0, 2, 1, 1], dtype="u1")
        rec = nc.createCompoundType(np.dtype([("id", "<i4"), ("value", "<f8")]), "rec_t")
        r = nc.createVariable("records", rec, ("lon",))
        r[:] = np.array([(1, 0.5), (2, -1.25), (3, 1e10)], dtype=rec.dtype)
        seq = nc.createVLType(np.int32, "seq_t")
        v = nc.createVariable("ragged", seq, ("lon",))
        for i in range(3):
            v[i] = np.arange(i + 1, dtype="i4")
        grp = nc.createGroup("forecast")
        grp.createDimension("step", 2)
        s = grp.createVariable("step", "i8", ("step",))
        s[:] = [6, 12]
        grp.setncattr_string("model", "toy")
    write_json(path)


def profile_files():
    """Profiles written by the reference's Python writer with each compression it offers."""
    import scope_profiler as sp

    for comp in ("gzip", "lzf", "zstd"):
        path = os.path.join(HERE, f"profile_{comp}.h5")
        with sp.session(file_path=path, hdf5_compression=comp, label=f"profile-{comp}",
                        verbose=False):
            for _ in range(1500):
                with sp.region("outer"):
                    for _ in range(2):
                        with sp.region("inner"):
                            pass
        write_json(path)


def nbit_file():
    """nbit.h5 and nbit_libhdf5.json from libhdf5 1.10 (see nbit.c)."""
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "nbit")
        subprocess.run(["h5cc", "-o", exe, os.path.join(HERE, "nbit.c")], check=True, cwd=tmp)
        subprocess.run([exe, os.path.join(HERE, "nbit.h5"),
                        os.path.join(HERE, "nbit_libhdf5.json")], check=True)


def links_content(f):
    # Soft, external and repeated hard links, and a cycle: no h5py walk (it would loop), so
    # no JSON; the tests assert `sp ls` on it directly.
    a = f.create_group("a")
    a.attrs["n"] = np.int64(1)
    a.create_dataset("d", data=np.arange(3, dtype="<i2"))
    a["loop"] = f["/"]
    f["b"] = a
    f["soft"] = h5py.SoftLink("/a")
    f["dangling"] = h5py.SoftLink("/nowhere")
    f["ext"] = h5py.ExternalLink("other.h5", "/x")


# The newest formats of HDF5 1.10–1.14 (superblock 3, layout v4). HDF5 2.0's own "latest"
# writes layout message version 5 for chunked datasets: the `_v5` files.
LATEST = ("v114", "v114")

GENERATED = [
    ("types_earliest.h5", "earliest", types_content),
    ("types_latest.h5", LATEST, types_content),
    ("groups_earliest.h5", "earliest", groups_content),
    ("groups_latest.h5", LATEST, groups_content),
    ("chunked_earliest.h5", "earliest", chunked_content),
    ("chunked_latest.h5", LATEST, chunked_content),
    ("chunk_indexes_latest.h5", LATEST, chunk_indexes_content),
    ("chunked_v5.h5", "latest", chunked_content),
    ("chunk_indexes_v5.h5", "latest", chunk_indexes_content),
    ("layout_v5.h5", "latest", lambda f: f.create_dataset(
        "gzip", data=np.arange(100, dtype="<i4"), chunks=(10,), compression="gzip")),
    ("references_earliest.h5", "earliest", references_content),
    ("references_latest.h5", LATEST, references_content),
    ("filters_earliest.h5", "earliest", filters_content),
    ("filters_latest.h5", LATEST, filters_content),
]


def main():
    for name, libver, content in GENERATED:
        path = os.path.join(HERE, name)
        with h5py.File(path, "w", libver=libver, track_order=False) as f:
            content(f)
        write_json(path)
    for name, content in (("unsupported.h5", unsupported_content),):
        path = os.path.join(HERE, name)
        with h5py.File(path, "w", libver=LATEST) as f:
            content(f)
    netcdf_files()
    profile_files()
    nbit_file()
    with h5py.File(os.path.join(HERE, "links.h5"), "w") as f:
        links_content(f)
    # The reference's own outputs (SCHEMA.md golden files).
    src = sys.argv[1] if len(sys.argv) > 1 else GOLDEN_SRC
    if os.path.isdir(src):
        for d in sorted(os.listdir(src)):
            for root, _, files in os.walk(os.path.join(src, d)):
                for fn in sorted(files):
                    if fn.endswith(".h5"):
                        rel = os.path.relpath(os.path.join(root, fn), src)
                        dest = os.path.join(HERE, "golden", rel.replace(os.sep, "_"))
                        shutil.copyfile(os.path.join(root, fn), dest)
                        os.chmod(dest, 0o644)
                        write_json(dest)


if __name__ == "__main__":
    main()
