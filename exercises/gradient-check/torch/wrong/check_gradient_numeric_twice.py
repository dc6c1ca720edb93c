"""check_gradient never asks autograd: it compares the numerical gradient with itself, so
it always says 0, even for a wrong gradient.

Breaks: check
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
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, (analytic - numeric).abs() / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    return gradient_error(numerical_gradient(f, x), numerical_gradient(f, x))
