"""Write two profiles with GPU timings through the reference's own writer: a backend that
reports a fixed device time per call, far above the CPU time of the (empty) regions, so
`diff` prints its GPU-time warning and the gpu_total / gpu_avg metrics have values.

    python tests/compare/make_gpu_profiles.py A.h5 B.h5
"""

import sys

import scope_profiler as sp


class FixedDeviceTime:
    """A CUDA-event backend stand-in: every call takes `ns` on the device."""

    name = "fixed"

    def __init__(self, ns):
        self.ns = ns
        self.events = 0

    def record_event(self):
        self.events += 1
        return self.events

    def elapsed_time_ns(self, start_event, end_event):
        return self.ns


def run(path, ns, calls):
    with sp.session(file_path=path, verbose=False, use_gpu_timing=True,
                    gpu_timing_backend=FixedDeviceTime(ns)):
        for _ in range(calls):
            with sp.region("kernel"):
                pass
        with sp.region("host"):
            sum(range(1000))


if __name__ == "__main__":
    run(sys.argv[1], 5_000_000, 4)
    run(sys.argv[2], 6_000_000, 5)
