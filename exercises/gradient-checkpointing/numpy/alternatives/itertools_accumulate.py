"""itertools.accumulate yields the activations one by one; the chosen ones are copied."""

from itertools import accumulate, islice


def checkpoint_forward(layers, x, checkpoint_indices):
    keep = set(checkpoint_indices) | {-1}
    saved = {}
    output = x
    for i, a in enumerate(accumulate(layers, lambda a, f: f(a), initial=x), start=-1):
        if i in keep:
            saved[i] = a.copy()
        output = a
    return output, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = sorted(k for k in saved_activations if k < layer_idx)[-1]
    replay = islice(layers, start + 1, layer_idx + 1)
    result = saved_activations[start]
    for a in accumulate(replay, lambda a, f: f(a), initial=result):
        result = a
    return result
