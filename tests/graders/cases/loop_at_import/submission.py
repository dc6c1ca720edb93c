while True:
    pass


def double(x):
    return x * 2
