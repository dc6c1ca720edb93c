"""Sleeps at import time, before the first test."""
# expect: status=error message~="^timed out after 6 s while loading your code$"
import time

time.sleep(600)


def double(x):
    return x * 2
