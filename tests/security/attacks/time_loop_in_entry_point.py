"""Spins forever inside the entry point."""
# Under CPU contention the wall clock (6 s) can win the race with the CPU limit (2 s).
# expect: status=fail test_message~="^(CPU time limit of 2 s|wall-clock time limit of 6 s) exceeded in test 'doubles a matrix'(, [^\n]*)?$"


def double(x):
    while True:
        pass
