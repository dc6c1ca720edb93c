def helper(x):
    return x.no_such_attribute


def double(x):
    y = helper(x)
    return y
