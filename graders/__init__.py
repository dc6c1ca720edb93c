"""Everything that runs code, in four packages along its real boundaries:

- ``sandbox/``: what a worker sees inside the sandbox, one read-only bind mount: the
  test-case API authors write ``tests.py`` with, the warm worker, the per-job runner and
  the wire format. It imports only the standard library, numpy and torch.
- ``grading/``: the server side of a grade: the exercise catalog, worker pools and their
  isolation, reference observations, comparison, verdicts and feedback.
- ``queue/``: distributed mode: the JetStream stream, the grading worker, the remote
  backend the API nodes grade through.
- ``authoring/``: the instructor's tools: validate, mutants, scaffold.

``errors`` and ``settings`` are shared by all four. Nothing here imports ``app``; the
import contract in ``make lint`` checks both rules.
"""
