"""Lists its open file descriptors looking for anything inherited: the worker's control
socket, other jobs' pipes, files. Only stdin (/dev/null), the output capture (a memfd on 1
and 2) and the one result pipe may be open.

Leak probe: returns the right answer (passes); the check is that nothing else was open.
"""
# expect: status=pass kind=leak min_tried=4
import json
import os


def probe():
    tried, found, pipes = 0, [], 0
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        tried += 1
        if target == "/dev/null" or target.startswith("/memfd:output"):
            continue
        if target.startswith("pipe:"):
            pipes += 1
            if pipes == 1:
                continue
        found.append(f"{name} -> {target}")
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
