"""Helper functions for the forward pass, the backward pass and the update."""

import numpy as np


def relu(z):
    return np.maximum(z, 0.0)


def forward(params, x):
    z = x @ params["W1"] + params["b1"]
    a = relu(z)
    return {"x": x, "z": z, "a": a}, a @ params["W2"] + params["b2"]


def mse(pred, y):
    return float(np.mean((pred - y) ** 2))


def backward(params, cache, pred, y):
    dpred = 2.0 * (pred - y) / pred.size
    da = dpred @ params["W2"].T
    dz = da * (cache["z"] > 0)
    return {
        "W1": cache["x"].T @ dz,
        "b1": dz.sum(axis=0),
        "W2": cache["a"].T @ dpred,
        "b2": dpred.sum(axis=0),
    }


def sgd_momentum(params, grads, velocity, lr, momentum):
    for k, g in grads.items():
        velocity[k] *= momentum
        velocity[k] += g
        params[k] -= lr * velocity[k]


def mlp_step(params, x, y, velocity, lr, momentum):
    cache, pred = forward(params, x)
    loss = mse(pred, y)
    grads = backward(params, cache, pred, y)
    sgd_momentum(params, grads, velocity, lr, momentum)
    return loss
