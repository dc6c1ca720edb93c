"""Waits forever on a thread that never ends (blocked, not spinning)."""
# expect: status=fail test_message~="^wall-clock time limit of 6 s exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import threading


def double(x):
    t = threading.Thread(target=threading.Event().wait)
    t.start()
    t.join()
    return x * 2
