"""Pairs model.parameters() with velocity.values() by position: the velocity dict need not list its names in that order.

Breaks: velocity_by_name
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p, v in zip(model.parameters(), velocity.values()):  # the n-th with the n-th
            v.mul_(momentum).add_(p.grad)
            p.sub_(lr * v)
    model.zero_grad()
    return loss.item()
