"""Starts threads with the smallest stack Python allows (32 KiB), up to 1500 of them.

Bounded at 1500 to spare the host's PID space. Returns the right answer only if all 1500
started, so a pass means no thread limit applied.

KNOWN GAP: the kernel exempts processes whose real uid is 0 outside the user namespace
from RLIMIT_NPROC, so when the service runs as root only the address-space limit bounds
the thread count, and this attack may pass (or time out in CPython's thread start-up
under memory pressure). As any other user RLIMIT_NPROC binds and it must fail.
"""
# expect-as-root: status=(pass|fail)
# expect: status=fail test_message~="^(timed out after 3 s|your code raised RuntimeError: can't start new thread \(line \d+(: [^\n]*)?\)|memory limit of 512 MiB exceeded.*)$"
import threading


def double(x):
    threading.stack_size(32 * 1024)
    stop = threading.Event()
    try:
        for _ in range(1500):
            threading.Thread(target=stop.wait, daemon=True).start()
    finally:
        stop.set()
    return x * 2
