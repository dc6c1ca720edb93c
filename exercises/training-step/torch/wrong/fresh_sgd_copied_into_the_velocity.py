"""Makes a new torch.optim.SGD each call and copies its buffers into the velocity: its momentum starts from nothing, not from the velocity passed in.

Breaks: momentum
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for name, p in model.named_parameters():
            velocity[name].copy_(optimizer.state[p]["momentum_buffer"])
    optimizer.zero_grad()
    return loss.item()
