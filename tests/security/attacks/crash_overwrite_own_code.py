"""Writes int3 traps over libc's code through /proc/self/mem (its own memory only).

/proc is read-only in the sandbox, so the open for writing is refused; before it was, the
job crashed on its own traps (SIGTRAP), which harmed no one else either.
"""
# expect: status=fail test_message~="^your code raised OSError: \[Errno 30\] Read-only file system: '/proc/self/mem' \(line \d+(: [^\n]*)?\)$"
import ctypes


def double(x):
    address = ctypes.cast(ctypes.CDLL(None).getpid, ctypes.c_void_p).value
    with open("/proc/self/mem", "r+b", 0) as mem:
        mem.seek(address)
        mem.write(b"\xcc" * 64)
    import os
    os.getpid()
    ctypes.CDLL(None).getpid()
    return x * 2
