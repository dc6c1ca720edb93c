"""Stays alive after its complete result: the harness's final os._exit is replaced by a
long sleep, and a non-daemon thread sleeps on, so the child outlives its "done" frame and
the next learner on that worker would wait for it; returns the right answer.

Passes; what the poisoning tests check is that the next submissions on every worker are
answered quickly (well under the server's 3 s grace for a killed child).
"""
# expect: status=pass
import json
import os
import threading
import time

done = []


def linger(*_args):
    while True:
        time.sleep(3600)


def double(x):
    if not done:
        done.append(1)
        os._exit = linger  # the harness ends the child with os._exit after "done"
        threading.Thread(target=linger, daemon=False).start()
        print("REPORT " + json.dumps(bounded({"tried": 1, "found": []})))
    return x * 2
