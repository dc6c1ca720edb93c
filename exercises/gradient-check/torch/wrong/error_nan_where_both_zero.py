"""gradient_error divides everywhere: 0 / 0 gives NaN where both are 0, and the max is NaN.

Breaks: error_zero
"""

import itertools

import torch


def numerical_gradient(f, x, eps=1e-6):
    with torch.no_grad():
        work = x.detach().clone()
        grad = torch.zeros_like(work)
        for i in itertools.product(*(range(n) for n in x.shape)):
            old = work[i].item()
            work[i] = old + eps
            f_plus = float(f(work))
            work[i] = old - eps
            f_minus = float(f(work))
            work[i] = old
            grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    ratios = (analytic - numeric).abs() / torch.maximum(analytic.abs(), numeric.abs())
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))

