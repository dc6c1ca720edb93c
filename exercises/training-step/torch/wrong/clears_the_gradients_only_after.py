"""Zeroes the gradients after the step only: gradients already in .grad add to this batch's.

Breaks: stale_gradients
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.sub_(lr * velocity[name])
    model.zero_grad()
    return loss.item()
