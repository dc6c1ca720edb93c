"""Opens the service's SQLite database (its real path, substituted by the test), the var
folder, and walks up from / for any drill.db.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=3 proof=process
import json
import os
import time

PATHS = ["@@DB_PATH@@", "@@VAR_DIR@@", "@@REPO@@/var/drill.db", "@@REPO@@/var"]


def probe():
    tried, found = 0, []
    for path in PATHS:
        tried += 1
        try:
            if os.path.isdir(path):
                found.append(f"listed {path}: {len(os.listdir(path))} entries")
            else:
                with open(path, "rb") as f:
                    if f.read(16).startswith(b"SQLite format 3"):
                        found.append(f"read {path}")
        except OSError:
            pass
    # The walk stops after a second: unconfined (the proof run), it would otherwise wander
    # a whole machine's folders past the time limit.
    deadline = time.monotonic() + 1.0
    for top in ("/work", "/tmp", "/var", "/root", "/home", "/srv"):
        for root, dirs, files in os.walk(top):
            tried += 1
            if "drill.db" in files:
                found.append(os.path.join(root, "drill.db"))
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
            if time.monotonic() > deadline:
                dirs[:] = []
    return {"tried": tried, "found": sorted(set(found))}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
