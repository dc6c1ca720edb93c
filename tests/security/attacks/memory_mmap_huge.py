"""Maps 64 GiB of anonymous memory (MAP_NORESERVE through mmap) and touches it."""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded \(line \d+(: [^\n]*)?\)$"
import mmap


def double(x):
    m = mmap.mmap(-1, 64 * 2**30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for i in range(0, len(m), 4096):
        m[i] = 1
    return x * 2
