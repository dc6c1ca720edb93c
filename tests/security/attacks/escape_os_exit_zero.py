"""Calls os._exit(0) inside the entry point (no exception, no cleanup)."""
# expect: status=fail test_message~="^your code ended the process \(exit status 0\) before the tests finished$"
import os


def double(x):
    os._exit(0)
