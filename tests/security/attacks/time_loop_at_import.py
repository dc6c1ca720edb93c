"""Spins forever while the module is being imported, before any test runs."""
# Under CPU contention the wall clock (6 s) can win the race with the CPU limit (2 s).
# expect: status=error message~="^(CPU time limit of 2 s|wall-clock time limit of 6 s) exceeded while loading your code(, at line \d+: `[^\n]*`)?$"
while True:
    pass


def double(x):
    return x * 2
