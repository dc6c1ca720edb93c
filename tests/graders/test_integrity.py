"""The harness's guards against cheap forgeries, one by one (graders/sandbox/integrity.py,
records.py, the test-case API and Run jobs). The same guards are proven end to end,
through the service, by tests/security/test_forgeries.py."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest
import torch
from torch import nn

from graders.grading.jobs import compiled_tests
from graders.sandbox import encode, integrity, prewarm, records, runner, testing, wire
from graders.sandbox.checkpointing import (
    counting_layers,
    counting_modules,
    held_in_python,
    kept_for_backward,
    recording,
)
from graders.settings import ROOT
from tests.catalog import shipped_catalog, shipped_tracks


def test_a_frozen_type_refuses_every_assignment():
    class Harness:
        def method(self):
            return "real"

    assert integrity.freeze_type(Harness)
    for attempt in (
        lambda: setattr(Harness, "method", lambda self: "fake"),
        lambda: type.__setattr__(Harness, "method", lambda self: "fake"),
        lambda: delattr(Harness, "method"),
        lambda: setattr(Harness, "__getattribute__", lambda self, name: None),
    ):
        with pytest.raises(TypeError, match="immutable type"):
            attempt()
    assert Harness().method() == "real"


def test_an_unfrozen_type_takes_the_assignment():
    # What the guard prevents, shown on the same kind of class without it.
    class Harness:
        def method(self):
            return "real"

    Harness.method = lambda self: "fake"
    assert Harness().method() == "fake"


def test_the_snapshot_names_what_changed():
    module = types.ModuleType("harness_like")
    module.helper = lambda: 1
    module.DATA = [1]
    library = types.ModuleType("library_like")
    library.function = lambda: 2
    library.setting = 3
    snapshot = integrity.Snapshot()
    snapshot.exact("harness_like", vars(module))
    snapshot.kept("library_like", vars(library))
    assert snapshot.changed() is None
    library.setting = 4  # a library's plain data may change
    library.new_submodule = types.ModuleType("x")  # and it may gain names
    module.DATA.append(2)  # an object mutated in place is the same object
    assert snapshot.changed() is None
    original = library.function
    library.function = lambda: 5
    assert snapshot.changed() == "library_like.function was replaced"
    library.function = original
    module.extra = 1
    assert snapshot.changed() == "harness_like.extra was added"


def test_the_snapshot_sees_a_function_given_other_code_or_defaults():
    """A function object is mutable: ``f.__code__ = g.__code__`` swaps what it runs and
    changes no dict, so no version tag shows it. Methods of a namespace's classes count,
    as do the functions a decorator wraps, and the libraries' functions."""
    module = types.ModuleType("harness_like")
    exec(
        "import contextlib\n"
        "def helper(a=1):\n    return a\n"
        "def keyword(*, b=1):\n    return b\n"
        "def plain(a):\n    return a\n"
        "class Encoder:\n    def value(self, v):\n        return v\n"
        "    @property\n    def size(self):\n        return 1\n"
        "@contextlib.contextmanager\ndef block():\n    yield 1\n",
        vars(module),
    )
    library = types.ModuleType("library_like")
    library.function = lambda: 2
    library.dispatched = np.copy  # a C dispatcher; its implementation is a Python function
    snapshot = integrity.Snapshot()
    snapshot.exact("harness_like", vars(module))
    snapshot.kept("library_like", vars(library))
    assert snapshot.changed() is None
    forged = (lambda *args: "forged").__code__
    for function, message in [
        (module.Encoder.value, "the code of harness_like.Encoder.value was replaced"),
        (module.Encoder.size.fget, "the code of harness_like.Encoder.size was replaced"),
        (module.block.__wrapped__, "the code of harness_like.block was replaced"),
        (library.function, "the code of library_like.function was replaced"),
        (np.copy._implementation, "the code of library_like.dispatched was replaced"),
    ]:
        original = function.__code__
        function.__code__ = forged
        assert snapshot.changed() == message
        function.__code__ = original
        assert snapshot.changed() is None
    defaults = module.helper.__defaults__
    module.helper.__defaults__ = (1,)  # equal, but compared by identity: no learner __eq__
    assert snapshot.changed() == "the default arguments of harness_like.helper were replaced"
    module.helper.__defaults__ = defaults
    assert snapshot.changed() is None
    module.keyword.__kwdefaults__["b"] = 2  # changed in place: the same dict
    assert snapshot.changed() == "the default arguments of harness_like.keyword were replaced"
    module.keyword.__kwdefaults__["b"] = 1
    assert snapshot.changed() is None
    # contextmanager keeps the generator function in a cell of the function it returns
    cell = module.block.__closure__[0]
    original = cell.cell_contents
    cell.cell_contents = lambda: iter([2])
    assert snapshot.changed() == "a value harness_like.block keeps in its closure was replaced"
    cell.cell_contents = original
    assert snapshot.changed() is None
    module.plain.__defaults__ = (1,)  # no call the harness makes can notice
    assert snapshot.changed() is None


def test_learner_code_that_swaps_the_code_of_a_harness_method_ends_the_run():
    """The encoder's class is an immutable type, but its methods are function objects:
    learner code that walks up to the runner's frame could make it encode anything. (In
    a process without the warm worker's audit hook: the snapshot sees it after the call.)"""
    code = SWAP_ENCODER
    original = encode.Encoder.value.__code__
    try:
        frames = run_job(code, TESTS)
    finally:
        encode.Encoder.value.__code__ = original  # a real job's process ends with it
    assert "test" not in [f.header["type"] for f in frames]
    assert frames[-1].header == {
        "type": "tampered",
        "what": "the code of graders.sandbox.encode.Encoder.value was replaced",
    }


SWAP_ENCODER = (
    "import sys\n"
    "def f(x):\n"
    "    frame = sys._getframe(1)\n"
    "    while 'Encoder' not in frame.f_globals:\n"
    "        frame = frame.f_back\n"
    "    frame.f_globals['Encoder'].value.__code__ = (lambda self, v, depth=0: None).__code__\n"
    "    return x\n"
)

WARM_WORKER = """
import json
import numpy as np
from graders.sandbox import encode, runner
from tests.graders.test_integrity import SWAP_ENCODER, TESTS, run_job

runner.freeze_harness()
runner.refuse_function_changes()  # as the warm worker does before any job
print(json.dumps(run_job(SWAP_ENCODER, TESTS)[-1].header))
for owner, name, value in [
    (encode.Encoder.value, "__code__", (lambda self, v, depth=0: None).__code__),
    (encode.Encoder.value, "__defaults__", (1,)),
    (np.copy._implementation, "__code__", (lambda *a, **k: None).__code__),
]:
    try:
        setattr(owner, name, value)
        print("changed", name)
    except BaseException as exc:
        print(type(exc).__name__, exc)
def mine():
    return 0
mine.__code__ = (lambda: 1).__code__  # learner code's own functions stay its own
print("own", mine())
"""


def test_the_warm_workers_audit_hook_refuses_new_code_for_the_harness_and_libraries():
    """In a process of its own: the hook cannot be removed once added."""
    done = subprocess.run(
        [sys.executable, "-c", WARM_WORKER],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert json.loads(lines[0]) == {
        "type": "tampered",
        "what": "the code of graders.sandbox.encode.Encoder.value was replaced",
    }
    assert lines[1:] == [
        "Tampered the code of graders.sandbox.encode.Encoder.value was replaced",
        "Tampered the default arguments of graders.sandbox.encode.Encoder.value was replaced",
        "Tampered the code of numpy.lib._function_base_impl.copy was replaced",
        "own 1",
    ]


def test_a_warning_issued_from_harness_code_is_not_tampering():
    """Python adds __warningregistry__ to the module whose code a warning comes from, even
    when the warning is ignored: a learner's unclosed socket, freed while a harness
    function runs, did that (memory_fd_hoard.py in the process backend)."""
    module = types.ModuleType("harness_like")
    exec(
        "import warnings\ndef helper():\n    warnings.warn('unclosed socket', ResourceWarning)\n",
        vars(module),
    )
    snapshot = integrity.Snapshot()
    snapshot.exact("harness_like", vars(module))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.helper()
    assert "__warningregistry__" in vars(module)
    assert snapshot.changed() is None
    module.extra = 1  # anything else added is still seen
    assert snapshot.changed() == "harness_like.extra was added"


def test_the_library_snapshot_sees_patched_numpy_torch_and_builtins(monkeypatch):
    import builtins

    snapshot = integrity.library_snapshot()
    assert snapshot.changed() is None
    for owner, name in [(np, "copy"), (torch.Tensor, "backward"), (builtins, "isinstance")]:
        with monkeypatch.context() as patch:
            patch.setattr(owner, name, lambda *a, **k: None)
            assert snapshot.changed() is not None and name in snapshot.changed()
        assert snapshot.changed() is None


def test_hidden_modules_hides_and_restores():
    before = sys.modules["graders.sandbox.testing"]
    with integrity.hidden_modules("graders", runner.HARNESS_FOLDER):
        assert "graders.sandbox.testing" not in sys.modules
        assert runner.HARNESS_FOLDER not in sys.path
        # In the sandbox nothing else finds it (the forgery suite shows "No module named
        # 'graders'"); here the editable install may, but only as a new, unused copy.
        try:
            imported = __import__("graders.sandbox.testing", fromlist=["x"])
        except ImportError:
            imported = None
        assert imported is not before
    assert sys.modules["graders.sandbox.testing"] is before


def run_job(code: str, tests: str) -> list[wire.Frame]:
    header = {
        "type": "job",
        "code": code,
        "filename": "your_code.py",
        "entry_points": ["f"],
        "tests": None,
        "limits": {"output_bytes": 4096, "result_bytes": 1 << 20},
    }
    body = marshal.dumps(compile(tests, runner.TESTS_FILENAME, "exec"))
    sink = os.memfd_create("frames")
    with prewarm.restored_process():
        runner.Job(header, sink, body).run()
    frames, _ = wire.split_frames(os.pread(sink, 1 << 22, 0), 1 << 22)
    os.close(sink)
    return frames


TESTS = """
import numpy as np
from graders.sandbox.testing import test

@test("copies the result")
def copies(t):
    return {"result": np.copy(t.call("f", np.arange(3.0)))}
"""


def test_learner_code_that_patches_numpy_during_a_call_ends_the_run():
    code = (
        "import numpy as np\n"
        "def f(x):\n"
        "    np.copy = lambda a: a * 0 + 7\n"  # forge what the test copies next
        "    return x\n"
    )
    original = np.copy
    try:
        frames = run_job(code, TESTS)
    finally:
        np.copy = original
    kinds = [f.header["type"] for f in frames]
    assert "test" not in kinds
    assert frames[-1].header == {"type": "tampered", "what": "numpy.copy was replaced"}


def test_learner_code_cannot_reach_the_live_harness_or_the_tests_by_name():
    code = (
        "import sys\n"
        "def f(x):\n"
        "    try:\n"
        "        import graders.sandbox.testing as T\n"
        "        T.Scenario.call = None  # patch whatever the import gave\n"
        "    except ImportError:\n"
        "        pass\n"
        "    return 'drill_tests' in sys.modules\n"
    )
    tests = TESTS.replace("np.copy(t.call", "(t.call").replace(
        "return {", "t.call('f', 0)\n    return {"
    )
    frames = run_job(code, tests)
    test_frame = next(f for f in frames if f.header["type"] == "test")
    # The second call still worked: the live Scenario was not the one patched.
    assert wire.decode_value(test_frame.header["obs"], test_frame.body) == {"result": False}


def test_a_counting_module_counts_every_way_of_calling_it():
    scenario = testing.Scenario({}, [])
    layers = counting_modules(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)]))
    x = torch.zeros(1, 2, requires_grad=True)
    with recording(scenario, "forward") as calls:
        layers[0](x)
        layers[1].forward(x)  # bypasses Module.__call__ and its hooks
        torch.utils.checkpoint.checkpoint(layers[2], x, use_reentrant=False)
    assert records.read_record(calls)[1] == (0, 1, 2)


def test_a_counting_layer_has_no_uncounted_attribute():
    (layer,) = counting_layers([lambda a: a * 2])
    assert not any(callable(getattr(layer, name)) for name in vars(layer))
    assert (layer.index, layer.calls) == (0, 0)


def test_kept_for_backward_counts_activations_outside_checkpoints():
    scenario = testing.Scenario({}, [])
    layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(4)])
    x = torch.randn(3, 4, requires_grad=True)
    with kept_for_backward(scenario, layers) as plain:
        h = x
        for layer in layers:
            h = torch.tanh(layer(h))
    with kept_for_backward(scenario, layers) as checkpointed:
        torch.utils.checkpoint.checkpoint(nn.Sequential(*layers), x, use_reentrant=False)
    # The plain forward keeps every activation; the checkpointed one only its input.
    assert records.read_kept(checkpointed) == 3 * 4 * 4
    assert records.read_kept(plain) > 4 * records.read_kept(checkpointed)


def _identity(t):
    return t


_STORE: dict[int, torch.Tensor] = {}


def _pack_to_store(t):
    _STORE[len(_STORE)] = t
    return len(_STORE) - 1


def _unpack_from_store(key):
    return _STORE[key]


def _forwards():
    """Forwards through four layers: plain or checkpointed, under saved-tensor hooks of
    the learner's own or none. The learner's pair is innermost, so it packs everything."""

    def plain(layers, x):
        for layer in layers:
            x = torch.tanh(layer(x))
        return x

    def checkpointed(layers, x):
        block = nn.Sequential(*(m for layer in layers for m in (layer, nn.Tanh())))
        return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)

    def hidden(forward, pack, unpack):
        def run(layers, x):
            with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
                return forward(layers, x)

        return run

    return {
        "plain": plain,
        "checkpointed": checkpointed,
        "plain under identity hooks": hidden(plain, _identity, _identity),
        "plain packed into a global dict": hidden(plain, _pack_to_store, _unpack_from_store),
        "checkpointed under identity hooks": hidden(checkpointed, _identity, _identity),
        "plain packed to NumPy": hidden(
            plain, lambda t: t.detach().numpy().copy(), lambda a: torch.from_numpy(a)
        ),
    }


def test_kept_for_backward_reads_the_graph_under_the_learners_own_hooks(monkeypatch):
    kept = {}
    for name, forward in _forwards().items():
        # This module stands for the submission's: its globals are what hooks can name.
        monkeypatch.setitem(globals(), "forward", forward)
        scenario = testing.Scenario(globals(), ["forward"])
        layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(4)])
        x = torch.randn(3, 4, requires_grad=True)
        with kept_for_backward(scenario, layers) as handle:
            scenario.call("forward", layers, x)
        kept[name] = records.read_kept(handle)
    # Hooks of the learner's own hide nothing: the graph holds what they packed (the
    # dict is reached through the globals the unpack hook names).
    assert kept["plain under identity hooks"] == kept["plain"] > 4 * 3 * 4 * 4
    assert kept["plain packed into a global dict"] == kept["plain"]
    # Each NumPy copy is memory of its own: eight activations (no longer shared between
    # a tanh and the next layer) and the four weights.
    assert kept["plain packed to NumPy"] == 8 * 3 * 4 * 4 + 4 * 4 * 4 * 4
    # A checkpoint keeps its input, whoever packs it.
    assert kept["checkpointed under identity hooks"] == kept["checkpointed"] == 3 * 4 * 4


def test_kept_for_backward_leaves_out_the_graph_the_arguments_had():
    scenario = testing.Scenario({"copy": lambda h: h.clone()}, ["copy"])
    x = torch.randn(5, 4, requires_grad=True)
    before = torch.tanh(x)  # TanhBackward keeps 80 bytes, but not the call's doing
    with kept_for_backward(scenario) as kept:
        scenario.call("copy", before)
    assert records.read_kept(kept) == 0


def test_held_in_python_counts_numpy_copies_and_large_python_objects():
    held = {}
    kept_by_ctx = []
    cases = {
        "nothing": lambda a: None,
        "a NumPy copy": lambda a: kept_by_ctx.append(a.numpy().copy()),
        "a list of floats": lambda a: kept_by_ctx.append(a.tolist()),
        "bytes": lambda a: kept_by_ctx.append(a.numpy().tobytes()),
        "a NumPy copy, freed": lambda a: len(a.numpy().copy()),
    }
    for name, keep in cases.items():
        scenario = testing.Scenario({"keep": keep}, ["keep"])
        a = torch.randn(64, 256)  # 64 KiB
        with held_in_python(scenario) as handle:
            scenario.call("keep", a)
        held[name] = records.read_kept(handle)
    assert held["nothing"] == held["a NumPy copy, freed"] == 0
    assert held["a NumPy copy"] == 64 * 256 * 4
    assert held["bytes"] >= 64 * 256 * 4
    assert held["a list of floats"] > 64 * 256 * 8


def test_held_in_python_cannot_be_blinded_by_stopping_tracemalloc():
    import tracemalloc

    for blind in (tracemalloc.stop, lambda: (tracemalloc.stop(), tracemalloc.start())):
        scenario = testing.Scenario({"blind": blind}, ["blind"])
        with held_in_python(scenario) as handle:
            scenario.call("blind")
        assert "not measurable" in records.read_kept(handle)
        tracemalloc.stop()


@pytest.mark.catalog
@pytest.mark.parametrize(
    ("slug", "track"), shipped_tracks(), ids=[f"{s}-{t}" for s, t in shipped_tracks()]
)
def test_a_run_job_carries_only_the_examples(slug, track):
    source = shipped_catalog().get(slug).track(track).tests
    testing.REGISTRY.clear()
    exec(marshal.loads(compiled_tests(source)), {})
    hidden = {spec.scenario.__name__ for spec in testing.REGISTRY if not spec.example}
    assert hidden  # the functions of the hidden tests, whatever the author named them
    code = marshal.loads(compiled_tests(source, examples_only=True))
    namespace: dict = {}
    testing.REGISTRY.clear()
    exec(code, namespace)
    assert all(spec.example for spec in testing.REGISTRY)
    assert hidden.isdisjoint(namespace)
    testing.REGISTRY.clear()


def test_example_and_test_are_separate_decorators_and_the_run_keeps_only_examples() -> None:
    """What a Run carries follows the decorator, whatever its arguments: ``@example``
    stays (however written), ``@test`` goes; ``example=`` on ``@test`` is refused with
    the way to write it."""
    source = (
        "from graders.sandbox import testing\n"
        "from graders.sandbox.testing import example, test\n"
        "EXAMPLE = True\n"
        "@example('shown', hint=1)\n"
        "def shown(t):\n    return {}\n"
        "@testing.example('shown too')\n"
        "def shown_too(t):\n    return {}\n"
        "@test('hidden', hint=EXAMPLE)\n"
        "def hidden(t):\n    return {}\n"
        "@testing.test('hidden too')\n"
        "def hidden_too(t):\n    return {}\n"
    )
    namespace: dict[str, object] = {}
    testing.REGISTRY.clear()
    exec(marshal.loads(compiled_tests(source, examples_only=True)), namespace)
    assert [(s.name, s.example) for s in testing.REGISTRY] == [
        ("shown", True),
        ("shown too", True),
    ]
    assert "hidden" not in namespace and "hidden_too" not in namespace
    testing.REGISTRY.clear()
    exec(marshal.loads(compiled_tests(source)), {})
    assert [s.example for s in testing.REGISTRY] == [True, True, False, False]
    testing.REGISTRY.clear()
    with pytest.raises(TypeError, match=r"@example\('old', \.\.\.\) instead of @test"):
        testing.test("old", example=True)
