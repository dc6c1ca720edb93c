"""Starts threads (default stack size) until it cannot, then re-raises the failure.

Each thread reserves an 8 MiB stack, which the address-space limit counts: that limit or
the job cgroup's pids.max, whichever binds first, stops it."""
# expect: status=fail test_message~="^(your code started more threads than the limit of 64 allows \(RuntimeError: can't start new thread\)|your code raised RuntimeError: can't start new thread) \(line \d+(: [^\n]*)?\)$"
# expect-without-cgroups: status=fail test_message~="^your code raised RuntimeError: can't start new thread \(line \d+(: [^\n]*)?\)$"
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
