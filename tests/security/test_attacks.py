"""The attack suite: hostile submissions sent through the real HTTP service.

Each file of ``attacks/`` is one hostile program for the ``double`` test exercise. Its
docstring's first line says what it attempts; a ``# expect:`` comment says what must
happen (see ``parse_expect``). Every attack is POSTed to a real ``drill serve`` running
bubblewrap; after it, the known-correct solution must still pass 2/2 and ``/healthz``
must report both workers, so the next learner is graded correctly.

Leak probes (``kind=leak``) return the right answer and print ``REPORT {json}`` with how
much they searched (``tried``) and what they ``found``; the test asserts they searched and
found nothing. Their check is proven to work by running the same program unconfined
(``proof=``): through a ``DRILL_SANDBOX=process`` server, or, for what seccomp blocks
even there, as a plain subprocess of the test's Python; there it must find something.
Planters (``kind=plant``) leave something behind; their finder (``attacks/finders/``)
then runs on every worker and must find nothing.

Placeholders ``@@NAME@@`` in the programs are substituted per server (``placeholders``).
Secrets (the server's environment canary, the reference solution's marker) are only ever
given to a program as two halves, so no program holds a whole secret.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from graders.grading.results import TRUNCATION_MARKER
from graders.settings import ROOT
from tests.cluster import Cluster, Node
from tests.program_output import json_line
from tests.security.bounded_report import with_bounded_report
from tests.services import running_nats
from tests.serving import Server, alive, descendants, free_port, running_server

pytestmark = pytest.mark.sandbox

HERE = Path(__file__).parent
ATTACKS_DIR = HERE / "attacks"
FINDERS_DIR = ATTACKS_DIR / "finders"
ATTACKS = sorted(ATTACKS_DIR.glob("*.py"))
GOOD = (ROOT / "tests" / "graders" / "cases" / "passing" / "submission.py").read_text()
TEST_EXERCISES = ROOT / "tests" / "graders" / "exercises"
REQUEST_TIMEOUT = 20.0  # every submission, hostile or not, must be answered within this
HEALTH_TIMEOUT = 30.0  # a replaced worker imports torch before it reports ready


# --- the programs' headers ---


def parse_expect(path: Path, cgroups: str = "v1") -> dict[str, str]:
    """``# expect: key=value key~="regex" ...`` -> {"key": value, "key~": regex}.

    What a limit of the job cgroups stops is different on a server without them
    (``cgroups`` is what its /healthz reports): ``# expect-without-cgroups:`` then
    overrides keys, and ``# expect-as-root-without-cgroups:`` too when the tests (and so
    the server) run as root, whom the kernel exempts from RLIMIT_NPROC.
    """
    text = path.read_text()
    match = re.search(r"^# expect: (.*)$", text, re.M)
    assert match, f"{path.name} has no '# expect:' line"
    tokens = shlex.split(match.group(1))
    overrides = []
    if cgroups == "none":
        overrides.append(re.search(r"^# expect-without-cgroups: (.*)$", text, re.M))
        if os.geteuid() == 0:
            overrides.append(re.search(r"^# expect-as-root-without-cgroups: (.*)$", text, re.M))
    for override in overrides:
        if override:
            tokens += shlex.split(override.group(1))
            if "test_message~=" not in override.group(1):
                tokens = [t for t in tokens if not t.startswith("test_message~=")]
    expect: dict[str, str] = {}
    for token in tokens:
        key, op, value = re.fullmatch(r"([a-z_]+)(~?=)(.*)", token).groups()  # type: ignore[union-attr]
        expect[key + ("~" if op == "~=" else "")] = value
    assert "status" in expect, f"{path.name}: expect needs a status"
    return expect


def assert_reports_are_bounded(path: Path) -> None:
    """Every report a program prints goes through ``bounded``: its length is the
    program's, never the host's (tests/security/bounded_report.py)."""
    for line in re.findall(r"^.*print\(.*(?:REPORT|PLANTED) .*$", path.read_text(), re.M):
        assert "bounded(" in line, f"{path.name} prints a report not bounded: {line.strip()}"


def first_docstring_line(path: Path) -> str:
    text = path.read_text()
    assert text.startswith('"""'), f"{path.name} must start with a docstring"
    return text[3:].splitlines()[0].strip()


# --- servers ---


@dataclass
class Target:
    """A running server and the values substituted into the programs sent to it."""

    server: Server
    port: int
    values: dict[str, str]
    secrets: list[str] = field(default_factory=list)
    listener: socket.socket | None = None
    worker: Node | None = None  # the grading machine, when jobs go through the queue
    cgroups: str = "none"  # what the grading machine's /healthz or log reports

    def code(self, path: Path) -> str:
        text = path.read_text()
        names = set(re.findall(r"@@([A-Z_]+)@@", text))
        unknown = names - set(self.values)
        assert not unknown, f"{path.name}: unknown placeholders {unknown}"
        code = re.sub(r"@@([A-Z_]+)@@", lambda m: self.values[m.group(1)], text)
        for secret in self.secrets:
            assert secret not in code, f"{path.name} would carry a whole secret"
        return with_bounded_report(code)

    def submit(self, code: str) -> dict[str, Any]:
        started = time.monotonic()
        response = httpx.post(
            f"{self.server.base}/api/exercises/double/submissions",
            json={"track": "numpy", "code": code, "mode": "submit"},
            timeout=REQUEST_TIMEOUT,
        )
        assert response.status_code == 200, response.text[:2000]
        assert time.monotonic() - started < REQUEST_TIMEOUT
        result = response.json()
        assert result["status"] in ("pass", "fail", "error"), result
        return result

    def health(self) -> dict[str, Any]:
        response = httpx.get(f"{self.server.base}/healthz", timeout=REQUEST_TIMEOUT)
        assert response.status_code == 200
        return response.json()


def _halves(secret: str) -> tuple[str, str]:
    return secret[: len(secret) // 2], secret[len(secret) // 2 :]


@pytest.fixture(scope="session")
def _targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Target]]:
    """Start servers lazily: ``bwrap`` for the attacks, ``process`` for the proofs."""
    with _TargetFactory(tmp_path_factory) as factory:
        yield factory  # type: ignore[misc]


class _TargetFactory(dict):  # type: ignore[type-arg]
    def __init__(self, tmp: pytest.TempPathFactory) -> None:
        super().__init__()
        self.tmp = tmp
        self._contexts: list[Any] = []

    def __enter__(self) -> _TargetFactory:
        return self

    def __exit__(self, *exc: object) -> None:
        for target in self.values():
            if target.listener is not None:
                target.listener.close()
            _clean_planted(target.values["TOKEN"])
        for context in reversed(self._contexts):
            context.__exit__(None, None, None)

    def __missing__(self, sandbox: str) -> Target:
        """``bwrap`` and ``process``: one ``drill serve`` with its own pool; ``queue``: an
        API node with no sandbox, and a ``drill worker`` (two slots) and a reference
        worker behind a real nats-server: the attacks then run on a grading machine;
        ``no-cgroups``: ``drill serve`` with the ``process`` backend and no cgroups, the
        proofs' server: it keeps every resource limit, and root is exempt from
        RLIMIT_NPROC outside a user namespace."""
        base = self.tmp.mktemp(f"attack-{sandbox}")
        token = uuid.uuid4().hex[:16]
        canary = f"DRILL-CANARY-{uuid.uuid4().hex}"
        marker = f"DRILL-REFERENCE-{uuid.uuid4().hex}"
        control = f"DRILL-CONTROL-{uuid.uuid4().hex}"
        # A copy of the test exercises whose reference solution carries a unique marker,
        # so that a search for "the reference" has something unmistakable to look for.
        exercises = base / "exercises"
        shutil.copytree(TEST_EXERCISES, exercises)
        solution = exercises / "double" / "numpy" / "solution.py"
        solution.write_text(solution.read_text() + f"\n\nREFERENCE_MARKER = {marker!r}\n")
        var = base / "var"
        port = free_port()
        common = {
            "DRILL_EXERCISES_DIR": str(exercises),
            "DRILL_WORKERS": "2",
            "DRILL_RATE_PER_MINUTE": "1000000",
            "DRILL_RATE_BURST": "100000",
            "DRILL_ATTACK_CANARY": canary,
        }
        workers = None
        if sandbox == "queue":
            broker = running_nats()
            self._contexts.append(broker)
            cluster = Cluster(broker.__enter__().url, f"sqlite:///{var / 'drill.db'}", common)
            self._contexts.append(_Closing(cluster))
            cluster.start_worker("reference", "reference", DRILL_SANDBOX="bwrap")
            workers = cluster.start_worker("learner", "learner", DRILL_SANDBOX="bwrap")
            context = running_server(var, port, **cluster.api_env("api", DRILL_VAR_DIR=str(var)))
        elif sandbox == "no-cgroups":
            context = running_server(
                var, port, DRILL_SANDBOX="process", DRILL_CGROUPS="off", **common
            )
        else:
            context = running_server(var, port, DRILL_SANDBOX=sandbox, **common)
        server = context.__enter__()
        self._contexts.append(context)
        # An abstract Unix socket in the host's network namespace (net_unix_sockets.py).
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(f"\0drill-attack-{token}")
        listener.listen(64)
        values = {
            "SERVER_PORT": str(port),
            "TOKEN": token,
            "DB_PATH": str(var / "drill.db"),
            "VAR_DIR": str(var),
            "EXERCISES_DIR": str(exercises),
            "REPO": str(ROOT),
            "CONTROL": control,
        }
        for name, secret in (("SECRET", canary), ("REF", marker), ("CONTROL", control)):
            values[f"{name}_A"], values[f"{name}_B"] = _halves(secret)
        target = Target(server, port, values, [canary, marker], listener, workers)
        health = target.health()
        if workers is None:
            assert health["sandbox"] == sandbox.replace("no-cgroups", "process"), health
            target.cgroups = health["cgroups"]
        else:
            assert health.get("queue") == "nats" and "sandbox" not in health, health
            ready = re.search(r"cgroups: (v1|v2|none)", workers.text())
            assert ready, workers.text()[-3000:]
            target.cgroups = ready.group(1)
        if sandbox == "no-cgroups":
            assert target.cgroups == "none", health
        elif os.environ.get("DRILL_CGROUPS") != "off":
            # The suite runs where cgroups are usable (CI is): without them the attacks
            # that only a cgroup stops would be judged by their weaker expectations.
            assert target.cgroups in ("v1", "v2"), (sandbox, health)
        self[sandbox] = target
        return target


def _clean_planted(token: str) -> None:
    """Remove what a planter may have left on the host during an unconfined proof."""
    for folder in ("/tmp", "/dev/shm", "/var/tmp", "/dev", "/", os.getcwd(), str(ROOT)):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if token in name:
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    os.unlink(path)


class _Closing:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def __exit__(self, *exc: object) -> None:
        self.cluster.close()


@pytest.fixture(scope="session", params=["bwrap", "queue"])
def bwrap_target(_targets: dict[str, Target], request: pytest.FixtureRequest) -> Target:
    """The attacks' target: a server's own pool, and a grading worker behind the queue."""
    return _targets[request.param]


# --- reading results ---


def reports(result: dict[str, Any], tag: str = "REPORT") -> list[dict[str, Any]]:
    found = []
    for test in result.get("tests", []):
        output = test.get("output", "")
        truncated = output.endswith(TRUNCATION_MARKER)
        lines = output.removesuffix(TRUNCATION_MARKER).splitlines()
        for number, line in enumerate(lines):
            if line.startswith(tag + " "):
                # Only the last line before the cap's marker can have been cut.
                cut = truncated and number == len(lines) - 1
                what = f"the {tag} line of test {test.get('name')!r}"
                found.append(json_line(line[len(tag) + 1 :], what, cut))
    return found


def report(result: dict[str, Any], tag: str = "REPORT") -> dict[str, Any]:
    got = reports(result, tag)
    assert got, f"no {tag} line in the output: {json.dumps(result)[:3000]}"
    return got[0]


# A memory-heavy attack's page faults are CPU time of its own: 0.3 s of the double
# exercise's 2 s on an idle machine, but past 2 s in loaded CI runs, where the CPU limit
# then stopped it before the memory limit or its report. Such a run shows neither the
# guard nor its absence, so it is run again, a bounded number of times.
CPU_STOPPED = re.compile(r"CPU time limit of [\d.]+ s exceeded")
TRIES = 3


def stopped_by_cpu(result: dict[str, Any]) -> bool:
    return any(t["status"] == "error" and CPU_STOPPED.match(t["message"]) for t in result["tests"])


def submit_until_conclusive(
    target: Target, code: str, conclusive: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Submit ``code`` until a run is ``conclusive`` or not stopped by the CPU limit."""
    for _ in range(TRIES):
        result = target.submit(code)
        if conclusive(result) or not stopped_by_cpu(result):
            break
    return result


def describe(result: dict[str, Any]) -> str:
    tests = [(t["name"], t["status"], t["message"]) for t in result.get("tests", [])]
    return f"{result['status']}: {result['message']!r} {tests}"


def check_verdict(path: Path, expect: dict[str, str], result: dict[str, Any]) -> None:
    assert re.fullmatch(expect["status"], result["status"]), describe(result)
    kind = expect.get("kind", "verdict")
    if kind == "verdict" and "pass" not in expect["status"]:
        assert result["status"] != "pass", describe(result)
        assert result["passed"] < result["total"], describe(result)
    if "message~" in expect:
        assert re.search(expect["message~"], result["message"], re.M), describe(result)
    if "test_message~" in expect:
        assert result["tests"], describe(result)
        first_message = result["tests"][0]["message"]
        assert re.search(expect["test_message~"], first_message, re.M), describe(result)
    if expect.get("truncated") == "yes":
        for test in result["tests"]:
            assert test["output"].endswith(TRUNCATION_MARKER), test["output"][-200:]
            assert len(test["output"]) < 70_000


def check_still_serving(target: Target) -> None:
    """The next learner's submission is graded correctly, and the pool is whole again."""
    good = target.submit(GOOD)
    assert (good["status"], good["passed"], good["total"]) == ("pass", 2, 2), describe(good)
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while True:
        health = target.health()
        if target.worker is not None:  # the grading machine survives, whole
            assert target.worker.alive(), target.worker.text()[-3000:]
            assert health["status"] == "ok", health
            if _sandbox_workers(target.worker) == 2:
                break
        elif health["workers"] == 2:
            break
        assert time.monotonic() < deadline, f"the pool did not recover: {health}"
        time.sleep(0.2)


def _sandbox_workers(node: Node) -> int:
    """Live bubblewrap workers under a ``drill worker`` (its pool, whole again)."""
    count = 0
    for pid in descendants(node.proc.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if command and command[0].endswith(b"bwrap") and alive(pid):
            count += 1
    return count


# --- the attacks ---


def test_the_suite_is_large_and_well_formed() -> None:
    assert len(ATTACKS) >= 40
    categories = {p.name.split("_")[0] for p in ATTACKS}
    assert {"time", "memory", "proc", "output", "escape", "leak", "net", "persist", "crash"} <= (
        categories
    )
    for path in [*ATTACKS, *FINDERS_DIR.glob("*.py")]:
        assert_reports_are_bounded(path)
    for path in ATTACKS:
        assert first_docstring_line(path), path.name
        expect = parse_expect(path)
        if expect.get("kind") == "plant":
            assert (FINDERS_DIR / expect["finder"]).is_file(), path.name


@pytest.mark.parametrize("path", ATTACKS, ids=[p.name for p in ATTACKS])
def test_attack(bwrap_target: Target, path: Path) -> None:
    expect = parse_expect(path, bwrap_target.cgroups)
    kind = expect.get("kind", "verdict")
    code = bwrap_target.code(path)
    if "memory limit" in expect.get("test_message~", ""):
        result = submit_until_conclusive(bwrap_target, code, lambda r: not stopped_by_cpu(r))
    else:
        result = bwrap_target.submit(code)
    check_verdict(path, expect, result)
    if kind == "leak":
        got = report(result)
        assert got["found"] == [], f"{path.name} found {got['found']}"
        assert got["tried"] >= int(expect.get("min_tried", "1")), got
        if expect.get("control") == "yes":
            assert got["control"] is True, "the scan must find the control marker"
    if kind == "plant":
        check_planter(bwrap_target, path, expect, result)
    check_still_serving(bwrap_target)


def check_planter(
    target: Target, path: Path, expect: dict[str, str], first: dict[str, Any]
) -> None:
    """Plant on both workers, then run the finder until it has run on each of them."""
    planted_in = {report(first, "PLANTED")["ns"]}
    planted_in.add(report(target.submit(target.code(path)), "PLANTED")["ns"])
    finder = target.code(FINDERS_DIR / expect["finder"])
    searched_in: set[str] = set()
    for _ in range(6):
        result = target.submit(finder)
        assert result["status"] == "pass", describe(result)
        got = report(result)
        assert got["found"] == [], f"{path.name}: the next submission found {got['found']}"
        assert got["tried"] > 0
        searched_in.add(got["ns"])
        if planted_in <= searched_in:
            break
    assert planted_in <= searched_in, (planted_in, searched_in)


# --- proof that the leak checks detect a leak where there is no sandbox ---

PROVABLE = [
    p
    for p in ATTACKS
    if parse_expect(p).get("proof")
    in ("process", "direct", "same-process", "direct-pair", "no-cgroups")
]


def _run_unconfined(script: str, *files: str, cwd: Path) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, "-c", script, *files],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        check=False,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("REPORT ")]
    assert lines, completed.stdout[-2000:] + completed.stderr[-2000:]
    return dict(json_line(lines[-1][len("REPORT ") :], "the unconfined probe's REPORT line"))


PROBE = (
    "import json, runpy, sys\n"
    "ns = runpy.run_path(sys.argv[1])\n"
    "print('REPORT ' + json.dumps(ns['bounded'](ns['probe']())))\n"
)
PLANT = "import runpy, sys\nruns = runpy.run_path(sys.argv[1])\nruns['plant']()\n"
PLANT_THEN_PROBE = (
    "import json, os, runpy, sys\n"
    "planter = runpy.run_path(sys.argv[1])\n"
    "planter['plant']()\n"
    "finder = runpy.run_path(sys.argv[2])\n"
    "print('REPORT ' + json.dumps(finder['bounded'](finder['probe']())), flush=True)\n"
    "os._exit(0)  # a planter may leave threads that would keep the interpreter alive\n"
)


@pytest.mark.parametrize("path", PROVABLE, ids=[p.name for p in PROVABLE])
def test_the_check_detects_the_leak_unconfined(
    _targets: dict[str, Target], path: Path, tmp_path: Path
) -> None:
    expect = parse_expect(path)
    proof = expect["proof"]
    if proof == "no-cgroups":
        # The same attack where the jobs have every resource limit but no cgroup: it gets
        # through, so the cgroup is what stops it. (test_attack shows the cgroup stopping
        # it; test_cgroup_alone_stops_it, on the same backend as here with cgroups on.)
        # What is read is the attack's own report of what it took (non-empty ``found``
        # only when it took all of it), not the verdict: whether the rest of the job then
        # kept inside its CPU and wall limits depends on the machine's load, not on the gap.
        target = _targets["no-cgroups"]
        result = submit_until_conclusive(target, target.code(path), lambda r: bool(reports(r)))
        without = parse_expect(path, "none")
        if os.geteuid() != 0 and "pass" not in without["status"]:
            # Not root: RLIMIT_NPROC binds here, and only root could show the gap.
            check_verdict(path, without, result)
            return
        got = report(result)
    elif proof == "process":
        target = _targets["process"]
        result = target.submit(target.code(path))
        if expect.get("kind") == "plant":
            result = target.submit(target.code(FINDERS_DIR / expect["finder"]))
        got = report(result)
    else:
        # Seccomp refuses these even in the process backend: run the probe as a plain
        # subprocess of the test's Python (unconfined), against the bwrap server's values.
        target = _targets["bwrap"]
        program = tmp_path / path.name
        program.write_text(target.code(path))
        if proof == "direct":
            got = _run_unconfined(PROBE, str(program), cwd=tmp_path)
        else:
            finder = tmp_path / expect["finder"]
            finder.write_text(target.code(FINDERS_DIR / expect["finder"]))
            if proof == "direct-pair":  # plant in one process, find from another
                subprocess.run([sys.executable, "-c", PLANT, str(program)], check=True, timeout=60)
                got = _run_unconfined(PROBE, str(finder), cwd=tmp_path)
            else:  # same-process: only a shared interpreter could carry this state
                got = _run_unconfined(PLANT_THEN_PROBE, str(program), str(finder), cwd=tmp_path)
    if path.name == "net_raw_and_packet.py" and os.geteuid() != 0:
        # Raw sockets need CAP_NET_RAW: without root nothing can prove this check here.
        assert got["tried"] >= 3
        return
    assert got["found"], f"{path.name}: the unconfined run found nothing: {got}"


CGROUP_GUARDED = [p for p in ATTACKS if parse_expect(p).get("proof") == "no-cgroups"]


@pytest.mark.parametrize("path", CGROUP_GUARDED, ids=[p.name for p in CGROUP_GUARDED])
def test_cgroup_alone_stops_it(_targets: dict[str, Target], path: Path) -> None:
    """The other half of a ``no-cgroups`` proof: on the same backend (plain processes, no
    user namespace, the same resource limits) with cgroups on, the attack is stopped, with
    the verdict it gets in bubblewrap. Only the cgroup differs between the two runs."""
    target = _targets["process"]
    assert target.cgroups in ("v1", "v2"), target.cgroups
    expect = parse_expect(path, target.cgroups)
    code = target.code(path)
    if "memory limit" in expect.get("test_message~", ""):  # as in test_attack
        result = submit_until_conclusive(target, code, lambda r: not stopped_by_cpu(r))
    else:
        result = target.submit(code)
    check_verdict(path, expect, result)
    check_still_serving(target)
