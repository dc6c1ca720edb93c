"""np.dot with .T, np.where for the relu and its mask, the loss as an np.float64 scalar."""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    z = np.dot(x, params["W1"]) + params["b1"]
    a = np.where(z > 0, z, 0.0)
    pred = np.dot(a, params["W2"]) + params["b2"]
    diff = pred - y
    loss = np.sum(diff * diff) / diff.size
    dpred = 2.0 * diff / diff.size
    dz = np.where(z > 0, np.dot(dpred, params["W2"].T), 0.0)
    grads = {
        "W2": np.dot(a.T, dpred),
        "b2": np.sum(dpred, axis=0),
        "W1": np.dot(x.T, dz),
        "b1": np.sum(dz, axis=0),
    }
    for name in ("W1", "b1", "W2", "b2"):
        velocity[name] *= momentum
        velocity[name] += grads[name]
        params[name] -= lr * velocity[name]
    return loss
