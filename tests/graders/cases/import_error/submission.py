import numpy_that_does_not_exist


def double(x):
    return x * 2
