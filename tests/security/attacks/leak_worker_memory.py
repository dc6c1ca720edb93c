"""Opens the warm worker's (its parent's) and pid 1's /proc/<pid>/mem, maps, environ and fd
folder, and its own /proc/self/mem for writing (opened only, nothing is written).

Leak probe: returns the right answer (passes); the check is that nothing was found
(opening its own memory is allowed and not reported).
"""
# expect: status=pass kind=leak min_tried=4 proof=process
import json
import os


def probe():
    tried, found = 0, []
    for pid in {os.getppid(), 1}:
        for name, flags in (("mem", os.O_RDONLY), ("mem", os.O_RDWR), ("maps", os.O_RDONLY),
                            ("environ", os.O_RDONLY)):
            tried += 1
            try:
                fd = os.open(f"/proc/{pid}/{name}", flags)
            except OSError:
                continue
            os.close(fd)
            found.append(f"/proc/{pid}/{name} ({'rw' if flags == os.O_RDWR else 'r'})")
        tried += 1
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{n}") for n in os.listdir(f"/proc/{pid}/fd")]
            found.append(f"/proc/{pid}/fd: {len(links)} links")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
