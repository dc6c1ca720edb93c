"""Walks the whole visible file system by name (not /proc or /sys), for up to a second once per job,
looking for anything of the service: exercise folders, exercise.toml, the database, the
design brief, the server's exercises folder.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=1000 proof=process
import json
import os
import time

SUSPECT_FILES = {"drill.db", "exercise.toml", "DESIGN.md", "statement.md"}
SUSPECT_DIRS = {"gradient-checkpointing", "checkpointing-layer-stack"}
SERVER_EXERCISES = "@@EXERCISES_DIR@@"


def probe():
    tried, found, started = 0, [], time.monotonic()
    for top in (SERVER_EXERCISES, "@@REPO@@/exercises", "@@REPO@@", "/"):
        for root, dirs, files in os.walk(top):
            if root == "/":
                dirs[:] = [d for d in dirs if d not in ("proc", "sys")]
            dirs[:] = [d for d in dirs if d not in (".git", "node_modules")]
            tried += 1 + len(files)
            if root.startswith(SERVER_EXERCISES):
                found.append(root)
            found += [os.path.join(root, d) for d in dirs if d in SUSPECT_DIRS]
            found += [os.path.join(root, f) for f in files if f in SUSPECT_FILES]
            if time.monotonic() - started > 1.0:
                break
    return {"tried": tried, "found": sorted(set(found))}


walked = False


def double(x):
    global walked
    if not walked:  # once per job: a second walk would use up the job's time for nothing
        walked = True
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
