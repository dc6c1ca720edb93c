"""Finder for persist_module_state_plant.py: looks for any trace of the planted state."""
import builtins
import json
import os
import sys

import numpy as np

TOKEN = "@@TOKEN@@"


def probe():
    tried, found = 0, []
    for name in ("multiply", "add", "allclose", "array_equal", "asarray"):
        tried += 1
        if getattr(getattr(np, name), "drill_token", None) == TOKEN:
            found.append(f"np.{name}")
    tried += 1
    if getattr(builtins, "drill_token", None) == TOKEN or getattr(builtins.help, "drill_token", None):
        found.append("builtins")
    tried += 1
    if any(TOKEN in name for name in sys.modules) or TOKEN in "".join(sys.path):
        found.append("sys.modules/sys.path")
    tried += 1
    if os.environ.get("DRILL_PLANTED") == TOKEN:
        found.append("os.environ")
    for name in ("graders.sandbox.testing", "graders.sandbox.runner", "graders.sandbox.encode"):
        tried += 1
        if getattr(sys.modules.get(name), "drill_token", None) == TOKEN:
            found.append(name)
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded({**probe(), "ns": os.readlink("/proc/self/ns/pid")})))
    return x * 2
