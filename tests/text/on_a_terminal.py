"""Runs a command with its stdout and its stderr each on a pseudo-terminal of its own (as
when a person runs it), and prints one JSON object: {"status", "stdout", "stderr"}, the
two outputs as hexadecimal bytes. The terminals are 160 columns wide and do not turn
"\n" into "\r\n", so what the command wrote is what comes back.

    python tests/text/on_a_terminal.py COMMAND [ARG...]
"""

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios


def terminal():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # oflag: keep "\n" as it is
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    return master, slave


def main():
    (out_m, out_s), (err_m, err_s) = terminal(), terminal()
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    child = subprocess.Popen(
        sys.argv[1:], stdin=subprocess.DEVNULL, stdout=out_s, stderr=err_s, env=env
    )
    os.close(out_s)
    os.close(err_s)
    got = {out_m: b"", err_m: b""}
    live = {out_m, err_m}
    while live:
        ready, _, _ = select.select(list(live), [], [])
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the other side is closed
                data = b""
            if data:
                got[fd] += data
            else:
                live.discard(fd)
    status = child.wait()
    json.dump(
        {"status": status, "stdout": got[out_m].hex(), "stderr": got[err_m].hex()},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
