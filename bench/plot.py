#!/usr/bin/env python3
"""`sp plot KIND` against the reference's `scope-profiler plot KIND` on a generated profile.

    .venv/bin/python bench/plot.py [--kinds durations,histogram,...] [--scale F]
                                   [--repeat N] [--ref-timeout S] [--workdir DIR]
                                   [--sp PATH] [--generator PATH]

Writes W1's traces (8 ranks x 40 regions x 10,000 calls at --scale 1; default 0.1, so
320 k calls) with sp-workload, converts them once with `sp convert`, then for each kind
runs, alternately and --repeat times (default 1), `sp plot KIND FILE -o OUT.png` and
`python -m scope_profiler plot KIND FILE -o OUT.png` (matplotlib), each reaped with wait4
for its own peak RSS. A reference run past --ref-timeout seconds (default 300) is stopped
and shown as such. Prints one row per kind and tool: median seconds, peak RSS, output size.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (its run(), build() and Table)

KINDS = ["durations", "histogram", "rank_heatmap", "imbalance", "timeseries", "density",
         "gantt", "flame_chart", "flame_graph"]


def timed(cmd, timeout):
    """compare.run, stopped after `timeout` seconds (then seconds is None)."""
    if timeout is None:
        return compare.run(cmd)
    return compare.run(["timeout", "--signal=KILL", str(timeout)] + cmd)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kinds", default=",".join(KINDS[:6]))
    p.add_argument("--scale", type=float, default=0.1)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--ref-timeout", type=float, default=300)
    p.add_argument("--workdir")
    p.add_argument("--sp")
    p.add_argument("--generator")
    args = p.parse_args(argv)
    sp, generator = compare.build(args)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="sp-plot-bench-"))
    traces, profile = work / "traces", work / "w1.h5"
    shutil.rmtree(traces, ignore_errors=True)
    r = compare.run([str(generator), "W1", str(traces), "--scale", repr(args.scale)])
    if r.code != 0:
        sys.exit(f"plot.py: sp-workload failed: {r.err}")
    r = compare.run([str(sp), "convert", str(traces), "-o", str(profile), "-q"])
    if r.code != 0:
        sys.exit(f"plot.py: sp convert failed: {r.err}")
    calls = 8 * 40 * max(1, round(10_000 * args.scale))
    print(f"W1 at scale {args.scale}: {calls:,} calls, "
          f"{profile.stat().st_size / compare.MIB:.1f} MiB profile", flush=True)
    table = compare.Table()
    for kind in args.kinds.split(","):
        tools = [("sp", [str(sp), "plot", kind, str(profile), "-o"], None),
                 ("reference", [sys.executable, "-m", "scope_profiler", "plot", kind,
                                str(profile), "-o"], args.ref_timeout)]
        runs = {label: [] for label, _, _ in tools}
        for _ in range(args.repeat):
            for label, cmd, timeout in tools:
                out = work / f"{kind}_{label}.png"
                out.unlink(missing_ok=True)
                runs[label].append((timed(cmd + [str(out)], timeout), out))
        base = None
        for label, results in runs.items():
            ok = [r for r, out in results if r.code == 0 and out.exists()]
            if not ok:
                code = results[-1][0].code
                why = "timed out" if code in (124, -9, 137) else f"failed ({code})"
                table.add(workload="W1", mode=kind, tool=label, result=why)
                continue
            med, rss = compare.median(ok), compare.peak(ok)
            size = results[-1][1].stat().st_size / 1024
            base = base or med
            table.add(workload="W1", mode=kind, tool=label, median=f"{med:.3f}",
                      rss=f"{rss:.0f}", output=f"{size:.0f} KiB",
                      speedup="" if label == "sp" else f"{med / base:.1f}x slower")
    table.print()
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
