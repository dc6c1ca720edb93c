def double(x):
    for _ in range(200_000):
        print("spam " * 200)
    return x * 2
