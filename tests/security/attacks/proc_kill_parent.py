"""Kills its parent (the warm worker), pid 1 of the sandbox, and its process group."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import os
import signal


def double(x):
    os.kill(os.getppid(), signal.SIGKILL)
    os.kill(1, signal.SIGKILL)
    os.kill(0, signal.SIGKILL)
    return x * 2
