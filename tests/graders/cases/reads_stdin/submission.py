def double(x):
    return input()
