"""Spins forever inside the entry point."""
# Under CPU contention the wall clock (6 s) can win the race with the CPU limit (2 s).
# expect: status=fail test_message~="^(CPU time limit of 2 s exceeded|timed out after 6 s)$"


def double(x):
    while True:
        pass
