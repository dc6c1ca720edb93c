"""Turns SIGXCPU/SIGALRM/SIGTERM into exceptions and swallows every BaseException in a loop."""
# expect: status=fail test_message~="^(CPU time limit of 2 s|wall-clock time limit of 6 s) exceeded in test 'doubles a matrix'(, [^\n]*)?$"
import signal


def _raise(signum, frame):
    raise KeyboardInterrupt


def double(x):
    for sig in (signal.SIGXCPU, signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGVTALRM):
        signal.signal(sig, _raise)
    while True:
        try:
            while True:
                pass
        except BaseException:
            continue
