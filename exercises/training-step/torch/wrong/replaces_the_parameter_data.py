"""Assigns p.data = p.data - lr * v: the Parameter object stays, but it gets new storage instead of being updated in its own.

Breaks: in_place
"""


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for name, p in model.named_parameters():
        v = velocity[name]
        v.mul_(momentum).add_(p.grad)
        p.data = p.data - lr * v  # a new tensor behind the same Parameter
    model.zero_grad()
    return loss.item()
