"""Sleeps far past the wall-clock limit (uses no CPU, so only the wall clock can stop it)."""
# expect: status=fail test_message~="^timed out after 6 s$"
import time


def double(x):
    time.sleep(600)
    return x * 2
