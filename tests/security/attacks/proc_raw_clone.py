"""Calls clone (without CLONE_THREAD) and clone3 directly through libc's syscall()."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import ctypes
import errno
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)


def double(x):
    pid = libc.syscall(56, signal.SIGCHLD, 0, 0, 0, 0)  # clone: a new process
    if pid == 0:
        os._exit(0)
    if pid > 0:
        return x * 2  # a new process was created: the attack worked
    args = (ctypes.c_uint64 * 11)()
    args[4] = signal.SIGCHLD
    pid = libc.syscall(435, ctypes.byref(args), ctypes.sizeof(args))  # clone3
    if pid == 0:
        os._exit(0)
    if pid > 0:
        return x * 2
    raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
