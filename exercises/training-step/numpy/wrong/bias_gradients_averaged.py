"""Averages the bias gradients over the batch instead of summing them.

Breaks: gradients
"""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    z = x @ params["W1"] + params["b1"]
    a = np.maximum(z, 0.0)
    diff = a @ params["W2"] + params["b2"] - y
    loss = float(np.mean(diff**2))
    dpred = 2.0 * diff / diff.size
    dz = (dpred @ params["W2"].T) * (z > 0)
    grads = {"W1": x.T @ dz, "b1": dz.mean(axis=0), "W2": a.T @ dpred, "b2": dpred.mean(axis=0)}
    for k, g in grads.items():
        velocity[k] *= momentum
        velocity[k] += g
        params[k] -= lr * velocity[k]
    return loss
