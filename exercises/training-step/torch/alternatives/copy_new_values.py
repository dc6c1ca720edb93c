"""Computes new values out of place, then copy_ puts them into the same tensors."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    params = dict(model.named_parameters())
    for p in params.values():
        p.grad = None
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name in velocity:
            p = params[name]
            velocity[name].copy_(momentum * velocity[name] + p.grad)
            p.copy_(p - lr * velocity[name])
            p.grad = None
    return loss.item()
