"""Puts new tensors in the velocity dict (velocity[name] = momentum * v + grad) instead of updating it in place.

Breaks: in_place
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name] = momentum * velocity[name] + p.grad
            p -= lr * velocity[name]
    model.zero_grad()
    return loss.item()
