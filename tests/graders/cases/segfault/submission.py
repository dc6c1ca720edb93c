import ctypes


def double(x):
    ctypes.string_at(0)
