"""Prints about 500 MB to stderr through print(file=sys.stderr) and sys.stderr.write.

Right answer, Python-level output: a pass with a truncated output (checked by the test).
"""
# expect: status=pass truncated=yes
import sys


def double(x):
    line = "eggs " * 20_000
    for _ in range(2_500):
        print(line, file=sys.stderr)
        sys.stderr.write(line)
    return x * 2
