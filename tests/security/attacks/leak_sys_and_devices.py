"""Reads /sys (network interfaces, cgroups, block devices, DMI) and opens raw devices
(/dev/mem, /dev/kmem, /dev/port, /dev/kmsg, disks, /dev/tty).

Leak probe: returns the right answer (passes); the check is that nothing was found.
"""
# expect: status=pass kind=leak min_tried=10 proof=process
import json
import os

SYS = ["/sys/class/net", "/sys/fs/cgroup", "/sys/block", "/sys/class/dmi/id", "/sys/kernel"]
DEVICES = ["/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/vda", "/dev/sda",
           "/dev/nvme0n1", "/dev/xvda", "/dev/tty", "/dev/console", "/dev/loop0"]


def probe():
    tried, found = 0, []
    for path in SYS:
        tried += 1
        try:
            if os.listdir(path):
                found.append(path)
        except OSError:
            pass
    for path in DEVICES:
        tried += 1
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except OSError:
            continue
        try:
            if path == "/dev/tty" or os.read(fd, 16) is not None:
                found.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
