"""Starts threads with the smallest stack Python allows (32 KiB), up to 512 of them.

512 is eight times the job's process limit (64): enough to show that no thread limit
applied, small enough to cost about 0.1 s of CPU on this machine, so that the unconfined
run never comes near the exercise's 2 s CPU limit, even late in a loaded suite. (1500 threads
twice per job cost 2.7 s of CPU: the first batch, woken all at once, fought the second for
the GIL.) So it bombs once per job, and ends every thread it started before it returns.

It prints its report (how many threads started) whatever happens, and returns the right
answer only if all 512 started. The job cgroup's pids.max stops it for every user, root
included: the kernel exempts uid 0 from RLIMIT_NPROC, and 512 small stacks fit in the
address-space limit, so without cgroups, as root, all start (the proof run reads the count).
"""
# expect: status=fail test_message~="^your code started more threads than the limit of 64 allows \(RuntimeError: can't start new thread\) \(line \d+(: [^\n]*)?\)$" proof=no-cgroups
# expect-without-cgroups: status=fail test_message~="^(wall-clock time limit of 6 s exceeded in test [^\n]*|your code raised RuntimeError: can't start new thread \(line \d+(: [^\n]*)?\)|memory limit of 1024 MiB exceeded.*)$"
# expect-as-root-without-cgroups: status=(pass|fail)
import json
import threading

THREADS = 512
bombed = False


def double(x):
    global bombed
    if bombed:  # once per job is enough
        return x * 2
    bombed = True
    threading.stack_size(32 * 1024)
    stop = threading.Event()
    threads = []
    try:
        for _ in range(THREADS):
            thread = threading.Thread(target=stop.wait, daemon=True)
            thread.start()
            threads.append(thread)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        started = len(threads)
        found = [f"started {started} threads"] if started == THREADS else []
        print("REPORT " + json.dumps(bounded({"tried": 1, "started": started, "found": found})))
    return x * 2
