"""Tests for the NumPy track of causal-attention.

Every input is built before the first call, from generators with fixed seeds, so the
reference and the submission see the same arrays. Each hidden test is a table of cases
with one call each, and the tests go from the general to the particular: the softmax
over the keys (with d = 1, where no scale can matter), the scale, batch dimensions,
the causal mask (small scores), stability (also under the causal mask, where a masked
score may be far above the allowed ones), the dtype, and last whether the inputs come
back unchanged. Each test observes only what its name is about.
"""

import numpy as np

from graders.sandbox.testing import Case, example, test

# The statement's tolerances (exercise.toml's [tolerance]).
TOLERANCES = {"float64": (1e-9, 1e-12), "float32": (1e-4, 1e-5)}

# The worked example of the statement.
EXAMPLE_Q = np.array([[0.0], [np.log(3.0)]])
EXAMPLE_K = np.array([[0.0], [1.0]])
EXAMPLE_V = np.array([[4.0, 0.0], [0.0, 8.0]])


def eighths(rng, shape):
    """Standard normal numbers rounded to multiples of 1/8."""
    return np.round(rng.standard_normal(shape) * 8.0) / 8.0 + 0.0  # no -0.0


def qkv(seed, lead, length, keys, d, dv, dtype=np.float64):
    """Random q (..., L, d), k (..., S, d) and v (..., S, dv) of one dtype, in steps of
    1/8 (exact in float32 too, so that failure messages show short numbers)."""
    rng = np.random.default_rng(seed)
    q = eighths(rng, (*lead, length, d)).astype(dtype)
    k = eighths(rng, (*lead, keys, d)).astype(dtype)
    v = eighths(rng, (*lead, keys, dv)).astype(dtype)
    return {"q": q, "k": k, "v": v}


def near_thousand(seed, signs, length, keys, dv):
    """float64 inputs with d = 4 whose scores are close to 1000 * sign for each batch entry
    (a few units apart within a row, so that the softmax is not one-hot)."""
    rng = np.random.default_rng(seed)
    signs = np.array(signs, dtype=np.float64).reshape(-1, 1, 1)
    q = signs * (25.0 + 0.02 * rng.integers(-4, 5, (len(signs), length, 4)))
    k = 20.0 + 0.02 * rng.integers(-4, 5, (len(signs), keys, 4))
    v = eighths(rng, (len(signs), keys, dv))
    return {"q": q, "k": k, "v": v}


def one_hot_thousands():
    """float32 inputs, d = 4: batch 0 has scores up to 1000, batch 1 scores all below
    -900; in every row the largest score beats the others by at least 50."""
    k = np.zeros((2, 3, 4), dtype=np.float32)
    k[:, [0, 1, 2], [0, 1, 2]] = 50.0
    q = np.array(
        [
            [[40, 38, 0, 0], [0, 40, 36, 0], [36, 0, 40, 0]],
            [[-40, -38, -42, 0], [-42, -40, -38, 0], [-38, -42, -40, 0]],
        ],
        dtype=np.float32,
    )
    v = np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 5.0
    return {"q": q, "k": k, "v": v}


def masked_peaks_float64(seed):
    """float64 inputs for causal=True with d = 4 and L = S = 4: keys 0 and 1 score near
    -1000 and keys 2 and 3 near 1000 (a few units apart), so that in rows 0 and 1 a masked
    score is far above every score the row may use."""
    rng = np.random.default_rng(seed)
    signs = np.array([-1.0, -1.0, 1.0, 1.0]).reshape(4, 1)
    q = 25.0 + 0.02 * rng.integers(-4, 5, (4, 4))
    k = signs * (20.0 + 0.02 * rng.integers(-4, 5, (4, 4)))
    v = eighths(rng, (4, 2))
    return {"q": q, "k": k, "v": v}


def masked_peaks_float32():
    """float32 inputs for causal=True with d = 1 and L = S = 3: in rows 0 and 1 of each
    batch entry the masked key 2 scores 60 (batch 0) or 1000 (batch 1), far above the
    allowed scores near -60 or -1000."""
    q = np.array([[[2], [2], [2]], [[40], [40], [20]]], dtype=np.float32)
    k = np.array([[[-30], [-29], [30]], [[-25], [-24.875], [25]]], dtype=np.float32)
    v = np.array([[[1, 2], [3, 4], [5, 6]], [[-1, 0], [2, -3], [4, 1]]], dtype=np.float32)
    return {"q": q, "k": k, "v": v}


def attend(t, q, k, v, causal=None):
    """The result of one call (``causal`` left out when None)."""
    if causal is None:
        return {"result": t.call("attention", q, k, v)}
    return {"result": t.call("attention", q, k, v, causal=causal)}


def dtype_of_result(t, q, k, v, causal=None):
    """Only the result's dtype, as text (its values are the other tests' business)."""
    result = attend(t, q, k, v, causal)["result"]
    return {"dtype of the result": str(getattr(result, "dtype", type(result).__name__))}


@example("the worked example: attention(q, k, v)", hint=1, tolerances=TOLERANCES)
def worked_example(t):
    return attend(t, EXAMPLE_Q, EXAMPLE_K, EXAMPLE_V)


@example("the worked example with causal=True", hint=2, tolerances=TOLERANCES)
def worked_example_causal(t):
    return attend(t, EXAMPLE_Q, EXAMPLE_K, EXAMPLE_V, causal=True)


@test(
    "each query's weights are a softmax over the keys (2-D inputs, d = 1)",
    hint=1,
    reveal="summary",
    tolerances=TOLERANCES,
)
def softmax_over_keys(t):
    return t.cases(
        [
            Case("3 queries, 3 keys", **qkv(1, (), 3, 3, 1, 1)),
            Case("2 queries, 4 keys", **qkv(2, (), 2, 4, 1, 1)),
            Case("4 queries, 2 keys, causal=False given", **qkv(3, (), 4, 2, 1, 1), causal=False),
            Case("1 query, 5 keys, float32", **qkv(4, (), 1, 5, 1, 1, np.float32)),
        ],
        lambda q, k, v, causal=None: attend(t, q, k, v, causal),
    )


@test(
    "scores are divided by √d, with d = q.shape[-1]",
    hint=1,
    reveal="summary",
    tolerances=TOLERANCES,
)
def scale(t):
    return t.cases(
        [
            Case("d = 4, dv = 2, 3 queries, 5 keys", **qkv(5, (), 3, 5, 4, 2)),
            Case("d = 9, dv = 5, 2 queries, 3 keys", **qkv(6, (), 2, 3, 9, 5)),
            Case("d = 2, dv = 3, 4 queries, 4 keys", **qkv(7, (), 4, 4, 2, 3)),
        ],
        lambda q, k, v: attend(t, q, k, v),
    )


@test(
    "any number of leading batch dimensions: 3-D, 4-D and 5-D inputs",
    hint=1,
    reveal="summary",
    tolerances=TOLERANCES,
)
def batch_dims(t):
    return t.cases(
        [
            Case("3-D: batch 2, 3 queries, 4 keys, d = 2, dv = 3", **qkv(8, (2,), 3, 4, 2, 3)),
            Case("3-D: batch 1, 2 queries, 2 keys, d = 3, dv = 1", **qkv(9, (1,), 2, 2, 3, 1)),
            Case(
                "4-D: batch 2, 3 heads, 2 queries, 3 keys, d = 4, dv = 2",
                **qkv(10, (2, 3), 2, 3, 4, 2),
            ),
            Case(
                "5-D: shape (2, 1, 2, L, d), 3 queries, 2 keys, d = 2, dv = 2",
                **qkv(11, (2, 1, 2), 3, 2, 2, 2),
            ),
        ],
        lambda q, k, v: attend(t, q, k, v),
    )


@test(
    "causal=True: query i attends only to keys 0..i",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def causal(t):
    return t.cases(
        [
            Case("2-D, 4 positions, d = 2, dv = 3", **qkv(15, (), 4, 4, 2, 3)),
            Case("3-D, batch 2, 3 positions, d = 3, dv = 2", **qkv(16, (2,), 3, 3, 3, 2)),
            Case("4-D, batch 2, 2 heads, 3 positions, d = 2", **qkv(17, (2, 2), 3, 3, 2, 2)),
            Case("2-D, a single position", **qkv(18, (), 1, 1, 3, 2)),
            Case("3-D float32, 5 positions", **qkv(19, (1,), 5, 5, 2, 2, np.float32)),
        ],
        lambda q, k, v: attend(t, q, k, v, causal=True),
    )


@test(
    "large scores (near ±1000) give finite results, also with causal=True: the softmax is stable",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def stable(t):
    return t.cases(
        [
            Case("float64, every score near 1000", **near_thousand(12, [1.0], 3, 4, 2)),
            Case("float64, every score near -1000", **near_thousand(13, [-1.0], 3, 4, 2)),
            Case(
                "float64, batch 0 near 1000, batch 1 near -1000",
                **near_thousand(14, [1.0, -1.0], 2, 3, 2),
            ),
            Case("float32, scores from -1050 to 1000", **one_hot_thousands()),
            Case(
                "causal=True, float64: masked scores near 1000 above allowed ones near -1000",
                **masked_peaks_float64(33),
                causal=True,
            ),
            Case(
                "causal=True, float32 3-D: masked scores of 60 or 1000 above allowed ones",
                **masked_peaks_float32(),
                causal=True,
            ),
        ],
        lambda q, k, v, causal=None: attend(t, q, k, v, causal),
    )


@test(
    "the result has the dtype of the inputs (float32 stays float32)",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def dtype(t):
    return t.cases(
        [
            Case("float32, 2-D", **qkv(20, (), 3, 4, 4, 2, np.float32)),
            Case("float32, 4-D, causal", **qkv(21, (2, 2), 3, 3, 4, 2, np.float32), causal=True),
            Case("float64, 3-D", **qkv(22, (2,), 2, 3, 4, 3)),
        ],
        lambda q, k, v, causal=None: dtype_of_result(t, q, k, v, causal),
    )


def unchanged(t, q, k, v, causal):
    t.call("attention", q, k, v, causal=causal)
    return {"changed in place": t.changed_in_place("q", "k", "v")}


@test("q, k and v are not changed", hint=3, reveal="summary", tolerances=TOLERANCES)
def inputs_unchanged(t):
    return t.cases(
        [
            Case("3-D, not causal", **qkv(23, (2,), 2, 3, 4, 2), causal=False),
            Case("2-D float32, causal", **qkv(24, (), 3, 3, 4, 2, np.float32), causal=True),
        ],
        lambda q, k, v, causal: unchanged(t, q, k, v, causal),
    )
