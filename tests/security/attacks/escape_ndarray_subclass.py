"""Returns an ndarray subclass with wrong data that lies about itself: __eq__, __array__,
tobytes, view, astype, __array_function__ and __array_ufunc__ all claim the right values."""
# expect: status=fail test_message~="^result: values differ"
import numpy as np


class Liar(np.ndarray):
    truth = None

    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool)

    def __array__(self, dtype=None, copy=None):
        return self.truth

    def tobytes(self, *a, **k):
        return self.truth.tobytes()

    def view(self, *a, **k):
        return self.truth

    def astype(self, *a, **k):
        return self.truth

    def __array_function__(self, func, types, args, kwargs):
        return self.truth

    def __array_ufunc__(self, *a, **k):
        return self.truth


def double(x):
    wrong = (x * 2 + 1).view(Liar)
    wrong.truth = x * 2
    return wrong
