"""Builds the new values in a state dict and loads it, which copies them into the parameters."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    state = model.state_dict()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].mul_(momentum).add_(p.grad)
            state[name] = p - lr * velocity[name]
    model.load_state_dict(state)
    model.zero_grad()
    return loss.item()
