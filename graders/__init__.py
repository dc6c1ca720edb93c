"""Everything that runs code: the exercise catalog, the test-case API for authors, the
sandbox and its warm worker pool, the wire format, comparison and verdicts, the CLI.

This package's ``__init__`` stays free of imports: the sandbox mounts it (with
``testing.py`` and ``harness/``) and must not pull server code into a learner's process.
"""
