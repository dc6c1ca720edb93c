"""Spins in four threads running NumPy ufuncs (which release the GIL), so CPU time grows
faster than wall time."""
# expect: status=fail test_message~="^(CPU time limit of 2 s|wall-clock time limit of 6 s) exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import threading

import numpy as np


def spin():
    a = np.random.rand(100_000)
    while True:
        np.sin(a, out=a)


def double(x):
    threading.stack_size(512 * 1024)
    for _ in range(4):
        threading.Thread(target=spin, daemon=True).start()
    spin()
