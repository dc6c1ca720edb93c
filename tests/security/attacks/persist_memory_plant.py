"""Writes a marker into memory it inherited from the warm worker: over the bytes of a frozen,
long-lived object (a NumPy docstring) through ctypes, and into freshly allocated memory, for
the next submission to find in its own inherited memory (finder:
finders/persist_memory_find.py).

Returns the right answer; what is checked is that the finder finds nothing.
"""
# expect: status=pass kind=plant finder=persist_memory_find.py proof=same-process
import ctypes
import json
import os
import sys

import numpy as np

MARK = ("@@TOKEN@@" + "-persisted-in-memory").encode()
KEEP = []


def plant():
    planted = []
    doc = np.ndarray.__doc__ if isinstance(np.ndarray.__doc__, str) else None
    if doc and doc.isascii() and len(doc) > len(MARK):
        # The compact ASCII string's characters sit right after its header.
        offset = sys.getsizeof("") - 1
        ctypes.memmove(id(doc) + offset, MARK, len(MARK))
        planted.append("numpy docstring")
    buf = ctypes.create_string_buffer(MARK * 1000)
    KEEP.append(buf)
    planted.append("fresh buffer")
    return planted


def double(x):
    print("PLANTED " + json.dumps(bounded({"ns": os.readlink("/proc/self/ns/pid"), "planted": plant()})))
    return x * 2
