"""Turns requires_grad off to update the parameters in place, and never turns it back on.

Breaks: after_the_step
"""


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for name, p in model.named_parameters():
        p.requires_grad_(False)
        velocity[name].mul_(momentum).add_(p.grad)
        p.sub_(lr * velocity[name])
    model.zero_grad()
    return loss.item()
