"""Type-aware comparison of observations, and the exact messages a learner reads."""

from __future__ import annotations

import numpy as np
import pytest

from graders.grading.compare import Tolerance, compare
from graders.sandbox.wire import ArrayObs, CallsObs, ObjectObs, TensorObs

SUMMARY = Tolerance()
FULL = Tolerance(reveal="full")
NONE = Tolerance(reveal="none")
EXACT = Tolerance(rtol=0, atol=0)
EXACT_DTYPE = Tolerance(exact_dtype=True)


def arr(values, dtype=None) -> ArrayObs:
    return ArrayObs(np.array(values, dtype=dtype))


def num(value, dtype) -> ArrayObs:
    """A NumPy scalar as the decoder gives it: a 0-d array marked as a scalar."""
    return ArrayObs(np.array(value, dtype=dtype), scalar=True)


def ten(values, dtype="float32", requires_grad=False, grad_fn=None, is_leaf=True) -> TensorObs:
    np_dtype = np.float32 if dtype == "bfloat16" else dtype
    return TensorObs(np.array(values, dtype=np_dtype), dtype, requires_grad, grad_fn, is_leaf)


def calls(*layers: int) -> CallsObs:
    return CallsObs("recompute", layers)


def case(id, expected, got, message, tol=SUMMARY):
    return pytest.param(expected, got, tol, message, id=id)


# --- the examples of the module and the style guide ---------------------------------


def test_keys_differ_example():
    a = arr([1.0, 2.0])
    expected = {"saved": {-1: a, 1: a, 3: a}}
    got = {"saved": {1: a, 3: a}}
    assert compare(expected, got, SUMMARY) == "saved: keys differ — expected [-1, 1, 3], got [1, 3]"


def test_calls_example():
    expected = {"calls during recompute": CallsObs("recompute", (2,))}
    got = {"calls during recompute": CallsObs("recompute", (0, 1, 2))}
    assert (
        compare(expected, got, FULL)
        == "calls during recompute: layers 0, 1, 2 ran; only layer 2 should run"
    )


def test_requires_grad_example():
    expected = {"output": ten([1.0], requires_grad=False)}
    got = {"output": ten([1.0], requires_grad=True, is_leaf=True)}
    assert (
        compare(expected, got, SUMMARY)
        == "output: requires_grad differs — expected False, got True"
    )


# --- equal values -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "tol"),
    [
        pytest.param(arr([1.0, 2.0]), arr([1.0, 2.0]), EXACT, id="same-array-exact"),
        pytest.param(arr([1.0, 2.0]), arr([1.0, 2.0], np.float32), SUMMARY, id="float64-vs-32"),
        pytest.param(arr([1.0], np.float32), arr([1.0]), SUMMARY, id="float32-vs-64"),
        pytest.param(arr([1, 2], np.int64), arr([1, 2], np.int32), SUMMARY, id="int64-vs-32"),
        pytest.param(arr(np.zeros((0, 3))), arr(np.zeros((0, 3))), EXACT, id="empty-arrays"),
        pytest.param(arr([np.nan, 1.0]), arr([np.nan, 1.0]), EXACT, id="nan-same-position"),
        pytest.param(arr([np.inf, -np.inf]), arr([np.inf, -np.inf]), EXACT, id="infinities"),
        pytest.param(arr([1 + 1j]), arr([1 + 1j], np.complex64), SUMMARY, id="complex"),
        pytest.param(arr([True, False]), arr([True, False]), SUMMARY, id="bool-arrays"),
        pytest.param(arr([100.0]), arr([100.0009]), SUMMARY, id="within-default-rtol"),
        pytest.param(arr([0.0]), arr([5e-9]), SUMMARY, id="within-default-atol"),
        pytest.param(2, 2.0, EXACT, id="int-vs-float-equal"),
        pytest.param(2.0, 2, EXACT, id="float-vs-int-equal"),
        pytest.param(0.1 + 0.2, 0.3, SUMMARY, id="float-within-tolerance"),
        pytest.param(float("nan"), float("nan"), EXACT, id="nan-vs-nan"),
        pytest.param(1.5, num(1.5, np.float32), EXACT, id="float-vs-numpy-scalar"),
        pytest.param(3, num(3, np.int64), EXACT, id="int-vs-numpy-int"),
        pytest.param(num(2.5, np.float64), num(2.5, np.float32), EXACT, id="numpy-scalars"),
        pytest.param(True, True, EXACT, id="bools"),
        pytest.param(None, None, EXACT, id="none"),
        pytest.param("abc", "abc", EXACT, id="strings"),
        pytest.param([1, (2.0, "x")], [1, (2.0, "x")], EXACT, id="nested-containers"),
        pytest.param({(0, 1): [1]}, {(0, 1): [1]}, EXACT, id="tuple-keys"),
        pytest.param(calls(0, 1), calls(0, 1), EXACT, id="calls"),
        pytest.param(calls(), calls(), EXACT, id="no-calls"),
        pytest.param(
            ObjectObs("Foo", "<Foo at 0x1>"),
            ObjectObs("Foo", "<Foo at 0x2>"),
            EXACT,
            id="objects-of-one-type",
        ),
        pytest.param(
            ten([1.0], requires_grad=True, grad_fn="MulBackward0", is_leaf=False),
            ten([1.0], requires_grad=True, grad_fn="AddBackward0", is_leaf=False),
            SUMMARY,
            id="tensors-any-grad-fn",
        ),
        pytest.param(ten([1.5], "bfloat16"), ten([1.5], "float32"), SUMMARY, id="bfloat16-vs-32"),
    ],
)
def test_equal(expected, got, tol):
    assert compare({"x": expected}, {"x": got}, tol) is None


def test_numpy_scalar_expected_vs_python_float_compares_numerically():
    # The reference returned np.float32(1.5), the learner a Python float: both are numbers.
    assert compare({"x": num(1.5, np.float32)}, {"x": 1.5}, SUMMARY) is None
    assert (
        compare({"x": num(1.5, np.float32)}, {"x": 1.75}, SUMMARY) == "x: value differs — got 1.75"
    )


# --- messages -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "tol", "message"),
    [
        # shapes and dtypes
        case("shape", arr(np.zeros(3)), arr(np.zeros((3, 1))),
             "x: shape differs — expected (3,), got (3, 1)"),
        case("shape-0d", arr(np.zeros(())), arr(np.zeros(1)),
             "x: shape differs — expected (), got (1,)"),
        case("shape-shown-with-reveal-none", arr(np.zeros((2, 2))), arr(np.zeros(4)),
             "x: shape differs — expected (2, 2), got (4,)", NONE),
        case("float-vs-int", arr([1.0, 2.0]), arr([1, 2], np.int64),
             "x: dtype differs — expected a float array, got int64"),
        case("int-vs-float", arr([1, 2], np.int64), arr([1.0, 2.0]),
             "x: dtype differs — expected an integer array, got float64"),
        case("bool-vs-int", arr([True]), arr([1], np.int8),
             "x: dtype differs — expected a bool array, got int8"),
        case("exact-dtype", arr([1.0, 2.0]), arr([1.0, 2.0], np.float32),
             "x: dtype differs — expected float64, got float32", EXACT_DTYPE),
        case("exact-dtype-int", arr([1], np.int64), arr([1], np.int32),
             "x: dtype differs — expected int64, got int32", EXACT_DTYPE),
        # values, by reveal
        case("values-full", arr([1.0, 2.0, 3.0]), arr([1.0, 2.0, 4.0]),
             "x: values differ — expected [1., 2., 3.], got [1., 2., 4.]", FULL),
        case("values-full-large", arr(np.arange(20.0)), arr(np.arange(20.0) + 1),
             "x: values differ at 20 of 20 positions; first at 0: expected 0., got 1.", FULL),
        case("values-summary", arr([1.0, 2.0, 3.0]), arr([1.0, 2.0, 4.0]),
             "x: values differ at 1 of 3 positions; first at 2: got 4."),
        case("values-summary-2d", arr(np.zeros((2, 2))), arr([[0.0, 0.0], [5.0, 5.0]]),
             "x: values differ at 2 of 4 positions; first at (1, 0): got 5."),
        case("values-none", arr([1.0, 2.0, 3.0]), arr([1.0, 2.0, 4.0]), "x: values differ", NONE),
        case("values-int", arr([1, 2], np.int64), arr([1, 3], np.int64),
             "x: values differ at 1 of 2 positions; first at 1: got 3"),
        case("values-bool", arr([True, False]), arr([True, True]),
             "x: values differ at 1 of 2 positions; first at 1: got True"),
        case("0d-summary", arr(2.0), arr(3.0), "x: value differs — got 3."),
        case("0d-full", arr(2.0), arr(3.0), "x: value differs — expected 2., got 3.", FULL),
        case("0d-none", arr(2.0), arr(3.0), "x: value differs", NONE),
        # NaN
        case("number-vs-nan", arr([1.0, 2.0]), arr([np.nan, 2.0]),
             "x: values differ at 1 of 2 positions; first at 0: got nan"),
        case("nan-vs-number", arr([np.nan, 2.0]), arr([0.0, 2.0]),
             "x: values differ at 1 of 2 positions; first at 0: got 0."),
        case("nan-moved", arr([np.nan, 2.0]), arr([2.0, np.nan]),
             "x: values differ at 2 of 2 positions; first at 0: got 2."),
        case("scalar-nan-vs-number", float("nan"), 1.0, "x: value differs — got 1.0"),
        # tensors
        case("requires-grad", ten([1.0]), ten([1.0], requires_grad=True),
             "x: requires_grad differs — expected False, got True"),
        case("requires-grad-lost", ten([1.0], requires_grad=True), ten([1.0]),
             "x: requires_grad differs — expected True, got False"),
        case("grad-fn-unexpected",
             ten([1.0], requires_grad=True, is_leaf=True),
             ten([1.0], requires_grad=True, grad_fn="MulBackward0", is_leaf=False),
             "x: expected a tensor with no grad_fn (no autograd graph recorded), "
             "got one with grad_fn=MulBackward0"),
        case("grad-fn-missing",
             ten([1.0], requires_grad=True, grad_fn="MulBackward0", is_leaf=False),
             ten([1.0], requires_grad=True, is_leaf=True),
             "x: expected a tensor attached to the autograd graph (with a grad_fn), "
             "got one with grad_fn=None"),
        case("tensor-values", ten([1.0, 2.0]), ten([1.0, 2.5]),
             "x: values differ at 1 of 2 positions; first at 1: got 2.5"),
        case("tensor-shape", ten([1.0, 2.0]), ten([[1.0, 2.0]]),
             "x: shape differs — expected (2,), got (1, 2)"),
        case("tensor-exact-dtype", ten([1.0], "bfloat16"), ten([1.0], "float32"),
             "x: dtype differs — expected bfloat16, got float32", EXACT_DTYPE),
        case("tensor-vs-array", ten([1.0]), arr([1.0]), "x: expected a tensor, got an array"),
        case("array-vs-tensor", arr([1.0]), ten([1.0]), "x: expected an array, got a tensor"),
        # containers
        case("tuple-vs-list", (1, 2), [1, 2], "x: expected a tuple, got a list"),
        case("list-vs-tuple", [1, 2], (1, 2), "x: expected a list, got a tuple"),
        case("list-length", [1, 2, 3], [1, 2], "x: length differs — expected 3, got 2"),
        case("list-length-full", [1, 2, 3], [1, 2], "x: length differs — expected 3, got 2", FULL),
        case("list-length-none", [1, 2, 3], [1, 2], "x: length differs", NONE),
        case("dict-vs-list", {"a": 1}, [1], "x: expected a dict, got a list"),
        case("keys-none", {1: 0, 3: 0}, {1: 0}, "x: keys differ — got [1]", NONE),
        case("keys-unsortable", {1: 0, "a": 0}, {1: 0},
             "x: keys differ — expected [1, 'a'], got [1]"),
        case("keys-str", {"b": 0, "a": 0}, {"a": 0, "c": 0},
             "x: keys differ — expected ['a', 'b'], got ['a', 'c']"),
        # numbers, bools, None, strings, objects
        case("int-summary", 1, 2, "x: value differs — got 2"),
        case("int-full", 1, 2, "x: value differs — expected 1, got 2", FULL),
        case("int-none", 1, 2, "x: value differs", NONE),
        case("float", 1.0, 1.5, "x: value differs — got 1.5"),
        case("int-vs-float", 1, 1.5, "x: value differs — expected 1, got 1.5", FULL),
        case("bool-vs-int", True, 1, "x: expected a bool, got a number"),
        case("int-vs-bool", 0, False, "x: expected a number, got a bool"),
        case("bools", True, False, "x: value differs — got False"),
        case("numpy-scalar-differs", 1.5, num(1.75, np.float64), "x: value differs — got 1.75"),
        case("numpy-scalar-vs-array", num(1.0, np.float64), arr([1.0]),
             "x: expected a number, got an array"),
        case("none-vs-array", None, arr([1.0]), "x: expected None, got an array"),
        case("array-vs-none", arr([1.0]), None, "x: expected an array, got None"),
        case("number-vs-none", 1.0, None, "x: expected a number, got None"),
        case("string-summary", "abc", "abd", "x: value differs — got 'abd'"),
        case("string-full", "abc", "abd", "x: value differs — expected 'abc', got 'abd'", FULL),
        case("string-none", "abc", "abd", "x: value differs", NONE),
        case("string-clipped", "a", "x" * 500, "x: value differs — got '" + "x" * 298 + "…"),
        case("string-vs-number", "1", 1, "x: expected a string, got a number"),
        case("objects", ObjectObs("Foo", ""), ObjectObs("Bar", ""),
             "x: expected an object of type Foo, got an object of type Bar"),
        case("object-vs-array", arr([1.0]), ObjectObs("ndarray of object", ""),
             "x: expected an array, got an object of type ndarray of object"),
        # calls: a test that reveals values in full names the expected layers and order
        case("calls-order", calls(0, 1, 2), calls(2, 1, 0),
             "x: layers ran in the order 2, 1, 0; expected 0, 1, 2", FULL),
        case("calls-none-should-run", calls(), calls(0, 3),
             "x: layers 0, 3 ran; no layer should run", FULL),
        case("calls-one-ran", calls(), calls(1), "x: layer 1 ran; no layer should run", FULL),
        case("calls-none-ran", calls(0, 1), calls(),
             "x: no layer ran; layers 0, 1 should run", FULL),
        case("calls-other-layers", calls(0, 1), calls(1, 2),
             "x: layers 1, 2 ran; layers 0, 1 should run", FULL),
        case("calls-too-few", calls(0, 1, 2), calls(2),
             "x: layer 2 ran; layers 0, 1, 2 should run", FULL),
        case("calls-repeated", calls(1), calls(1, 1),
             "x: layers ran in the order 1, 1; expected 1", FULL),
        # ... a summary (the hidden tests' default) says what ran and the rule, not the
        # expected layers or order
        case("calls-order-summary", calls(0, 1, 2), calls(2, 1, 0),
             "x: layers ran in the order 2, 1, 0: the right layers, but not in the expected order"),
        case("calls-too-many-summary", calls(2), calls(0, 1, 2),
             "x: layers 0, 1, 2 ran: 3 calls where 1 is expected"),
        case("calls-none-ran-summary", calls(0, 1), calls(),
             "x: no layer ran: 0 calls where 2 are expected"),
        case("calls-other-layers-summary", calls(0, 1), calls(1, 2),
             "x: layers 1, 2 ran: 2 calls, as expected, but not the right layers"),
        case("calls-none-should-run-summary", calls(), calls(0, 3),
             "x: layers 0, 3 ran; no layer should run"),
        case("calls-overflow", calls(1), CallsObs("recompute", (1,) * 5, more=3),
             "x: layers were called more than 5 times; expected 1 call"),
        case("calls-none", calls(2), calls(0, 1, 2),
             "x: the layers that ran are not the expected ones", NONE),
        case("calls-vs-list", calls(1), [1], "x: expected a record of layer calls, got a list"),
    ],
)  # fmt: skip
def test_message(expected, got, tol, message):
    assert compare({"x": expected}, {"x": got}, tol) == message


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        pytest.param(arr([1.0, 2.0, 3.0]), arr([1.0, 2.0, 4.0]), id="array"),
        pytest.param(arr(np.arange(20.0)), arr(np.arange(20.0) + 1), id="large-array"),
        pytest.param(arr(2.0), arr(3.0), id="0d"),
        pytest.param(123.0, 456.0, id="float"),
        pytest.param("secret", "guess", id="string"),
        pytest.param(ten([7.0]), ten([8.0]), id="tensor"),
    ],
)
def test_summary_never_shows_the_expected_value(expected, got):
    message = compare({"x": expected}, {"x": got}, SUMMARY)
    assert message is not None
    assert "expected" not in message
    assert "secret" not in message and "123" not in message and "7." not in message


# --- tolerance ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "tol", "same"),
    [
        pytest.param(100.0, 100.05, Tolerance(rtol=1e-3, atol=0), True, id="rtol-inside"),
        pytest.param(100.0, 100.2, Tolerance(rtol=1e-3, atol=0), False, id="rtol-outside"),
        pytest.param(1.0, 1.4, Tolerance(rtol=0, atol=0.5), True, id="atol-inside"),
        pytest.param(1.0, 1.6, Tolerance(rtol=0, atol=0.5), False, id="atol-outside"),
        pytest.param(2.0, 1.0, Tolerance(rtol=0.5, atol=0), True, id="rtol-of-expected"),
        pytest.param(1.0, 2.0, Tolerance(rtol=0.5, atol=0), False, id="rtol-not-of-got"),
        pytest.param(1.0, 1.0, EXACT, True, id="exact-equal"),
        pytest.param(1.0, float(np.nextafter(1.0, 2.0)), EXACT, False, id="exact-one-ulp"),
        pytest.param(1.0, float(np.nextafter(1.0, 2.0)), SUMMARY, True, id="default-one-ulp"),
    ],
)
@pytest.mark.parametrize("form", ["number", "array"])
def test_tolerance(expected, got, tol, same, form):
    if form == "array":
        expected, got = arr([0.0, expected]), arr([0.0, got])
    assert (compare({"x": expected}, {"x": got}, tol) is None) is same


def test_exact_difference_below_print_precision():
    # The message is right but shows the same digits as the expected value would.
    got = float(np.nextafter(1.0, 2.0))
    assert compare({"x": arr([1.0])}, {"x": arr([got])}, EXACT) == (
        "x: values differ at 1 of 1 position; first at 0: got 1.0000000000000002"
    )


# --- paths --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "message"),
    [
        pytest.param(
            {"saved": [arr([1.0]), arr([2.0])]},
            {"saved": [arr([1.0]), arr([3.0])]},
            "saved[1]: values differ at 1 of 1 position; first at 0: got 3.",
            id="list-index",
        ),
        pytest.param(
            {"saved": {1: arr([2.0]), 3: arr([4.0])}},
            {"saved": {1: arr([2.0, 0.0]), 3: arr([4.0])}},
            "saved[1]: shape differs — expected (1,), got (2,)",
            id="int-key",
        ),
        pytest.param(
            {"result": (1.0, 2)},
            {"result": (1.5, 2)},
            "result[0]: value differs — got 1.5",
            id="tuple-index",
        ),
        pytest.param(
            {"out": {"grads": {"w": [0, (1, 2)]}}},
            {"out": {"grads": {"w": [0, (1, 3)]}}},
            "out['grads']['w'][1][1]: value differs — got 3",
            id="deep",
        ),
        pytest.param(
            {"out": {(0, 1): 1}},
            {"out": {(0, 1): 2}},
            "out[(0, 1)]: value differs — got 2",
            id="tuple-key",
        ),
        pytest.param(
            {"a": 1, "b": [1, 2]},
            {"a": 1, "b": [1]},
            "b: length differs — expected 2, got 1",
            id="second-observation",
        ),
    ],
)
def test_paths(expected, got, message):
    assert compare(expected, got, SUMMARY) == message


def test_first_difference_wins():
    expected = {"a": [1, 2], "b": 3}
    assert compare(expected, {"a": [1, 5], "b": 4}, SUMMARY) == "a[1]: value differs — got 5"


# --- the observation dict itself ----------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "message"),
    [
        pytest.param(
            {"calls during recompute": calls(2)},
            calls(0, 1, 2),
            "result: expected a dict, got a record of layer calls",
            id="dict-vs-calls",
        ),
        pytest.param({"x": 1}, [1], "result: expected a dict, got a list", id="dict-vs-list"),
        pytest.param([1, 2], (1, 2), "result: expected a list, got a tuple", id="list-vs-tuple"),
        pytest.param(
            {"a": 1}, {"b": 1}, "result: keys differ — expected ['a'], got ['b']", id="keys"
        ),
        pytest.param(1, 2, "result: value differs — got 2", id="bare-number"),
        pytest.param([1, 2], [1, 3], "result[1]: value differs — got 3", id="bare-list"),
    ],
)
def test_top_level(expected, got, message):
    assert compare(expected, got, SUMMARY) == message


def test_a_layer_given_another_value_after_other_random_draws_is_told_so():
    """Dropout drew another mask in the replay: the message speaks of random numbers, not
    of the layers' order (issue 27)."""
    exp = CallsObs("backward", (0, 1, 2), inputs=(1, 2, 3), randoms=(7, 8, 9))
    got = CallsObs("backward", (0, 1, 2), inputs=(1, 2, 4), randoms=(7, 5, 6))
    problem = compare({"calls": exp}, {"calls": got}, Tolerance())
    assert problem is not None and "random state" in problem and "layer 1 (call 2)" in problem
    # The same wrong input with the random states right is another rule's message.
    same_random = CallsObs("backward", (0, 1, 2), inputs=(1, 2, 4), randoms=(7, 8, 9))
    problem = compare({"calls": exp}, {"calls": same_random}, Tolerance())
    assert problem is not None and "not given the value it should work on" in problem
    # Other random states alone are no failure: only the values they change count.
    quiet = CallsObs("backward", (0, 1, 2), inputs=(1, 2, 3), randoms=(0, 0, 0))
    assert compare({"calls": exp}, {"calls": quiet}, Tolerance()) is None


def test_a_tolerance_by_dtype_applies_to_values_of_that_dtype():
    """A statement's 1e-9 in float64 and 1e-4 in float32 (issue 27: a float64 output off by
    1e-6 passed a test that compared every dtype at 1e-4)."""
    tol = Tolerance(rtol=1e-4, atol=1e-5, by_dtype=(("float64", 1e-9, 1e-12),))
    off = 1 + 1e-6
    exp64, exp32 = np.array([1.0, 2.0]), np.array([1.0, 2.0], dtype=np.float32)
    assert compare({"y": ArrayObs(exp64)}, {"y": ArrayObs(exp64 * off)}, tol) is not None
    got32 = ArrayObs((exp32 * off).astype(np.float32))
    assert compare({"y": ArrayObs(exp32)}, {"y": got32}, tol) is None
    assert compare({"y": 2.0}, {"y": 2.0 * off}, tol) is not None  # a Python float is float64
    assert tol.of("float16") == (1e-4, 1e-5)


def test_a_numpy_float32_scalar_is_compared_with_the_float32_tolerance():
    """A float32 loss returned as a NumPy scalar (issue 29's cross-entropy): the float64
    tolerance refused a correct float32 sum in another order."""
    tol = Tolerance(rtol=1e-9, atol=1e-12, by_dtype=(("float32", 1e-4, 1e-5),))
    off = 1 + 1e-6
    assert compare({"loss": num(2.0, "float32")}, {"loss": num(2.0 * off, "float32")}, tol) is None
    assert compare({"loss": num(2.0, "float64")}, {"loss": num(2.0 * off, "float64")}, tol)
    assert compare({"loss": 2.0}, {"loss": 2.0 * off}, tol) is not None  # a float: float64


def test_a_short_list_of_names_shows_what_was_got_when_its_length_differs():
    """t.changed_in_place's observation: the learner reads which argument they changed."""
    message = compare({"changed in place": []}, {"changed in place": ["x", "targets"]}, SUMMARY)
    assert message == "changed in place: x, targets — none expected"
    message = compare({"kept": ["a"]}, {"kept": ["a", "b"]}, SUMMARY)
    assert message == "kept: length differs — expected 1, got 2 (['a', 'b'])"
    assert compare({"x": []}, {"x": ["targets"]}, NONE) == "x: length differs"
    numbers = compare({"x": [1]}, {"x": [1, 2]}, SUMMARY)
    assert numbers == "x: length differs — expected 1, got 2"  # not names: lengths only
