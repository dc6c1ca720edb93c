"""Calls sys.exit(0) while being imported, before any test runs."""
# expect: status=error message~="^your code called sys.exit\(0\) \(line \d+(: [^\n]*)?\); return a value instead$"
import sys

sys.exit(0)


def double(x):
    return x * 2
