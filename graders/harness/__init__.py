"""Code that runs inside the sandbox: the warm worker, the per-job runner, encoding.

Only this folder, ``graders/__init__.py`` and ``graders/testing.py`` are visible in the
sandbox. Nothing here may import server code, read exercise files or hold expectations.
"""
