"""What h5py (libhdf5) reads from a file sp wrote, as JSON on stdout, for the Rust tests
to compare with what they generated.

    readback.py tree FILE      every dataset and attribute: {path: {"shape", "values"}}
                               (attributes as "path@name"; strings decoded as UTF-8;
                               floats as {"f64bits": their IEEE bits}, exact in JSON)
    readback.py trees FILE...  the same for several files, as a list in order
    readback.py profile FILE   a schema-3 profile's calls: [[rank, region name, starts,
                               ends], ...] rebuilt from the event columns, in file order

Also runnable by any interpreter that has h5py: the version-matrix venvs use it too.
"""

import json
import struct
import sys

import h5py
import numpy as np


def plain(value):
    """A dataset or attribute value as JSON-ready Python values."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return plain(value[()])
        items = value if value.dtype.kind == "O" else value.tolist()
        return [plain(v) for v in items]
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf-8")
    if isinstance(value, (float, np.floating)):
        # Exact: the IEEE bits, as a signed 64-bit integer.
        return {"f64bits": struct.unpack("<q", struct.pack("<d", float(value)))[0]}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def tree(path):
    out = {}

    def visit(name, obj):
        key = "/" + name if name else "/"
        for attr_name, value in obj.attrs.items():
            out[key + "@" + attr_name] = {
                "shape": list(np.shape(value)),
                "values": plain(np.asarray(value) if not isinstance(value, (str, bytes)) else value),
            }
        if isinstance(obj, h5py.Dataset):
            out[key] = {"shape": list(obj.shape), "values": plain(obj[()])}

    with h5py.File(path, "r") as f:
        visit("", f)
        f.visititems(visit)
    return out


def profile(path):
    rows = []
    with h5py.File(path, "r") as f:
        names = [plain(n) for n in f["region_table/names"][()]]
        index = f["rank_region_index"]
        ranks = index["ranks"][()]
        region_ids = index["region_ids"][()]
        offsets = index["event_offsets"][()]
        counts = index["event_counts"][()]
        deltas = f["events/start_deltas"][()]
        durations = f["events/durations"][()]
        for rank, region, offset, count in zip(ranks, region_ids, offsets, counts):
            d = deltas[offset : offset + count].astype(np.int64)
            starts = np.cumsum(d, dtype=np.int64)
            ends = starts + durations[offset : offset + count].astype(np.int64)
            rows.append([int(rank), names[region], starts.tolist(), ends.tolist()])
    return rows


if __name__ == "__main__":
    mode, files = sys.argv[1], sys.argv[2:]
    if mode == "trees":
        result = [tree(f) for f in files]
    elif mode == "tree":
        result = tree(files[0])
    else:
        result = profile(files[0])
    json.dump(result, sys.stdout, ensure_ascii=False)
