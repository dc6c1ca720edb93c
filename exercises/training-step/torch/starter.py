import torch  # noqa: F401


def train_step(model, loss_fn, x, y, velocity, lr, momentum):
    """One training step of ``model`` with SGD and momentum.

    Args:
        model: an ``nn.Module``; every parameter requires grad and takes part in the loss.
        loss_fn: ``loss_fn(pred, y)`` returns a scalar tensor, with ``pred = model(x)``.
        x, y: the batch.
        velocity: dict ``{name: tensor}`` keyed by the names of
            ``model.named_parameters()``, in any order, each tensor of its parameter's
            shape. Updated in place first: ``v <- momentum * v + g``, where ``g`` is the
            parameter's gradient.
        lr: the learning rate, a float > 0.
        momentum: a float with 0 < momentum < 1.

    The model runs forward once. Every parameter is updated in place (in its own
    storage: not ``p.data = ...``), unrecorded by autograd (e.g. inside
    ``torch.no_grad()``): ``p <- p - lr * v`` with the new ``v``. Gradients left in
    ``.grad`` before the call must not change the step; after it, every ``.grad`` is
    zero or None. ``x`` and ``y`` are left unchanged.

    Returns:
        The loss before the update, as a Python float.
    """
    raise NotImplementedError
