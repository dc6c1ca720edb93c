"""Tries keyctl/add_key, io_uring_setup, bpf, perf_event_open, userfaultfd and kexec_load."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import ctypes
import errno
import os

libc = ctypes.CDLL(None, use_errno=True)


def double(x):
    params = ctypes.create_string_buffer(120)
    attr = ctypes.create_string_buffer(128)
    ok = [
        libc.syscall(248, b"user", b"drill", b"secret", 6, -3) >= 0,  # add_key to session
        libc.syscall(250, 0, -3, 0) >= 0,  # keyctl(KEYCTL_GET_KEYRING_ID, session)
        libc.syscall(425, 4, params) >= 0,  # io_uring_setup
        libc.syscall(321, 0, attr, 128) >= 0,  # bpf(BPF_MAP_CREATE)
        libc.syscall(298, attr, 0, -1, -1, 0) >= 0,  # perf_event_open
        libc.syscall(323, 0) >= 0,  # userfaultfd
        libc.syscall(246, 0, 0, None, 0) >= 0,  # kexec_load
    ]
    if any(ok):
        return x * 2
    raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
