"""Does the server's store alone grow as the soak's server did? 16 threads save Submits and
read histories and drafts through app.store.Store on SQLite, as the API does; every 10 s it
prints the RSS and SQLite's own allocator (sqlite3_memory_used). Usage: store_memory.py SECONDS"""

import ctypes
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.store import Store
from graders.grading.results import GradeResult, TestResult

lib = ctypes.CDLL("libsqlite3.so.0")
lib.sqlite3_memory_used.restype = ctypes.c_int64


def rss() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


duration = float(sys.argv[1])
folder = tempfile.mkdtemp()
store = Store(f"sqlite:///{folder}/drill.db")
tests = [
    TestResult(name=f"test {i}", status="pass", message="", output="x" * 300) for i in range(6)
]
saved = [0] * 16  # one count per thread: no lock, no lost increment
stop = time.monotonic() + duration


def client(n: int) -> None:
    rng = random.Random(n)
    while time.monotonic() < stop:
        learner = f"learner-{n}"
        result = GradeResult(
            exercise="gradient-checkpointing",
            track=rng.choice(["numpy", "torch"]),
            mode="submit",
            status="pass",
            message="6/6 tests passed",
            tests=tests,
        )
        store.save_submission(learner, result, "def f():\n    pass\n" * rng.randint(5, 60), "v1")
        store.history(learner, "gradient-checkpointing")
        store.get_draft(learner, "gradient-checkpointing", "numpy")
        saved[n] += 1


threads = [threading.Thread(target=client, args=(n,)) for n in range(len(saved))]
for t in threads:
    t.start()
start = time.monotonic()
while any(t.is_alive() for t in threads):
    sqlite = lib.sqlite3_memory_used() / 2**20
    print(
        f"{time.monotonic() - start:6.0f} s {sum(saved):6d} saved  rss {rss():6.1f} MiB"
        f"  sqlite {sqlite:5.1f} MiB  pool {store.engine.pool.status()}",
        flush=True,
    )
    time.sleep(10)
