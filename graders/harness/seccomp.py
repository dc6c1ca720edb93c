"""A seccomp filter for the process that runs learner code (x86-64 Linux).

It closes what the namespaces leave open or what the ``process`` fallback lacks: no new
processes (threads are allowed), no ``exec``, no signals to other processes, no sockets
but Unix ones, no tracing or reading other processes' memory, no new namespaces or
mounts, no System V IPC or POSIX message queues. A refused call fails with ``EPERM``
(``ENOSYS`` for ``clone3`` so that glibc falls back to ``clone``, whose flags a classic
filter can inspect).
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

# seccomp_data offsets
_NR = 0
_ARCH = 4
_ARG0 = 16

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


def build_filter(own_pid: int) -> bytes:
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
    prog.append(_ins(_RET_K, 0, 0, _RET_ALLOW))
    return b"".join(prog)


_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once, in the warm worker


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Apply the filter to the calling process (and its threads to come)."""
    libc = _LIBC
    program = build_filter(os.getpid())
    buf = ctypes.create_string_buffer(program)

    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
