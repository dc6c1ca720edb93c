"""Writes int3 traps over libc's code through /proc/self/mem (its own memory only)."""
# expect: status=fail test_message~="^crashed with SIG(TRAP|SEGV|ILL|BUS)$"
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
