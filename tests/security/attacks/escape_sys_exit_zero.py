"""Calls sys.exit(0) inside the entry point, hoping a clean exit reads as success."""
# expect: status=fail test_message~="^your code called sys.exit\(0\) \(line \d+(: [^\n]*)?\); return a value instead$"
import sys


def double(x):
    sys.exit(0)
