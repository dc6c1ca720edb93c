"""Sets the warm worker's RLIMIT_FSIZE to 0 through prlimit, so that every later job on that
worker fails to set its own output cap; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every attempt the sandbox let
through (the worker's limit changed). The poisoning tests then grade the correct solution
on every worker and it must pass.
"""
# expect: status=pass kind=leak min_tried=4
import ctypes
import json
import os
import resource

libc = ctypes.CDLL(None, use_errno=True)
done = []


class RLimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]


def raw_prlimit(pid, which, value):
    """prlimit64 with a 64-bit pid argument (high bits set: the kernel keeps the low 32)."""
    new = RLimit(value, value)
    return libc.syscall(ctypes.c_long(302), ctypes.c_long(pid), ctypes.c_long(which),
                        ctypes.byref(new), None)


def probe():
    tried, found = 0, []
    for pid in sorted({1, os.getppid()}):
        tried += 1
        try:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, 0))
            found.append(f"prlimit({pid}, RLIMIT_FSIZE, (0, 0))")
        except (OSError, ValueError):
            pass
        tried += 1
        try:  # lowering only the soft limit is enough to break the next job's writes
            hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, hard))
            found.append(f"prlimit({pid}, RLIMIT_FSIZE, (0, hard))")
        except (OSError, ValueError):
            pass
    for pid in (1 << 32 | 1, -(1 << 32) + 1):  # both are pid 1 to the kernel
        tried += 1
        if raw_prlimit(pid, resource.RLIMIT_FSIZE, 0) == 0:
            found.append(f"prlimit64 with pid {pid:#x}")
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
