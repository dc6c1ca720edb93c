"""Reads the exercises folders and the reference solutions: the server's exercises folder
(substituted), tests/graders/exercises/double/numpy/solution.py and /work/main/exercises.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=5 proof=process
import json
import os

PATHS = [
    "@@EXERCISES_DIR@@",
    "@@EXERCISES_DIR@@/double/numpy/solution.py",
    "@@EXERCISES_DIR@@/double/numpy/tests.py",
    "@@REPO@@/tests/graders/exercises/double/numpy/solution.py",
    "@@REPO@@/exercises",
    "@@REPO@@/exercises/gradient-checkpointing/numpy/solution.py",
]
HALVES = ("@@REF_A@@", "@@REF_B@@")


def probe():
    tried, found = 0, []
    for path in PATHS:
        tried += 1
        try:
            if os.path.isdir(path):
                found.append(f"listed {path}")
                continue
            with open(path, "rb") as f:
                data = f.read()
            found.append(f"read {path}" + (" (reference marker)" if
                         (HALVES[0] + HALVES[1]).encode() in data else ""))
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
