"""Tables of cases and seeded random cases inside one test (``t.cases``, ``t.random_cases``
in graders.sandbox.testing): real scenarios run through the harness in this process, as a job
runs them, and their results through graders.grading.verdicts and graders.grading.feedback."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from graders.grading import feedback, verdicts
from graders.grading.compare import Tolerance, case_label, compare, differences
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome
from graders.grading.references import Reference, _parse_run
from graders.grading.results import GradeResult, Status
from graders.sandbox import integrity, prewarm, runner, wire
from graders.sandbox.testing import Case, Scenario, case_key
from graders.settings import ROOT
from tests.program_output import last_json_line

LIMITS = JobLimits(2, 3, 512 * 2**20, 65536, 2**20, 64)
PARAMETERS = {"scale": ("x", "k")}

TESTS = """
import numpy as np
import torch
from graders.sandbox.testing import test


def scaled(t, x, k):
    return {"result": t.call("scale", x, k)}


@test("scales by every factor in the table", hint=1)
def table(t):
    x = np.arange(3.0)
    return t.cases(
        [("k is 1", (x, 1)), ("k is 2", (x, 2)), ("k is 3", (x, 3))],
        lambda x, k: scaled(t, x, k),
    )


def draw(rng):
    return rng.standard_normal(3), int(rng.integers(1, 100))


def observe_draws(t, x, k):
    return {"input": x, "k": k, **scaled(t, x, k)}


@test("scales random inputs")
def everyones_draws(t):
    return t.random_cases(4, draw, lambda x, k: observe_draws(t, x, k))


@test("scales random inputs of your own", per_learner=True)
def own_draws(t):
    return t.random_cases(4, draw, lambda x, k: observe_draws(t, x, k))


@test("two random tables draw different cases")
def two_tables(t):
    small = t.random_cases(2, draw, lambda x, k: observe_draws(t, x, k), name="small")
    large = t.random_cases(2, draw, lambda x, k: observe_draws(t, x, k), name="large")
    return {**small, **large}


@test("scales torch inputs drawn with torch's generator")
def torch_draws(t):
    def draw_tensor(rng):
        return torch.randn(3, dtype=torch.float64), 2

    return t.random_cases(3, draw_tensor, lambda x, k: scaled(t, x, k))
"""

REFERENCE = "def scale(x, k):\n    return x * k\n"


def run_job(
    code: str,
    tests: str = TESTS,
    variant: int | None = None,
    entry_points: tuple[str, ...] = ("scale",),
) -> list[wire.Frame]:
    """Run every test of ``tests`` against ``code`` in a child forked from this process,
    as a worker's child runs a job (the frames it would send). Forked, as in a worker: a
    thread another test left running in this process (a timer closing a pool, a reload
    watcher) cannot import or change anything during the job, which the harness's
    integrity check would rightly report as tampering."""
    header = {
        "type": "job",
        "code": code,
        "filename": "solution.py",
        "entry_points": list(entry_points),
        "tests": None,
        "variant": variant,
        "limits": {"output_bytes": 4096, "result_bytes": 1 << 22},
    }
    body = marshal.dumps(compile(tests, runner.TESTS_FILENAME, "exec"))
    sink = os.memfd_create("frames")
    pid = os.fork()
    if pid == 0:  # the child: run the job, then leave without pytest's clean-up
        code_ = 1
        try:
            with prewarm.restored_process():
                runner.Job(header, sink, body).run()
            code_ = 0
        finally:
            os._exit(code_)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the job's child failed"
    frames, _ = wire.split_frames(os.pread(sink, 1 << 24, 0), 1 << 24)
    os.close(sink)
    return frames


def observations(frames: list[wire.Frame]) -> dict[str, Any]:
    """Each test's decoded observations, by test id."""
    return {
        f.header["id"]: wire.decode_value(f.header["obs"], f.body)
        for f in frames
        if f.header["type"] == "test"
    }


def grade(
    code: str,
    variant: int | None = None,
    tests: str = TESTS,
    reference: str = REFERENCE,
    parameters: dict[str, tuple[str, ...]] = PARAMETERS,
) -> dict[str, Any]:
    """Grade ``code`` against ``reference`` run on the same draws: each result by test id."""
    points = tuple(parameters)
    options, encoded = _parse_run(
        JobOutcome(frames=run_job(reference, tests, variant, points), exit_code=0),
        "x/solution.py",
    )
    ref = Reference("key", options, encoded)
    every = [t.id for t in ref.tests]  # the job runs them all, examples too
    ctx = verdicts.Context("x", "numpy", "submit", every, ref, LIMITS, parameters)
    outcome = JobOutcome(frames=run_job(code, tests, variant, points), exit_code=0)
    result: GradeResult = verdicts.build(ctx, outcome)
    return {t.id: t for t in result.tests}


# --- a table of cases ---


def test_a_failure_names_the_first_failing_case_with_its_own_call():
    # Right for k=1 only: cases 2 and 3 fail; the message leads with case 2.
    results = grade("def scale(x, k):\n    return x * k + (k > 1)\n")
    table = results["table"]
    assert table.status == Status.FAIL
    assert table.message.splitlines() == [
        "In case 'k is 2', scale(x, k=2):",
        "    x = np.array([0.0, 1.0, 2.0], dtype=np.float64)",  # the input, to paste
        "result: values differ — expected [0., 2., 4.], got [1., 3., 5.]",
        "…and 1 more observation differs in 1 other case",
    ]


def test_a_later_case_alone_is_reported_with_its_label_and_call():
    table = grade("def scale(x, k):\n    return x * k + (k == 3)\n")["table"]
    assert table.message.splitlines()[0] == "In case 'k is 3', scale(x, k=3):"
    assert "other" not in table.message  # the only failing case: nothing more to count


def test_a_case_that_raises_is_reported_with_its_label():
    code = (
        "def scale(x, k):\n"
        "    if k == 2:\n"
        "        raise ValueError('no even factors')\n"
        "    return x * k\n"
    )
    table = grade(code)["table"]
    assert table.status == Status.ERROR
    assert table.message.splitlines() == [
        "In case 'k is 2', scale(x, k=2):",
        "    x = np.array([0.0, 1.0, 2.0], dtype=np.float64)",
        "your code raised ValueError: no even factors (line 3: raise ValueError('no even "
        "factors'))",
    ]


def test_the_reference_passes_its_own_cases():
    results = grade(REFERENCE)
    assert {i: r.status for i, r in results.items()} == dict.fromkeys(results, Status.PASS)


NAMED = """
import numpy as np
from graders.sandbox.testing import Case, test


@test("scales by every factor in the table, by name", hint=1)
def named(t):
    return t.cases(
        [Case("k is 1", x=np.arange(3.0), k=1), Case("k is 2", k=2, x=np.arange(3.0))],
        lambda x, k: {"result": t.call("scale", x, k)},
    )
"""


def test_a_failing_named_case_is_reported_with_its_label_and_call():
    assert grade(REFERENCE, tests=NAMED)["named"].status == Status.PASS
    named = grade("def scale(x, k):\n    return x * k + (k > 1)\n", tests=NAMED)["named"]
    assert named.status == Status.FAIL
    assert named.message.splitlines() == [
        "In case 'k is 2', scale(x, k=2):",
        "    x = np.array([0.0, 1.0, 2.0], dtype=np.float64)",  # the input, to paste
        "result: values differ — expected [0., 2., 4.], got [1., 3., 5.]",
    ]


# --- random cases ---


def test_the_same_seed_gives_the_same_draws():
    first, second = observations(run_job(REFERENCE)), observations(run_job(REFERENCE))
    assert list(first["everyones_draws"]) == [f"case 'random case {i} of 4'" for i in range(1, 5)]
    assert compare(first, second, Tolerance(0, 0, True, "full")) is None


def test_a_per_learner_test_draws_per_variant_and_the_others_do_not():
    plain = observations(run_job(REFERENCE))
    learner_7 = observations(run_job(REFERENCE, variant=7))
    learner_8 = observations(run_job(REFERENCE, variant=8))
    assert compare(learner_7, observations(run_job(REFERENCE, variant=7)), Tolerance(0, 0)) is None
    # Everyone's test ignores the variant; the per-learner test draws other inputs.
    assert compare(plain["everyones_draws"], learner_7["everyones_draws"], Tolerance(0, 0)) is None
    for one, other in [(plain, learner_7), (learner_7, learner_8)]:
        assert compare(one["own_draws"], other["own_draws"], Tolerance(0, 0)) is not None


def test_a_learners_draws_are_graded_against_the_reference_on_the_same_draws():
    assert grade(REFERENCE, variant=7)["own_draws"].status == Status.PASS
    wrong = grade("def scale(x, k):\n    return x * (k + (k % 2))\n", variant=7)["own_draws"]
    assert wrong.status == Status.FAIL
    assert wrong.message.startswith("In case 'random case ")


def test_two_random_tables_in_one_test_draw_different_cases():
    observed = observations(run_job(REFERENCE))["two_tables"]
    small, large = observed["case 'small 1 of 2'"], observed["case 'large 1 of 2'"]
    assert not np.array_equal(small["input"].values, large["input"].values)


def test_learner_code_that_draws_random_numbers_does_not_change_later_cases():
    # Every case is drawn before any runs: a solution consuming torch's generator still
    # sees the reference's inputs in cases 2 and 3.
    code = "import torch\ndef scale(x, k):\n    torch.randn(5)\n    return x * k\n"
    assert grade(code)["torch_draws"].status == Status.PASS


# --- the table's contract, for authors ---


def scenario() -> Scenario:
    return Scenario({"scale": lambda x, k: x * k}, ["scale"])


@pytest.mark.parametrize(
    ("table", "error", "words"),
    [
        ([("a", 1), ("a", 2)], ValueError, "two cases are labelled 'a'; labels must be unique"),
        ({3: 1}, TypeError, "label must be a non-empty string, not 3"),
        ({" ": 1}, TypeError, "label must be a non-empty string"),
        ({"two\nlines": 1}, ValueError, "one line of at most 100 characters"),
        ({"x" * 101: 1}, ValueError, "one line of at most 100 characters"),
        ([["a", 1]], TypeError, "(label, arguments) pairs"),
        ({}, ValueError, "at least one case"),
    ],
)
def test_a_bad_table_is_a_clear_error_for_the_author(table, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        scenario().cases(table, lambda k: {})


def test_a_check_must_return_observations_and_cases_do_not_nest():
    t = scenario()
    with pytest.raises(TypeError, match=r"case 'a': the check returned list, not a dict"):
        t.cases({"a": 1}, lambda k: [k])
    with pytest.raises(ValueError, match=r"cannot be nested: a table of cases inside case 'outer'"):
        t.cases({"outer": 1}, lambda k: t.cases({"inner": 2}, lambda j: {}))
    assert t._case is None  # a failed case leaves no label behind for later calls


def test_a_case_passes_its_arguments_by_name():
    t = scenario()
    seen = []

    def check(x, k, scale=1):
        seen.append((x, k, scale))
        return {"result": t.call("scale", x, k * scale)}

    table = [Case("k first", k=2, x=np.ones(2)), Case("with a default", x=np.ones(1), k=3, scale=2)]
    observed = t.cases(table, check)
    assert [(list(x), k, scale) for x, k, scale in seen] == [([1.0, 1.0], 2, 1), ([1.0], 3, 2)]
    assert list(observed) == ["case 'k first'", "case 'with a default'"]
    assert observed["case 'with a default'"]["result"].tolist() == [6.0]
    assert [entry[3] for entry in t.call_log] == ["k first", "with a default"]
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'"):
        t.cases([Case("a", y=1)], lambda k: {})


@pytest.mark.parametrize(
    ("label", "error", "words"),
    [
        (3, TypeError, "label must be a non-empty string, not 3"),
        (" ", TypeError, "label must be a non-empty string"),
        ("two\nlines", ValueError, "one line of at most 100 characters"),
        ("x" * 101, ValueError, "one line of at most 100 characters"),
    ],
)
def test_a_case_label_is_checked_as_a_tables_label(label, error, words):
    with pytest.raises(error, match=words):
        Case(label, k=1)
    with pytest.raises(error, match=words):
        scenario().cases({label: 1}, lambda k: {})


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ([Case("a", k=1), Case("a", k=2)], "two cases are labelled 'a'; labels must be unique"),
        ([Case("a", k=1), ("b", 2)], "either Case(...) items or (label, arguments) pairs"),
        ([("b", 2), Case("a", k=1)], "either Case(...) items or (label, arguments) pairs"),
        ({"a": Case("a", k=1)}, "its arguments are a Case, which has a label of its own"),
        ([("a", Case("a", k=1))], "its arguments are a Case, which has a label of its own"),
        (Case("a", k=1), "takes a list of cases, not one Case"),
    ],
)
def test_a_table_of_cases_is_one_form(table, words):
    error = ValueError if "unique" in words else TypeError
    with pytest.raises(error, match=re.escape(words)):
        scenario().cases(table, lambda k: {})


def test_a_case_cannot_be_changed_nor_its_type_patched(monkeypatch: pytest.MonkeyPatch):
    frozen: list[type] = []
    monkeypatch.setattr(integrity, "freeze_type", frozen.append)
    runner.freeze_harness()  # what the warm worker freezes before any job
    assert Case in frozen
    monkeypatch.undo()
    integrity.freeze_type(Case)  # only Case here: the rest of the suite may patch the others
    case = Case("a", layers=[1, 2], k=3)
    assert (case.label, case.arguments) == ("a", {"layers": [1, 2], "k": 3})
    assert repr(case) == "Case('a', layers=[1, 2], k=3)"
    case.arguments["k"] = 4  # a copy
    with pytest.raises(AttributeError):
        case.label = "b"
    for name in ("__new__", "arguments", "label"):
        with pytest.raises(TypeError, match="immutable type"):
            setattr(Case, name, property(lambda self: {"k": 0}))
    assert scenario().cases([case], lambda layers, k: {"k": k}) == {"case 'a'": {"k": 3}}


def test_arguments_spread_from_a_tuple_and_pass_whole_otherwise():
    t = scenario()
    observed = t.cases(
        {"a tuple": (np.ones(2), 3), "a list": [1, 2]},
        lambda *args: {"args": len(args)},
    )
    assert observed == {"case 'a tuple'": {"args": 2}, "case 'a list'": {"args": 1}}


def test_a_case_is_tied_to_the_call_its_observations_came_from():
    t = scenario()

    def check(k):
        t.call("scale", np.ones(1), 0)  # a call whose result is not observed
        return {"result": t.call("scale", np.ones(1), k)}

    observed = t.cases({"a": 1, "b": 2}, check)
    assert [t.call_of(observed[case_key(label)]) for label in "ab"] == [1, 3]
    assert [entry[3] for entry in t.call_log] == ["a", "a", "b", "b"]  # each call's case


def test_the_server_knows_a_case_key_by_its_form():
    for label in ["plain", "it's quoted", "both ' and \""]:
        assert case_label(case_key(label)) == case_key(label)
    for other in ["saved", "case", "cases 'x'", 3, None]:
        assert case_label(other) is None


# --- wording, in the server ---


def test_every_case_is_compared_and_the_others_are_counted():
    expected = {case_key(c): {"v": 1, "w": 1} for c in "abc"}
    got = {case_key("a"): {"v": 1, "w": 1}, case_key("b"): {"v": 2, "w": 2}}
    got[case_key("c")] = {"v": 2, "w": 1}
    problems = differences(expected, got, Tolerance(reveal="full"))
    assert problems == [
        ("case 'b'", "v: value differs — expected 1, got 2"),
        ("case 'b'", "w: value differs — expected 1, got 2"),
        ("case 'c'", "v: value differs — expected 1, got 2"),
    ]
    calls = {i: feedback.Call("scale", [(str(i), True)], {}) for i in range(3)}
    origins = {case_key(c): i for i, c in enumerate("abc")}
    assert feedback.message(problems, calls, origins, {}).splitlines() == [
        "In case 'b', scale(1):",
        "v: value differs — expected 1, got 2",
        "w: value differs — expected 1, got 2",
        "…and 1 more observation differs in 1 other case",
    ]
    # The same difference outside a table names the case in its path.
    assert (
        compare(expected, got, Tolerance(reveal="full"))
        == "case 'b': v: value differs — expected 1, got 2"
    )


# --- the guide's examples ---

NUMPY_TRACK = ROOT / "exercises" / "gradient-checkpointing" / "numpy"
NUMPY_PARAMETERS = {
    "checkpoint_forward": ("layers", "x", "checkpoint_indices"),
    "checkpoint_recompute": ("layers", "saved_activations", "checkpoint_indices", "layer_idx"),
}


@pytest.mark.parametrize(
    ("example", "wrong"),
    [(0, "saves_every_activation.py"), (1, "starts_at_the_layer_itself.py")],
)
def test_the_guides_examples_fail_as_the_guide_shows(example, wrong):
    guide = (ROOT / "docs" / "authoring.md").read_text()
    section = guide[guide.index("## Tables of cases and random cases") :]
    section = section[: section.index("\n## ", 5)]
    code = re.findall(r"```python\n(.*?)```", section, re.DOTALL)[example]
    shown = re.findall(r"```text\n(.*?)```", section, re.DOTALL)[example].strip()
    test_id = re.search(r"@test\(.*\n(?:.*\n)*?def (\w+)\(t\)", code).group(1)
    # Graded in a fresh interpreter: the seed track's whole tests module runs in-process
    # here, and what earlier tests left in this pytest process must not decide its fate.
    script = (
        "import json, sys\n"
        "from tests.graders.test_cases_helper import NUMPY_PARAMETERS, NUMPY_TRACK, grade\n"
        "tests = (NUMPY_TRACK / 'tests.py').read_text() + '\\n\\n' + sys.argv[1]\n"
        "results = grade((NUMPY_TRACK / 'wrong' / sys.argv[2]).read_text(), tests=tests,\n"
        "    reference=(NUMPY_TRACK / 'solution.py').read_text(), parameters=NUMPY_PARAMETERS)\n"
        "print(json.dumps({k: [v.status.value, v.message] for k, v in results.items()}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, code, wrong],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = last_json_line(done, "the fresh interpreter's grading")
    assert results[test_id][1] == shown, results


@pytest.mark.parametrize("label", ["a\nb", 3, "x" * 201])
def test_a_malformed_case_label_from_the_sandbox_drops_the_call(label):
    header = {"calls": [[0, "f", [], {}, label]], "call_of": {"a": 0}, "failed_call": 0}
    assert feedback.read_calls(header) == ({}, {}, None)


def test_a_call_made_in_a_case_is_shown_after_its_label():
    header = {"calls": [[0, "f", [["2", True]], {}, "k is 2"]], "failed_call": 0}
    calls, _, failed = feedback.read_calls(header)
    assert feedback.failed_call(calls, failed, {"f": ("k",)}) == "case 'k is 2', f(k=2)"
    # A call description without a case (a worker of an earlier version) still reads.
    calls, _, failed = feedback.read_calls({"calls": [[0, "f", [], {}]], "failed_call": 0})
    assert feedback.failed_call(calls, failed, {}) == "f()"


# --- arguments written out as code -------------------------------------------------------


def test_small_arrays_tensors_and_their_containers_are_written_out_as_code():
    import torch
    from torch import nn

    from graders.sandbox.testing import argument_code, from_code

    assert argument_code(np.array([[1, 2]], dtype=np.int32)) == (
        "np.array([[1, 2]], dtype=np.int32)"
    )
    assert argument_code({-1: np.array([True])}) == "{-1: np.array([True], dtype=np.bool)}"
    assert argument_code(torch.tensor([0.5], requires_grad=True)) == (
        "torch.tensor([0.5], dtype=torch.float32, requires_grad=True)"
    )
    assert argument_code(np.zeros(25)) is None  # too large: its shape is named instead
    assert argument_code(nn.ModuleList([nn.Linear(2, 3), nn.Tanh()])) == (
        "nn.ModuleList([nn.Linear(2, 3), nn.Tanh()])"
    )
    assert argument_code(nn.Sequential(nn.Linear(2, 3, bias=False), nn.Dropout(0.5))) == (
        "nn.Sequential(nn.Linear(2, 3, bias=False), nn.Dropout(0.5))"
    )
    layers = from_code("[lambda a: a * 2.0, np.tanh]", {"np": np})
    assert layers[0](np.array(1.5)) == 3.0  # the code shown is the code that runs
    assert argument_code(layers) == "[lambda a: a * 2.0, np.tanh]"
    assert argument_code([lambda a: a]) is None  # a function without code given


def test_writing_arguments_out_runs_no_learner_code_left_on_them():
    """Modules reach learner code as they are, and their code is written after it ran: a
    method or attribute the learner set on one must not run in the harness (it would run
    after the integrity check, before the observations are encoded)."""
    import torch
    from torch import nn

    from graders.sandbox.testing import argument_code

    ran = []

    class Loud:
        def __format__(self, spec):
            ran.append("format")
            return "4"

        __repr__ = __str__ = lambda self: ran.append("repr") or "4"

    linear = nn.Linear(2, 3)
    linear.extra_repr = lambda: ran.append("extra_repr") or "x"
    assert argument_code(nn.ModuleList([linear])) == "nn.ModuleList([nn.Linear(2, 3)])"
    linear.in_features = Loud()
    assert argument_code(nn.ModuleList([linear])) is None

    class Disguised(nn.Module):  # a learner's module that claims to be torch's
        __module__ = "torch.nn.modules.linear"

        def extra_repr(self):
            ran.append("disguised")
            return "1, 1"

    assert argument_code(nn.ModuleList([Disguised()])) is None
    tensor = torch.zeros(2)
    tensor.numel = lambda: ran.append("numel") or 1
    tensor.tolist = lambda: ran.append("tolist") or [0]
    assert argument_code(tensor) == "torch.tensor([0.0, 0.0], dtype=torch.float32)"
    assert ran == []
