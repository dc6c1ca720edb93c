"""Dereferences a null pointer through ctypes."""
# expect: status=fail test_message~="^crashed with SIGSEGV$"
import ctypes


def double(x):
    ctypes.string_at(0)
