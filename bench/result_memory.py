"""How much server memory one job's result can cost: worst cases against the budget.

Feeds hostile result streams through the server's real reader (``graders.grading.pool._Exchange``
reading a pipe, with the job's ``wire.Budget``) and then through ``verdicts.build``, and
records the peak of Python's traced memory (NumPy's arrays included) while doing it.
Each stream is the worst a child can send of its kind that the budget still lets through,
plus the flood from the security review that it refuses.

Usage: ``.venv/bin/python bench/result_memory.py [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import threading
import time
import tracemalloc
from typing import Any

import numpy as np

from graders.grading import verdicts
from graders.grading.isolation import JobLimits
from graders.grading.pool import MAX_RESULT_VALUES, _Exchange
from graders.grading.references import Reference, TestOptions
from graders.sandbox import wire

LIMITS = JobLimits(5, 10, 1024 * 2**20, 64 * 1024, 64 * 2**20, 64)
NAMES = [f"test {i}" for i in range(6)]
MiB = 2**20


def frame(header: bytes, body: bytes = b"") -> bytes:
    return struct.pack("<4sIQ", wire.MAGIC, len(header), len(body)) + header + body


def test_header(name: str, payload: bytes) -> bytes:
    return b'{"type":"test","name":"' + name.encode() + b'","status":"ok","x":' + payload + b"}"


def spread(item: bytes, values: int, frames: int) -> bytes:
    """As many copies of ``item`` as ``values`` JSON values allow (wire.count_values),
    spread over ``frames`` test frames."""
    per = values // frames // wire.count_values(item)
    return b"".join(
        frame(test_header(NAMES[i], b"[" + b",".join([item] * per) + b"]")) for i in range(frames)
    )


def arrays(total: int) -> bytes:
    out = b""
    per = total // len(NAMES) // 8 * 8
    for name in NAMES:
        node = {"t": "ndarray", "dtype": "float64", "shape": [per // 8], "buf": [0, per]}
        head = json.dumps({"type": "test", "name": name, "status": "ok", "obs": node})
        out += frame(head.encode(), np.ones(per // 8).tobytes())
    return out


STREAMS = {
    # Under the budget: as many values as it allows, in the costliest shapes.
    "empty lists, [[],[],...] (budget-sized)": spread(b"[]", MAX_RESULT_VALUES - 100, 6),
    "empty dicts, [{},{},...] (budget-sized)": spread(b"{}", MAX_RESULT_VALUES - 100, 6),
    "short strings (budget-sized)": spread(b'"abcdefgh"', MAX_RESULT_VALUES - 100, 6),
    "floats (budget-sized)": spread(b"1.5e300", MAX_RESULT_VALUES - 100, 6),
    "long strings (largest headers, six frames)": b"".join(
        frame(test_header(n, b'"' + b"a" * (LIMITS.result_header_bytes - 200) + b'"'))
        for n in NAMES
    ),
    "arrays filling the 64 MiB result limit": arrays(LIMITS.result_bytes - MiB),
    "arrays (54 MiB) and short strings together": arrays(54 * MiB)
    + spread(b'"abcdefgh"', MAX_RESULT_VALUES - 100, 6),
    # Refused: the review's flood (seven ~8 MiB headers of [[],[],...]).
    "flood of seven 3.9 MB [[],...] headers (refused)": frame(
        test_header("test 0", b"[" + b"[]," * 1_300_000 + b"[]]")
    )
    * 7,
}


class _Worker:
    """Just enough of a worker for the reader: it is told to kill, and ignores it."""

    ctrl = None
    _buffer = b""

    def _send(self, header: dict[str, Any]) -> None:
        pass


def read_stream(data: bytes) -> tuple[list[wire.Frame], str | None]:
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    exchange = _Exchange(
        _Worker(),  # type: ignore[arg-type]
        _job(),
        LIMITS,
        time.monotonic(),
        job_w,
        res_r,
        1,
    )

    def write() -> None:
        with open(res_w, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    while not exchange.eof:
        exchange._read()
    writer.join()
    for fd in (job_r, job_w, res_r):
        os.close(fd)
    return exchange.outcome.frames, exchange.outcome.malformed


def _job() -> Any:
    from graders.grading.jobs import Job

    return Job({"type": "job", "tests": NAMES}, b"")


def reference() -> Reference:
    tests = [
        TestOptions(name=n, example=False, rtol=1e-5, atol=1e-8, exact_dtype=False, reveal="full")
        for n in NAMES
    ]
    return Reference("bench", tests, {n: ({"t": "dict", "k": [], "v": []}, b"") for n in NAMES})


def measure(data: bytes) -> dict[str, Any]:
    ctx = verdicts.Context("bench", "numpy", "submit", NAMES, reference(), LIMITS)
    tracemalloc.start()
    tracemalloc.reset_peak()
    frames, malformed = read_stream(data)
    from graders.grading.pool import JobOutcome

    result = verdicts.build(ctx, JobOutcome(frames=frames, malformed=malformed, exit_code=0))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "stream_mib": round(len(data) / MiB, 1),
        "peak_mib": round(peak / MiB, 1),
        "verdict": result.status.value,
        "message": result.message[:120],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    rows = {name: measure(data) for name, data in STREAMS.items()}
    print(f"{'stream':52} {'sent MiB':>9} {'peak MiB':>9}  verdict")
    for name, row in rows.items():
        print(f"{name:52} {row['stream_mib']:9} {row['peak_mib']:9}  {row['verdict']}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=2)


if __name__ == "__main__":
    main()
