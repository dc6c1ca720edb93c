"""Opens kernel knobs for writing: /proc/sys/kernel/*, /proc/sys/vm/drop_caches,
/proc/sysrq-trigger, /proc/self/oom_score_adj lowered, /proc/self/attr (opened only; it
never writes to a host knob).

Leak probe: returns the right answer (passes); the check is that nothing could be opened.
"""
# expect: status=pass kind=leak min_tried=5 proof=process
import json
import os

KNOBS = ["/proc/sys/kernel/hostname", "/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches",
         "/proc/sys/kernel/pid_max", "/proc/sysrq-trigger", "/proc/sys/net/ipv4/ip_forward"]


def probe():
    tried, found = 0, []
    for path in KNOBS:
        tried += 1
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        os.close(fd)
        found.append(path)
    tried += 1
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("-1000")  # making itself unkillable by the OOM killer needs privilege
        found.append("oom_score_adj -1000")
    except OSError:
        pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
