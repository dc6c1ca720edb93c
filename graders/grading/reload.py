"""Live reload of the exercises (``drill serve --reload``, ``DRILL_RELOAD=1``).

A daemon thread looks at every file under the exercises folder (path, size, mtime,
inode) every ``reload_interval`` seconds; on a change it waits until the folder holds
still (editors save in several steps), then calls :meth:`Grader.reload_catalog`. The
worker pools keep running: only the catalog is replaced. Polling needs no dependency and
costs a ``stat`` per file, which for a folder of exercises is nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graders.grading.grader import Grader

log = logging.getLogger("drill.reload")

Snapshot = dict[str, tuple[int, int, int]]  # relative path -> (size, mtime_ns, inode)

SETTLE_SECONDS = 0.3  # the folder must hold still this long before a reload
MAX_SETTLE_SECONDS = 5.0  # ... but a folder that never holds still is reloaded anyway


def _ignored(name: str) -> bool:
    # Editors' swap, backup and temporary files, and compiled Python: not content.
    return (
        name.startswith((".", "#"))
        or name.endswith(("~", ".swp", ".swx", ".tmp", ".pyc"))
        or name == "__pycache__"
    )


def snapshot(folder: Path) -> Snapshot:
    """What a change to any file under ``folder`` changes."""
    found: Snapshot = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not _ignored(d)]
        for name in files:
            if _ignored(name):
                continue
            path = os.path.join(root, name)
            try:
                st = os.stat(path)
            except OSError:  # removed between the listing and the stat
                continue
            found[os.path.relpath(path, folder)] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return found


class CatalogWatcher:
    """Reloads ``grader``'s catalog when a file of its exercises folder changes."""

    def __init__(
        self,
        grader: Grader,
        folder: Path | None = None,
        interval: float | None = None,
        settle: float = SETTLE_SECONDS,
    ) -> None:
        self.grader = grader
        self.folder = folder or grader.settings.exercises_dir
        self.interval = interval or grader.settings.reload_interval
        self.settle = min(settle, self.interval)
        self.reloads = 0  # reload attempts so far
        self._last: Snapshot = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> CatalogWatcher:
        self._last = snapshot(self.folder)
        if self._stale():  # edited between the catalog's load and this first look
            log.info("exercises changed while the server started; reloading the catalog")
            self.reloads += 1
            self.grader.reload_catalog()
        self._thread = threading.Thread(target=self._run, name="drill-reload", daemon=True)
        self._thread.start()
        log.info("watching %s for changes (every %.1f s)", self.folder, self.interval)
        return self

    def _stale(self) -> bool:
        """Whether the folder no longer holds the catalog being served."""
        from graders.grading.catalog import content_hash
        from graders.grading.sections import sections_version

        if sections_version(self.folder) != self.grader.catalog.sections_version:
            return True
        served = self.grader.catalog.exercises
        on_disk = {
            p.name: p
            for p in self.folder.iterdir()
            if p.is_dir() and not p.name.startswith((".", "_"))  # as load_catalog skips
        }
        if set(on_disk) != set(served):
            return True
        return any(content_hash(on_disk[slug]) != e.version for slug, e in served.items())

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> CatalogWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # the watcher must outlive any surprise
                log.exception("the exercise watcher failed; it keeps watching")

    def check(self) -> bool:
        """Reload if the folder changed since the last look; return whether it did."""
        current = snapshot(self.folder)
        if current == self._last:
            return False
        deadline = time.monotonic() + MAX_SETTLE_SECONDS
        while time.monotonic() < deadline:  # debounce: wait until it holds still
            if self._stop.wait(self.settle):
                return False
            again = snapshot(self.folder)
            if again == current:
                break
            current = again
        changed = sorted(
            path
            for path in self._last.keys() | current.keys()
            if self._last.get(path) != current.get(path)
        )
        self._last = current
        log.info("exercises changed (%s); reloading the catalog", ", ".join(changed[:5]))
        self.reloads += 1
        self.grader.reload_catalog()
        return True


def watch_catalog(grader: Grader) -> CatalogWatcher:
    """Start a watcher on ``grader``'s exercises folder; ``stop()`` it on shutdown."""
    return CatalogWatcher(grader).start()
