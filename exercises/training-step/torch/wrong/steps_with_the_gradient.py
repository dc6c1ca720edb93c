"""Updates the velocity but moves each parameter by -lr * grad instead of -lr * v.

Breaks: parameter_update
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.sub_(lr * p.grad)
    model.zero_grad()
    return loss.item()
