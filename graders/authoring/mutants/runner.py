"""Running the mutants: grade every mutant of a track's reference on its hidden tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from graders.authoring.mutants.explanations import load_explanations
from graders.authoring.mutants.operators import Mutant, generate
from graders.authoring.mutants.report import MutantReport, Survivor
from graders.grading.results import GradeResult, Status

if TYPE_CHECKING:
    from graders.grading.catalog import Exercise
    from graders.grading.grader import Grader


def _failing(result: GradeResult) -> list[str]:
    failing = [t.name for t in result.tests if t.status not in (Status.PASS, Status.NOT_RUN)]
    return failing or [result.message or result.status.value]


def analyse_track(
    grader: Grader,
    exercise: Exercise,
    track: str,
    progress: Callable[[int, int], None] | None = None,
) -> MutantReport:
    """Grade every mutant of the track's reference on its hidden tests (submit mode)."""
    started = time.perf_counter()
    tr = exercise.track(track)
    report = MutantReport(exercise.slug, track, str(tr.folder.relative_to(exercise.folder.parent)))
    explanations = load_explanations(tr.folder)
    made = generate(tr.solution)
    report.skipped = made.skipped
    report.mutants = len(made.mutants)
    # The baseline is the reference as unparsed: the form every mutant is written in.
    baseline = grader.grade(exercise, track, made.original, "submit")
    if baseline.status != Status.PASS:
        report.not_analysed = (
            "the reference (as ast.unparse writes it) does not pass the hidden tests: "
            + "; ".join(_failing(baseline))
        )
        report.seconds = time.perf_counter() - started
        return report

    done = 0
    lock = threading.Lock()
    if progress:
        progress(0, len(made.mutants))

    def grade(mutant: Mutant) -> GradeResult:
        nonlocal done
        result = grader.grade(exercise, track, mutant.code, "submit")
        with lock:  # the counter, and its reports in order
            done += 1
            if progress:
                progress(done, len(made.mutants))
        return result

    with ThreadPoolExecutor(max(1, grader.settings.workers), "drill-mutant") as pool:
        results = list(pool.map(grade, made.mutants))
    for mutant, result in zip(made.mutants, results, strict=True):
        if result.status == Status.PASS:
            report.survivors.append(Survivor(mutant.id, mutant.diff, explanations.get(mutant.id)))
        else:
            report.killed[mutant.id] = _failing(result)
    every = {m.id for m in made.mutants}
    report.stale = [i for i in explanations if i not in every]
    report.unneeded = [i for i in explanations if i in report.killed]
    report.seconds = time.perf_counter() - started
    return report
