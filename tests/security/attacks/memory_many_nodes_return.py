"""Returns a flat list of ten million small ints (a wide, not deep, result)."""
# expect: status=fail test_message~="^the value double\(x\) returned cannot be checked: it holds more than \d+ values$"


def double(x):
    return list(range(10_000_000))
