"""Rebinds local names (W1 = W1 - lr * v): the caller's params never change.

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
    velocity["W2"] *= momentum
    velocity["W2"] += a.T @ dpred
    velocity["b2"] *= momentum
    velocity["b2"] += dpred.sum(axis=0)
    velocity["W1"] *= momentum
    velocity["W1"] += x.T @ dz
    velocity["b1"] *= momentum
    velocity["b1"] += dz.sum(axis=0)
    W1 = W1 - lr * velocity["W1"]
    b1 = b1 - lr * velocity["b1"]
    W2 = W2 - lr * velocity["W2"]
    b2 = b2 - lr * velocity["b2"]
    return loss
