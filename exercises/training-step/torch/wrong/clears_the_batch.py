"""Zeroes x and y in place once backward() has run, as if the batch were the step's to throw away: the caller's tensors are overwritten.

Breaks: inputs_unchanged
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.sub_(lr * velocity[name])
        x.zero_()  # "done with the batch": but it is the caller's
        y.zero_()
    model.zero_grad()
    return loss.item()
