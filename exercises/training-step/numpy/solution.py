import numpy as np


def mlp_step(params, x, y, velocity, lr, momentum):
    """One step of SGD with momentum for relu(x @ W1 + b1) @ W2 + b2 and the mean squared error."""
    W1, b1, W2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]

    # Forward pass and loss.
    z = x @ W1 + b1
    a = np.maximum(z, 0.0)
    pred = a @ W2 + b2
    diff = pred - y
    loss = float(np.mean(diff**2))

    # Backward pass: every gradient before any parameter changes.
    dpred = 2.0 * diff / diff.size
    grads = {"W2": a.T @ dpred, "b2": dpred.sum(axis=0)}
    dz = (dpred @ W2.T) * (z > 0)  # relu'(0) = 0
    grads["W1"] = x.T @ dz
    grads["b1"] = dz.sum(axis=0)

    # The update, in place: v <- momentum * v + g, then p <- p - lr * v.
    for name, g in grads.items():
        v = velocity[name]
        v *= momentum
        v += g
        params[name] -= lr * v
    return loss
