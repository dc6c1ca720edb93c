"""p.add_(v, alpha=-lr), and gradients zeroed (not set to None) before and after."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad(set_to_none=False)
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            p.add_(velocity[name], alpha=-lr)
    model.zero_grad(set_to_none=False)
    return loss.item()
