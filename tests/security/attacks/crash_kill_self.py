"""Sends SIGKILL to itself (the one process it may signal)."""
# expect: status=fail test_message~="^crashed with SIGKILL$"
import os
import signal


def double(x):
    os.kill(os.getpid(), signal.SIGKILL)
