"""Updates the parameters in place with autograd on: PyTorch refuses to change a leaf that requires grad.

Breaks: returned_loss
"""


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for name, p in model.named_parameters():
        velocity[name].mul_(momentum).add_(p.grad)
        p.sub_(lr * velocity[name])
    model.zero_grad()
    return loss.item()
