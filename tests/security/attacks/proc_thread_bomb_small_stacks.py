"""Starts threads with the smallest stack Python allows (32 KiB), up to 1500 of them.

Bounded at 1500 to spare the host's PID space. Returns the right answer only if all 1500
started, so a pass means no thread limit applied. The job cgroup's pids.max stops it for
every user, root included: the kernel exempts uid 0 from RLIMIT_NPROC, and 1500 small
stacks fit in the address-space limit, so without cgroups, as root, it passes (the proof
run shows it).
"""
# expect: status=fail test_message~="^your code started more threads than the limit of 64 allows \(RuntimeError: can't start new thread\) \(line \d+(: [^\n]*)?\)$" proof=no-cgroups
# expect-without-cgroups: status=fail test_message~="^(timed out after 3 s|your code raised RuntimeError: can't start new thread \(line \d+(: [^\n]*)?\)|memory limit of 1024 MiB exceeded.*)$"
# expect-as-root-without-cgroups: status=(pass|fail)
import json
import threading


def double(x):
    threading.stack_size(32 * 1024)
    stop = threading.Event()
    started = 0
    try:
        for _ in range(1500):
            threading.Thread(target=stop.wait, daemon=True).start()
            started += 1
    finally:
        stop.set()
    print("REPORT " + json.dumps({"tried": 1, "found": [f"started {started} threads"]}))
    return x * 2
