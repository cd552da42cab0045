"""Print the region statistics scope-profiler's own Python API computes for a profile, as
JSON, for `tests/inspect.rs` to compare with `sp inspect --format json` value for value.

usage: reference_rows.py FILE [--ranks R ...] [--include P ...] [--exclude P ...]
                              [--sort KEY] [--percentage-mode MODE] [--flat]

--flat reads only the fixed-size statistics (read_h5_summary), as `sp inspect --flat`.
"""

import argparse
import json
import math

from scope_profiler.h5reader import read_h5, read_h5_summary
from scope_profiler.summary import region_rows

KEYS = (
    "name", "call_path", "depth", "recursive", "num_ranks", "calls", "total",
    "coverage", "exclusive", "avg", "min", "max", "first", "last", "std", "p50",
    "p95", "p99", "imbalance", "gpu_total", "gpu_avg", "start", "parent_coverage",
)


def clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--ranks", nargs="+", type=int)
    parser.add_argument("--include", nargs="+")
    parser.add_argument("--exclude", nargs="+")
    parser.add_argument("--sort", default="start")
    parser.add_argument("--percentage-mode", default="coverage")
    parser.add_argument("--flat", action="store_true")
    args = parser.parse_args()
    results = read_h5_summary(args.file) if args.flat else read_h5(args.file)
    rows = region_rows(
        results,
        include=args.include,
        exclude=args.exclude,
        ranks=sorted(set(args.ranks)) if args.ranks else None,
        sort=args.sort,
        percentage_mode=args.percentage_mode,
    )
    out = []
    for row in rows:
        item = {key: clean(row.get(key)) for key in KEYS}
        if item["call_path"] is not None:
            item["call_path"] = item["call_path"].split(" > ")
        item["depth"] = row.get("depth", 0)
        item["recursive"] = bool(row.get("recursive", False))
        out.append(item)
    print(json.dumps({"num_ranks": results.num_ranks, "regions": out}, indent=1))


if __name__ == "__main__":
    main()
