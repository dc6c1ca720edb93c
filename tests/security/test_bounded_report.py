"""A hostile program's report is bounded whatever the host, and a cut one says so."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from graders.grading.results import OUTPUT_LIMIT, TRUNCATION_MARKER
from tests.program_output import json_line
from tests.security.bounded_report import LIMIT, SOURCE, bounded, with_bounded_report
from tests.security.test_attacks import ATTACKS_DIR, reports

# What a walk of a big host gives: many long names, nested lists, a set.
HOST_SIZED = {
    "tried": 250_000,
    "found": [],
    "walked": [f"1/task/{i}/" + "x" * 300 for i in range(250_000)],
    "deep": {str(i): [list(range(100))] * 100 for i in range(1000)},
    "names": {f"name-{i}" for i in range(5000)},
}


def test_a_host_sized_report_fits_its_limit_with_exact_counts() -> None:
    shown = bounded(HOST_SIZED)
    assert len(json.dumps(shown)) <= LIMIT
    assert shown["walked_count"] == 250_000 and shown["names_count"] == 5000
    assert shown["found"] == [] and shown["found_count"] == 0  # empty stays empty
    assert shown["tried"] == 250_000
    assert shown["walked"] and shown["walked"][0].startswith("1/task/0/")


def test_a_sample_keeps_a_finding_however_much_it_is_cut() -> None:
    shown = bounded({"found": ["f" * 10_000] * 10_000, "other": ["o" * 10_000] * 10_000})
    assert shown["found"] and shown["found_count"] == 10_000
    assert len(json.dumps(shown)) <= LIMIT


def test_the_source_sent_to_the_sandbox_is_the_same_function() -> None:
    namespace: dict[str, object] = {}
    exec(SOURCE, namespace)
    assert namespace["bounded"](HOST_SIZED) == bounded(HOST_SIZED)  # type: ignore[operator]
    assert with_bounded_report("x = 1\n") == "x = 1\n"  # only where a program calls it
    assert with_bounded_report("print(bounded({}))").startswith(SOURCE)


def test_the_proc_walk_of_this_host_is_bounded(tmp_path: Path) -> None:
    # The probe that failed CI: unconfined, it walks this host's /proc/1.
    program = tmp_path / "probe.py"
    program.write_text(with_bounded_report((ATTACKS_DIR / "poison_proc_writes.py").read_text()))
    namespace = runpy.run_path(str(program))
    shown = namespace["bounded"](namespace["probe"]())
    assert shown["walked_count"] == shown["tried"] >= 40
    assert len(json.dumps(shown)) <= LIMIT < OUTPUT_LIMIT


def test_a_report_cut_by_the_output_cap_says_so() -> None:
    whole = "REPORT " + json.dumps({"tried": 1, "found": ["x" * OUTPUT_LIMIT]})
    output = whole[: OUTPUT_LIMIT - len(TRUNCATION_MARKER)] + TRUNCATION_MARKER
    result = {"tests": [{"name": "doubles", "output": output}]}
    with pytest.raises(AssertionError, match="was cut by the output cap after"):
        reports(result)
    with pytest.raises(AssertionError, match=r"is not whole JSON .*ends '\{\"a\": '"):
        json_line('{"a": ', "a script's line")
