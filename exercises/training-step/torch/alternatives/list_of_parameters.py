"""A list of the parameters made once; the loss read with .detach().cpu().item() first."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    named = list(model.named_parameters())
    for _, p in named:
        if p.grad is not None:
            p.grad.detach_()
            p.grad.zero_()
    loss = loss_fn(model(x), y)
    result = loss.detach().cpu().item()
    loss.backward()
    with torch.no_grad():
        for name, p in named:
            new_v = velocity[name] * momentum + p.grad
            velocity[name][...] = new_v
            p[...] = p - lr * new_v
    model.zero_grad()
    return result
