"""Returns the differences as a 1-D tensor, not in x's shape.

Breaks: shape_and_dtype
"""

import torch


def numerical_gradient(f, x, eps=1e-6):
    values = []
    with torch.no_grad():
        for i in range(x.numel()):
            step = torch.zeros(x.numel(), dtype=x.dtype)
            step[i] = eps
            step = step.reshape(x.shape)
            values.append((float(f(x + step)) - float(f(x - step))) / (2 * eps))
    return torch.tensor(values, dtype=torch.float64)


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, (analytic - numeric).abs() / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))

