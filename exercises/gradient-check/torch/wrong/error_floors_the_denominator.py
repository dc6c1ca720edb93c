"""gradient_error keeps the denominator at least 1e-8 to avoid dividing by 0: where both
values are far below 1e-8 (1e-9 against 0), the error comes out far too small.

Breaks: error_formula
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
    scale = torch.maximum(analytic.abs(), numeric.abs()).clamp(min=1e-8)
    return ((analytic - numeric).abs() / scale).max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))

