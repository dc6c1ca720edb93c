def double(x):
    while True:
        pass
