"""Searches all of its own anonymous memory (the heap and everything else it inherited from
the warm worker) for the reference solution's marker, known only as two halves. A control
marker written whole in this file must be found, which proves the scan sees the heap.

Leak probe: returns the right answer (passes); the check is that the marker was not found
and the control was.
"""
# expect: status=pass kind=leak min_tried=20000000 control=yes
import json
import os

HALVES = ("@@REF_A@@", "@@REF_B@@")
CONTROL = ("@@CONTROL_A@@", "@@CONTROL_B@@")
CONTROL_LITERAL = "@@CONTROL@@"


def contains(data, halves):
    first, second = halves[0].encode(), halves[1].encode()
    start = data.find(first)
    while start != -1:
        end = start + len(first)
        if data[end:end + len(second)] == second:
            return True
        start = data.find(first, start + 1)
    return False


def probe():
    scanned, found, control = 0, [], False
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            parts = line.split()
            lo, hi = (int(v, 16) for v in parts[0].split("-"))
            name = parts[5] if len(parts) > 5 else ""
            # Anonymous memory, heap and stack: what a warm worker could pass on. File
            # mappings are files, which the file-reading probes cover.
            if "r" not in parts[1] or (name and name not in ("[heap]", "[stack]")):
                continue
            for offset in range(lo, hi, 1 << 22):
                try:
                    chunk = os.pread(mem.fileno(), min(1 << 22, hi - offset) + 64, offset)
                except OSError:
                    continue
                scanned += len(chunk)
                if contains(chunk, HALVES):
                    found.append(hex(offset))
                control = control or contains(chunk, CONTROL)
    return {"tried": scanned, "found": found, "control": control}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
