"""The spare child's warm-up job: it runs real harness paths, yields to a real job at
once, and leaves nothing behind that the learner's job could see."""

from __future__ import annotations

import linecache
import os
import sys

from graders.sandbox import prewarm, runner, wire

LIMITS = {"output_bytes": 4096, "result_bytes": 1 << 20}


def run_and_decode(header: dict, body: bytes) -> list[wire.Frame]:
    sink = os.memfd_create("frames")
    with prewarm.restored_process():
        runner.Job(header, sink, body).run()
    frames, rest = wire.split_frames(os.pread(sink, 1 << 22, 0), 1 << 22)
    os.close(sink)
    assert rest == b""
    return frames


def test_the_warm_up_tests_run_to_completion_in_the_real_harness():
    header, body = prepare = prewarm.prepare(LIMITS)
    assert prepare[0]["tests"] is None
    frames = run_and_decode(header, body)
    statuses = {f.header["id"]: f.header["status"] for f in frames if f.header["type"] == "test"}
    # Every test exercises what it should: the two computations succeed, the last raises
    # inside the "learner" file (the error path is part of what real jobs touch).
    assert statuses == {"numpy_layers": "ok", "torch_layers": "ok", "an_error": "raised"}
    assert set(statuses) == set(prewarm.TEST_IDS)
    assert frames[-1].header["type"] == "done"
    # That it imports nothing the warm worker lacks is checked on a real worker, where
    # it would show in the next job's list (test_a_torch_job_imports_nothing_after_start_up).


def test_the_warm_up_stops_before_its_first_test_when_a_job_is_waiting():
    job_r, job_w = os.pipe()
    try:
        os.write(job_w, b"job")
        assert prewarm.run_until_job_arrives(job_r, prewarm.prepare(LIMITS)) == 0
    finally:
        os.close(job_r)
        os.close(job_w)


def test_the_warm_up_leaves_no_trace_for_the_next_job():
    job_r, job_w = os.pipe()
    stdout, stderr = sys.stdout, sys.stderr
    fd1_before = os.fstat(1)
    try:
        assert prewarm.run_until_job_arrives(job_r, prewarm.prepare(LIMITS)) == len(
            prewarm.TEST_IDS
        )
    finally:
        os.close(job_r)
        os.close(job_w)
    assert "solution" not in sys.modules
    assert "drill_tests" not in sys.modules
    assert "your_code.py" not in linecache.cache
    assert (sys.stdout, sys.stderr) == (stdout, stderr)
    fd1_after = os.fstat(1)
    assert (fd1_after.st_dev, fd1_after.st_ino) == (fd1_before.st_dev, fd1_before.st_ino)
