"""Switches the warm worker to SCHED_IDLE (and SCHED_BATCH) through sched_setscheduler,
sched_setparam and a raw sched_setattr, so that the next learners' children inherit the
idle policy; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every call the sandbox let through.
"""
# expect: status=pass kind=leak min_tried=4
import ctypes
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
done = []


class SchedAttr(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("policy", ctypes.c_uint32),
        ("flags", ctypes.c_uint64),
        ("nice", ctypes.c_int32),
        ("priority", ctypes.c_uint32),
        ("runtime", ctypes.c_uint64),
        ("deadline", ctypes.c_uint64),
        ("period", ctypes.c_uint64),
    ]


def sched_setattr(pid, policy):
    attr = SchedAttr(ctypes.sizeof(SchedAttr), policy, 0, 19, 0, 0, 0, 0)
    return libc.syscall(ctypes.c_long(314), ctypes.c_long(pid), ctypes.byref(attr), 0)


def probe():
    tried, found = 0, []
    for pid in sorted({1, os.getppid()}):
        for policy in (os.SCHED_IDLE, os.SCHED_BATCH):
            tried += 1
            try:
                os.sched_setscheduler(pid, policy, os.sched_param(0))
                found.append(f"sched_setscheduler({pid}, {policy})")
            except OSError:
                pass
        tried += 1
        try:  # a no-op on SCHED_OTHER, but the call must not even reach another process
            os.sched_setparam(pid, os.sched_param(0))
            found.append(f"sched_setparam({pid})")
        except OSError:
            pass
        tried += 1
        if sched_setattr(pid, os.SCHED_IDLE) == 0:
            found.append(f"sched_setattr({pid}, SCHED_IDLE)")
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
