"""Returns a flat list of a million small ints (a wide, not deep, result).

Five times the encoder's node cap is enough to show the cap; ten million took a third of
the job's 2 s of CPU per test on an idle machine and ran out of it on a loaded one.
"""
# expect: status=fail test_message~="^the value double\(x\) returned cannot be checked: it holds more than \d+ values$"


def double(x):
    return list(range(1_000_000))
