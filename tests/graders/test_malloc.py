"""drill serve and drill worker give large freed buffers back to the system
(drill/malloc.py): measured in a fresh interpreter, with and without the fixed threshold."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import sys
from drill.malloc import pin_mmap_threshold
if sys.argv[1] == "pinned":
    assert pin_mmap_threshold()
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) * 1024
MIB = 2**20
big = bytearray(16 * MIB); del big        # raises glibc's threshold to 16 MiB if it may
kept = []
for _ in range(20):                       # results of 4 MiB between small live objects
    buffer = bytearray(4 * MIB)
    kept.append(bytearray(64))
    del buffer
    kept.append(bytearray(200))
before = rss()
held = [bytearray(4 * MIB) for _ in range(20)]
for b in held:
    b[::4096] = b"x" * len(b[::4096])
pin = bytearray(64)
del held
print((rss() - before) // MIB)
"""


@pytest.mark.parametrize(("mode", "returned"), [("pinned", True), ("default", False)])
def test_large_freed_buffers_go_back_to_the_system_only_with_the_pin(
    mode: str, returned: bool
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, check=True
    )
    kept_mib = int(done.stdout)
    assert (kept_mib < 8) is returned, (mode, kept_mib)
