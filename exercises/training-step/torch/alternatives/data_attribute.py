"""Updates through .data, which autograd does not track, and zeroes the gradients in place."""


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    loss = loss_fn(model(x), y)
    loss.backward()
    for name, p in model.named_parameters():
        v = velocity[name]
        v.mul_(momentum)
        v.add_(p.grad.data)
        p.data.sub_(lr * v)
        p.grad.zero_()
    return loss.detach().item()
