"""Starts threads (default stack size) until it cannot, then re-raises the failure."""
# expect: status=fail test_message~="^your code raised RuntimeError: can't start new thread \(line \d+(: [^\n]*)?\)$"
import threading


def double(x):
    stop = threading.Event()
    n = 0
    try:
        while n < 20_000:
            threading.Thread(target=stop.wait, daemon=True).start()
            n += 1
    finally:
        stop.set()
    return x * 2
