"""Walks up from a tensor hook to the test's call-record local and tries to fill it.

A plain forward. During backward, a hook on the output looks through the calling frames
for the test's record of the backward calls and writes the expected order into it.
"""

# forges: checkpointing-layer-stack torch
# guards: records-out-of-reach kept-observation graph-observation
# expect: status=fail message~="tests passed" kind=frame-walk
import json
import sys


def fill(record, order):
    # The record as an unguarded harness kept it: a list attribute on the handle.
    layers = getattr(record, "layers", None)
    if isinstance(layers, list):
        layers.extend(order)
        return True
    return False


def forward_with_checkpointing(layers, x, segment_size):
    h = x
    for layer in layers:
        h = layer(h)
    n = len(layers)
    order = [
        i for s in reversed(range(0, n, segment_size)) for i in range(s, min(s + segment_size, n))
    ]

    def walk(grad):
        found, filled = 0, False
        frame = sys._getframe(1)
        while frame is not None:
            record = frame.f_locals.get("calls")  # the record of the backward calls
            if record is not None:
                found += 1
                filled = fill(record, order) or filled
            frame = frame.f_back
        print("REPORT " + json.dumps(bounded({"found": found, "filled": filled})))
        return grad

    if h.requires_grad:
        h.register_hook(walk)
    return h
