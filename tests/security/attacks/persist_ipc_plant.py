"""Plants data in System V IPC (a shared memory segment, a message queue, a semaphore set)
and a POSIX message queue, which live in the IPC namespace, not in a process, for the next
submission to find (finder: finders/persist_ipc_find.py).

Returns the right answer; what is checked is that the finder finds nothing. Seccomp
refuses these calls even without bubblewrap, so the proof plants and finds in two plain
subprocesses of the test (the host's IPC namespace).
"""
# expect: status=pass kind=plant finder=persist_ipc_find.py proof=direct-pair
import ctypes
import json
import os
import zlib

libc = ctypes.CDLL(None, use_errno=True)
KEY = zlib.crc32(b"@@TOKEN@@") & 0x7FFFFFFF
IPC_CREAT = 0o1000
libc.shmat.restype = ctypes.c_void_p


def plant():
    planted = []
    shmid = libc.shmget(KEY, 4096, IPC_CREAT | 0o666)
    if shmid >= 0:
        addr = libc.shmat(shmid, None, 0)
        if addr not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(addr, b"@@TOKEN@@", 9)
            libc.shmdt(ctypes.c_void_p(addr))
        planted.append("shm")
    msqid = libc.msgget(KEY, IPC_CREAT | 0o666)
    if msqid >= 0:
        planted.append("msg")
        msg = ctypes.create_string_buffer(ctypes.sizeof(ctypes.c_long) + 16)
        ctypes.c_long.from_buffer(msg).value = 1
        libc.msgsnd(msqid, msg, 16, 0o4000)
    if libc.semget(KEY, 1, IPC_CREAT | 0o666) >= 0:
        planted.append("sem")
    libc.mq_open.restype = ctypes.c_int
    mq = libc.mq_open(b"/drill-@@TOKEN@@", os.O_CREAT | os.O_RDWR, 0o666, None)
    if mq >= 0:
        planted.append("mq")
    return planted


def double(x):
    print("PLANTED " + json.dumps(bounded({"ns": os.readlink("/proc/self/ns/pid"), "planted": plant()})))
    return x * 2
