"""Uses the one socket family seccomp allows (AF_UNIX): connects to the abstract socket the
test listens on in the host's network namespace, and to every socket in /proc/net/unix.

Leak probe: returns the right answer (passes); the check is that nothing was reached.
"""
# expect: status=pass kind=leak min_tried=1 proof=process
import json
import socket

ABSTRACT = "\0drill-attack-@@TOKEN@@"


def probe():
    tried, found = 0, []
    names = [ABSTRACT]
    try:
        with open("/proc/net/unix") as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if len(parts) >= 8:
                    names.append(parts[7].replace("@", "\0", 1) if parts[7].startswith("@") else parts[7])
    except OSError:
        pass
    for name in names[:200]:
        tried += 1
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(0.2)
                s.connect(name)
                found.append(name.replace("\0", "@"))
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
