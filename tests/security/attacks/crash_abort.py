"""Calls os.abort() (SIGABRT, which would dump core)."""
# expect: status=fail test_message~="^crashed with SIGABRT$"
import os


def double(x):
    os.abort()
