"""Finder for persist_memory_plant.py: scans its own anonymous memory for the marker, known
as two halves (so this file does not contain it whole)."""
import json
import os

import numpy as np

HALVES = ("@@TOKEN@@", "-persisted-in-memory")


def contains(data):
    first, second = HALVES[0].encode(), HALVES[1].encode()
    start = data.find(first)
    while start != -1:
        if data[start + len(first):start + len(first) + len(second)] == second:
            return True
        start = data.find(first, start + 1)
    return False


def probe():
    scanned, found = 0, []
    if HALVES[0] + HALVES[1] in (np.ndarray.__doc__ or ""):
        found.append("numpy docstring")
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            parts = line.split()
            lo, hi = (int(v, 16) for v in parts[0].split("-"))
            name = parts[5] if len(parts) > 5 else ""
            if "r" not in parts[1] or (name and name not in ("[heap]", "[stack]")):
                continue
            for offset in range(lo, hi, 1 << 22):
                try:
                    chunk = os.pread(mem.fileno(), min(1 << 22, hi - offset) + 64, offset)
                except OSError:
                    continue
                scanned += len(chunk)
                if contains(chunk):
                    found.append(hex(offset))
    return {"tried": scanned, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded({**probe(), "ns": os.readlink("/proc/self/ns/pid")})))
    return x * 2
