"""torch.autograd.grad instead of backward(); .grad is then set to None by hand."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    names, params = zip(*model.named_parameters())
    loss = loss_fn(model(x), y)
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        for name, p, g in zip(names, params, grads):
            velocity[name].mul_(momentum).add_(g)
            p.sub_(lr * velocity[name])
    for p in params:
        p.grad = None  # whatever was there before must not stay behind
    return float(loss)
