"""Perturbs a float32 copy of x (.float()): f gets float32 tensors, in which x + 1e-6 is
mostly x.

Breaks: one_element_moved
"""

import torch


def numerical_gradient(f, x, eps=1e-6):
    with torch.no_grad():
        work = x.detach().float()
        flat = work.view(-1)
        grad = torch.zeros_like(x)
        for i in range(flat.numel()):
            old = flat[i].item()
            flat[i] = old + eps
            f_plus = float(f(work))
            flat[i] = old - eps
            f_minus = float(f(work))
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

