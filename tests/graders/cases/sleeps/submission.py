import time


def double(x):
    time.sleep(60)
