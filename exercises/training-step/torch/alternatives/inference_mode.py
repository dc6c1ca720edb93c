"""The update inside torch.inference_mode(), the gradients read through p.grad.detach()."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.inference_mode():
        for name, p in model.named_parameters():
            g = p.grad.detach()
            velocity[name].mul_(momentum).add_(g)
            p.sub_(lr * velocity[name])
    model.zero_grad()
    return loss.item()
