"""Leaves threads running after its entry point returns, for the next job on the worker.

Four threads named "drill-linger" keep spinning, one of them answering on an abstract
Unix socket, and the harness's final os._exit is replaced by a sleep so that the child
itself would stay; it returns the right answer. The next submission on each worker must
find neither the threads nor the socket (finder: finders/threads_outlive_find.py): the
child and everything in its job cgroup are gone before the next job starts. The proof
plants and finds in one plain process, where the threads do live on.
"""
# expect: status=pass kind=plant finder=threads_outlive_find.py proof=same-process
import ctypes
import json
import os
import socket
import threading
import time

NAME = b"\0drill-linger-@@TOKEN@@"
PR_SET_NAME = 15


def named():
    ctypes.CDLL(None).prctl(PR_SET_NAME, b"drill-linger", 0, 0, 0)


def answer(listener):
    named()
    while True:
        conn, _ = listener.accept()
        conn.sendall(b"alive")
        conn.close()


def spin():
    named()
    n = 0
    while True:
        n += 1
        if n % 100_000 == 0:
            time.sleep(0.001)


def stay(*_args):
    while True:
        time.sleep(3600)


def plant():
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(NAME)
    listener.listen(8)
    threading.Thread(target=answer, args=(listener,), daemon=False).start()
    for _ in range(3):
        threading.Thread(target=spin, daemon=False).start()
    return ["socket", "4 threads"]


planted = []


def double(x):
    if not planted:  # once per child: each test calls double again
        planted.extend(plant())
        os._exit = stay  # the harness ends the child with os._exit after "done"
        print("PLANTED " + json.dumps(bounded({"ns": os.readlink("/proc/self/ns/pid"), "planted": planted})))
    return x * 2
