"""Leaves its process group and session (setpgid/setsid), then sleeps past the wall limit.

The wall-clock kill must still reach it: the worker kills the whole PID namespace.
"""
# expect: status=fail test_message~="^wall-clock time limit of 6 s exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import contextlib
import os
import time


def double(x):
    with contextlib.suppress(OSError):
        os.setpgid(0, 1)
    with contextlib.suppress(OSError):
        os.setpgid(0, os.getppid())
    with contextlib.suppress(OSError):
        os.setsid()
    time.sleep(600)
