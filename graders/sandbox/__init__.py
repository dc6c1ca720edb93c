"""Everything a worker sees inside the sandbox: the test-case API and the harness.

This folder is bind-mounted read-only into every worker, alone: nothing else of the
project is there. So nothing here may import server code (``make lint`` checks that it
imports only the standard library, numpy, torch and itself), read exercise files or hold
expectations.
"""
