"""``drill preview``: the learner's page of one exercise on a local server with a
throwaway database, as an instructor runs it (a real process; the browser part is
tests/browser/test_track_link.py)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import httpx
import pytest

from drill import cli
from tests.graders.test_cli_details import two_track_exercises

# Every request's time-out: a ceiling that only a hang reaches, not a guess of how fast the
# host is (the first Run waits for a worker that imports torch; on a loaded machine the
# 30 s this test once allowed were not enough).
PATIENCE = 300.0


def environment(tmp: Path, exercises: Path) -> dict[str, str]:
    (tmp / "tmp").mkdir()
    return {
        **os.environ,
        "DRILL_SANDBOX": "bwrap",
        "DRILL_WORKERS": "1",
        "DRILL_VAR_DIR": str(tmp / "var"),
        "DRILL_DB": str(tmp / "real.db"),  # the database a preview must leave alone
        "DRILL_EXERCISES_DIR": str(exercises),
        "DRILL_RELOAD_INTERVAL": "0.2",
        "TMPDIR": str(tmp / "tmp"),  # where the throwaway folder goes, to look at it
        "DISPLAY": "",  # no browser, whatever the flags say
        "BROWSER": "",
    }


def lines_of(stream: IO[str]) -> queue.Queue[str | None]:
    """The lines a process prints, as they come (read by a thread: no blocking read),
    then None at the end."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def rest(lines: queue.Queue[str | None]) -> str:
    """What is left to read, up to the end (once the process has ended)."""
    text = []
    while (line := lines.get(timeout=PATIENCE)) is not None:
        text.append(line)
    return "".join(text)


def wait_for_url(
    proc: subprocess.Popen[str], lines: queue.Queue[str | None], seen: list[str]
) -> str:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            assert proc.poll() is None, "drill preview ended:\n" + "".join(seen)
            continue
        assert line is not None, "drill preview ended:\n" + "".join(seen)
        seen.append(line)
        if line.startswith("Preview ready: "):
            return line.removeprefix("Preview ready: ").strip()
    raise AssertionError("drill preview printed no URL:\n" + "".join(seen))


def start(tmp: Path, exercises: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "drill", "preview", *args],
        env=environment(tmp, exercises),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stop(proc: subprocess.Popen[str], how: signal.Signals) -> int:
    proc.send_signal(how)
    try:
        return proc.wait(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


@pytest.mark.sandbox
def test_preview_serves_the_page_on_a_throwaway_database_and_cleans_up(tmp_path: Path) -> None:
    exercises = two_track_exercises(tmp_path)
    proc = start(tmp_path, exercises, "double", "--track", "torch", "--no-open")
    seen: list[str] = []
    try:
        lines = lines_of(proc.stdout)  # type: ignore[arg-type]
        url = wait_for_url(proc, lines, seen)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/exercises/double?track=torch")
        base = url.split("/exercises/")[0]
        (folder,) = (tmp_path / "tmp").iterdir()  # the throwaway folder, while it runs
        assert folder.name.startswith("drill-preview-")

        page = httpx.get(url, timeout=PATIENCE)
        assert page.status_code == 200 and "<h1>Double</h1>" in page.text
        assert '"requested_track": "torch"' in page.text  # the page opens on that track
        detail = httpx.get(f"{base}/api/exercises/double", timeout=PATIENCE)
        assert detail.status_code == 200 and set(detail.json()["tracks"]) == {"numpy", "torch"}
        solution = (exercises / "double" / "torch" / "solution.py").read_text()
        run = httpx.post(
            f"{base}/api/exercises/double/submissions",
            json={"track": "torch", "code": solution, "mode": "run"},
            timeout=PATIENCE,
        )
        assert run.status_code == 200 and run.json()["status"] == "pass", run.text
        assert (folder / "preview.db").exists()  # the submission went there

        # Edits of the exercises folder show without a restart.
        toml = exercises / "double" / "exercise.toml"
        toml.write_text(toml.read_text().replace('title = "Double"', 'title = "Twice"'))
        deadline = time.monotonic() + PATIENCE
        while (
            httpx.get(f"{base}/api/exercises/double", timeout=PATIENCE).json()["title"] != "Twice"
        ):
            assert time.monotonic() < deadline, "the edit was not served"
            time.sleep(0.2)

        assert stop(proc, signal.SIGTERM) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    output = "".join(seen) + rest(lines)
    assert "Drill preview stopped" in output, output
    assert list((tmp_path / "tmp").iterdir()) == []  # the throwaway folder is gone
    assert not (tmp_path / "real.db").exists()  # DRILL_DB was never opened
    assert not (tmp_path / "var" / "drill.db").exists()


@pytest.mark.sandbox
def test_ctrl_c_stops_a_preview_and_removes_its_folder(tmp_path: Path) -> None:
    exercises = two_track_exercises(tmp_path)
    port = cli._free_port()
    proc = start(tmp_path, exercises, "double", "--port", str(port), "--no-open")
    seen: list[str] = []
    try:
        lines = lines_of(proc.stdout)  # type: ignore[arg-type]
        url = wait_for_url(proc, lines, seen)
        assert url == f"http://127.0.0.1:{port}/exercises/double"  # no track asked for
        assert httpx.get(url, timeout=PATIENCE).status_code == 200
        assert len(list((tmp_path / "tmp").iterdir())) == 1
        assert stop(proc, signal.SIGINT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Drill preview stopped" in "".join(seen) + rest(lines)
    assert list((tmp_path / "tmp").iterdir()) == []
    assert not (tmp_path / "real.db").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope",), "no exercise 'nope' in "),
        (
            ("double", "--track", "jax"),
            "exercise 'double' has no track 'jax' (tracks: numpy, torch)",
        ),
    ],
    ids=["unknown-exercise", "unknown-track"],
)
def test_an_unknown_exercise_or_track_exits_2_before_starting(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    exercises = two_track_exercises(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "drill", "preview", *args, "--no-open"],
        env=environment(tmp_path, exercises),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert list((tmp_path / "tmp").iterdir()) == []  # no folder made, nothing started
    assert not (tmp_path / "var").exists() and not (tmp_path / "real.db").exists()


# --- opening a browser never fails a preview ---


def recorder(opened: list[str]) -> Callable[[str], bool]:
    """A webbrowser.open that notes the URL and says it opened it."""

    def open_url(url: str) -> bool:
        opened.append(url)
        return True

    return open_url


def test_no_browser_without_a_display(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", recorder(opened))
    monkeypatch.setattr(sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    # A text browser here would take over the terminal the server logs to.
    assert cli.open_in_browser("http://127.0.0.1:1/exercises/x") is False
    assert opened == []
    assert "open http://127.0.0.1:1/exercises/x yourself" in capsys.readouterr().err


def test_a_failing_browser_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import webbrowser

    def broken(url: str) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr("webbrowser.open", broken)
    monkeypatch.setenv("DISPLAY", ":0")
    assert cli.open_in_browser("http://127.0.0.1:1/") is False
    assert "yourself" in capsys.readouterr().err

    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", recorder(opened))
    assert cli.open_in_browser("http://127.0.0.1:1/") is True
    assert opened == ["http://127.0.0.1:1/"]
