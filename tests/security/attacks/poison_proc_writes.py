"""Opens for writing every file under /proc/self (the job) and /proc/1 (its warm worker, pid 1
of the sandbox) that has a write bit, threads included: the scheduler autogroup, whose nice
value the job shares with its worker's whole session, oom_score_adj, which a job of the
worker's user may set on the worker, and whatever a new kernel adds. Where an open
succeeds inside the sandbox it also writes the harmful value (autogroup nice 19, an
oom_score_adj of 1000), so that the next learners would inherit it; returns the right answer.

A poisoning probe: it passes, and reports in ``found`` every file it could open for
writing; ``walked`` samples the files it tried (with their count), so that a new kernel's
additions show up. Unconfined, the walk of /proc/1 is as long as the host's init makes it:
the report is bounded (``bounded``), so that its length never depends on the host.
The sandbox mounts /proc read-only, so that nothing there is writable by construction.
Unconfined (the process backend) the opens succeed; there it writes nothing (pid 1 is the
host's init, and the worker's session is the proof server's own).
"""
# expect: status=pass kind=leak min_tried=40 proof=process
import json
import os
import stat

SKIP = {"fd", "fdinfo", "map_files", "ns", "net", "cwd", "root", "exe"}
HARMFUL = {"autogroup": b"19", "oom_score_adj": b"1000"}
done = []


def writable_files(top, prefix, depth=0):
    try:
        names = sorted(os.listdir(top))
    except OSError:
        return
    for name in names:
        if name in SKIP:
            continue
        path = os.path.join(top, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and depth < 3:
            yield from writable_files(path, f"{prefix}/{name}", depth + 1)
        elif stat.S_ISREG(info.st_mode) and info.st_mode & 0o222:
            yield path, f"{prefix}/{name}"


def probe():
    in_sandbox = os.getppid() == 1  # the worker is pid 1 only inside bubblewrap
    tried, found, walked = 0, [], []
    for top in ("/proc/self", "/proc/1"):
        for path, label in writable_files(top, top.rsplit("/", 1)[1]):
            tried += 1
            walked.append(label)
            try:
                fd = os.open(path, os.O_WRONLY)
            except OSError:
                continue
            found.append(label)
            try:
                value = HARMFUL.get(os.path.basename(path))
                if in_sandbox and value is not None:
                    os.write(fd, value)
            except OSError:
                pass
            finally:
                os.close(fd)
    return {"tried": tried, "found": found, "walked": walked}


def double(x):
    if not done:
        done.append(1)
        print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
