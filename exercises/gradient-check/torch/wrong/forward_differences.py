"""Forward differences: f at x once, then at x + eps e_i for each element.

Breaks: calls_twice_per_element
"""

import torch


def numerical_gradient(f, x, eps=1e-6):
    with torch.no_grad():
        work = x.detach().clone()
        grad = torch.zeros_like(work)
        f_x = float(f(work))
        for i in range(work.numel()):
            old = work.view(-1)[i].item()
            work.view(-1)[i] = old + eps
            grad.view(-1)[i] = (float(f(work)) - f_x) / eps
            work.view(-1)[i] = old
    return grad


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, (analytic - numeric).abs() / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))

