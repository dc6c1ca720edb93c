"""Puts each element back only when the loop reaches the next one: the last element is
never put back, so x is returned with its last element at x[-1] - eps.

Breaks: x_given_back
"""

import itertools

import torch


def numerical_gradient(f, x, eps=1e-6):
    grad = torch.zeros_like(x)
    pending = None  # (index, value) of the element still moved
    with torch.no_grad():
        for index in itertools.product(*(range(n) for n in x.shape)):
            if pending is not None:
                x[pending[0]] = pending[1]
            saved = x[index].item()
            pending = (index, saved)
            x[index] = saved + eps
            f_plus = f(x)
            x[index] = saved - eps
            f_minus = f(x)
            grad[index] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    difference = (analytic - numeric).abs()
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, difference / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))
