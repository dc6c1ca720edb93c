"""A soak of ``drill serve``: mixed correct, wrong and hostile submissions for minutes on
end, to show that nothing leaks and that every verdict stays right.

Not a test: it measures, prints, writes JSON and draws a plot. One ``drill serve``
(bubblewrap, its default pool) serves the shipped exercises plus a copy of the attack
suite's ``double`` exercise. ``--clients`` threads submit, until ``--duration`` is over, a
seeded random mix: about 45% correct programs (the seed tracks' ``solution.py`` and
``alternatives/``), 35% known-wrong ones (their ``wrong/``) and 20% hostile ones (a fixed
set from ``tests/security/attacks/``: time, memory, processes, output, crashes, escapes,
poisoning). Every verdict is checked: correct -> pass, wrong -> not pass, hostile -> the
status its ``# expect:`` line allows. A 503 (pool busy) is retried after its Retry-After
and counted apart.

At the start, every ``--interval`` seconds and at the end it records:

- PSS, open file descriptors and threads of the server process;
- the same, summed, for its sandbox workers: the long-lived processes under the server
  (bubblewrap and the warm Python worker of each pool, learner and reference). A job's
  child is forked from its worker and keeps its command line, which is how it is told
  apart: it is counted under ``jobs``, since job children come and go. The workers' RSS
  is kept too: a worker's PSS drops while a forked child shares its pages, its RSS not;
- the cgroup counts of the server's tree (``graders.grading.cgroups.tree_of``): worker cgroups,
  processes in them, tasks (threads) the pids controller counts; null without cgroups;
- submissions answered so far, and ``/healthz``.

It writes ``DIR/soak.json`` (settings, machine, samples, verdicts by kind, every wrong
verdict with its program and result, and a summary: PSS after warm-up (the first sample
after the first minute, and after the reference pool stopped, which it does after a
minute idle; the second sample with ``--smoke``) against the last one, growth
and a least-squares slope in MiB/min, fd and thread ranges after warm-up), ``DIR/soak.png``
and ``DIR/soak-server.log``. It exits non-zero when a verdict was wrong, a request got no
verdict, the server died or the run was interrupted.

Usage: ``python bench/soak.py [--duration 600] [--interval 10] [--clients 16] [--smoke]
[--out DIR] [--seed N]``. ``--smoke`` is a short run for the test suite (about 30 s:
20 s of submissions, a sample each 3 s, 4 clients); the figures of docs/security.md come
from a full run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.grading import TRACKS, machine  # noqa: E402
from bench.service import pss_kb  # noqa: E402
from graders.grading.cgroups import CgroupTree, tree_of  # noqa: E402
from tests.security.bounded_report import with_bounded_report  # noqa: E402
from tests.security.test_attacks import parse_expect  # noqa: E402
from tests.serving import Server, descendants, running_server  # noqa: E402

ATTACKS_DIR = ROOT / "tests" / "security" / "attacks"
DOUBLE = ROOT / "tests" / "graders" / "exercises" / "double"
# A varied fixed set of hostile programs for ``double`` (numpy). Programs that need
# per-server placeholders, leak probes and planters are left to the attack suite: their
# verdict alone says nothing here.
HOSTILE = (
    "time_sleep.py",
    "time_loop_in_entry_point.py",
    "time_loop_at_import.py",
    "memory_numpy_huge.py",
    "memory_python_hoard.py",
    "memory_memfd_bomb.py",
    "memory_fd_hoard.py",
    "memory_huge_return.py",
    "proc_fork_bomb.py",
    "proc_thread_bomb.py",
    "proc_thread_bomb_small_stacks.py",
    "proc_subprocess.py",
    "output_raw_stdout.py",
    "output_print_stdout.py",
    "output_many_frames.py",
    "crash_segfault_ctypes.py",
    "crash_abort.py",
    "crash_recursion_bomb.py",
    "escape_os_exit_zero.py",
    "escape_patch_numpy_compare.py",
    "poison_linger_after_result.py",
)
KINDS = ("correct", "wrong", "hostile")
WEIGHTS = (45, 35, 20)
# As the attack suite sets them: the rate limiter must never be what answers. The soak is
# the proxy of its clients: each has its own address, hence its own fair share of the
# workers and its own allowance of pending submissions (app/admission.py).
RATE_ENV = {
    "DRILL_RATE_PER_MINUTE": "1000000",
    "DRILL_RATE_BURST": "100000",
    "DRILL_TRUSTED_PROXIES": "127.0.0.1",
}
WARM_UP_S = 60.0
# 16 clients behind 2 workers, hostile jobs taking their 6 s wall limit: a request may
# wait tens of seconds in the queue; past this it has no verdict and counts as wrong.
REQUEST_TIMEOUT = 120.0
RETRY_AFTER_CAP = 10.0
KEEP_WRONG = 200  # wrong verdicts kept in the report in full (all are counted)


@dataclass(frozen=True)
class Program:
    kind: str  # correct, wrong or hostile
    path: Path
    slug: str
    track: str
    code: str
    expect: dict[str, str] = field(default_factory=dict)  # hostile: its "# expect:" line

    @property
    def name(self) -> str:
        return str(self.path.relative_to(ROOT))


def programs(cgroups: str = "v1") -> tuple[dict[str, list[Program]], list[dict[str, str]]]:
    """The programs of each kind, and the hostile ones left out (with why)."""
    found: dict[str, list[Program]] = {kind: [] for kind in KINDS}
    for slug, track in TRACKS:
        folder = ROOT / "exercises" / slug / track
        for path in [folder / "solution.py", *sorted((folder / "alternatives").glob("*.py"))]:
            found["correct"].append(Program("correct", path, slug, track, path.read_text()))
        for path in sorted((folder / "wrong").glob("*.py")):
            found["wrong"].append(Program("wrong", path, slug, track, path.read_text()))
    skipped = []
    for name in HOSTILE:
        path = ATTACKS_DIR / name
        if not path.is_file():
            skipped.append({"file": name, "why": "not in tests/security/attacks"})
            continue
        code = with_bounded_report(path.read_text())  # as the attack suite sends it
        expect = parse_expect(path, cgroups)  # what /healthz says decides a few expectations
        if "@@" in code or expect.get("kind") in ("plant", "leak"):
            skipped.append({"file": name, "why": "placeholders, a leak probe or a planter"})
            continue
        found["hostile"].append(Program("hostile", path, "double", "numpy", code, expect))
    for kind, listed in found.items():
        if not listed:
            raise SystemExit(f"soak: no {kind} program found")
    return found, skipped


def exercises_folder(base: Path) -> Path:
    """The shipped exercises plus ``double``, so one server grades every kind."""
    folder = base / "exercises"
    shutil.copytree(ROOT / "exercises", folder)
    shutil.copytree(DOUBLE, folder / DOUBLE.name)
    return folder


# --- verdicts ---


def judge(program: Program, code: int, result: dict[str, Any]) -> str | None:
    """Why this answer is not the verdict the program must get (None: it is)."""
    if code != 200:
        return f"HTTP {code}, no verdict"
    status = result.get("status")
    if program.kind == "correct":
        if status != "pass" or result.get("passed") != result.get("total"):
            return f"a correct program got {status} ({result.get('passed')}/{result.get('total')})"
    elif program.kind == "wrong":
        if status == "pass":
            return "a wrong program passed"
    elif not re.fullmatch(program.expect["status"], str(status)):
        return f"status {status}, expected {program.expect['status']}"
    return None


def message_mismatch(program: Program, result: dict[str, Any]) -> str | None:
    """A hostile program's status is right but its message is not what the attack suite
    expects (informational: the status is the verdict the soak checks)."""
    expect = program.expect
    if "message~" in expect and not re.search(expect["message~"], result.get("message", ""), re.M):
        return f"message {result.get('message', '')[:300]!r}"
    tests = result.get("tests") or []
    if "test_message~" in expect:
        first = tests[0].get("message", "") if tests else ""
        if not re.search(expect["test_message~"], first, re.M):
            return f"first test message {first[:300]!r}"
    return None


def brief(result: dict[str, Any]) -> dict[str, Any]:
    """A result without the tests' output, for the report."""
    keep = {k: result.get(k) for k in ("status", "passed", "total", "message")}
    keep["tests"] = [
        {"name": t.get("name"), "status": t.get("status"), "message": str(t.get("message"))[:500]}
        for t in (result.get("tests") or [])
    ]
    return keep


class Tally:
    """What the clients saw, shared between their threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered = 0
        self.by_kind = {kind: Counter[str]() for kind in KINDS}
        self.by_hostile: dict[str, Counter[str]] = {}
        self.busy_retries = 0  # 503: the pool was busy
        self.rate_limited = 0  # 429: must stay 0 with RATE_ENV
        self.wrong: list[dict[str, Any]] = []
        self.wrong_count = 0
        self.mismatches: list[dict[str, Any]] = []
        self.client_errors: list[str] = []

    def record(self, program: Program, code: int, result: dict[str, Any], ms: float) -> None:
        why = judge(program, code, result)
        with self.lock:
            self.answered += 1
            counts = self.by_kind[program.kind]
            counts["submitted"] += 1
            counts["right" if why is None else "wrong"] += 1
            if program.kind == "hostile":
                mine = self.by_hostile.setdefault(program.path.name, Counter())
                mine["submitted"] += 1
                mine["right" if why is None else "wrong"] += 1
                mine[f"status={result.get('status')}"] += 1
            if why is not None:
                self.wrong_count += 1
                if len(self.wrong) < KEEP_WRONG:
                    self.wrong.append(
                        {
                            "kind": program.kind,
                            "file": program.name,
                            "exercise": program.slug,
                            "track": program.track,
                            "why": why,
                            "http": code,
                            "ms": round(ms, 1),
                            "result": brief(result) if code == 200 else result,
                        }
                    )
            elif program.kind == "hostile":
                mismatch = message_mismatch(program, result)
                if mismatch is not None and len(self.mismatches) < KEEP_WRONG:
                    self.mismatches.append({"file": program.name, "got": mismatch})


# --- clients ---


def client(
    index: int,
    seed: int,
    base: str,
    found: dict[str, list[Program]],
    tally: Tally,
    stop: threading.Event,
) -> None:
    """Submit until ``stop``; the first submission's kind is fixed by the client's number,
    so that every kind is sent at least once whenever there are three clients or more."""
    rng = random.Random(f"{seed}-{index}")
    kind = KINDS[index % len(KINDS)]
    try:
        address = {"X-Forwarded-For": f"10.0.{index // 250}.{index % 250 + 1}"}
        with httpx.Client(timeout=REQUEST_TIMEOUT, headers=address) as http:
            while not stop.is_set():
                program = rng.choice(found[kind])
                answer = submit(http, base, program, tally, stop)
                if answer is None:  # stopped while waiting for a busy pool
                    return
                tally.record(program, *answer)
                kind = rng.choices(KINDS, WEIGHTS)[0]
    except Exception as exc:  # a bug here must not pass for a quiet client
        with tally.lock:
            tally.client_errors.append(f"client {index}: {type(exc).__name__}: {exc}")
        raise


def submit(
    http: httpx.Client, base: str, program: Program, tally: Tally, stop: threading.Event
) -> tuple[int, dict[str, Any], float] | None:
    """(HTTP status, result, ms) once the server answers with something other than
    503 or 429; a transport error is an answer without a verdict (status 0)."""
    while True:
        started = time.perf_counter()
        try:
            answer = http.post(
                f"{base}/api/exercises/{program.slug}/submissions",
                json={"track": program.track, "code": program.code, "mode": "submit"},
            )
        except httpx.HTTPError as exc:
            elapsed = (time.perf_counter() - started) * 1000
            return 0, {"error": f"{type(exc).__name__}: {exc}"}, elapsed
        elapsed = (time.perf_counter() - started) * 1000
        if answer.status_code in (429, 503):
            with tally.lock:
                if answer.status_code == 503:
                    tally.busy_retries += 1
                else:
                    tally.rate_limited += 1
            try:
                wait = float(answer.headers.get("retry-after", "1"))
            except ValueError:
                wait = 1.0
            if stop.wait(min(max(wait, 0.1), RETRY_AFTER_CAP)):
                return None
            continue
        try:
            result = answer.json() if answer.status_code == 200 else {"body": answer.text[:2000]}
        except ValueError:
            result = {"body": answer.text[:2000]}
        return answer.status_code, result, elapsed


# --- samples ---


@dataclass
class Proc:
    pid: int
    ppid: int
    command: bytes
    fds: int
    threads: int
    rss_kb: int
    pss_kb: int
    name: str

    @property
    def role(self) -> str:
        last = self.command.rstrip(b"\0").rsplit(b"\0", 1)[-1].decode(errors="replace")
        return last if last in ("learner", "reference") else "other"


def read_proc(pid: int) -> Proc | None:
    """One process's figures, or None when it is gone (job children come and go)."""
    try:
        ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        )
        threads = int(status["Threads"])
        rss = int(status.get("VmRSS", "0 kB").split()[0])  # none for a zombie
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, ValueError, IndexError, KeyError):
        return None
    return Proc(pid, ppid, command, fds, threads, rss, pss_kb([pid]), status["Name"].strip())


def _group(procs: list[Proc]) -> dict[str, Any]:
    group: dict[str, Any] = {
        "count": len(procs),
        "pss_mib": round(sum(p.pss_kb for p in procs) / 1024, 2),
        "rss_mib": round(sum(p.rss_kb for p in procs) / 1024, 2),
        "fds": sum(p.fds for p in procs),
        "threads": sum(p.threads for p in procs),
    }
    if any(p.role == "other" for p in procs):  # neither pool's: say what they are
        group["names"] = sorted(p.name for p in procs if p.role == "other")
    return group


def cgroup_counts(pid: int, tree: CgroupTree | None) -> dict[str, int] | None:
    if tree is None:
        return None
    for _ in range(3):  # a worker replaced while the tree is walked: read again
        try:
            return tree.counts()
        except OSError:
            time.sleep(0.05)
    return None


class Sampler:
    def __init__(self, server: Server, cgroups: str) -> None:
        self.server = server
        self.pid = server.proc.pid
        self.cgroups = cgroups
        self.tree: CgroupTree | None = None
        self.samples: list[dict[str, Any]] = []

    def alive(self) -> bool:
        return self.server.proc.poll() is None

    def take(self, t: float, tally: Tally) -> dict[str, Any]:
        with tally.lock:
            answered, busy = tally.answered, tally.busy_retries
        server = read_proc(self.pid) if self.alive() else None
        found = [p for pid in descendants(self.pid) if (p := read_proc(pid)) is not None]
        commands = {p.pid: p.command for p in found}
        if server is not None:
            commands[server.pid] = server.command
        # A job's child is forked from its worker: same command line as its parent.
        jobs = [p for p in found if commands.get(p.ppid, p.command) == p.command]
        workers = [p for p in found if p not in jobs]
        roles: dict[str, Any] = {}
        for role in sorted({p.role for p in workers}):
            roles[role] = _group([p for p in workers if p.role == role])
        if self.tree is None and self.cgroups in ("v1", "v2"):
            self.tree = tree_of(self.pid)
        health = None
        if server is not None:
            try:
                reply = httpx.get(f"{self.server.base}/healthz", timeout=10).json()
                health = {"status": reply.get("status"), "workers": reply.get("workers")}
            except (httpx.HTTPError, ValueError):
                pass
        sample = {
            "t": round(t, 2),
            "submissions": answered,
            "busy_retries": busy,
            "server_alive": server is not None,
            "server": {
                "pss_mib": round(server.pss_kb / 1024, 2) if server else 0.0,
                "fds": server.fds if server else 0,
                "threads": server.threads if server else 0,
            },
            "workers": {**_group(workers), "roles": roles},
            "jobs": _group(jobs),
            "cgroups": cgroup_counts(self.pid, self.tree),
            "health": health,
        }
        self.samples.append(sample)
        return sample


def print_sample(s: dict[str, Any]) -> None:
    cg = s["cgroups"]
    cgroups = (
        f"{cg['workers']:3d} {cg['processes']:4d} {cg['tasks']:5d}" if cg else "   -    -     -"
    )
    print(
        f"{s['t']:7.1f} {s['submissions']:6d} {s['server']['pss_mib']:8.1f} "
        f"{s['workers']['pss_mib']:8.1f} {s['workers']['count']:3d} {s['server']['fds']:5d} "
        f"{s['workers']['fds']:5d} {s['server']['threads']:5d} {s['workers']['threads']:5d} "
        f"{cgroups}",
        flush=True,
    )


SAMPLE_HEAD = (
    f"{'t (s)':>7} {'subs':>6} {'srv MiB':>8} {'wrk MiB':>8} {'wrk':>3} {'s.fd':>5} "
    f"{'w.fd':>5} {'s.thr':>5} {'w.thr':>5} {'cgw':>3} {'proc':>4} {'tasks':>5}"
)


# --- the summary ---


def slope_per_minute(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of (seconds, value) points, per minute."""
    if len(points) < 2:
        return None
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return None
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread * 60


def warm_up_index(samples: list[dict[str, Any]], smoke: bool) -> int:
    """The first sample after the first minute (the second one in a smoke run). The
    reference pool, busy while the references are computed before the clock starts, stops
    after a minute idle (graders/grading/local.py); while it runs it shares library pages with the
    learner workers, which lowers their PSS. So when it stops after the first minute, the
    warm-up ends at the first sample without it."""
    if smoke:
        return min(1, len(samples) - 1)
    later = [i for i, s in enumerate(samples) if s["t"] >= WARM_UP_S]
    if not later:
        return min(1, len(samples) - 1)
    closed = [i for i in later if "reference" not in samples[i]["workers"]["roles"]]
    return closed[0] if closed else later[0]


SERIES = {
    "server": lambda s: s["server"]["pss_mib"],
    "workers": lambda s: s["workers"]["pss_mib"],
    "learner_workers": lambda s: s["workers"]["roles"].get("learner", {}).get("pss_mib", 0.0),
    # RSS does not move when a worker forks a child that shares its pages (PSS does).
    "learner_workers_rss": lambda s: s["workers"]["roles"].get("learner", {}).get("rss_mib", 0.0),
    "total": lambda s: s["server"]["pss_mib"] + s["workers"]["pss_mib"],
}
RANGES = {
    "server_fds": lambda s: s["server"]["fds"],
    "worker_fds": lambda s: s["workers"]["fds"],
    "learner_worker_fds": lambda s: s["workers"]["roles"].get("learner", {}).get("fds", 0),
    "server_threads": lambda s: s["server"]["threads"],
    "worker_threads": lambda s: s["workers"]["threads"],
    "worker_count": lambda s: s["workers"]["count"],
    "cgroup_processes": lambda s: (s["cgroups"] or {}).get("processes"),
    "cgroup_tasks": lambda s: (s["cgroups"] or {}).get("tasks"),
}


def summarize(samples: list[dict[str, Any]], smoke: bool) -> dict[str, Any]:
    first = warm_up_index(samples, smoke)
    after = samples[first:]
    pss = {}
    for name, get in SERIES.items():
        start, end = get(after[0]), get(after[-1])
        slope = slope_per_minute([(s["t"], get(s)) for s in after])
        pss[name] = {
            "after_warm_up_mib": round(start, 1),
            "last_mib": round(end, 1),
            "growth_mib": round(end - start, 1),
            "growth_pct": round((end - start) / start * 100, 1) if start else None,
            "slope_mib_per_min": None if slope is None else round(slope, 3),
        }
    ranges = {}
    for name, get in RANGES.items():
        values = [v for s in after if (v := get(s)) is not None]
        ranges[name] = {"min": min(values), "max": max(values)} if values else None
    return {
        "warm_up_sample": first,
        "warm_up_t": after[0]["t"],
        "last_t": after[-1]["t"],
        "samples_after_warm_up": len(after),
        "pss": pss,
        "after_warm_up": ranges,
    }


# --- the plot ---


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    samples = report["samples"]
    # Minutes, unless the run is short enough for seconds to read better.
    unit, scale = ("minutes", 60.0) if samples[-1]["t"] >= 180 else ("seconds", 1.0)
    ts = [s["t"] / scale for s in samples]
    warm = report["summary"]["warm_up_t"] / scale
    fig, axes = plt.subplots(2, 3, figsize=(16, 8.5))
    pss, fds, threads, groups, rate, verdicts = axes.flat

    pss.plot(ts, [s["server"]["pss_mib"] for s in samples], marker=".", label="server")
    pss.plot(ts, [s["workers"]["pss_mib"] for s in samples], marker=".", label="workers, total")
    learner = [s["workers"]["roles"].get("learner", {}).get("pss_mib", 0) for s in samples]
    pss.plot(ts, learner, marker=".", linestyle="--", label="learner workers")
    learner_rss = [s["workers"]["roles"].get("learner", {}).get("rss_mib", 0) for s in samples]
    pss.plot(ts, learner_rss, marker=".", linestyle=":", label="learner workers, RSS")
    pss.set_ylabel("MiB")
    pss.set_title("Memory (PSS unless marked RSS)")
    pss.set_ylim(0, pss.get_ylim()[1] * 1.4)  # room above the lines for the legend

    fds.plot(ts, [s["server"]["fds"] for s in samples], marker=".", label="server")
    fds.plot(ts, [s["workers"]["fds"] for s in samples], marker=".", label="workers, total")
    fds.set_ylabel("open file descriptors")
    fds.set_title("File descriptors")
    fds.set_ylim(bottom=0)

    threads.plot(ts, [s["server"]["threads"] for s in samples], marker=".", label="server")
    threads.plot(ts, [s["workers"]["threads"] for s in samples], marker=".", label="workers, total")
    threads.set_ylabel("threads")
    threads.set_title("Threads")
    threads.set_ylim(bottom=0)

    cg = [s["cgroups"] for s in samples]
    if any(cg):
        for key, label, style in (
            ("tasks", "tasks (pids.current)", "-"),
            ("processes", "processes", "--"),  # equal to tasks while no job has threads
            ("workers", "worker cgroups", "-"),
        ):
            values = [c[key] if c else None for c in cg]
            groups.plot(ts, values, marker=".", linestyle=style, label=label)
        groups.set_ylim(bottom=0)
    else:
        groups.text(0.5, 0.5, "no cgroups (resource limits alone)", ha="center", va="center")
    groups.set_ylabel("count")
    groups.set_title(f"Cgroup tree ({report['server']['cgroups']})")

    mid, per_s = [], []
    for a, b in itertools.pairwise(samples):
        if b["t"] > a["t"]:
            mid.append((a["t"] + b["t"]) / 2 / scale)
            per_s.append((b["submissions"] - a["submissions"]) / (b["t"] - a["t"]))
    rate.plot(mid, per_s, marker=".", color="tab:green")
    rate.set_ylabel("graded submissions per second")
    rate.set_title(f"Throughput ({report['settings']['clients']} clients)")
    rate.set_ylim(bottom=0)

    names = list(report["verdicts"])
    right = [report["verdicts"][k].get("right", 0) for k in names]
    wrong = [report["verdicts"][k].get("wrong", 0) for k in names]
    verdicts.bar(names, right, color="tab:green", label="right verdict")
    verdicts.bar(names, wrong, bottom=right, color="tab:red", label="wrong verdict")
    for i, (r, w) in enumerate(zip(right, wrong, strict=True)):
        verdicts.text(i, r + w, f"{r}/{r + w}", ha="center", va="bottom", fontsize=9)
    verdicts.set_ylim(0, max(r + w for r, w in zip(right, wrong, strict=True)) * 1.15 + 1)
    verdicts.set_ylabel("submissions")
    verdicts.set_title("Verdicts by kind of program")
    verdicts.legend(fontsize=8)

    for ax in (pss, fds, threads, groups, rate):
        ax.axvline(warm, color="grey", linestyle=":", label="end of warm-up")
        ax.set_xlabel(f"{unit} since the first submission")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(
        f"drill serve soak: {report['settings']['duration_s']:.0f} s, "
        f"{report['server']['workers']} workers, sandbox {report['server']['sandbox']}, "
        f"{report['machine']['cores']} cores",
        fontsize=12,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- the run ---


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # so that the server is stopped on the way out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, help="seconds of submissions (600)")
    parser.add_argument("--interval", type=float, help="seconds between samples (10)")
    parser.add_argument("--clients", type=int, help="concurrent client threads (16)")
    parser.add_argument("--smoke", action="store_true", help="about 30 s, 4 clients")
    parser.add_argument("--seed", type=int, default=1, help="of the submission mix")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench")
    args = parser.parse_args()
    defaults = (20.0, 3.0, 4) if args.smoke else (600.0, 10.0, 16)
    duration = args.duration if args.duration is not None else defaults[0]
    interval = args.interval if args.interval is not None else defaults[1]
    clients = args.clients if args.clients is not None else defaults[2]
    if duration <= 0 or interval <= 0 or clients < 1:
        parser.error("--duration and --interval must be positive, --clients at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, _terminate)

    found, skipped = programs()
    base = Path(tempfile.mkdtemp(prefix="drill-soak-"))
    tally = Tally()
    stop = threading.Event()
    threads: list[threading.Thread] = []
    sampler: Sampler | None = None
    health: dict[str, Any] = {}
    interrupted = server_died = False
    started = time.monotonic()
    try:
        env = {"DRILL_EXERCISES_DIR": str(exercises_folder(base)), **RATE_ENV}
        with running_server(base / "var", None, **env) as server:
            try:
                health = httpx.get(f"{server.base}/healthz", timeout=30).json()
                found, skipped = programs(str(health.get("cgroups", "none")))
                for slug in sorted({p.slug for listed in found.values() for p in listed}):
                    # Every reference computed before the clock starts (the warm-up's part).
                    httpx.get(f"{server.base}/api/exercises/{slug}", timeout=300).raise_for_status()
                sampler = Sampler(server, str(health.get("cgroups", "none")))
                print(
                    f"{machine()}\nsoak: {duration:.0f} s, {clients} clients, a sample each "
                    f"{interval:g} s; sandbox {health.get('sandbox')}, {health.get('workers')} "
                    f"workers, cgroups {health.get('cgroups')}; "
                    f"{', '.join(f'{len(found[k])} {k}' for k in KINDS)} programs"
                )
                print(SAMPLE_HEAD)
                print_sample(sampler.take(0.0, tally))
                started = time.monotonic()
                threads = [
                    threading.Thread(
                        target=client,
                        args=(i, args.seed, server.base, found, tally, stop),
                        daemon=True,
                    )
                    for i in range(clients)
                ]
                for thread in threads:
                    thread.start()
                n = 1
                while True:
                    due = started + n * interval
                    end = started + duration
                    if stop.wait(max(0.0, min(due, end) - time.monotonic())):
                        break
                    if not sampler.alive():
                        server_died = True
                        break
                    if time.monotonic() >= end:
                        break
                    print_sample(sampler.take(time.monotonic() - started, tally))
                    n += 1
            except KeyboardInterrupt:
                interrupted = True
            finally:
                stop.set()
                for thread in threads:  # in-flight submissions get their verdict
                    thread.join(timeout=REQUEST_TIMEOUT + 5)
                if sampler is not None:
                    # Ctrl+C reaches the server too (one process group): not a death.
                    server_died = server_died or not (interrupted or sampler.alive())
                    print_sample(sampler.take(time.monotonic() - started, tally))
            # Leaving the block stops the server: SIGTERM, then a wait.
        shutil.copyfile(server.log, args.out / "soak-server.log")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        shutil.rmtree(base, ignore_errors=True)

    if sampler is None or not sampler.samples:
        print("soak: the server never got to the first sample", file=sys.stderr)
        return 1
    report = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": machine(),
        "settings": {
            "duration_s": duration,
            "interval_s": interval,
            "clients": clients,
            "smoke": args.smoke,
            "seed": args.seed,
            "mix_pct": dict(zip(KINDS, WEIGHTS, strict=True)),
            "warm_up_s": None if args.smoke else WARM_UP_S,
            "tracks": [list(t) for t in TRACKS],
            "request_timeout_s": REQUEST_TIMEOUT,
            "euid": os.geteuid(),
        },
        "server": {
            "sandbox": health.get("sandbox"),
            "workers": health.get("workers"),
            "cgroups": health.get("cgroups", "none"),
        },
        "programs": {
            "correct": [p.name for p in found["correct"]],
            "wrong": [p.name for p in found["wrong"]],
            "hostile": [{"file": p.name, "status": p.expect["status"]} for p in found["hostile"]],
            "hostile_skipped": skipped,
        },
        "elapsed_s": round(time.monotonic() - started, 1),
        "interrupted": interrupted,
        "server_died": server_died,
        "submissions": tally.answered,
        "busy_retries": tally.busy_retries,
        "rate_limited": tally.rate_limited,
        "verdicts": {k: dict(tally.by_kind[k]) for k in KINDS},
        "hostile_verdicts": {k: dict(v) for k, v in sorted(tally.by_hostile.items())},
        "client_errors": tally.client_errors,
        "wrong_verdict_count": tally.wrong_count,
        "wrong_verdicts": tally.wrong,
        "hostile_message_mismatches": tally.mismatches,
        "samples": sampler.samples,
        "summary": summarize(sampler.samples, args.smoke),
    }
    (args.out / "soak.json").write_text(json.dumps(report, indent=1) + "\n")
    plot(report, args.out / "soak.png")
    print_summary(report)
    print(f"wrote {args.out / 'soak.json'} and {args.out / 'soak.png'}")
    failed = tally.wrong_count > 0 or server_died or interrupted or bool(tally.client_errors)
    return 1 if failed else 0


def print_summary(report: dict[str, Any]) -> None:
    summary = report["summary"]
    print(
        f"\n{report['submissions']} submissions in {report['elapsed_s']:.0f} s "
        f"({report['busy_retries']} busy retries, {report['rate_limited']} rate-limited); "
        "verdicts: "
        + ", ".join(
            f"{k} {v.get('right', 0)}/{v.get('submitted', 0)} right"
            for k, v in report["verdicts"].items()
        )
    )
    print(
        f"PSS after warm-up (t={summary['warm_up_t']:.0f} s) -> last (t={summary['last_t']:.0f} s)"
    )
    head = f"{'':20} {'warm MiB':>9} {'last MiB':>9} {'growth':>8} {'%':>6} {'MiB/min':>8}"
    print(head)
    print("-" * len(head))
    for name, row in summary["pss"].items():
        pct = "-" if row["growth_pct"] is None else f"{row['growth_pct']:+.1f}"
        slope = "-" if row["slope_mib_per_min"] is None else f"{row['slope_mib_per_min']:+.3f}"
        print(
            f"{name:20} {row['after_warm_up_mib']:9.1f} {row['last_mib']:9.1f} "
            f"{row['growth_mib']:+8.1f} {pct:>6} {slope:>8}"
        )
    ranges = ", ".join(
        f"{name} {r['min']}-{r['max']}" for name, r in summary["after_warm_up"].items() if r
    )
    print(f"after warm-up (min-max): {ranges}")
    if report["wrong_verdict_count"]:
        print(f"WRONG VERDICTS: {report['wrong_verdict_count']}")
        for row in report["wrong_verdicts"][:10]:
            print(f"  {row['kind']:8} {row['file']}: {row['why']}")
    for error in report["client_errors"]:
        print(f"CLIENT FAILED: {error}")
    if report["server_died"]:
        print("THE SERVER DIED (see soak-server.log)")
    if report["interrupted"]:
        print("interrupted: the figures cover part of the run")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
