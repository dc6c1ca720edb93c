"""How long learner output is kept: a thread that, every hour, replaces the output stored
with submissions older than ``output_retention_days`` by a note (app.store.expire_outputs).

Verdicts, messages and code are kept: history, progress, statistics and regrades need
them; the output, up to 64 KiB a submission (graders.grading.results), is what grows. Every node
runs it; the work is idempotent, so two nodes doing the same rows only cost a read.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta

from app.store import Store, StoreUnavailable, now

log = logging.getLogger("drill.retention")
INTERVAL_SECONDS = 3600.0
FIRST_DELAY_SECONDS = 60.0  # after start-up: not in the way of warming the references


class OutputRetention:
    def __init__(self, store: Store, days: float) -> None:
        self.store = store
        self.days = days
        self._seen: datetime | None = None  # the newest row already looked at
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="retention", daemon=True)

    def start(self) -> None:
        if self.days > 0:  # 0 keeps outputs forever
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def run_once(self) -> int:
        """Expire what is due now; return how many submissions changed."""
        changed, self._seen = self.store.expire_outputs(
            now() - timedelta(days=self.days), self._seen
        )
        if changed:
            log.info("removed the output of %d submissions older than %g days", changed, self.days)
        return changed

    def _loop(self) -> None:
        delay = FIRST_DELAY_SECONDS
        while not self._stop.wait(delay):
            delay = INTERVAL_SECONDS
            try:
                self.run_once()
            except StoreUnavailable as exc:  # try again at the next round
                log.warning("could not expire old outputs now: %s", exc)
