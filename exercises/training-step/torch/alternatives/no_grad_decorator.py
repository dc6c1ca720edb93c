"""The update in a helper function decorated with @torch.no_grad()."""

import torch


@torch.no_grad()
def sgd_momentum(named_params, velocity, lr, momentum):
    for name, p in named_params:
        v = velocity[name]
        v *= momentum
        v += p.grad
        p -= lr * v


def clear_gradients(model):
    for p in model.parameters():
        p.grad = None


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    clear_gradients(model)
    loss = loss_fn(model(x), y)
    loss.backward()
    sgd_momentum(model.named_parameters(), velocity, lr, momentum)
    clear_gradients(model)
    return loss.item()
