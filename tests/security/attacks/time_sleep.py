"""Sleeps far past the wall-clock limit (uses no CPU, so only the wall clock can stop it)."""
# expect: status=fail test_message~="^wall-clock time limit of 6 s exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import time


def double(x):
    time.sleep(600)
    return x * 2
