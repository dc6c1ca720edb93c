"""Zeroes the gradients between backward() and the update, so the update sees only zeros.

Breaks: gradients
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    loss = loss_fn(model(x), y)
    loss.backward()
    model.zero_grad(set_to_none=False)
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.sub_(lr * velocity[name])
    return loss.item()
