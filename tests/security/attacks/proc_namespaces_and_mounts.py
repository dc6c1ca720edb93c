"""Tries unshare (user, mount, net namespaces), setns, mount, umount, pivot_root and chroot."""
# expect: status=fail test_message~="^your code raised PermissionError: \[Errno 1\] Operation not permitted \(the sandbox does not allow starting programs"
import ctypes
import errno
import os

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000


def double(x):
    ok = 0
    for flags in (CLONE_NEWUSER, CLONE_NEWUSER | CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWNS):
        ok += libc.unshare(flags) == 0
    fd = os.open("/proc/1/ns/mnt", os.O_RDONLY) if os.path.exists("/proc/1/ns/mnt") else -1
    if fd >= 0:
        ok += libc.setns(fd, 0) == 0
    ok += libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0
    ok += libc.mount(None, b"/", None, 32, None) == 0  # MS_REMOUNT rw
    ok += libc.umount2(b"/usr", 2) == 0
    ok += libc.syscall(155, b"/tmp", b"/tmp") == 0  # pivot_root
    ok += libc.chroot(b"/tmp") == 0
    if ok:
        return x * 2
    raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
