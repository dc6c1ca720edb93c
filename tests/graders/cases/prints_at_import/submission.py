print("loading my module")


def double(x):
    print("in double")
    return x * 2
