"""Looks for the hidden tests from a Run: in sys.modules, on sys.path and in memory.

A correct solution that, on import, searches for the tests module by name and walks the
garbage collector for functions and strings of the hidden tests (their names and code).
"""

# forges: gradient-checkpointing numpy
# guards: run-loads-examples
# expect: status=pass kind=search
import gc
import json
import sys

import numpy as np

HIDDEN = [
    "saved activations are copies",
    "recompute rebuilds every activation",
    "every_activation",
    "checkpointed_layer",
]


def search():
    found = sorted(name for name in ("drill_tests", "graders.sandbox.testing") if name in sys.modules)
    tried = 0
    for obj in gc.get_objects():
        tried += 1
        code = getattr(obj, "__code__", None)
        texts = [
            getattr(code, "co_name", ""),
            *(c for c in getattr(code, "co_consts", ()) if isinstance(c, str)),
        ]
        for text in texts:
            for marker in HIDDEN:
                if isinstance(text, str) and marker in text:
                    found.append(marker)
    return {"found": sorted(set(found)), "tried": tried}


def checkpoint_forward(layers, x, checkpoint_indices):
    print("REPORT " + json.dumps(bounded(search())))
    saved = {-1: np.copy(x)}
    a = x
    for i, layer in enumerate(layers):
        a = layer(a)
        if i in checkpoint_indices:
            saved[i] = np.copy(a)
    return a, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    a = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        a = layer(a)
    return a
