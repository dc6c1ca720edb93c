"""The update written with ufuncs and out= arguments."""

import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    z = np.matmul(x, params["W1"]) + params["b1"]
    a = np.maximum(z, 0)
    pred = np.matmul(a, params["W2"]) + params["b2"]
    err = np.subtract(pred, y)
    loss = float(np.mean(np.square(err)))
    dpred = np.multiply(err, 2.0 / err.size)
    dz = np.matmul(dpred, params["W2"].T)
    dz[z <= 0] = 0.0
    grads = {
        "W1": np.matmul(x.T, dz),
        "b1": dz.sum(axis=0),
        "W2": np.matmul(a.T, dpred),
        "b2": dpred.sum(axis=0),
    }
    for name, g in grads.items():
        np.multiply(velocity[name], momentum, out=velocity[name])
        np.add(velocity[name], g, out=velocity[name])
        np.subtract(params[name], lr * velocity[name], out=params[name])
    return loss
