"""Runs the model twice: once without gradients for the loss it returns, once more for backward().

Breaks: one_forward_pass
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    with torch.no_grad():
        value = loss_fn(model(x), y).item()  # the loss to report
    model.zero_grad()
    loss = loss_fn(model(x), y)  # and a second forward pass for the gradients
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.sub_(lr * velocity[name])
    model.zero_grad()
    return value
