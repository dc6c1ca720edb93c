"""Builds a list of ten billion references in one expression."""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded \(line \d+(: [^\n]*)?\)$"


def double(x):
    return [0] * 10**10
