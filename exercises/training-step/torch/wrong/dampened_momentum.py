"""Uses v <- momentum * v + (1 - momentum) * g, the "dampened" convention, not PyTorch's.

Breaks: gradients
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad, alpha=1 - momentum)
            p.sub_(lr * velocity[name])
    model.zero_grad()
    return loss.item()
