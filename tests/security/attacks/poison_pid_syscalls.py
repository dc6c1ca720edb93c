"""Aims every other system call that takes a pid at the warm worker: migrate_pages,
move_pages, kcmp, get_robust_list, process_madvise, and setpgid into the worker's process
group; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every call that succeeded.
"""
# expect: status=pass kind=leak min_tried=7
import ctypes
import json
import os

libc = ctypes.CDLL(None, use_errno=True)
done = []


def syscall(nr, *args):
    return libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) for a in args))


def probe():
    tried, found = 0, []
    mask = ctypes.c_ulong(1)
    head, size = ctypes.c_void_p(), ctypes.c_size_t()
    calls = {
        # migrate_pages(pid, maxnode, old_nodes, new_nodes)
        "migrate_pages": lambda pid: syscall(256, pid, 64, ctypes.addressof(mask),
                                             ctypes.addressof(mask)),
        # move_pages(pid, count=0, ...): only the permission check runs
        "move_pages": lambda pid: syscall(279, pid, 0, 0, 0, 0, 0),
        # kcmp(pid, own pid, KCMP_FILE, 0, 0)
        "kcmp": lambda pid: syscall(312, pid, os.getpid(), 0, 0, 0),
        "get_robust_list": lambda pid: syscall(274, pid, ctypes.addressof(head),
                                               ctypes.addressof(size)),
        # process_madvise(pidfd, iovec, 0, MADV_COLD, 0) with the worker's pid as the fd
        "process_madvise": lambda pid: syscall(440, pid, 0, 0, 20, 0),
        "setpgid(0, worker)": lambda pid: syscall(109, 0, os.getpgid(pid)),
        "setpgid(worker, own)": lambda pid: syscall(109, pid, os.getpid()),
    }
    for pid in sorted({1, os.getppid()}):
        for name, call in calls.items():
            tried += 1
            if call(pid) == 0:
                found.append(f"{name} on {pid}")
    return {"tried": tried, "found": found}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
