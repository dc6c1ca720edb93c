"""Sends SIGKILL to every process it may signal: kill(-1, SIGKILL)."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import os
import signal


def double(x):
    os.kill(-1, signal.SIGKILL)
    return x * 2
