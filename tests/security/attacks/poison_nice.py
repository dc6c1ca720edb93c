"""Sets the warm worker's nice value to 19 through setpriority on its pid, on the process
group, and on every process of the user (PRIO_USER), so that the next learners' children
inherit the lowest priority; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every setpriority call the sandbox
let through.
"""
# expect: status=pass kind=leak min_tried=4
import json
import os

done = []


def probe():
    tried, found = 0, []
    workers = sorted({1, os.getppid()})
    calls = [(os.PRIO_PROCESS, pid) for pid in workers]
    calls += [(os.PRIO_PGRP, group) for group in sorted({os.getpgid(pid) for pid in workers})]
    calls += [(os.PRIO_USER, 0), (os.PRIO_USER, os.getuid())]
    for which, who in calls:
        tried += 1
        try:
            os.setpriority(which, who, 19)
            found.append(f"setpriority({which}, {who}, 19)")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
