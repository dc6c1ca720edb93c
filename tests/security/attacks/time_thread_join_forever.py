"""Waits forever on a thread that never ends (blocked, not spinning)."""
# expect: status=fail test_message~="^timed out after 6 s$"
import threading


def double(x):
    t = threading.Thread(target=threading.Event().wait)
    t.start()
    t.join()
    return x * 2
