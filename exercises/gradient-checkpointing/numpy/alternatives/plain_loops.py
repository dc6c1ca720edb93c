"""Plain index loops: range(len(...)) in the forward, a backward scan with a for loop."""


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {}
    saved[-1] = x.copy()
    h = x
    for i in range(len(layers)):
        h = layers[i](h)
        for c in checkpoint_indices:
            if c == i:
                saved[i] = h.copy()
                break
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = -1
    for k in range(layer_idx - 1, -1, -1):
        if k in saved_activations:
            start = k
            break
    h = saved_activations[start]
    i = start + 1
    while i <= layer_idx:
        h = layers[i](h)
        i += 1
    return h
