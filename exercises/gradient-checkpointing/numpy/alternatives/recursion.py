"""Recursion: each activation is its layer applied to the one before, down to a saved one."""


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x.copy()}

    def run(i, a):
        if i == len(layers):
            return a
        a = layers[i](a)
        if i in checkpoint_indices:
            saved[i] = a.copy()
        return run(i + 1, a)

    return run(0, x), saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    def start_below(i):
        return i if i in saved_activations else start_below(i - 1)

    start = start_below(layer_idx - 1)

    def rebuild(i):
        if i == start:
            return saved_activations[start]
        return layers[i](rebuild(i - 1))

    return rebuild(layer_idx)
