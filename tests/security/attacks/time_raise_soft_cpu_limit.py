"""Raises its soft CPU limit to the hard one, ignores SIGXCPU, and spins."""
# expect: status=fail test_message~="^(CPU time limit of 2 s|wall-clock time limit of 6 s) exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import resource
import signal


def double(x):
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
    while True:
        pass
