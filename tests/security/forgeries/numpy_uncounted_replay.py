"""Recomputes through the layers' uncounted inner functions, then calls the counting
layers of the expected range on throw-away values, for show.

Recompute replays from the input every time (the wrong algorithm), reaching each layer's
wrapped function without counting it; then it calls the counted layers after the nearest
checkpoint on zeros and discards what they return, so the record shows the right layers.
"""

# forges: gradient-checkpointing numpy
# guards: input-digests
# expect: status=fail message~="tests passed" test_message~="was not given the value it should work on|not the right layers"
import numpy as np


def uncounted(layer):
    inner = getattr(layer, "_fn", None)  # an attribute, as an unguarded layer had
    if inner is None and getattr(layer, "__closure__", None):
        cells = [c.cell_contents for c in layer.__closure__]
        inner = next((c for c in cells if callable(c) and c is not layer), None)
    return inner or layer


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: np.copy(x)}
    a = x
    for i, layer in enumerate(layers):
        a = layer(a)
        if i in checkpoint_indices:
            saved[i] = np.copy(a)
    return a, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    a = saved_activations[-1]
    for layer in layers[: layer_idx + 1]:
        a = uncounted(layer)(a)
    start = max([k for k in saved_activations if k < layer_idx], default=-1)
    for layer in layers[start + 1 : layer_idx + 1]:
        layer(np.zeros_like(a))
    return a
