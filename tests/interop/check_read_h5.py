#!/usr/bin/env python3
"""Compare two profiles as the reference package reads them.

    check_read_h5.py OURS REF

Reads both files with `scope_profiler.read_h5` and with
`scope_profiler.read_h5_summary` (the fixed-size summary path, when the
package has it) and compares what a user of the package sees: region names
and their order, per-rank call counts, start and end times (ns), source file,
line and text, tags, event metadata, the per-region summary (including the
exclusive time the reader reconstructs), the stored summary row, the number
of ranks and every metadata key and value (with its Python type). Floats are
compared exactly. Exits 0 when everything is equal, 1 with the differences
listed, 2 on usage errors.
"""

import argparse
import sys

import numpy as np
import scope_profiler

MAX_REPORTED = 20


def _plain(v):
    """A comparable, printable form of a value read by the package."""
    if isinstance(v, np.ndarray):
        return [_plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in sorted(v.items())}
    if isinstance(v, np.generic):
        return (type(v).__name__, _plain(v.item()))
    if isinstance(v, float):
        return v.hex()
    return v


def _guard(fn):
    """fn() as a plain value, or the exception it raised (type and message)."""
    try:
        return _plain(fn())
    except Exception as err:  # noqa: BLE001 - the failure itself is compared
        return ("raised", type(err).__name__, str(err))


def view(results, events):
    """Everything read_h5 / read_h5_summary exposes about the file's content."""
    out = {
        "num_ranks": _guard(lambda: results.num_ranks),
        "region_names": _guard(lambda: list(results.region_names)),
        "metadata": _guard(lambda: dict(results.metadata)),
        "label": _guard(lambda: results.label),
        "has_event_data": _guard(lambda: results.has_event_data),
    }
    regions = {}
    for name in results.region_names:
        mpi_region = results.get_region(name)
        for rank, region in sorted(mpi_region.regions.items()):
            row = {
                "num_calls": _guard(lambda: region.num_calls),
                "source_file": _guard(lambda: region.source_file),
                "source_lineno": _guard(lambda: region.source_lineno),
                "source_text": _guard(lambda: region.source_text),
                "tags": _guard(lambda: region.tags),
                "summary": _guard(region.get_summary),
                "stored_summary": _guard(lambda: region.stored_summary),
            }
            if events:
                row["start_times_ns"] = _guard(lambda: region.start_times_ns)
                row["end_times_ns"] = _guard(lambda: region.end_times_ns)
                row["event_metadata"] = _guard(lambda: region.event_metadata)
            regions["%s @ rank %s" % (name, rank)] = row
    out["regions"] = regions
    return out


def _short(v):
    s = repr(v)
    return s if len(s) <= 200 else s[:197] + "..."


def _diff(path, a, b, out):
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in b:
                out.append("%s[%r]: only in OURS: %s" % (path, key, _short(a[key])))
            elif key not in a:
                out.append("%s[%r]: only in REF: %s" % (path, key, _short(b[key])))
            else:
                _diff("%s[%r]" % (path, key), a[key], b[key], out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and len(a) > 4:
        bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        i = bad[0]
        out.append("%s: %d element(s) differ, first at [%d]: OURS %s, REF %s"
                   % (path, len(bad), i, _short(a[i]), _short(b[i])))
        return
    out.append("%s: OURS %s, REF %s" % (path, _short(a), _short(b)))


def compare(ours, ref):
    """Differences between the package's views of two files (empty if none)."""
    out = []
    readers = [("read_h5", scope_profiler.read_h5, True)]
    if hasattr(scope_profiler, "read_h5_summary"):
        readers.append(("read_h5_summary", scope_profiler.read_h5_summary, False))
    for label, reader, events in readers:
        views = []
        for who, path in (("OURS", ours), ("REF", ref)):
            try:
                views.append(view(reader(path), events))
            except Exception as err:  # noqa: BLE001 - both files must be readable
                out.append("%s: %s raised %s: %s" % (label, who, type(err).__name__, err))
        if len(views) == 2:
            _diff(label, views[0], views[1], out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ours")
    parser.add_argument("ref")
    args = parser.parse_args(argv)
    diffs = compare(args.ours, args.ref)
    if not diffs:
        return 0
    print("%s and %s read differently (%d difference(s)):" % (args.ours, args.ref, len(diffs)))
    for line in diffs[:MAX_REPORTED]:
        print("  " + line)
    if len(diffs) > MAX_REPORTED:
        print("  ... and %d more" % (len(diffs) - MAX_REPORTED))
    return 1


if __name__ == "__main__":
    sys.exit(main())
