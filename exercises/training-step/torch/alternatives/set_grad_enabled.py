"""torch.set_grad_enabled(False) around the update, velocity updated with torch.mul and out=."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    value = loss.item()
    loss.backward()
    with torch.set_grad_enabled(False):
        for name, p in model.named_parameters():
            v = velocity[name]
            torch.add(torch.mul(v, momentum), p.grad, out=v)
            p.sub_(v * lr)
    model.zero_grad()
    return value
