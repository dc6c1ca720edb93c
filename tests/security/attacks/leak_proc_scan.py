"""Reads /proc/<pid>/environ and /proc/<pid>/cmdline of every process it can see, looking
for the server's canary, its port, its var folder or its database path.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=2 proof=process
import json
import os

NEEDLES = [
    ("@@SECRET_A@@", "@@SECRET_B@@"),
    ("--port\0", "@@SERVER_PORT@@"),
    ("@@VAR_DIR@@", ""),
    ("drill", "\0serve"),
]


def probe():
    tried, found = 0, []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            tried += 1
            for a, b in NEEDLES:
                if (a + b).encode() in data:
                    found.append(f"/proc/{pid}/{name}: {a[:12]}")
    return {"tried": tried, "found": sorted(set(found))}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
