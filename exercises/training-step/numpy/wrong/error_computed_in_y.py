"""Saves an array by computing the error pred - y in y's own memory: the caller's y is overwritten.

Breaks: inputs_unchanged
"""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    W1, b1, W2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]
    z = x @ W1 + b1
    a = np.maximum(z, 0.0)
    err = y  # not a copy: the same array as the caller's y
    np.subtract(a @ W2 + b2, y, out=err)
    loss = float(np.mean(err**2))
    dpred = 2.0 * err / err.size
    dz = (dpred @ W2.T) * (z > 0)
    grads = {"W1": x.T @ dz, "b1": dz.sum(axis=0), "W2": a.T @ dpred, "b2": dpred.sum(axis=0)}
    for name, g in grads.items():
        velocity[name] *= momentum
        velocity[name] += g
        params[name] -= lr * velocity[name]
    return loss
