"""Print, as JSON, what scope-profiler's own `diff.diff_rows` / `diff.check_rows` compute.

Usage: reference_diff.py diff A B [diff options]
       reference_diff.py check A B [check options]

Reads the files as `diff_files` / `check_files` do and prints {"rows": [...]} (and, for a
check, "violations": [names]); the values at full precision, null for None.
"""

import json
import sys

from scope_profiler import diff
from scope_profiler.post_processing import parse_ranks
from scope_profiler.profile_io import read_profile, read_profile_summary


def load(path, metric):
    if metric in diff._SUMMARY_METRICS:
        return read_profile_summary(path, include_likwid=False, include_line_profile=False)
    return read_profile(path)


def main(argv):
    command, *rest = argv
    parser = diff.build_parser() if command == "diff" else diff.build_check_parser()
    args = parser.parse_args(rest)
    ranks = None
    if args.ranks:
        ranks = sorted({rank for spec in args.ranks for rank in parse_ranks(spec)})
    a, b = load(args.file_a, args.metric), load(args.file_b, args.metric)
    common = dict(include=args.include, exclude=args.exclude, ranks=ranks, metric=args.metric)
    if command == "diff":
        rows = diff.diff_rows(a, b, sort=args.sort, threshold=args.threshold, **common)
        out = {"rows": rows}
    else:
        rows = diff.diff_rows(a, b, sort="pct", **common)
        failures = diff.check_rows(
            a, b, max_regression=args.max_regression, fail_on_new=args.fail_on_new, **common
        )
        out = {"rows": rows, "violations": [row["name"] for row in failures]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
