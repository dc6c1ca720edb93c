"""Updates W2 and b2 first, then backpropagates to W1 through the updated W2.

Breaks: gradients
"""

import numpy as np


def update(params, velocity, name, g, lr, momentum):
    velocity[name] *= momentum
    velocity[name] += g
    params[name] -= lr * velocity[name]


def mlp_step(params, x, y, velocity, lr, momentum):
    z = x @ params["W1"] + params["b1"]
    a = np.maximum(z, 0.0)
    diff = a @ params["W2"] + params["b2"] - y
    loss = float(np.mean(diff**2))
    dpred = 2.0 * diff / diff.size
    update(params, velocity, "W2", a.T @ dpred, lr, momentum)
    update(params, velocity, "b2", dpred.sum(axis=0), lr, momentum)
    dz = (dpred @ params["W2"].T) * (z > 0)
    update(params, velocity, "W1", x.T @ dz, lr, momentum)
    update(params, velocity, "b1", dz.sum(axis=0), lr, momentum)
    return loss
