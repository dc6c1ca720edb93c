"""Starts a program with os.posix_spawn (clone(CLONE_VM|CLONE_VFORK) + exec)."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted(: .*)? \(the sandbox does not allow starting programs"
import os


def double(x):
    os.posix_spawn("/bin/sh", ["sh", "-c", "echo escaped"], {})
    return x * 2
