"""Writes overview_expected.json: what the reference's HTML report says about every golden
profile (scope-profiler 0.7.5's report_model.summary_model, hotspots_model and
balance_model over report_rows), for tests/report_overview.rs. Each profile is described
twice: read whole (`read_h5`: call-tree rows) and read from its index only
(`read_h5_summary`: one flat row per region, what the browser page shows first).

Run from the repository root with the reference's Python:
    .venv/bin/python tests/report/make_expected.py
"""

import glob
import json
import os

from scope_profiler.h5reader import SummaryDataUnavailable, read_h5, read_h5_summary
from scope_profiler.report_data import _hotspot_base, _hotspot_entries, _rank_balance
from scope_profiler.report_model import (
    balance_model,
    hotspots_model,
    report_rows,
    summary_model,
)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def profiles():
    for pattern in ("tests/golden/*/expected/*.h5", "tests/golden/*/inputs/*.h5"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            yield os.path.relpath(path, ROOT)


def describe(results):
    rows = report_rows(results, None, None, None, "start")
    entries = _hotspot_entries(rows)
    base = _hotspot_base(rows, entries)
    balance = _rank_balance(results, rows, None)
    summary = summary_model(results, rows, entries, base, balance)
    return {
        "tree": any("call_path" in row for row in rows),
        "time_span": results.time_span,
        "base": base,
        "summary": summary,
        "hotspots": hotspots_model(entries, base)["items"],
        "balance": None
        if balance is None
        else {
            "own": balance["own"],
            "ranks": list(balance["ranks"]),
            "rows": [
                {key: row[key] for key in (
                    "name", "mean", "min", "max", "slowest", "imbalance", "excess",
                    "mean_text", "min_text", "max_text", "excess_text", "flag",
                    "low", "high", "mean_pos", "values")}
                for row in balance_model(results, balance)["rows"]
            ],
        },
    }


def main():
    cases = []
    for path in profiles():
        full = os.path.join(ROOT, path)
        try:
            whole = describe(read_h5(full))
        except Exception as exc:  # not a profile the reference reads
            print(f"skipped {path}: {exc}")
            continue
        try:
            index = describe(read_h5_summary(full, fallback=False))
        except SummaryDataUnavailable:
            index = None
        cases.append({"file": path, "whole": whole, "index": index})
    out = os.path.join(HERE, "overview_expected.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False, default=float)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
