"""A tiny exercise for the grader's own tests (golden cases, hostile submissions)."""

import numpy as np

from graders.sandbox.testing import example, test


@example("doubles a short vector", hint=1)
def short(t):
    return {"result": t.call("double", np.arange(3.0))}


@test("doubles a matrix", hint=1)
def matrix(t):
    return {"result": t.call("double", np.random.rand(3, 3))}


@test("doubles integers", hint=1)
def integers(t):
    return {"result": t.call("double", np.arange(-4, 4))}
