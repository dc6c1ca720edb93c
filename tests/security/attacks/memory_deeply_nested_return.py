"""Returns a list nested 100 000 levels deep (deep enough to overflow a recursive encoder)."""
# expect: status=fail test_message~="^the value double\(x\) returned cannot be checked: it is nested more than 32 levels deep$"


def double(x):
    value = x * 2
    for _ in range(100_000):
        value = [value]
    return value
