"""A seccomp filter for the process that runs learner code (x86-64 Linux).

It closes what the namespaces leave open or what the ``process`` fallback lacks: no new
processes (threads are allowed), no ``exec``, no signals to other processes, no sockets
but Unix ones, no tracing or reading other processes' memory, no new namespaces or
mounts, no System V IPC or POSIX message queues, and no call that names another process
(its resource limits, priority, CPU affinity, scheduling, I/O priority, memory policy or
process group; ``_PID_ARGS``): the child runs as the same user as its warm worker, so
the kernel would let it change the worker, and every later child would inherit that. A
refused call fails with ``EPERM`` (``ENOSYS`` for ``clone3`` so that glibc falls back to
``clone``, whose flags a classic filter can inspect).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

_AUDIT_ARCH_X86_64 = 0xC000003E
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_CLONE_THREAD = 0x00010000
_AF_UNIX = 1

# BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JSET_K = 0x45
_RET_K = 0x06

# seccomp_data offsets; each argument is 64 bits, its low half first (little-endian)
_NR = 0
_ARCH = 4
_ARG0 = 16


def _arg_low(n: int) -> int:
    return _ARG0 + 8 * n


def _arg_high(n: int) -> int:
    return _ARG0 + 8 * n + 4


# x86-64 syscall numbers
_DENY = {
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "execveat": 322,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "tkill": 200,
    "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
    "pidfd_getfd": 438,
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "personality": 135,
    "kexec_load": 246,
    "init_module": 175,
    "finit_module": 313,
    "open_by_handle_at": 304,
    "move_mount": 429,
    "open_tree": 428,
    "fsopen": 430,
    "fsmount": 432,
    # System V IPC and POSIX message queues live in the worker's IPC namespace, not in a
    # job: one job could leave data there for the next (persist_ipc_plant.py).
    "shmget": 29,
    "shmat": 30,
    "shmctl": 31,
    "semget": 64,
    "semop": 65,
    "semctl": 66,
    "shmdt": 67,
    "msgget": 68,
    "msgsnd": 69,
    "msgrcv": 70,
    "msgctl": 71,
    "semtimedop": 220,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
    # Both take a pidfd (and pidfd_open is refused): act on another process's memory.
    "process_madvise": 440,
    "process_mrelease": 448,
}

# Calls that name another process. Only 0 (the caller) or the child's own pid may be
# named; the argument must equal one of them in all 64 bits (the kernel keeps the low 32
# bits of a pid, so a high half must not smuggle one in). For ``setpriority`` and
# ``ioprio_set`` the first argument says what ``who`` is: only a process, never a
# process group or every process of a user. A thread of the child has its own id, which
# is refused too: harmless, since nothing in a job needs to name its threads.
#   name: (number, {argument: required value}, arguments holding a pid)
_PRIO_PROCESS = 0
_IOPRIO_WHO_PROCESS = 1
_PID_ARGS: dict[str, tuple[int, dict[int, int], tuple[int, ...]]] = {
    "prlimit64": (302, {}, (0,)),
    "setpriority": (141, {0: _PRIO_PROCESS}, (1,)),
    "ioprio_set": (251, {0: _IOPRIO_WHO_PROCESS}, (1,)),
    "sched_setparam": (142, {}, (0,)),
    "sched_setscheduler": (144, {}, (0,)),
    "sched_setaffinity": (203, {}, (0,)),
    "sched_setattr": (314, {}, (0,)),
    "migrate_pages": (256, {}, (0,)),
    "move_pages": (279, {}, (0,)),
    "get_robust_list": (274, {}, (0,)),
    "kcmp": (312, {}, (0, 1)),
    "setpgid": (109, {}, (0, 1)),  # (pid, pgid): no joining the worker's process group
}
_CLONE = 56
_CLONE3 = 435
_KILL = 62
_TGKILL = 234
_SOCKET = 41


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() == "x86_64"


def _ins(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _pid_rule(nr: int, fixed: dict[int, int], pids: tuple[int, ...], own_pid: int) -> list[bytes]:
    """Allow ``nr`` only with each ``fixed`` argument as required and each ``pids``
    argument 0 or ``own_pid``, else EPERM; any other call skips the whole rule."""
    checks: list[tuple[int, tuple[int, ...]]] = [(arg, (value,)) for arg, value in fixed.items()]
    checks += [(arg, (0, own_pid)) for arg in pids]
    # (code, jt, jf, k), where a jump may name "deny": the EPERM at the end of the rule.
    body: list[tuple[int, int | str, int | str, int]] = []
    for arg, allowed in checks:
        body += [(_LD_W_ABS, 0, 0, _arg_high(arg)), (_JEQ_K, 0, "deny", 0)]
        body.append((_LD_W_ABS, 0, 0, _arg_low(arg)))
        for i, value in enumerate(allowed):
            rest = len(allowed) - 1 - i  # a match skips the comparisons left
            body.append((_JEQ_K, rest, "deny" if rest == 0 else 0, value))
    body.append((_RET_K, 0, 0, _RET_ALLOW))
    deny = len(body)
    body.append((_RET_K, 0, 0, _RET_ERRNO | errno.EPERM))

    def offset(jump: int | str, at: int) -> int:
        return deny - at - 1 if jump == "deny" else int(jump)

    rule = [_ins(_JEQ_K, 0, len(body), nr)]
    for at, (code, jt, jf, k) in enumerate(body):
        rule.append(_ins(code, offset(jt, at), offset(jf, at), k))
    return rule


def build_filter(own_pid: int, guard_pids: bool = True) -> bytes:
    """The filter program for the process ``own_pid``. ``guard_pids=False`` leaves out the
    rules on calls that name another process (``_PID_ARGS``): only for the tests that
    prove those rules are what stops a job from changing its worker."""
    eperm = _RET_ERRNO | errno.EPERM
    prog = [
        _ins(_LD_W_ABS, 0, 0, _ARCH),
        _ins(_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        _ins(_RET_K, 0, 0, _RET_KILL_PROCESS),
        _ins(_LD_W_ABS, 0, 0, _NR),
        _ins(_JEQ_K, 0, 1, _CLONE3),
        _ins(_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS),
    ]
    for nr in _DENY.values():
        prog += [_ins(_JEQ_K, 0, 1, nr), _ins(_RET_K, 0, 0, eperm)]

    def arg0_rule(nr: int, test: bytes) -> list[bytes]:
        # nr matches: load arg0, test it (true -> allow, false -> EPERM); else skip 4.
        return [
            _ins(_JEQ_K, 0, 4, nr),
            _ins(_LD_W_ABS, 0, 0, _ARG0),
            test,
            _ins(_RET_K, 0, 0, _RET_ALLOW),
            _ins(_RET_K, 0, 0, eperm),
        ]

    prog += arg0_rule(_CLONE, _ins(_JSET_K, 0, 1, _CLONE_THREAD))
    prog += arg0_rule(_KILL, _ins(_JEQ_K, 0, 1, own_pid))
    prog += arg0_rule(_TGKILL, _ins(_JEQ_K, 0, 1, own_pid))
    prog += arg0_rule(_SOCKET, _ins(_JEQ_K, 0, 1, _AF_UNIX))
    if guard_pids:
        for nr, fixed, pids in _PID_ARGS.values():
            prog += _pid_rule(nr, fixed, pids, own_pid)
    prog.append(_ins(_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(prog)


_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once, in the warm worker


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(guard_pids: bool = True) -> None:
    """Apply the filter to the calling process (and its threads to come)."""
    libc = _LIBC
    program = build_filter(os.getpid(), guard_pids)
    buf = ctypes.create_string_buffer(program)

    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
