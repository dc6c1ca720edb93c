"""Signals the worker through pidfd_send_signal, tkill and tgkill instead of kill()."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import ctypes
import errno
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)


def double(x):
    ppid = os.getppid()
    hits = 0
    hits += libc.syscall(200, ppid, signal.SIGKILL) == 0  # tkill
    hits += libc.syscall(234, ppid, ppid, signal.SIGKILL) == 0  # tgkill
    hits += libc.syscall(234, 1, 1, signal.SIGKILL) == 0
    pidfd = libc.syscall(434, ppid, 0)  # pidfd_open
    hits += pidfd >= 0
    hits += libc.syscall(129, ppid, signal.SIGKILL, None) == 0  # rt_sigqueueinfo
    if hits:
        return x * 2  # a signal reached another process: the attack worked
    raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
