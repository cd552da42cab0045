"""`sp lines` against the reference's `scope-profiler native-lines`, end to end.

1. The same samples, the reference's path (binutils addr2line alone on the PATH, as
   with llvm-symbolizer it misreads the column as the line) against `sp lines --per-rank`
   (the same tables): wall time of each and the ratio (target: sp at least 2.5x faster).
2. 1,000 ranks of one executable (copies of one rank's .sps): `sp lines` merged, wall
   time (target: at most 2 s) and peak RSS.

    .venv/bin/python bench/lines_bench.py [--sp target/release/sp] [--ranks 16] [--reps 3]

Uses the committed samples of tests/golden-lines (run from the case directory, where the
program ran). Builds target/release/sp unless --sp is given.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(command, cwd, env=None, reps=3):
    """Best wall time of `reps` runs."""
    best = None
    for _ in range(reps):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sp", help="the sp binary (default: build target/release/sp)")
    parser.add_argument("--case", default="c_O2_pie", help="tests/golden-lines case")
    parser.add_argument("--ranks", type=int, default=16, help="ranks for the comparison")
    parser.add_argument("--many", type=int, default=1000, help="ranks for the scale run")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()

    sp = args.sp
    if sp is None:
        subprocess.run(["cargo", "build", "--release", "--bin", "sp"], cwd=ROOT, check=True)
        target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        sp = str(target / "release" / "sp")
    sp = str(Path(sp).resolve())
    case = ROOT / "tests" / "golden-lines" / args.case
    sample = (case / "profile_rank00000.sps").read_bytes()

    tools = Path(tempfile.mkdtemp(prefix="sp-lines-bench-"))
    try:
        (tools / "addr2line").symlink_to(shutil.which("addr2line"))
        env = dict(os.environ, PATH=str(tools))
        runs = tools / "runs"
        runs.mkdir()
        for r in range(args.ranks):
            (runs / f"profile_rank{r:05d}.sps").write_bytes(sample)
        reference = [sys.executable, "-m", "scope_profiler", "native-lines", str(runs)]
        ref_time = timed(reference, case, env, args.reps)
        ours = [sp, "lines", "--per-rank", str(runs)]
        sp_time = timed(ours, case, None, args.reps)
        print(f"{args.ranks} ranks of {args.case}, per-rank tables:")
        print(f"  reference native-lines (binutils): {ref_time:8.3f} s")
        print(f"  sp lines --per-rank:               {sp_time:8.3f} s")
        print(f"  sp is {ref_time / sp_time:.1f}x faster (target: 2.5x)")

        many = tools / "many"
        many.mkdir()
        for r in range(args.many):
            (many / f"profile_rank{r:05d}.sps").write_bytes(sample)
        # A fresh process per measurement, so the peak RSS is that run's alone.
        probe = (
            "import resource, subprocess, sys, time;"
            "t = time.perf_counter();"
            "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);"
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
        )
        results = []
        for _ in range(args.reps):
            out = subprocess.run([sys.executable, "-c", probe, sp, "lines", str(many)],
                                 cwd=case, check=True, capture_output=True, text=True)
            results.append(tuple(float(x) for x in out.stdout.split()))
        wall, rss = min(results)
        print(f"{args.many} ranks of {args.case}, merged: {wall:.3f} s (target: 2 s), "
              f"peak RSS {rss:.1f} MiB ({len(sample) * args.many / 2**20:.1f} MiB of samples)")
    finally:
        shutil.rmtree(tools)


if __name__ == "__main__":
    main()
