"""Returns the loss of the model after the update instead of before it.

Breaks: returned_loss
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss_fn(model(x), y).backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.sub_(lr * velocity[name])
        loss = loss_fn(model(x), y)
    model.zero_grad()
    return loss.item()
