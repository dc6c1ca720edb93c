"""Writes the update into p.ravel() and v.ravel(): for an array that is not C-contiguous these are copies, so p and v never change.

Breaks: parameter_update
"""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    W1, b1, W2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]
    z = x @ W1 + b1
    a = np.maximum(z, 0.0)
    diff = a @ W2 + b2 - y
    loss = float(np.mean(diff**2))
    dpred = 2.0 * diff / diff.size
    dz = (dpred @ W2.T) * (z > 0)
    grads = {"W1": x.T @ dz, "b1": dz.sum(axis=0), "W2": a.T @ dpred, "b2": dpred.sum(axis=0)}
    for name, g in grads.items():
        flat_v = velocity[name].ravel()  # a view only when the array is C-contiguous
        flat_p = params[name].ravel()
        flat_v *= momentum
        flat_v += g.ravel()
        flat_p -= lr * flat_v
    return loss
