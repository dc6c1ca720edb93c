"""@torch.no_grad() as a decorator, indices from itertools.product; the error with
torch.div and torch.amax."""

import itertools

import torch


@torch.no_grad()
def numerical_gradient(f, x, eps=1e-6):
    work = x.clone()
    grad = torch.zeros_like(work, requires_grad=False)
    for i in itertools.product(*map(range, x.shape)):
        keep = work[i].clone()
        work[i] = keep + eps
        up = f(work)
        work[i] = keep - eps
        down = f(work)
        work[i] = keep
        grad[i] = (up - down) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = torch.max(analytic.abs(), numeric.abs())
    safe = torch.where(scale == 0, torch.ones_like(scale), scale)
    return torch.amax(torch.div((analytic - numeric).abs(), safe)).item()


def check_gradient(f, x):
    with torch.enable_grad():
        point = x.detach().requires_grad_(True)
        value = f(point)
    (analytic,) = torch.autograd.grad(value, point)
    return gradient_error(analytic, numerical_gradient(f, x))
