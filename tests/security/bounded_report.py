"""``bounded(report)``: what a hostile program prints of what it searched, bounded by
construction.

A probe's report used to carry whole lists (every file it walked, every name it found),
and how long those lists are is a property of the host: unconfined, a walk of /proc/1
grows with the host's init, and on one CI machine the report outgrew the sandbox's
16 KiB output cap, so the test read half a JSON document. Every list is now a count
(``<key>_count``) and a sample of its first items, every string is cut, and the whole
report shrinks until it fits ``LIMIT`` characters. A sample keeps at least one item, so an
empty sample still means "found nothing".

The source of this module is put in front of every attack, finder and forgery that calls
``bounded`` (``with_bounded_report``): a program in the sandbox cannot import anything of
the tests. So it uses nothing but ``json``, imported inside the function.
"""

import inspect

LIMIT = 4000  # characters of JSON: a quarter of the output the sandbox keeps per test


def bounded(report, items=10, chars=120):
    import json

    def cut(value, depth):
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, str):
            return value if len(value) <= chars else value[:chars] + "…"
        if depth < 2 and isinstance(value, dict):
            return {cut(str(k), 2): cut(v, depth + 1) for k, v in list(value.items())[:items]}
        if depth < 2 and isinstance(value, (list, tuple, set, frozenset)):
            ordered = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
            return [cut(v, depth + 1) for v in list(ordered)[:items]]
        return cut(repr(value), 2)

    shown = {}
    for key, value in report.items():
        if isinstance(value, (list, tuple, set, frozenset)):
            shown[f"{key}_count"] = len(value)
        shown[str(key)[:chars]] = cut(value, 1)
    text = json.dumps(shown)
    if len(text) > LIMIT and (items > 1 or chars > 20):
        return bounded(report, max(1, items // 2), max(20, chars // 2))
    return shown


def with_bounded_report(code: str) -> str:
    """``code`` with this module's ``bounded`` defined before it, where it calls it."""
    if "bounded(" not in code:
        return code
    return SOURCE + "\n\n" + code


SOURCE = f"LIMIT = {LIMIT}\n\n\n{inspect.getsource(bounded)}"
