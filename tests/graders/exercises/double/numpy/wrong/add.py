"""Adds two instead of doubling."""


def double(x):
    return x + 2
