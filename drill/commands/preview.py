"""``drill preview``: serve one exercise's learner page locally on a throwaway database."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from pathlib import Path

from drill.commands import Command, serve
from graders.errors import UnknownExercise
from graders.settings import get_settings


def add_arguments(preview: argparse.ArgumentParser) -> None:
    preview.add_argument("slug", help="the exercise to preview (its folder name)")
    preview.add_argument(
        "--track", help="the track to open the page on (default: the page's own choice)"
    )
    preview.add_argument("--port", type=int, help="the port to listen on (default: a free one)")
    preview.add_argument(
        "--no-open", action="store_true", help="print the URL but do not open a browser"
    )


class _Stopped(Exception):
    """SIGTERM reached ``drill preview``: unwind, so that its temporary folder goes."""


def _stop(signum: int, frame: object) -> None:
    raise _Stopped


def run(args: argparse.Namespace) -> int:
    import shutil
    import signal
    import tempfile

    from graders.grading.catalog import load_catalog

    folder = get_settings().exercises_dir
    try:  # usage errors before anything starts
        exercise = load_catalog(folder).get(args.slug)
        if args.track is not None:
            exercise.track(args.track)
    except UnknownExercise as exc:
        raise UnknownExercise(f"{exc} in {folder} (drill list shows them)") from None
    port = args.port or _free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/exercises/{exercise.slug}" + (f"?track={args.track}" if args.track else "")
    stopping = threading.Event()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGTERM, _stop)
    tmp = tempfile.mkdtemp(prefix="drill-preview-")
    try:
        settings = serve.serve_settings(
            argparse.Namespace(host="127.0.0.1", port=port, reload=True),
            db=str(Path(tmp) / "preview.db"),  # never DRILL_DB: learners' data stays apart
            queue="",  # grade on this machine: a preview needs no grading workers
        )
        print(
            f"Drill preview of {exercise.slug} from {folder} (Ctrl+C stops)\n"
            f"  a throwaway database in {tmp}, removed when the preview stops",
            flush=True,
        )
        threading.Thread(
            target=_announce,
            args=(base, url, not args.no_open, stopping),
            name="drill-preview-announce",
            daemon=True,
        ).start()
        # uvicorn shuts down on SIGINT or SIGTERM, then raises the signal again: here.
        with contextlib.suppress(KeyboardInterrupt, _Stopped):
            serve.run(args, settings)
    finally:
        stopping.set()
        # A second Ctrl+C must not leave the folder half removed.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        shutil.rmtree(tmp, ignore_errors=True)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    print("Drill preview stopped; its database is gone.", flush=True)
    return 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _announce(base: str, url: str, open_browser: bool, stopping: threading.Event) -> None:
    """Print the page's URL once the server answers (it starts its workers first), then
    open it in a browser."""
    import urllib.request

    # No proxy: HTTP_PROXY must not route a request for 127.0.0.1 elsewhere.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while not stopping.is_set():
        try:
            with opener.open(f"{base}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:  # not listening yet (URLError and HTTPError are OSErrors)
            pass
        stopping.wait(0.2)
    else:
        return
    print(f"Preview ready: {url}", flush=True)
    if open_browser:
        open_in_browser(url)


def open_in_browser(url: str) -> bool:
    """Open ``url`` in the user's browser if there is one; never raise. On Linux without a
    display, webbrowser would start a text browser inside this terminal, over the server's
    log: there, and when no browser is found, say so instead."""
    import webbrowser

    graphical = sys.platform in ("darwin", "win32") or any(
        os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    )
    opened = False
    if graphical:
        try:
            opened = webbrowser.open(url)
        except Exception:  # any browser trouble: the URL is printed, that is enough
            opened = False
    if not opened:
        print(f"drill preview: no browser opened; open {url} yourself", file=sys.stderr)
    return opened


COMMAND = Command(
    name="preview",
    help="open an exercise's learner page on a local server with a throwaway database",
    description="Serve the exercises folder on 127.0.0.1 with a database in a temporary "
    "folder (removed when the preview stops: Ctrl+C or SIGTERM), reload edits of the "
    "exercises as drill serve --reload does, print the exercise page's URL and open it.",
    add_arguments=add_arguments,
    run=run,
)
