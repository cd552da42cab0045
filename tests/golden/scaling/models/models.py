"""Writes ranks{1,2,4,8,16,32}.h5: a strong-scaling series whose regions' time per rank
follows known laws (solve 2/p + 0.01, exchange 0.02 log2 p + 0.004, allreduce 0.003 sqrt p,
io 0.15 s; each rank within 1 % of the law), for the scaling models' tests; the metadata
key cells_per_rank (2^20 / p) is an axis of its own. Each run is
written as the reference's JSON profile, then by the reference's `write_profile` as HDF5.

    .venv/bin/python tests/golden/scaling/models/models.py   (from this directory)
"""
import json
import math
import os

import scope_profiler as s

LAWS = {
    "solve": lambda p: 2.0 / p + 0.01,
    "exchange": lambda p: 0.02 * math.log2(p) + 0.004,
    "allreduce": lambda p: 0.003 * math.sqrt(p),
    "io": lambda p: 0.15,
}
CALLS = 10

for p in [1, 2, 4, 8, 16, 32]:
    regions = []
    t = 1_000_000
    for name, law in LAWS.items():
        for r in range(p):
            total = law(p) * (1 + 0.01 * ((r * 7919) % 5 - 2) / 2)
            d = int(total * 1e9 / CALLS)
            starts = [t + k * (d + 1000) for k in range(CALLS)]
            regions.append({"name": name, "rank": r, "start_times_ns": starts,
                            "end_times_ns": [x + d for x in starts]})
        t += CALLS * (int(law(p) * 1e9 / CALLS) + 1000) + 5000
    doc = {"format": "scope-profiler-profile", "format_version": 1,
           "exporter": "scope-profiler@0.7.5", "time_unit": "nanoseconds", "num_ranks": p,
           "event_data_available": True, "metadata": {"label": f"models-{p}", "cells_per_rank": 1_048_576 // p},
           "regions": regions}
    with open(f"ranks{p}.json", "w") as f:
        json.dump(doc, f)
    s.write_profile(s.read_json(f"ranks{p}.json"), f"ranks{p}.h5")
    os.remove(f"ranks{p}.json")
