"""torch.optim.SGD, with the caller's velocity tensors handed over as its momentum buffers."""

import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    for name, p in model.named_parameters():
        optimizer.state[p]["momentum_buffer"] = velocity[name]  # updated in place by step()
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
