"""Plants files (and a symlink and a FIFO) in every place that might be writable: /tmp,
/dev/shm, /var/tmp, $HOME, $TMPDIR, the working folder, /dev, /, /drill, /proc/self/cwd,
for the next submission to find (finder: finders/persist_files_find.py).

Returns the right answer; what is checked is that the finder, run next on every worker,
finds nothing.
"""
# expect: status=pass kind=plant finder=persist_files_find.py proof=process
import json
import os
import tempfile

TOKEN = "@@TOKEN@@"
PLACES = ["/tmp", "/dev/shm", "/var/tmp", os.path.expanduser("~"), os.environ.get("TMPDIR", "/tmp"),
          os.getcwd(), "/dev", "/", "/drill", "/proc/self/cwd", tempfile.gettempdir()]


def plant():
    planted = []
    for place in dict.fromkeys(PLACES):
        path = os.path.join(place, f"drill-planted-{TOKEN}")
        try:
            with open(path, "w") as f:
                f.write(TOKEN)
            planted.append(path)
        except OSError:
            pass
        for suffix, make in ((".lnk", lambda p: os.symlink("/etc/passwd", p)), (".fifo", os.mkfifo)):
            try:
                make(path + suffix)
                planted.append(path + suffix)
            except OSError:
                pass
    return planted


def ns():
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "?"


def double(x):
    print("PLANTED " + json.dumps(bounded({"ns": ns(), "planted": plant()})))
    return x * 2
