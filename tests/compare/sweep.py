"""Run `scope-profiler diff` / `check` (in this process) and `sp diff` / `sp check` on
random pairs of golden profiles with random options, and report every case whose output
or exit status differs.

    python tests/compare/sweep.py SP_BINARY SEED CASES

Run from the repository root (titles name the files relative to it). Exits 1 when any
case differs, printing the first few with a diff of the two outputs.
"""

import contextlib
import difflib
import glob
import io
import random
import subprocess
import sys

from scope_profiler import diff


def options(rng, check):
    """Random arguments after the two files."""
    args = ["--metric", rng.choice(diff.METRICS)]
    k = rng.random()
    if k < 0.15:
        args += ["--ranks", rng.choice(["0", "1", "0-2", "3", "0 5"])]
    elif k < 0.3:
        args += ["--include", "s.*", "i.*", "--exclude", "so.*"]
    if check:
        args += ["--max-regression", str(rng.choice([0, 2.5, 10, 100]))]
        if rng.random() < 0.5:
            args.append("--fail-on-new")
    elif rng.random() < 0.5:
        args += ["--sort", rng.choice(diff.SORT_KEYS)]
        if rng.random() < 0.5:
            args += ["--threshold", str(rng.choice([0, 1, 5, 50]))]
    return " ".join(args).split()


def reference(check, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = (diff.check_main if check else diff.main)(args)
    return out.getvalue(), status


def main(sp, seed, cases):
    rng = random.Random(seed)
    files = sorted(glob.glob("tests/golden/*/expected/*.h5"))
    bad = []
    for _ in range(cases):
        check = rng.random() < 0.4
        args = [rng.choice(files), rng.choice(files)] + options(rng, check)
        expected, status = reference(check, args)
        got = subprocess.run([sp, "check" if check else "diff", *args],
                             capture_output=True, text=True)
        if got.stdout != expected or got.returncode != status:
            bad.append((check, args, status, got, expected))
    for check, args, status, got, expected in bad[:3]:
        print("check" if check else "diff", *args, f"(exit {status}, sp {got.returncode})")
        print(got.stderr, end="")
        print("".join(difflib.unified_diff(expected.splitlines(True),
                                           got.stdout.splitlines(True), "reference", "sp")))
    print(f"{cases} cases, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
