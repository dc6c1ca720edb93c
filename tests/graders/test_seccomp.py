"""The seccomp filter's rules on calls that name another process (``_PID_ARGS``).

Two kinds of proof. The program itself is run by a small classic-BPF interpreter on
made-up calls, so every rule is checked argument by argument (both 32-bit halves). Then
real plain processes (no sandbox, no service) install the filter and aim prlimit,
setpriority, sched_setaffinity, sched_setscheduler, ioprio_set and setpgid at another
process of the same user: with ``guard_pids=False`` the calls succeed and the victim
changes, which shows the rules are what stops them; with the rules, every call fails
with EPERM and the victim is untouched.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graders.sandbox import seccomp
from tests.program_output import last_json_line

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.machine() != "x86_64",
    reason="the seccomp filter is x86-64 Linux only",
)

OWN = 4242
ALLOW = seccomp._RET_ALLOW
EPERM = seccomp._RET_ERRNO | errno.EPERM
ARCH = seccomp._AUDIT_ARCH_X86_64


def run_filter(program: bytes, nr: int, *args: int, arch: int = ARCH) -> int:
    """Run a classic BPF seccomp program on one call; return the action it answers."""
    values = [a & (2**64 - 1) for a in args] + [0] * (6 - len(args))
    data = struct.pack("<iIQ6Q", nr, arch, 0, *values)
    insns = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == seccomp._LD_W_ABS:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == seccomp._JEQ_K:
            pc += jt if acc == k else jf
        elif code == seccomp._JSET_K:
            pc += jt if acc & k else jf
        elif code == seccomp._RET_K:
            return k
        else:
            raise AssertionError(f"unexpected BPF opcode {code:#x}")
        assert pc < len(insns), "a jump ran off the end of the program"


@pytest.fixture(scope="module")
def program() -> bytes:
    return seccomp.build_filter(OWN)


def test_the_program_is_well_formed(program: bytes) -> None:
    assert len(program) % 8 == 0
    assert len(program) // 8 < 4096  # BPF_MAXINSNS
    for i in range(0, len(program), 8):
        code, jt, jf, _ = struct.unpack_from("<HBBI", program, i)
        if code in (seccomp._JEQ_K, seccomp._JSET_K):
            assert i // 8 + 1 + max(jt, jf) < len(program) // 8
    # The last instruction allows what no rule refused.
    assert struct.unpack_from("<HBBI", program, len(program) - 8) == (seccomp._RET_K, 0, 0, ALLOW)


@pytest.mark.parametrize("name", sorted(seccomp._PID_ARGS))
def test_a_call_may_name_only_itself(program: bytes, name: str) -> None:
    nr, fixed, pids = seccomp._PID_ARGS[name]

    def call(**pid_values: int) -> int:
        args = [0] * 6
        for arg, value in fixed.items():
            args[arg] = value
        for arg in pids:
            args[arg] = pid_values.get(f"a{arg}", 0)
        return run_filter(program, nr, *args)

    for arg in pids:
        assert call(**{f"a{arg}": 0}) == ALLOW
        assert call(**{f"a{arg}": OWN}) == ALLOW
        for other in (1, 2, OWN + 1, OWN - 1, -1, 2**31 - 1):
            assert call(**{f"a{arg}": other}) == EPERM, (name, arg, other)
        # The kernel keeps the low 32 bits; the filter must look at both halves.
        for smuggled in (1 << 32 | OWN, 1 << 32, 0xFFFFFFFF << 32 | OWN, 1 << 63):
            assert call(**{f"a{arg}": smuggled}) == EPERM, (name, arg, hex(smuggled))
    for arg, value in fixed.items():
        for other in (value + 1, value + 2, value | 1 << 32):
            args = [0] * 6
            args[arg] = other
            assert run_filter(program, nr, *args) == EPERM, (name, arg, other)


def test_the_other_calls_are_unchanged(program: bytes) -> None:
    assert run_filter(program, 0, 3, 0, 10) == ALLOW  # read
    assert run_filter(program, 160, 1, 0) == ALLOW  # setrlimit: the caller only
    assert run_filter(program, 204, 1, 128, 0) == ALLOW  # sched_getaffinity: reads
    assert run_filter(program, 140, 0, 1) == ALLOW  # getpriority: reads
    assert run_filter(program, seccomp._KILL, OWN, 9) == ALLOW
    assert run_filter(program, seccomp._KILL, 1, 9) == EPERM
    assert run_filter(program, 57) == EPERM  # fork
    assert run_filter(program, 440, 3, 0, 0, 20, 0) == EPERM  # process_madvise
    assert run_filter(program, 0, arch=0x40000003) == seccomp._RET_KILL_PROCESS  # i386


def test_without_the_guard_the_calls_are_allowed() -> None:
    unguarded = seccomp.build_filter(OWN, guard_pids=False)
    for nr, fixed, _ in seccomp._PID_ARGS.values():
        args = [0] * 6
        for arg, value in fixed.items():
            args[arg] = value
        args[0 if not fixed else 1] = 1
        assert run_filter(unguarded, nr, *args) == ALLOW


# --- real processes ---

ATTACKER = r"""
import ctypes, json, os, resource, sys
from graders.sandbox import seccomp

victim, guard = int(sys.argv[1]), sys.argv[2] == "guard"
cpu = min(os.sched_getaffinity(victim))
libc = ctypes.CDLL(None, use_errno=True)
seccomp.install(guard_pids=guard)
own = os.getpid()
results = {}


def attempt(name, call):
    try:
        outcome = call()
        if isinstance(outcome, int) and outcome < 0:
            raise OSError(ctypes.get_errno(), "failed")
        results[name] = "ok"
    except OSError as exc:
        results[name] = exc.errno


attempt("prlimit", lambda: resource.prlimit(victim, resource.RLIMIT_FSIZE, (4096, 4096)))
attempt("setpriority_pgrp", lambda: os.setpriority(os.PRIO_PGRP, victim, 18))
attempt("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, victim, 19))
attempt("sched_setaffinity", lambda: os.sched_setaffinity(victim, {cpu}))
attempt("sched_setscheduler",
        lambda: os.sched_setscheduler(victim, os.SCHED_BATCH, os.sched_param(0)))
attempt("ioprio_set", lambda: libc.syscall(251, 1, victim, 3 << 13))
attempt("setpgid", lambda: os.setpgid(0, victim))
# What the child may still do to itself.
attempt("own_setrlimit", lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
attempt("own_prlimit", lambda: resource.prlimit(own, resource.RLIMIT_CORE, (0, 0)))
attempt("own_nice", lambda: os.setpriority(os.PRIO_PROCESS, 0, 1))
attempt("own_affinity", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
attempt("own_affinity_pid", lambda: os.sched_setaffinity(own, os.sched_getaffinity(0)))
print(json.dumps(results))
"""


def state(pid: int) -> dict[str, object]:
    libc = ctypes.CDLL(None, use_errno=True)
    return {
        "fsize": resource.prlimit(pid, resource.RLIMIT_FSIZE),
        "nice": os.getpriority(os.PRIO_PROCESS, pid),
        "affinity": sorted(os.sched_getaffinity(pid)),
        "scheduler": os.sched_getscheduler(pid),
        "ioprio": libc.syscall(252, 1, pid),
        "pgid": os.getpgid(pid),
    }


@pytest.fixture
def victim() -> Iterator[int]:
    """Another process of the same user and session, leading its own process group (a
    stand-in for the worker)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], process_group=0)
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def attack(victim: int, guard: bool) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", ATTACKER, str(victim), "guard" if guard else "no-guard"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=Path(seccomp.__file__).resolve().parents[2],
    )
    return dict(last_json_line(completed, "the seccomp attacker"))


OTHER = (
    "prlimit",
    "setpriority",
    "setpriority_pgrp",
    "sched_setaffinity",
    "sched_setscheduler",
    "ioprio_set",
    "setpgid",
)
OWN_CALLS = ("own_setrlimit", "own_prlimit", "own_nice", "own_affinity", "own_affinity_pid")


def test_unguarded_a_process_changes_another(victim: int) -> None:
    before = state(victim)
    results = attack(victim, guard=False)
    assert {name: results[name] for name in OTHER} == dict.fromkeys(OTHER, "ok")
    after = state(victim)
    assert after["fsize"] == (4096, 4096)
    assert after["nice"] == 19
    assert after["scheduler"] == os.SCHED_BATCH
    assert after["ioprio"] == 3 << 13
    if len(os.sched_getaffinity(0)) > 1:
        assert after["affinity"] != before["affinity"]


def test_guarded_every_call_on_another_process_is_refused(victim: int) -> None:
    before = state(victim)
    results = attack(victim, guard=True)
    assert {name: results[name] for name in OTHER} == dict.fromkeys(OTHER, errno.EPERM)
    assert {name: results[name] for name in OWN_CALLS} == dict.fromkeys(OWN_CALLS, "ok")
    assert state(victim) == before
