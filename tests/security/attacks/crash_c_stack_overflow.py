"""Lifts the recursion limit and recurses through C code (repr of a list nested 200 000
deep) until the C stack overflows."""
# expect: status=fail test_message~="^(crashed with SIGSEGV|CPU time limit of 2 s exceeded in test [^\n]*|maximum recursion depth exceeded.*)$"
import sys


def double(x):
    sys.setrecursionlimit(10**8)
    nested = []
    for _ in range(200_000):
        nested = [nested]
    return repr(nested) and x * 2
