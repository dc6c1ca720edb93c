"""Reads the service's source tree: app/, graders/grading/catalog.py, graders/settings.py,
pyproject.toml and the shared design folder.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=5 proof=process
import json
import os

PATHS = [
    "@@REPO@@/app",
    "@@REPO@@/graders/grading/catalog.py",
    "@@REPO@@/graders/settings.py",
    "@@REPO@@/graders/grading/references.py",
    "@@REPO@@/pyproject.toml",
    "@@REPO@@/../shared",
]


def probe():
    tried, found = 0, []
    for path in PATHS:
        tried += 1
        try:
            if os.path.isdir(path):
                os.listdir(path)
            else:
                with open(path, "rb") as f:
                    f.read(1)
            found.append(path)
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
