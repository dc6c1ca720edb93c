"""Forks in a loop (a classic fork bomb)."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import os


def double(x):
    while True:
        os.fork()
