def double(x):
    return x + x + 1
