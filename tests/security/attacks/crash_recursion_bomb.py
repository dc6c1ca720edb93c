"""Recurses without end (Python-level recursion limit)."""
# expect: status=fail test_message~="^maximum recursion depth exceeded \(line \d+(: [^\n]*)?\)$"


def double(x):
    return double(x)
