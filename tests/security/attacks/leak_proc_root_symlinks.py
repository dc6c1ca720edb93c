"""Symlink tricks: reaches for the secrets through /proc/<pid>/root, /proc/<pid>/cwd,
/proc/self/fd links and '..' chains, and plants symlinks where it can.

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=8 proof=process
import json
import os

TARGETS = ["@@EXERCISES_DIR@@/double/numpy/solution.py", "@@DB_PATH@@"]


def probe():
    tried, found = 0, []
    bases = []
    for pid in ["self", "1", str(os.getppid())] + [p for p in os.listdir("/proc") if p.isdigit()]:
        bases += [f"/proc/{pid}/root", f"/proc/{pid}/cwd/../../../../.."]
    bases += ["/../../..", "/proc/self/fd/0/../../..", "/dev/fd/../../../.."]
    for base in dict.fromkeys(bases):
        for target in TARGETS:
            path = base + target
            tried += 1
            try:
                with open(path, "rb") as f:
                    f.read(1)
                found.append(path)
            except OSError:
                pass
    for where in ("/tmp", "/dev", "/dev/shm", "/"):
        link = os.path.join(where, "drill-link")
        try:
            os.symlink(TARGETS[0], link)
        except OSError:
            continue
        try:
            with open(link, "rb") as f:
                f.read(1)
            found.append(f"via symlink {link}")
        except OSError:
            pass
        finally:
            os.unlink(link)
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
