"""Gathers f's values with torch.tensor(list) and no dtype: float32, which rounds away
most of the tiny difference f(x + eps e_i) - f(x - eps e_i).

Breaks: central_values
"""

import torch


def moved(x, k, step):
    y = x.detach().clone()
    y.view(-1)[k] += step
    return y


def numerical_gradient(f, x, eps=1e-6):
    with torch.set_grad_enabled(False):
        plus = torch.tensor([float(f(moved(x, k, eps))) for k in range(x.numel())])
        minus = torch.tensor([float(f(moved(x, k, -eps))) for k in range(x.numel())])
        return ((plus.double() - minus.double()) * (0.5 / eps)).reshape(x.shape)


def gradient_error(analytic, numeric):
    top = (analytic - numeric).abs()
    bottom = torch.maximum(analytic.abs(), numeric.abs())
    return float(torch.where(bottom > 0, top / bottom, 0.0).max())


def check_gradient(f, x):
    point = x.detach().clone()
    point.requires_grad = True
    (analytic,) = torch.autograd.grad(outputs=f(point), inputs=(point,))
    return gradient_error(analytic, numerical_gradient(f, x))
