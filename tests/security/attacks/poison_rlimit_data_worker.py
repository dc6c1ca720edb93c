"""Lowers the warm worker's RLIMIT_DATA to what it already uses plus 32 MiB, and its stack
and locked-memory limits, through prlimit: limits no job used to set for itself, so the
next learners' children inherit them and a correct solution that needs 64 MiB fails with a
memory-limit verdict while small ones pass; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every limit of the worker it could
change. The poisoning tests then grade a correct solution that allocates 64 MiB on every
worker, and it must pass.
"""
# expect: status=pass kind=leak min_tried=3
import json
import os
import resource

MIB = 1024 * 1024
done = []


def vm_data(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 256 * MIB


def probe():
    tried, found = 0, []
    for pid in sorted({1, os.getppid()}):
        targets = {
            "RLIMIT_DATA": vm_data(pid) + 32 * MIB,
            "RLIMIT_STACK": 256 * 1024,
            "RLIMIT_MEMLOCK": 0,
        }
        for name, value in targets.items():
            tried += 1
            try:
                resource.prlimit(pid, getattr(resource, name), (value, value))
                found.append(f"prlimit({pid}, {name}, {value})")
            except (OSError, ValueError):
                pass
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
