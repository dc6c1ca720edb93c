"""Prints about 500 MB to stdout through print().

Python-level output is kept up to the output cap and the rest dropped, and the answer is
right, so the correct verdict is a pass with a truncated output (checked by the test).
"""
# expect: status=pass truncated=yes
def double(x):
    line = "spam " * 20_000
    for _ in range(5_000):
        print(line)
    return x * 2
