#!/usr/bin/env python3
"""Rank scaling: W6's shape (R ranks x 10 regions x 20 calls) at 1,000, 10,000 and 100,000
ranks, every command that reads the index, time and peak RSS per rank count, and the
reference beside sp.

    .venv/bin/python bench/ranks.py [--ranks 1000,10000,100000] [--workdir DIR]
                                    [--sp PATH] [--generator PATH] [--ref-timeout S]
                                    [--no-reference] [--page]

For each rank count it writes the traces with `sp-workload W6 --ranks R`, reads them once
(warm cache), then times:

* convert:      `sp convert DIR -o W6.h5 -q` against `import-native DIR -o ref.h5 -q`;
* inspect flat: `sp inspect W6.h5 --flat` (the index only);
* inspect:      `sp inspect W6.h5` (the call tree) against `scope-profiler inspect ref.h5`;
* diff:         `sp diff W6.h5 W6.h5`;
* runs:         `sp runs W6.h5`;
* report:       `sp report W6.h5 -o W6.html --events never` where the page is built in
                (or `--page`/SP_PAGE gives it), else a "not available" row;
* page:         with `--page`, node web/bench/ranks.mjs: the page's Overview after the drop.

The reference gets --ref-timeout seconds (default 1800, the issue's 30 minutes) per command;
one that does not finish gets a "did not finish" row. Each child is reaped with os.wait4, so
its peak RSS is its own.

It prints one row per (ranks, command, tool), then the growth from the second-largest to the
largest rank count (the issue: at most 12x in time and in memory from 10,000 to 100,000
ranks), then the W6 targets at 100,000 ranks:

    convert <= 10 s and <= 512 MiB; inspect --flat <= 2 s; inspect <= 15 s and <= 1 GiB;
    diff <= 3 s; the page's Overview <= 3 s.

Exit status: 0 when every sp command ran and, with 100,000 ranks among the counts, every
target and growth bound held; 1 otherwise; 2 on usage errors.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIB = 1 << 20
FULL = 100_000
GROWTH_LIMIT = 12.0
# command -> (max seconds, max MiB) at 100,000 ranks.
TARGETS = {
    "convert": (10.0, 512.0),
    "inspect flat": (2.0, None),
    "inspect": (15.0, 1024.0),
    "diff": (3.0, None),
    "page overview": (3.0, None),
}


class Result:
    def __init__(self, seconds, rss_mib, code, err):
        self.seconds, self.rss_mib, self.code, self.err = seconds, rss_mib, code, err

    @property
    def ok(self):
        return self.code == 0


def run(cmd, timeout=None, stdout=subprocess.DEVNULL):
    """Runs cmd; wall time and the child's own peak RSS (os.wait4). code None: timed out."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    deadline = None if timeout is None else start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if deadline is not None and time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return Result(time.perf_counter() - start, 0.0, None, "timed out")
        time.sleep(0.01)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace").strip()
    proc.stderr.close()
    return Result(seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), err)


def target_dir():
    return Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


def build(args):
    if args.sp and args.generator:
        return Path(args.sp), Path(args.generator)
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "sp"], cwd=REPO, check=True)
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "sp-bench", "--bin", "sp-workload"],
                   cwd=REPO, check=True)
    release = target_dir() / "release"
    return Path(args.sp or release / "sp"), Path(args.generator or release / "sp-workload")


def reference_cli():
    """The reference's interpreter: the venv this script runs from, if it has the package."""
    probe = subprocess.run([sys.executable, "-c", "import scope_profiler"], capture_output=True)
    return [sys.executable, "-m", "scope_profiler"] if probe.returncode == 0 else None


def index_only_reports(sp):
    """Whether `sp report` takes `--events never` (an index-only report)."""
    probe = subprocess.run([str(sp), "report", "--help"], capture_output=True, text=True)
    return probe.returncode == 0 and "never" in probe.stdout


def page_overview(profile):
    """The page's Overview after the drop, as web/bench/ranks.mjs measures it in the
    browser (its own line, not the browser's start-up); RSS is not the tab's, so 0."""
    done = subprocess.run(["node", str(REPO / "web/bench/ranks.mjs"), str(profile)],
                          capture_output=True, text=True)
    found = re.search(r"overview (\d+) ms", done.stdout)
    if done.returncode != 0 or not found:
        return Result(0.0, 0.0, done.returncode or 1, (done.stderr or done.stdout).strip())
    return Result(int(found.group(1)) / 1000, 0.0, 0, done.stdout.strip())


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", default="1000,10000,100000",
                   help="comma-separated rank counts (default: 1000,10000,100000)")
    p.add_argument("--workdir", help="where traces and profiles go (default: a new temp dir, removed)")
    p.add_argument("--sp", help="the sp binary (default: build target/release/sp)")
    p.add_argument("--generator", help="the sp-workload binary")
    p.add_argument("--ref-timeout", type=float, default=1800.0,
                   help="seconds the reference gets per command (default 1800)")
    p.add_argument("--no-reference", action="store_true", help="time sp only")
    p.add_argument("--page", action="store_true",
                   help="also time the page's Overview after the drop (node web/bench/ranks.mjs)")
    args = p.parse_args(argv)
    try:
        counts = sorted({int(r) for r in args.ranks.split(",")})
    except ValueError:
        p.error("--ranks takes comma-separated integers")
    if not counts or counts[0] < 1 or counts[-1] > FULL:
        p.error(f"rank counts run from 1 to {FULL}")

    sp, generator = build(args)
    ref = None if args.no_reference else reference_cli()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="sp-ranks-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []  # (ranks, command, tool, Result)
    failed = False

    def add(ranks, command, tool, result):
        nonlocal failed
        rows.append((ranks, command, tool, result))
        status = "ok" if result.ok else ("did not finish" if result.code is None else "FAILED")
        print(f"  {ranks:>7} {command:<14} {tool:<4} {result.seconds:9.2f} s "
              f"{result.rss_mib:9.1f} MiB  {status}", flush=True)
        if tool == "sp" and not result.ok:
            failed = True
            print(f"    {result.err.splitlines()[-1] if result.err else ''}", flush=True)

    try:
        for ranks in counts:
            traces = work / f"w6_{ranks}"
            profile, ref_profile = work / f"W6_{ranks}.h5", work / f"ref_{ranks}.h5"
            if not traces.is_dir():
                subprocess.run([str(generator), "W6", str(traces), "--ranks", str(ranks)],
                               check=True, stderr=subprocess.DEVNULL)
            for f in traces.iterdir():  # warm the page cache for every tool
                f.read_bytes()
            for out in (profile, ref_profile):
                out.unlink(missing_ok=True)
            add(ranks, "convert", "sp", run([str(sp), "convert", str(traces), "-o", str(profile), "-q"]))
            if ref:
                add(ranks, "convert", "ref", run(ref + ["import-native", str(traces), "-o", str(ref_profile), "-q"],
                                                 timeout=args.ref_timeout))
            add(ranks, "inspect flat", "sp", run([str(sp), "inspect", str(profile), "--flat"]))
            add(ranks, "inspect", "sp", run([str(sp), "inspect", str(profile)]))
            if ref:
                # sp's profile has the reference's content, so the reference inspects it
                # even where its own conversion did not finish.
                add(ranks, "inspect", "ref", run(ref + ["inspect", str(profile)], timeout=args.ref_timeout))
            add(ranks, "diff", "sp", run([str(sp), "diff", str(profile), str(profile)]))
            add(ranks, "runs", "sp", run([str(sp), "runs", str(profile)]))
            if index_only_reports(sp):
                add(ranks, "report", "sp", run([str(sp), "report", str(profile), "-o",
                                                str(work / f"W6_{ranks}.html"), "--events", "never"]))
            if args.page:
                add(ranks, "page overview", "sp", page_overview(profile))
            shutil.rmtree(traces)
            ref_profile.unlink(missing_ok=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    by = {(r, c, t): res for r, c, t, res in rows}
    print("\nsp against the reference (time ratio: reference / sp)")
    for (r, c, t), res in sorted(by.items()):
        if t != "ref":
            continue
        ours = by.get((r, c, "sp"))
        if res.code is None:
            print(f"  {r:>7} {c:<14} reference did not finish in {args.ref_timeout:.0f} s "
                  f"(sp {ours.seconds:.2f} s: over {args.ref_timeout / ours.seconds:.0f}x)")
        elif ours and ours.ok and res.ok:
            print(f"  {r:>7} {c:<14} {res.seconds / ours.seconds:8.1f}x faster, "
                  f"memory {ours.rss_mib:.0f} / {res.rss_mib:.0f} MiB")

    if len(counts) >= 2:
        lo, hi = counts[-2], counts[-1]
        print(f"\ngrowth from {lo} to {hi} ranks ({hi / lo:.0f}x the ranks; the bound is "
              f"{GROWTH_LIMIT:.0f}x from 10,000 to 100,000)")
        for (r, c, t), res in sorted(by.items()):
            if r != hi or t != "sp" or (lo, c, t) not in by:
                continue
            base = by[(lo, c, t)]
            tg = res.seconds / max(base.seconds, 1e-3)
            mg = res.rss_mib / max(base.rss_mib, 1e-3)
            judged = lo == 10_000 and hi == FULL
            verdict = "" if not judged else ("  met" if tg <= GROWTH_LIMIT and mg <= GROWTH_LIMIT else "  MISSED")
            failed |= judged and verdict == "  MISSED"
            print(f"  {c:<14} time {tg:5.1f}x  memory {mg:5.1f}x{verdict}")

    if FULL in counts:
        print(f"\ntargets at {FULL} ranks")
        for c, (max_s, max_mib) in TARGETS.items():
            res = by.get((FULL, c, "sp"))
            if res is None:
                print(f"  {c:<14} not measured")
                continue
            met = res.ok and res.seconds <= max_s and (max_mib is None or res.rss_mib <= max_mib)
            failed |= not met
            limit = f"<= {max_s:g} s" + (f", <= {max_mib:g} MiB" if max_mib else "")
            print(f"  {c:<14} {res.seconds:6.2f} s {res.rss_mib:7.0f} MiB  ({limit})  "
                  f"{'met' if met else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
