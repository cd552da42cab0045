#!/usr/bin/env python3
"""Benchmark `sp` against the reference (scope-profiler 0.7.5) on generated workloads.

    .venv/bin/python bench/compare.py [--workloads W1,W2,W3,W4,W5,W6]
                                      [--modes convert,compress,read,shard,inspect]
                                      [--also-on W2] [--shard-on W3] [--shards N]
                                      [--inspect-on W1,W2] [--ref-inspect-limit N]
                                      [--scale F] [--repeat N]
                                      [--workdir DIR] [--sp PATH] [--sp-read ARGS]
    .venv/bin/python bench/compare.py --quick        # CI: tiny, one repetition, no targets

For each workload it writes the traces with `sp-workload`, then runs, alternately and
`--repeat` times (compress and read only on the `--also-on` workloads, W2 by default):

* convert:  `python -m scope_profiler import-native DIR -o OUT -q` and
            `sp convert DIR -o OUT -q`, plus the floor: `cat` of every input to /dev/null and
            `dd` of a file as large as sp's output (`conv=fsync`, as both tools sync);
* compress: the reference's own automatic compression of the same traces (import-native's
            code path with `ProfilingWriter(..., compression="auto")`: gzip 4 + shuffle) and
            `sp convert --compress`;
* read:     `scope_profiler.read_h5` plus per-region totals over every event, and the `sp`
            command given by `--sp-read` that does the same;
* shard:    (`--shard-on` workloads, W3 by default) `sp convert --shard I/N` in N parallel
            processes, then `sp convert` of the N parts; the merged file must be byte for
            byte the one-shot `sp convert` output;
* inspect:  (`--inspect-on` workloads, W1 and W2 by default) the region table of the
            reference's profile: `sp inspect FILE` (the call tree's table: total and
            percent), `sp inspect FILE --format json` (the tree with every statistic) and
            `sp inspect FILE --flat --columns region calls total p50 p95 p99`
            (percentiles), against
            `sp inspect FILE --flat --from-events` (every event decoded: "vs floor" is the
            time over it) and, for profiles of at most --ref-inspect-limit events (W1, not
            W2: the reference would need about 64 GB there), `scope-profiler inspect FILE`.

W5 is W2's traces converted by the reference into 4 partial profiles of 8 ranks each
(`import-native` of 8 traces, untimed), then merged: its convert mode times
`import-native part0.h5 ... part3.h5` against `sp convert part0.h5 ... part3.h5`, and its
floor reads the parts.

Each child is reaped with os.wait4, so its peak RSS is its own. Page caches are not dropped
(that needs root and disturbs the whole machine); instead the inputs are read once before any
timing, so every tool, and the floor, reads them from a warm cache. The table shows medians; "speed-up" is import-native's median over the tool's,
"vs floor" the tool's median over the floor's. Targets (the issue's) are judged only at full
scale; at other scales their column is informative.

Exit status: 0 when every tool ran and sp's output has the reference's content (checked with
tests/interop/h5content.py for outputs of at most --compare-limit events), and, at full scale
without --quick, every target passed; 1 otherwise; 2 on usage errors. A tool whose
subcommand or option does not exist yet gets a "not available" row and fails nothing.
"""

import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
H5CONTENT = REPO / "tests" / "interop" / "h5content.py"
MIB = 1 << 20

# Ranks, regions per rank and calls per region at full scale (as sp-workload makes them).
SHAPES = {"W1": (8, 40, 10_000), "W2": (32, 50, 40_000), "W3": (2048, 20, 50),
          "W4": (1, 1, 50_000_000), "W5": (32, 50, 40_000), "W6": (100_000, 10, 20)}
# W6 (100,000 files) runs only when named: the reference's import-native needs tens of
# minutes there. bench/ranks.py scales its shape over rank counts with its targets.
WORKLOADS = [w for w in SHAPES if w != "W6"]
MODES = ["convert", "compress", "read", "shard", "inspect"]
# The inspect mode's percentile command (sp's flat rows, every call read for p50/p95/p99).
PERCENTILE_COLUMNS = ["--columns", "region", "calls", "total", "p50", "p95", "p99"]
# W5's traces are W2's, converted into this many partial profiles before the timed merge.
W5_PARTS = 4
# Calls per region are multiplied by these in --quick mode (ranks and regions are kept).
QUICK_SCALE = {"W1": 0.01, "W2": 0.001, "W3": 0.02, "W4": 0.0002, "W5": 0.001, "W6": 0.05}
FULL_EVENTS = {name: r * g * c for name, (r, g, c) in SHAPES.items()}

# The targets: (mode, workload) -> (minimum speed-up, max vs floor, max sp RSS MiB,
# max size ratio vs the reference).
TARGETS = {
    ("convert", "W1"): (10, None, None, None),
    ("convert", "W2"): (15, 1.5, 256, None),
    ("convert", "W3"): (50, None, None, None),
    ("convert", "W4"): (15, None, 256, None),
    ("convert", "W5"): (20, 1.5, 256, None),
    ("compress", "W2"): (12, None, None, 1.03),
    ("read", "W2"): (20, None, None, None),
    # Inspect: "vs floor" is the time over `sp inspect --flat --from-events` (every event
    # decoded) on the same file.
    ("inspect tree", "W2"): (None, 3, 512, None),
    # The table shows total and percent only; JSON has every statistic of every call path,
    # so the tree keeps every call's duration for them: held to the same target.
    ("inspect tree json", "W2"): (None, 3, 512, None),
    ("inspect percentiles", "W2"): (None, 3, 1024, None),
}

# The reference with its automatic compression: import-native's own code path
# (convert_traces -> write_results -> ProfilingWriter(..., repack=True)) with
# compression="auto" added, which is what a Python run with hdf5_compression="auto" gets.
REF_AUTO_COMPRESS = """
import sys
import scope_profiler.h5writer as h5writer
from scope_profiler.native_trace import convert_traces

class AutoCompressingWriter(h5writer.ProfilingWriter):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("compression", "auto")
        super().__init__(*args, **kwargs)

h5writer.ProfilingWriter = AutoCompressingWriter
convert_traces([sys.argv[1]], sys.argv[2])
"""

# read_h5 plus the total time of each region over all ranks and events.
REF_READ = """
import sys
from scope_profiler import read_h5

results = read_h5(sys.argv[1])
for region in results.get_regions():
    total = 0
    for data in region.regions.values():
        total += int((data.end_times_ns - data.start_times_ns).sum())
    print(region.name, total)
"""


class Run:
    """One child process: wall seconds, own peak RSS in MiB, exit code, first lines of stderr."""

    def __init__(self, seconds, rss_mib, code, err):
        self.seconds = seconds
        self.rss_mib = rss_mib
        self.code = code
        self.err = err


def run(cmd, cwd=None, stdout=None):
    """Runs cmd, reaping it with wait4 so ru_maxrss is this child's alone."""
    with tempfile.TemporaryFile() as err:
        out = stdout if stdout is not None else subprocess.DEVNULL
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # already reaped; keeps Popen from waiting again
        err.seek(0)
        # The head: where a panic or a Python traceback's first line is.
        head = err.read().decode("utf-8", "replace").strip().splitlines()[:3]
    return Run(seconds, usage.ru_maxrss / 1024, code, "\n".join(head))


def run_parallel(cmds):
    """Runs cmds at once; returns one Run: the wall time until the last exits, the largest
    peak RSS, the first non-zero exit code and its stderr head."""
    started = time.perf_counter()
    procs = []
    for cmd in cmds:
        err = tempfile.TemporaryFile()
        procs.append((subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                                       stdin=subprocess.DEVNULL), err))
    rss, code, head = 0.0, 0, ""
    for proc, err in procs:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        rss = max(rss, usage.ru_maxrss / 1024)
        if proc.returncode != 0 and code == 0:
            code = proc.returncode
            err.seek(0)
            head = err.read().decode("utf-8", "replace").strip()
        err.close()
    return Run(time.perf_counter() - started, rss, code, head)


def cat_cmd(files):
    """A command that reads every file once: `cat FILES`, or for W6's 100,000 files (over
    the argument limit) `find DIR -exec cat {} +` on their one directory."""
    if len(files) <= 1000:
        return ["cat"] + [str(f) for f in files]
    parent = {Path(f).parent for f in files}
    assert len(parent) == 1, "many files from one directory only"
    return ["find", str(parent.pop()), "-maxdepth", "1", "-name", "*.spt", "-exec", "cat", "{}", "+"]


def target_dir():
    return Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))


def build(args):
    """Builds sp and sp-workload in release mode unless given; returns their paths."""
    release = target_dir() / "release"
    generator = Path(args.generator) if args.generator else release / "sp-workload"
    sp = Path(args.sp) if args.sp else release / "sp"
    need = []
    if not args.sp:
        need += ["-p", "sp", "--bin", "sp"]
    if not args.generator:
        need += ["-p", "sp-bench", "--bin", "sp-workload"]
    if need:
        cmd = ["cargo", "build", "--release", "--quiet"] + need
        if subprocess.run(cmd, cwd=REPO).returncode != 0:
            sys.exit("compare.py: cargo build failed")
    for p in (sp, generator):
        if not p.is_file():
            sys.exit(f"compare.py: {p} not found")
    return sp.resolve(), generator.resolve()


def has_help_text(cmd, needle):
    """Whether `cmd --help` succeeds (and mentions needle, when given)."""
    p = subprocess.run(cmd + ["--help"], capture_output=True, text=True)
    return p.returncode == 0 and (needle is None or needle in p.stdout)


def median(runs):
    return statistics.median(r.seconds for r in runs)


def peak(runs):
    return max(r.rss_mib for r in runs)


class Table:
    HEADERS = ["workload", "mode", "tool", "median s", "peak RSS MiB", "output MiB",
               "speed-up", "vs floor", "target", "result"]
    KEYS = ["workload", "mode", "tool", "median", "rss", "output", "speedup", "floor",
            "target", "result"]

    def __init__(self):
        self.rows = []

    def add(self, **cells):
        unknown = set(cells) - set(self.KEYS)
        assert not unknown, unknown
        self.rows.append([str(cells.get(k, "")) for k in self.KEYS])

    def print(self):
        widths = [max([len(h)] + [len(r[i]) for r in self.rows])
                  for i, h in enumerate(self.HEADERS)]

        def line(cells):
            return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        print(line(self.HEADERS))
        print(line(["-" * w for w in widths]))
        for r in self.rows:
            print(line(r))


class Bench:
    def __init__(self, args, sp, generator, workdir):
        self.args = args
        self.sp = sp
        self.generator = generator
        self.workdir = workdir
        self.python = sys.executable
        self.table = Table()
        self.failures = []
        self.target_failures = []

    def note(self, msg):
        print(f"compare.py: {msg}", file=sys.stderr, flush=True)

    def scale_for(self, name):
        if self.args.scale is not None:
            return self.args.scale
        return QUICK_SCALE[name] if self.args.quick else 1.0

    def generate(self, name):
        traces = self.workdir / name / "traces"
        if traces.is_dir():
            shutil.rmtree(traces)
        generator_name = "W2" if name == "W5" else name
        cmd = [str(self.generator), generator_name, str(traces), "--seed", str(self.args.seed),
               "--scale", repr(self.scale_for(name))]
        r = run(cmd)
        if r.code != 0:
            sys.exit(f"compare.py: sp-workload failed: {r.err}")
        files = sorted(traces.glob("*.spt"))
        # Warm the page cache: both tools (and the floor) then read from memory.
        run(cat_cmd(files), stdout=subprocess.DEVNULL)
        events = self.count_events(name)
        self.note(f"{name}: {len(files)} files, "
                  f"{sum(f.stat().st_size for f in files) / MIB:.1f} MiB, {events} events "
                  f"(generated in {r.seconds:.1f} s)")
        return traces, files, events

    def count_events(self, name):
        """Events of the scaled workload: sp-workload rounds calls and keeps at least one."""
        ranks, regions, calls = SHAPES[name]
        return ranks * regions * max(1, round(calls * self.scale_for(name)))

    def repeat(self, tools):
        """Runs each (label, prepare, cmd) in turn, --repeat times; returns label -> runs."""
        runs = {label: [] for label, _, _ in tools}
        for _ in range(self.args.repeat):
            for label, prepare, cmd in tools:
                prepare()
                runs[label].append(run(cmd))
            if any(self.failed(r) for r in runs.values()):
                break
        return runs

    def failed(self, runs):
        return next((r for r in runs if r.code != 0), None)

    def judge(self, mode, name, events, speedup, floor_ratio, rss, size_ratio):
        """(target text, result text) for a row of sp."""
        target = TARGETS.get((mode, name))
        if target is None:
            return "", ""
        min_speedup, max_floor, max_rss, max_size = target
        parts, ok = [], True
        if min_speedup is not None:
            parts.append(f">={min_speedup}x")
            ok &= speedup is not None and speedup >= min_speedup
        if max_floor is not None:
            parts.append(f"floor<={max_floor}")
            ok &= floor_ratio is not None and floor_ratio <= max_floor
        if max_rss is not None:
            parts.append(f"RSS<={max_rss}")
            ok &= rss <= max_rss
        if max_size is not None:
            parts.append(f"size<={max_size}")
            ok &= size_ratio is not None and size_ratio <= max_size
        verdict = "PASS" if ok else "FAIL"
        full = events == FULL_EVENTS[name] and not self.args.quick
        if not full:
            return " ".join(parts), verdict.lower() + " (scaled, not enforced)"
        if not ok:
            self.target_failures.append(f"{mode} {name}")
        return " ".join(parts), verdict

    def reference_row(self, name, mode, tool, runs):
        """The reference's row (speed-up 1.0x) and its median; a failure row and None when
        it failed."""
        bad = self.failed(runs)
        if bad:
            self.fail_row(name, mode, tool, bad)
            return None
        ref_s = median(runs)
        self.table.add(workload=name, mode=mode, tool=tool, median=f"{ref_s:.3f}",
                       rss=f"{peak(runs):.0f}", speedup="1.0x")
        return ref_s

    def fail_row(self, name, mode, tool, r):
        self.table.add(workload=name, mode=mode, tool=tool,
                       result=f"FAILED (exit {r.code})")
        self.failures.append(f"{mode} {name}: {tool} exited {r.code}: {r.err}")

    def compare_content(self, name, mode, ours, ref, events):
        if events > self.args.compare_limit:
            self.note(f"{mode} {name}: content not compared ({events} events > --compare-limit)")
            return
        r = run([self.python, str(H5CONTENT), "compare", str(ours), str(ref)])
        if r.code != 0:
            self.failures.append(f"{mode} {name}: sp's output differs from the reference's: "
                                 f"{r.err}")
            self.note(f"{mode} {name}: content DIFFERS")
        else:
            self.note(f"{mode} {name}: same content as the reference")

    def outputs(self, name, mode):
        """Output paths of the reference and sp: same file name, so the same default label."""
        base = self.workdir / name / mode
        ref, ours = base / "ref" / f"{name}.h5", base / "sp" / f"{name}.h5"
        for p in (ref, ours):
            p.parent.mkdir(parents=True, exist_ok=True)
        return ref, ours

    # -- modes ---------------------------------------------------------------------------

    def make_parts(self, name, files):
        """W5: the reference converts consecutive groups of traces into partial profiles."""
        parts_dir = self.workdir / name / "parts"
        parts_dir.mkdir(parents=True, exist_ok=True)
        per = -(-len(files) // W5_PARTS)
        parts, started = [], time.perf_counter()
        for k in range(W5_PARTS):
            part = parts_dir / f"part{k}.h5"
            part.unlink(missing_ok=True)
            group = [str(f) for f in files[k * per:(k + 1) * per]]
            r = run([self.python, "-m", "scope_profiler", "import-native", *group, "-o",
                     str(part), "-q"])
            if r.code != 0:
                sys.exit(f"compare.py: import-native of part {k} failed: {r.err}")
            parts.append(part)
        run(["cat"] + [str(p) for p in parts], stdout=subprocess.DEVNULL)
        self.note(f"{name}: {W5_PARTS} partial profiles of {per} ranks made by import-native "
                  f"in {time.perf_counter() - started:.1f} s "
                  f"({sum(p.stat().st_size for p in parts) / MIB:.1f} MiB)")
        return parts

    def convert(self, name, traces, files, events):
        ref, ours = self.outputs(name, "convert")
        floor_out = self.workdir / name / "convert" / "floor.bin"
        inputs = [str(traces)]
        if name == "W5":
            files = self.make_parts(name, files)
            inputs = [str(p) for p in files]
        ref_cmd = [self.python, "-m", "scope_profiler", "import-native", *inputs, "-o",
                   str(ref), "-q"]
        sp_cmd = [str(self.sp), "convert", *inputs, "-o", str(ours), "-q"]
        runs = self.repeat([("ref", lambda: ref.unlink(missing_ok=True), ref_cmd),
                            ("sp", lambda: ours.unlink(missing_ok=True), sp_cmd)])
        bad_ref, bad_sp = self.failed(runs["ref"]), self.failed(runs["sp"])
        if bad_ref:
            self.fail_row(name, "convert", "import-native", bad_ref)
            return
        ref_s = median(runs["ref"])
        # Floor: read every input, then write and sync a file of the output's size.
        size = (ours if ours.exists() else ref).stat().st_size
        floor_runs = []
        for _ in range(self.args.repeat):
            floor_out.unlink(missing_ok=True)
            read = run(cat_cmd(files), stdout=subprocess.DEVNULL)
            write = run(["dd", "if=/dev/zero", f"of={floor_out}", "bs=1M",
                         f"count={max(1, -(-size // MIB))}", "conv=fsync", "status=none"])
            floor_runs.append(Run(read.seconds + write.seconds, max(read.rss_mib, write.rss_mib),
                                  read.code or write.code, write.err))
        floor_out.unlink(missing_ok=True)
        floor_s = median(floor_runs)
        self.table.add(workload=name, mode="convert", tool="import-native",
                       median=f"{ref_s:.3f}", rss=f"{peak(runs['ref']):.0f}",
                       output=f"{ref.stat().st_size / MIB:.1f}", speedup="1.0x",
                       floor=f"{ref_s / floor_s:.2f}")
        self.table.add(workload=name, mode="convert", tool="floor (cat + dd)",
                       median=f"{floor_s:.3f}", rss=f"{peak(floor_runs):.0f}",
                       output=f"{size / MIB:.1f}", speedup=f"{ref_s / floor_s:.1f}x",
                       floor="1.00")
        if bad_sp:
            self.fail_row(name, "convert", "sp convert", bad_sp)
            return
        sp_s = median(runs["sp"])
        speedup, floor_ratio, rss = ref_s / sp_s, sp_s / floor_s, peak(runs["sp"])
        target, result = self.judge("convert", name, events, speedup, floor_ratio, rss, None)
        self.table.add(workload=name, mode="convert", tool="sp convert",
                       median=f"{sp_s:.3f}", rss=f"{rss:.0f}",
                       output=f"{ours.stat().st_size / MIB:.1f}",
                       speedup=f"{speedup:.1f}x", floor=f"{floor_ratio:.2f}",
                       target=target, result=result)
        self.compare_content(name, "convert", ours, ref, events)

    def compress(self, name, traces, files, events):
        ref, ours = self.outputs(name, "compress")
        sp_ok = has_help_text([str(self.sp), "convert"], "--compress")
        tools = [("ref", lambda: ref.unlink(missing_ok=True),
                  [self.python, "-c", REF_AUTO_COMPRESS, str(traces), str(ref)])]
        if sp_ok:
            tools.append(("sp", lambda: ours.unlink(missing_ok=True),
                          [str(self.sp), "convert", str(traces), "-o", str(ours), "-q",
                           f"--compress={self.args.compress_level}"
                           if self.args.compress_level is not None else "--compress"]))
        runs = self.repeat(tools)
        bad_ref = self.failed(runs["ref"])
        if bad_ref:
            self.fail_row(name, "compress", "reference auto", bad_ref)
            return
        ref_s, ref_size = median(runs["ref"]), ref.stat().st_size
        self.table.add(workload=name, mode="compress", tool="reference auto (gzip 4+shuffle)",
                       median=f"{ref_s:.3f}", rss=f"{peak(runs['ref']):.0f}",
                       output=f"{ref_size / MIB:.1f}", speedup="1.0x")
        if not sp_ok:
            self.table.add(workload=name, mode="compress", tool="sp convert --compress",
                           result="not available (no --compress option)")
            return
        bad_sp = self.failed(runs["sp"])
        if bad_sp:
            self.fail_row(name, "compress", "sp convert --compress", bad_sp)
            return
        sp_s, size = median(runs["sp"]), ours.stat().st_size
        speedup, size_ratio = ref_s / sp_s, size / ref_size
        target, result = self.judge("compress", name, events, speedup, None, peak(runs["sp"]),
                                    size_ratio)
        self.table.add(workload=name, mode="compress", tool="sp convert --compress",
                       median=f"{sp_s:.3f}", rss=f"{peak(runs['sp']):.0f}",
                       output=f"{size / MIB:.1f} ({size_ratio:.3f}x)",
                       speedup=f"{speedup:.1f}x", target=target, result=result)
        self.compare_content(name, "compress", ours, ref, events)

    def read(self, name, traces, files, events):
        # Read back what import-native wrote (convert mode's output, or a fresh one).
        profile = self.workdir / name / "convert" / "ref" / f"{name}.h5"
        if not profile.exists():
            profile = self.workdir / name / "read" / f"{name}.h5"
            profile.parent.mkdir(parents=True, exist_ok=True)
            made = run([self.python, "-m", "scope_profiler", "import-native", str(traces), "-o",
                        str(profile), "-q"])
            if made.code != 0:
                self.fail_row(name, "read", "import-native (making the profile)", made)
                return
        sp_args = [a.replace("{profile}", str(profile)) for a in self.args.sp_read.split()]
        sp_ok = has_help_text([str(self.sp)] + sp_args[:1], None)
        tools = [("ref", lambda: None, [self.python, "-c", REF_READ, str(profile)])]
        if sp_ok:
            tools.append(("sp", lambda: None, [str(self.sp)] + sp_args))
        runs = self.repeat(tools)
        ref_s = self.reference_row(name, "read", "read_h5 + totals", runs["ref"])
        if ref_s is None:
            return
        label = "sp " + " ".join(a if a != str(profile) else "FILE" for a in sp_args)
        if not sp_ok:
            self.table.add(workload=name, mode="read", tool=label,
                           result=f"not available (no `sp {sp_args[0]}` subcommand)")
            return
        bad_sp = self.failed(runs["sp"])
        if bad_sp:
            self.fail_row(name, "read", label, bad_sp)
            return
        sp_s = median(runs["sp"])
        speedup = ref_s / sp_s
        target, result = self.judge("read", name, events, speedup, None, peak(runs["sp"]), None)
        self.table.add(workload=name, mode="read", tool=label, median=f"{sp_s:.3f}",
                       rss=f"{peak(runs['sp']):.0f}", speedup=f"{speedup:.1f}x",
                       target=target, result=result)

    def profile_for(self, name, traces, mode):
        """The reference's profile of the workload: convert mode's output, or a fresh one."""
        profile = self.workdir / name / "convert" / "ref" / f"{name}.h5"
        if profile.exists():
            return profile
        profile = self.workdir / name / mode / f"{name}.h5"
        if profile.exists():
            return profile
        profile.parent.mkdir(parents=True, exist_ok=True)
        made = run([self.python, "-m", "scope_profiler", "import-native", str(traces), "-o",
                    str(profile), "-q"])
        if made.code != 0:
            self.fail_row(name, mode, "import-native (making the profile)", made)
            return None
        return profile

    def inspect(self, name, traces, files, events):
        """The region table of the reference's profile: the call tree (sp's default) and
        the same tree with every statistic (`--format json`), and the flat rows with
        percentiles, against `sp inspect --flat --from-events` (the
        floor: every event decoded) and, up to --ref-inspect-limit events, the reference's
        `scope-profiler inspect` (which computes every column of every call-tree row, so one
        command stands for both)."""
        profile = self.profile_for(name, traces, "inspect")
        if profile is None:
            return
        run(["cat", str(profile)], stdout=subprocess.DEVNULL)
        sp = str(self.sp)
        tools = [("floor", lambda: None, [sp, "inspect", str(profile), "--flat", "--from-events"]),
                 ("tree", lambda: None, [sp, "inspect", str(profile)]),
                 ("tree json", lambda: None, [sp, "inspect", str(profile), "--format", "json"]),
                 ("percentiles", lambda: None,
                  [sp, "inspect", str(profile), "--flat"] + PERCENTILE_COLUMNS)]
        with_ref = events <= self.args.ref_inspect_limit
        if with_ref:
            tools.insert(0, ("ref", lambda: None,
                             [self.python, "-m", "scope_profiler", "inspect", str(profile)]))
        runs = self.repeat(tools)
        ref_s = None
        if with_ref:
            ref_s = self.reference_row(name, "inspect", "scope-profiler inspect", runs["ref"])
            if ref_s is None:
                return
        else:
            self.table.add(workload=name, mode="inspect", tool="scope-profiler inspect",
                           result=f"not run: {events} events > --ref-inspect-limit (the "
                           "reference holds every call as Python objects; W2 needs more "
                           "memory than this machine has)")
        labels = {"floor": "sp inspect --flat --from-events",
                  "tree": "sp inspect (call tree)",
                  "tree json": "sp inspect --format json (tree, every statistic)",
                  "percentiles": "sp inspect --flat --columns .. p50 p95 p99"}
        for key, label in labels.items():
            bad = self.failed(runs[key])
            if bad:
                self.fail_row(name, "inspect", label, bad)
                return
        floor_s = median(runs["floor"])
        for key, label in labels.items():
            s = median(runs[key])
            # The floor is not the reference's computation: no speed-up for it.
            speedup = ref_s / s if ref_s and key != "floor" else None
            ratio = s / floor_s
            target, result = ("", "")
            if key != "floor":
                target, result = self.judge(f"inspect {key}", name, events, speedup, ratio,
                                            peak(runs[key]), None)
            self.table.add(workload=name, mode="inspect", tool=label, median=f"{s:.3f}",
                           rss=f"{peak(runs[key]):.0f}",
                           speedup=f"{speedup:.1f}x" if speedup else "",
                           floor=f"{ratio:.2f}", target=target, result=result)

    def shard(self, name, traces, files, events):
        """N processes convert one shard each, then one merges the parts; the merge must be
        the one-shot output byte for byte."""
        n = self.args.shards
        base = self.workdir / name / "shard"
        one, merged = base / "one" / f"{name}.h5", base / "merged" / f"{name}.h5"
        parts = [base / "parts" / f"part_{i}.h5" for i in range(n)]
        for p in [one, merged] + parts:
            p.parent.mkdir(parents=True, exist_ok=True)

        def clear_parts():
            for p in parts:
                p.unlink(missing_ok=True)

        shard_cmds = [[str(self.sp), "convert", str(traces), "--shard", f"{i}/{n}", "-o",
                       str(p), "-q"] for i, p in enumerate(parts)]
        merge_cmd = [str(self.sp), "convert", *[str(p) for p in parts], "-o", str(merged), "-q"]
        runs = {"one": [], "shards": [], "merge": []}
        for _ in range(self.args.repeat):
            one.unlink(missing_ok=True)
            runs["one"].append(run([str(self.sp), "convert", str(traces), "-o", str(one), "-q"]))
            clear_parts()
            runs["shards"].append(run_parallel(shard_cmds))
            merged.unlink(missing_ok=True)
            runs["merge"].append(run(merge_cmd))
            if any(self.failed(r) for r in runs.values()):
                break
        labels = {"one": "sp convert (one shot)",
                  "shards": f"sp convert --shard I/{n} ({n} processes at once)",
                  "merge": f"sp convert of the {n} parts"}
        for key, label in labels.items():
            bad = self.failed(runs[key])
            if bad:
                self.fail_row(name, "shard", label, bad)
                return
        one_s = median(runs["one"])
        for key, label in labels.items():
            s = median(runs[key])
            self.table.add(workload=name, mode="shard", tool=label, median=f"{s:.3f}",
                           rss=f"{peak(runs[key]):.0f}",
                           output=f"{sum(p.stat().st_size for p in parts) / MIB:.1f}"
                           if key == "shards" else f"{one.stat().st_size / MIB:.1f}")
        total = median(runs["shards"]) + median(runs["merge"])
        # Compared in blocks: reading both files whole would grow this process, and every
        # child forked after it would report its size as its own peak RSS.
        same = filecmp.cmp(one, merged, shallow=False)
        self.table.add(workload=name, mode="shard", tool="shards + merge",
                       median=f"{total:.3f}", speedup=f"{one_s / total:.2f}x",
                       result="merged == one shot" if same else "MERGED DIFFERS")
        if not same:
            self.failures.append(f"shard {name}: the merge of {n} parts differs from the "
                                 "one-shot output")
        self.note(f"shard {name}: merged {'identical to' if same else 'DIFFERS from'} "
                  "the one-shot output")

    def workload(self, name):
        traces, files, events = self.generate(name)
        for mode in self.args.modes:
            if mode == "shard":
                if name not in self.args.shard_on:
                    continue
            elif mode == "inspect":
                if name not in self.args.inspect_on:
                    continue
            elif mode != "convert" and name not in self.args.also_on:
                continue
            self.note(f"{name}: {mode} x{self.args.repeat} ...")
            getattr(self, mode)(name, traces, files, events)
        if not self.args.keep:
            shutil.rmtree(self.workdir / name, ignore_errors=True)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Benchmark sp against scope-profiler's import-native on generated "
        "workloads and print a table of medians, peak RSS and ratios.")
    p.add_argument("--workloads", default=",".join(WORKLOADS),
                   help="comma-separated subset of W1,W2,W3,W4,W5,W6 (default: all but W6)")
    p.add_argument("--modes", default=",".join(MODES),
                   help="comma-separated subset of convert,compress,read,shard,inspect "
                   "(default: all)")
    p.add_argument("--also-on", default="W2",
                   help="workloads that compress and read modes run on (default: %(default)s, "
                   "the one their targets are for)")
    p.add_argument("--shard-on", default="W3",
                   help="workloads that the shard mode runs on (default: %(default)s)")
    p.add_argument("--inspect-on", default="W1,W2",
                   help="workloads that the inspect mode runs on (default: %(default)s)")
    p.add_argument("--ref-inspect-limit", type=int, default=10_000_000,
                   help="run `scope-profiler inspect` only on profiles of at most this many "
                   "events (default: %(default)s: W1, not W2)")
    p.add_argument("--shards", type=int, default=8,
                   help="N of the shard mode's --shard I/N (default: %(default)s)")
    p.add_argument("--scale", type=float, default=None,
                   help="multiply calls per region by F (default 1; --quick: tiny)")
    p.add_argument("--repeat", type=int, default=None,
                   help="repetitions per tool (default 3; --quick: 1)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workdir", default=None,
                   help="where traces and outputs go (default: a temporary directory)")
    p.add_argument("--keep", action="store_true", help="keep traces and outputs")
    p.add_argument("--sp", default=None,
                   help="sp binary under test (default: build and use target/release/sp)")
    p.add_argument("--generator", default=None,
                   help="sp-workload binary (default: build target/release/sp-workload)")
    p.add_argument("--compress-level", type=int, default=None,
                   help="LEVEL for sp convert --compress=LEVEL (default: sp's own)")
    p.add_argument("--sp-read", default="inspect {profile} --flat --from-events --format json",
                   help="sp arguments that read every event and print per-region totals "
                   "({profile} is replaced; default: %(default)r)")
    p.add_argument("--compare-limit", type=int, default=10_000_000,
                   help="compare content only for outputs of at most this many events")
    p.add_argument("--quick", action="store_true",
                   help="CI mode: tiny scales, one repetition, targets not enforced")
    args = p.parse_args(argv)
    args.workloads = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    args.also_on = [w.strip().upper() for w in args.also_on.split(",") if w.strip()]
    args.shard_on = [w.strip().upper() for w in args.shard_on.split(",") if w.strip()]
    args.inspect_on = [w.strip().upper() for w in args.inspect_on.split(",") if w.strip()]
    if args.shards < 1:
        p.error("--shards must be at least 1")
    for w in args.workloads + args.also_on + args.shard_on + args.inspect_on:
        if w not in SHAPES:
            p.error(f"unknown workload {w}")
    for m in args.modes:
        if m not in MODES:
            p.error(f"unknown mode {m}")
    if args.scale is not None and not args.scale > 0:
        p.error("--scale must be positive")
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    sp, generator = build(args)
    temp = None
    if args.workdir:
        workdir = Path(args.workdir).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
    else:
        temp = tempfile.TemporaryDirectory(prefix="sp-bench-")
        workdir = Path(temp.name)
    bench = Bench(args, sp, generator, workdir)
    try:
        for name in args.workloads:
            bench.workload(name)
    finally:
        if temp is not None:
            temp.cleanup()
    print()
    print(f"sp: {sp}")
    print(f"reference: {sys.executable} -m scope_profiler (warm page cache, medians of "
          f"{args.repeat})")
    print()
    bench.table.print()
    for f in bench.failures:
        print(f"FAILURE: {f}")
    enforce = not args.quick
    if enforce and bench.target_failures:
        print("targets missed: " + ", ".join(bench.target_failures))
    return 1 if bench.failures or (enforce and bench.target_failures) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
