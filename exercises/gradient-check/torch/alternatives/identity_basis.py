"""Adds scaled rows of torch.eye (x + eps e_i) under torch.no_grad(); the zero rule with
torch.nan_to_num; check_gradient with torch.func.grad."""

import torch


def numerical_gradient(f, x, eps=1e-6):
    with torch.no_grad():
        base = x.detach()
        steps = eps * torch.eye(x.numel(), dtype=torch.float64).reshape(x.numel(), *x.shape)
        values = [(f(base + step) - f(base - step)) / (2 * eps) for step in steps]
        return torch.as_tensor([float(v) for v in values], dtype=torch.float64).reshape(x.shape)


def gradient_error(analytic, numeric):
    ratios = (analytic - numeric).abs() / torch.maximum(analytic.abs(), numeric.abs())
    return float(torch.nan_to_num(ratios, nan=0.0).max())


def check_gradient(f, x):
    analytic = torch.func.grad(f)(x.detach())
    return gradient_error(analytic, numerical_gradient(f, x))
