"""Spins forever inside the entry point."""
# Under CPU contention the wall clock (3 s) can win the race with the CPU limit (2 s).
# expect: status=fail test_message~="^(CPU time limit of 2 s exceeded|timed out after 3 s)$"


def double(x):
    while True:
        pass
