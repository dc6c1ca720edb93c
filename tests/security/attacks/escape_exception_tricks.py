"""Raises a BaseException whose class claims to be SystemExit and whose str() raises, from a
__del__ as well, to confuse the harness's error report."""
# expect: status=(fail|error)


class Meta(type):
    @property
    def __name__(cls):
        raise RuntimeError("no name")


class Weird(BaseException, metaclass=Meta):
    def __str__(self):
        raise RuntimeError("no str")

    def __repr__(self):
        raise RuntimeError("no repr")


class Bomb:
    def __del__(self):
        raise Weird()


def double(x):
    Bomb()
    raise Weird()
