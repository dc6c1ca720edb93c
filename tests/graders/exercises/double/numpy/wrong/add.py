"""Adds two instead of doubling.

Breaks: matrix
"""


def double(x):
    return x + 2
