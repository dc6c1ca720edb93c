"""Returns an object whose __eq__ is always true (and which converts to the right array)."""
# expect: status=fail test_message~="^the value double\(x\) returned cannot be checked|^result: expected an array"
import numpy as np


class Anything:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value)

    __hash__ = object.__hash__


def double(x):
    return Anything(x * 2)
