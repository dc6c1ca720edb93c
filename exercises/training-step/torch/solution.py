import torch


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    """One step of SGD with momentum: forward, loss, backward, then the update in place."""
    model.zero_grad()  # whatever .grad held before must not count
    loss = loss_fn(model(x), y)
    loss.backward()

    # The update, in place and unrecorded: v <- momentum * v + g, then p <- p - lr * v.
    with torch.no_grad():
        for name, p in model.named_parameters():
            v = velocity[name]
            v.mul_(momentum).add_(p.grad)
            p.sub_(lr * v)
    model.zero_grad()  # leave no gradient behind
    return loss.item()
