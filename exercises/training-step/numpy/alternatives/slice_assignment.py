"""The update as whole-array slice assignments: v[...] = ..., p[...] = ..."""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    W1, b1, W2, b2 = (params[k] for k in ("W1", "b1", "W2", "b2"))
    z = x @ W1 + b1
    a = np.maximum(0.0, z)
    pred = a @ W2 + b2
    n_elements = y.shape[0] * y.shape[1]
    loss = float(((pred - y) ** 2).sum() / n_elements)
    dpred = (pred - y) * (2.0 / n_elements)
    da = dpred @ W2.T
    dz = da * (a > 0)  # a > 0 exactly where z > 0
    grads = {"W1": x.T @ dz, "b1": dz.sum(axis=0), "W2": a.T @ dpred, "b2": dpred.sum(axis=0)}
    for k in params:
        velocity[k][...] = momentum * velocity[k] + grads[k]
        params[k][...] = params[k] - lr * velocity[k]
    return loss
