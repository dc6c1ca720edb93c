"""Tries to raise every hard resource limit past what the grader set; reports any success.

A leak-style probe: it returns the right answer, so it passes; what is checked is that no
limit could be raised.
"""
# expect: status=pass kind=leak min_tried=6
import json
import resource

NAMES = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE")


def probe():
    tried, found = 0, []
    for name in NAMES:
        which = getattr(resource, name)
        soft, hard = resource.getrlimit(which)
        if hard == resource.RLIM_INFINITY:
            found.append(f"{name} hard limit is unlimited")
            continue
        tried += 1
        try:
            resource.setrlimit(which, (hard * 4 + 10, hard * 4 + 10))
            found.append(f"raised {name} from {hard}")
        except (ValueError, OSError):
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
