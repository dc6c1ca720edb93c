"""Replaces its own process with a shell (exec without fork)."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import os


def double(x):
    os.execv("/bin/sh", ["sh", "-c", "echo escaped"])
