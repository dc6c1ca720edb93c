"""Saves x[i] without .item() or .clone(): a view of the element, so "old" follows the
element, and the -eps call gets x itself.

Breaks: one_element_moved
"""

import torch


def numerical_gradient(f, x, eps=1e-6):
    with torch.no_grad():
        work = x.detach().clone()
        flat = work.view(-1)
        grad = torch.zeros_like(work)
        for i in range(flat.numel()):
            old = flat[i]
            flat[i] = old + eps
            f_plus = f(work)
            flat[i] = old - eps
            f_minus = f(work)
            flat[i] = old
            grad.view(-1)[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, (analytic - numeric).abs() / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))

