"""Finder for persist_ipc_plant.py: looks for the planted IPC objects (and removes them)."""
import ctypes
import json
import os
import zlib

libc = ctypes.CDLL(None, use_errno=True)
KEY = zlib.crc32(b"@@TOKEN@@") & 0x7FFFFFFF
IPC_RMID = 0


def probe():
    tried, found = 4, []
    shmid = libc.shmget(KEY, 0, 0)
    if shmid >= 0:
        found.append("shm")
        libc.shmctl(shmid, IPC_RMID, None)
    msqid = libc.msgget(KEY, 0)
    if msqid >= 0:
        found.append("msg")
        libc.msgctl(msqid, IPC_RMID, None)
    semid = libc.semget(KEY, 0, 0)
    if semid >= 0:
        found.append("sem")
        libc.semctl(semid, 0, IPC_RMID)
    libc.mq_open.restype = ctypes.c_int
    if libc.mq_open(b"/drill-@@TOKEN@@", os.O_RDWR) >= 0:
        found.append("mq")
        libc.mq_unlink(b"/drill-@@TOKEN@@")
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded({**probe(), "ns": os.readlink("/proc/self/ns/pid")})))
    return x * 2
