"""Returns a list and a dict that contain themselves."""
# expect: status=fail test_message~="^the value double\(x\) returned cannot be checked: it is nested more than 32 levels deep$"


def double(x):
    a = [x * 2]
    a.append(a)
    d = {"a": a}
    d["d"] = d
    return [a, d]
