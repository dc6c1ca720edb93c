"""Sleeps at import time, before the first test."""
# expect: status=error message~="^wall-clock time limit of 6 s exceeded while loading your code(, at line \d+: `[^\n]*`)?$"
import time

time.sleep(600)


def double(x):
    return x * 2
