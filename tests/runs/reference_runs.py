"""The reference's runs table (report_model.runs_table_model) of the files on the command
line, read as `scope-profiler report` reads them, as one JSON document on stdout."""
import json
import sys

from scope_profiler import read_h5_summary
from scope_profiler.report_model import runs_table_model

runs = [read_h5_summary(f) for f in sys.argv[1:]]
model = runs_table_model(runs)
print(json.dumps([
    {
        "label": r["label"],
        "host": r["host"],
        "start": r["recorded"],
        "ranks": r["ranks"],
        "threads": r["threads"],
        "wall": r["wall"],
        "pct": r["change"].get("pct"),
    }
    for r in model["rows"]
]))
