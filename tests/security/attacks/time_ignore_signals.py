"""Ignores every catchable signal (SIGALRM, SIGXCPU, SIGTERM, SIGINT, SIGHUP, ...) and spins."""
# SIGXCPU ignored: the hard CPU limit (SIGKILL) or the wall clock ends it, whichever first.
# expect: status=fail test_message~="^(CPU time limit of 2 s|wall-clock time limit of 6 s) exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import signal


def double(x):
    for sig in signal.Signals:
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass
    while True:
        pass
