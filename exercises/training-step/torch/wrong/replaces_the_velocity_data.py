"""Assigns v.data = momentum * v + g: the dict keeps the same velocity tensor, but its values move to new storage.

Breaks: in_place
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            v = velocity[name]
            v.data = momentum * v + p.grad
            p.sub_(lr * v)
    model.zero_grad()
    return loss.item()
