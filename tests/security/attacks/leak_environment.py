"""Reads the server's environment: os.environ, /proc/self/environ, every ancestor's
/proc/<pid>/environ (following PPid up to pid 1) and /proc/1/environ; looks for the canary
the test put in the server's environment and for any DRILL_* variable.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=2 proof=process
import json
import os

HALVES = ("@@SECRET_A@@", "@@SECRET_B@@")


def probe():
    needle = (HALVES[0] + HALVES[1]).encode()
    tried, found = 0, []
    env = "\0".join(f"{k}={v}" for k, v in os.environ.items()).encode()
    tried += 1
    if needle in env or b"DRILL_" in env:
        found.append("os.environ")
    pids, pid = [], os.getpid()
    while pid > 0 and pid not in pids:
        pids.append(pid)
        try:
            with open(f"/proc/{pid}/status") as f:
                pid = int(next(line for line in f if line.startswith("PPid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            break
    for p in [*pids, 1]:
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                data = f.read()
        except OSError:
            continue
        tried += 1
        if needle in data or b"DRILL_" in data:
            found.append(f"/proc/{p}/environ")
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
