"""Gradients summed sample by sample with np.outer, the loss with np.vdot."""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    W1, b1, W2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    count = y.size
    total = 0.0
    for xi, yi in zip(x, y):
        z = xi @ W1 + b1
        a = np.maximum(z, 0.0)
        err = a @ W2 + b2 - yi
        total += np.vdot(err, err)
        dpred = 2.0 * err / count
        dz = (W2 @ dpred) * (z > 0)
        grads["W2"] += np.outer(a, dpred)
        grads["b2"] += dpred
        grads["W1"] += np.outer(xi, dz)
        grads["b1"] += dz
    for k in ("W1", "b1", "W2", "b2"):
        velocity[k] *= momentum
        velocity[k] += grads[k]
        params[k] -= lr * velocity[k]
    return float(total / count)
