"""The reference's "What changed" (report_model.candidate_model, what `scope-profiler
report` shows for many files) of the files on the command line, the first the baseline,
read as `scope-profiler report` reads them, as one JSON document on stdout: per later run,
its improvements and regressions (region, baseline own time, own time, delta)."""
import json
import sys

from scope_profiler import read_h5_summary
from scope_profiler.report_data import _comparison_entries, _per_rank_row
from scope_profiler.report_model import candidate_model, report_rows

runs = [read_h5_summary(f) for f in sys.argv[1:]]
per_run_rows = [report_rows(run, None, None, None, "start") for run in runs]
if len({run.num_ranks for run in runs}) > 1:
    per_run_rows = [[_per_rank_row(row) for row in rows] for rows in per_run_rows]
entries = _comparison_entries(per_run_rows)
out = []
for index in range(1, len(runs)):
    model = candidate_model(runs, entries, index)
    out.append({
        "speed": model["wall"].get("speed"),
        "wall_pct": model["wall"].get("pct"),
        "improvements": [[c["name"], c["delta"]] for c in model["improvements"]],
        "regressions": [[c["name"], c["delta"]] for c in model["regressions"]],
    })
print(json.dumps(out))
