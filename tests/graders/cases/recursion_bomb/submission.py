def double(x):
    return double(x)
