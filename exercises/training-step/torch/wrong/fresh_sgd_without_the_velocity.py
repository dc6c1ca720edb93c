"""Makes a new torch.optim.SGD each call: it keeps its own momentum buffers, and the caller's velocity never changes.

Breaks: gradients
"""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
