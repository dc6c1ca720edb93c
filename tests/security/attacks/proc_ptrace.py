"""Attaches to the warm worker with ptrace and reads its memory with process_vm_readv."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import ctypes
import errno
import os

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_SEIZE = 0, 16, 0x4206


def double(x):
    ppid = os.getppid()
    ok = 0
    ok += libc.ptrace(PTRACE_ATTACH, ppid, None, None) == 0
    ok += libc.ptrace(PTRACE_SEIZE, 1, None, None) == 0
    ok += libc.ptrace(PTRACE_TRACEME, 0, None, None) == 0
    buf = ctypes.create_string_buffer(64)

    class IOVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    local = IOVec(ctypes.cast(buf, ctypes.c_void_p), 64)
    remote = IOVec(0x400000, 64)
    ok += libc.process_vm_readv(ppid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0
    if ok:
        return x * 2  # tracing worked: the attack worked
    raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
