def double(x):
    x * 2
