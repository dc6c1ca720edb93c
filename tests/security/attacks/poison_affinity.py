"""Pins the warm worker (and each of its threads) to one CPU through sched_setaffinity, so
that the next learners' children inherit that affinity; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every sched_setaffinity call the
sandbox let through.
"""
# expect: status=pass kind=leak min_tried=1
import json
import os

done = []


def worker_threads():
    tids = {1, os.getppid()}
    for pid in list(tids):
        try:
            tids.update(int(t) for t in os.listdir(f"/proc/{pid}/task"))
        except OSError:
            pass
    return sorted(tids)


def probe():
    tried, found = 0, []
    cpu = min(os.sched_getaffinity(0))
    for tid in worker_threads():
        tried += 1
        try:
            os.sched_setaffinity(tid, {cpu})
            found.append(f"sched_setaffinity({tid}, {{{cpu}}})")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
