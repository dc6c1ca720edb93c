"""The long-running processes' heap: large buffers go back to the system when freed.

glibc serves an allocation from ``mmap`` above a threshold that, by default, rises to the
size of the largest block freed so far (up to 32 MiB). Once a job's result of a few MiB
has been freed, later ones of that size come from the heap instead, and the holes they
leave between smaller live objects are never returned: the server's memory crept up by
about 1.5 MiB a minute under the soak (bench/soak.py) while its Python objects stayed the
same. A fixed threshold keeps every buffer of 128 KiB or more in its own mapping,
unmapped when freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3  # mallopt(3); setting it also turns the rising threshold off
THRESHOLD = 128 * 1024


def pin_mmap_threshold(threshold: int = THRESHOLD) -> bool:
    """Fix glibc's mmap threshold for this process; False where that is not glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))
