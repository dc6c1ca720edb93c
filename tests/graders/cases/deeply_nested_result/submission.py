def double(x):
    value = x * 2
    for _ in range(100):
        value = [value]
    return value
