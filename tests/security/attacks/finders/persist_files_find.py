"""Finder for persist_files_plant.py: looks for the planted files in every place."""
import json
import os
import tempfile

TOKEN = "@@TOKEN@@"
PLACES = ["/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp"),
          os.getcwd(), "/dev", "/", "/drill", "/proc/self/cwd", tempfile.gettempdir()]


def probe():
    tried, found = 0, []
    for place in dict.fromkeys(PLACES):
        tried += 1
        try:
            names = os.listdir(place)
        except OSError:
            continue
        for name in names:
            if TOKEN in name:
                path = os.path.join(place, name)
                found.append(path)
                try:  # clean up (matters only for the unconfined proof)
                    os.unlink(path)
                except OSError:
                    pass
    return {"tried": tried, "found": sorted(set(found))}


def ns():
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "?"


def double(x):
    print("REPORT " + json.dumps(bounded({**probe(), "ns": ns()})))
    return x * 2
