"""Golden cases through the real worker path: each folder of ``cases/`` holds a submission
for the ``double`` test exercise and the verdict it must get (``expected.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graders.grading.grader import Grader
from graders.grading.results import OUTPUT_LIMIT, TRUNCATION_MARKER

CASES = sorted(p for p in (Path(__file__).parent / "cases").iterdir() if p.is_dir())


@pytest.mark.sandbox
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(test_grader: Grader, case: Path) -> None:
    assert test_grader.status is not None and test_grader.status.sandbox == "bwrap"
    expected = json.loads((case / "expected.json").read_text())
    result = test_grader.grade(
        test_grader.catalog.get("double"), "numpy", (case / "submission.py").read_text(), "submit"
    )
    got = {
        "status": result.status.value,
        "message": result.message,
        "passed": result.passed,
        "total": result.total,
        "tests": [
            {"name": t.name, "status": t.status.value, "message": t.message} for t in result.tests
        ],
    }
    assert got == expected


@pytest.mark.sandbox
def test_tracebacks_show_only_learner_frames(test_grader: Grader) -> None:
    code = (Path(__file__).parent / "cases" / "exception_line" / "submission.py").read_text()
    result = test_grader.grade(test_grader.catalog.get("double"), "numpy", code, "submit")
    output = result.tests[0].output
    assert 'File "your_code.py", line 6, in double' in output
    assert 'File "your_code.py", line 2, in helper' in output
    assert "graders" not in output and "<tests>" not in output and "harness" not in output


@pytest.mark.sandbox
def test_huge_output_is_truncated_with_a_marker(test_grader: Grader) -> None:
    code = (Path(__file__).parent / "cases" / "huge_output" / "submission.py").read_text()
    result = test_grader.grade(test_grader.catalog.get("double"), "numpy", code, "submit")
    test = result.tests[0]
    assert test.output.endswith(TRUNCATION_MARKER)
    assert len(test.output) <= OUTPUT_LIMIT
    # What was kept of how much: 200,000 lines of 1,001 bytes, every one counted.
    assert test.output_truncated and test.output.startswith("spam spam ")
    assert (test.output_bytes, test.output_bytes_at_least) == (200_000 * 1_001, False)


@pytest.mark.sandbox
def test_raw_output_is_counted_up_to_the_cap_on_writes(test_grader: Grader) -> None:
    code = (Path(__file__).parent / "cases" / "huge_raw_output" / "submission.py").read_text()
    result = test_grader.grade(test_grader.catalog.get("double"), "numpy", code, "submit")
    test = result.tests[0]
    # os.write past RLIMIT_FSIZE (1 MiB here) fails: the count stops there, "at least".
    assert test.output_truncated and test.output.startswith("spamspam")
    assert (test.output_bytes, test.output_bytes_at_least) == (1 << 20, True)
    assert test.output.endswith("OSError: [Errno 27] File too large\n"), test.output[-300:]


@pytest.mark.sandbox
def test_the_next_submission_after_each_hostile_case_passes(test_grader: Grader) -> None:
    good = (Path(__file__).parent / "cases" / "passing" / "submission.py").read_text()
    for case in ("kill_parent", "segfault", "forged_result", "fork_bomb"):
        test_grader.grade(
            test_grader.catalog.get("double"),
            "numpy",
            (Path(__file__).parent / "cases" / case / "submission.py").read_text(),
            "submit",
        )
        assert (
            test_grader.grade(test_grader.catalog.get("double"), "numpy", good, "submit").status
            == "pass"
        ), case


@pytest.mark.sandbox
def test_what_the_module_prints_while_loading_is_kept_apart(test_grader: Grader) -> None:
    code = (Path(__file__).parent / "cases" / "prints_at_import" / "submission.py").read_text()
    result = test_grader.grade(test_grader.catalog.get("double"), "numpy", code, "submit")
    assert result.status == "pass"
    assert (result.load_output, result.load_output_bytes) == ("loading my module\n", 18)
    assert not result.load_output_truncated and not result.load_output_bytes_at_least
    # Each test has its own output only: the first one no longer starts with the load's.
    assert [t.output for t in result.tests] == ["in double\n", "in double\n"]
    assert [t.output_bytes for t in result.tests] == [10, 10]


@pytest.mark.sandbox
def test_a_loud_load_leaves_the_first_test_what_is_left_of_the_capture(
    test_grader: Grader,
) -> None:
    """The capture limit (DRILL_OUTPUT_BYTES characters) covers the load's output and the
    first test's together, as when they were one: a load that fills it leaves the first
    test nothing to keep, though every byte of both is counted; the next test has its own."""
    limit = test_grader.settings.output_bytes
    code = f'print("L" * {limit + 10})\n\n\n' + (
        'def double(x):\n    print("in double")\n    return x * 2\n'
    )
    result = test_grader.grade(test_grader.catalog.get("double"), "numpy", code, "submit")
    assert result.status == "pass"
    assert result.load_output.startswith("L" * 1000) and result.load_output_truncated
    assert result.load_output.endswith(TRUNCATION_MARKER)
    assert len(result.load_output) <= OUTPUT_LIMIT
    assert result.load_output_bytes == limit + 11
    first, second = result.tests
    assert first.output_truncated and first.output in ("", TRUNCATION_MARKER)
    assert first.output_bytes == len("in double\n")
    assert (second.output, second.output_truncated) == ("in double\n", False)
