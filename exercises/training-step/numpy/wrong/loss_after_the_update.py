"""Returns the loss of the network after the update instead of before it.

Breaks: returned_loss
"""

import numpy as np


def forward(params, x):
    z = x @ params["W1"] + params["b1"]
    a = np.maximum(z, 0.0)
    return z, a, a @ params["W2"] + params["b2"]


def mlp_step(params, x, y, velocity, lr, momentum):
    z, a, pred = forward(params, x)
    diff = pred - y
    dpred = 2.0 * diff / diff.size
    dz = (dpred @ params["W2"].T) * (z > 0)
    grads = {"W1": x.T @ dz, "b1": dz.sum(axis=0), "W2": a.T @ dpred, "b2": dpred.sum(axis=0)}
    for k, g in grads.items():
        velocity[k] *= momentum
        velocity[k] += g
        params[k] -= lr * velocity[k]
    return float(np.mean((forward(params, x)[2] - y) ** 2))
