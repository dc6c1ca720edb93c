"""Changes interpreter state inherited from the warm worker, for the next submission to
trip on (finder: finders/persist_module_state_find.py): NumPy functions and ndarray
methods, sys.modules entries, builtins, sys.path, the harness's own modules, os.environ,
the working folder, and a planted module.

Returns the right answer; what is checked is that the finder finds nothing.
"""
# expect: status=pass kind=plant finder=persist_module_state_find.py proof=same-process
import builtins
import json
import os
import sys
import types

import numpy as np

TOKEN = "@@TOKEN@@"


def plant():
    planted = []

    def evil(*a, **k):
        return TOKEN

    evil.drill_token = TOKEN
    # Replacing these would end the run (the integrity check, escape_patch_numpy_compare.py);
    # tagging the objects themselves leaves state a shared interpreter would carry over.
    for name in ("multiply", "add", "allclose", "array_equal", "asarray"):
        try:
            setattr(getattr(np, name), "drill_token", TOKEN)
            planted.append(f"np.{name}")
        except (AttributeError, TypeError):
            pass
    try:
        np.ndarray.__mul__ = evil
    except TypeError:
        pass
    builtins.help.drill_token = TOKEN
    builtins.drill_token = TOKEN
    planted.append("builtins")
    module = types.ModuleType(f"drill_planted_{TOKEN}")
    module.drill_token = TOKEN
    sys.modules[module.__name__] = module
    sys.modules["solution"] = module
    sys.path.insert(0, f"/tmp/{TOKEN}")
    os.environ["DRILL_PLANTED"] = TOKEN
    for name in ("graders.sandbox.testing", "graders.sandbox.runner", "graders.sandbox.encode"):
        if name in sys.modules:
            sys.modules[name].drill_token = TOKEN
            planted.append(name)
    return planted


def double(x):
    planted = plant()
    print("PLANTED " + json.dumps(bounded({"ns": os.readlink("/proc/self/ns/pid"), "planted": planted})))
    return np.ndarray.__mul__(x, 2)
