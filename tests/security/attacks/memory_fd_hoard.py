"""Holds more memory than its allowance by keeping part of it where RLIMIT_AS does not look.

It takes anonymous memory (counted by the address-space limit) up to 32 MiB below the
exercise's 512 MiB allowance, then fills memfd files (each capped at the output cap by
RLIMIT_FSIZE) and pipe buffers (1 MiB each), as many as its descriptors allow, and as
many again passed to itself over a Unix socket and closed, so that they sit in the
socket's queue and take no descriptor. It reports how much it held, and finds something
only when that is more than the allowance: the kernel let a job use more memory than it
may. Only the job's memory cgroup counts all of it.
"""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded$" proof=no-cgroups
import array
import fcntl
import json
import os
import socket

import numpy as np

MIB = 2**20
ALLOWANCE = 512  # MiB: the double exercise's memory_mb
F_SETPIPE_SZ = 1031
reported = False


def fill(fd, size):
    view = memoryview(b"h" * MIB)
    written = 0
    while written < size:
        written += os.write(fd, view[: min(MIB, size - written)])
    return written


def double(x):
    global reported
    if reported:  # once per job is enough, and it keeps the job inside its CPU time
        return x * 2
    anonymous = [np.ones(2 * MIB // 8) for _ in range((ALLOWANCE - 32) // 2)]  # touched
    held_anonymous = sum(a.nbytes for a in anonymous)
    outside = 0
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    kept = []
    for round_ in range(2):
        fds = []
        try:
            while len(fds) < 48:
                fd = os.memfd_create("hoard")
                fds.append(fd)
                outside += fill(fd, MIB)
            for _ in range(4):
                r, w = os.pipe()
                fds += [r, w]
                fcntl.fcntl(w, F_SETPIPE_SZ, MIB)
                os.set_blocking(w, False)
                try:
                    while True:
                        outside += os.write(w, b"p" * 65536)
                except BlockingIOError:
                    pass
        except OSError:
            pass
        if round_ == 0:  # park this round in the socket's queue, freeing the descriptors
            parked = 0
            try:
                for start in range(0, len(fds), 8):
                    batch = fds[start : start + 8]
                    mine.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", batch))])
                    parked += len(batch)
            except OSError:
                # ETOOMANYREFS: the kernel caps descriptors in flight per user (a count shared
                # with every process of that user); keep the rest open instead.
                pass
            for fd in fds[:parked]:
                os.close(fd)
            kept = fds[parked:]
        else:
            kept += fds
    total = (held_anonymous + outside) // MIB
    held = f"held {total} MiB: {held_anonymous // MIB} MiB anonymous and {outside // MIB} MiB in memfds and pipes ({len(kept)} descriptors open)"
    # Found only past the allowance: the proof run reads this, not the verdict.
    print("REPORT " + json.dumps(bounded({"tried": 1, "held_mib": total, "found": [held] if total > ALLOWANCE else []})))
    reported = True
    return x * 2
