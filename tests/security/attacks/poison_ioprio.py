"""Gives the warm worker the idle I/O class through ioprio_set, by process, by process group
and by user, so that the next learners' children inherit it; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every call the sandbox let through.
"""
# expect: status=pass kind=leak min_tried=4
import ctypes
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
IOPRIO_WHO_PROCESS, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER = 1, 2, 3
IOPRIO_IDLE = 3 << 13  # class IDLE, level 0
done = []


def ioprio_set(which, who):
    return libc.syscall(ctypes.c_long(251), ctypes.c_long(which), ctypes.c_long(who),
                        ctypes.c_long(IOPRIO_IDLE))


def probe():
    tried, found = 0, []
    workers = sorted({1, os.getppid()})
    calls = [(IOPRIO_WHO_PROCESS, pid) for pid in workers]
    calls += [(IOPRIO_WHO_PGRP, group) for group in sorted({os.getpgid(p) for p in workers})]
    calls += [(IOPRIO_WHO_USER, 0), (IOPRIO_WHO_USER, os.getuid())]
    for which, who in calls:
        tried += 1
        if ioprio_set(which, who) == 0:
            found.append(f"ioprio_set({which}, {who}, IDLE)")
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
