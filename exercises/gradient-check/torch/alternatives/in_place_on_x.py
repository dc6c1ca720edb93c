"""Perturbs x itself under torch.no_grad(), writing back the value saved with .item();
check_gradient through .backward() and .grad."""

import torch


def numerical_gradient(f, x, eps=1e-6):
    grad = torch.zeros(x.shape, dtype=torch.float64)
    with torch.no_grad():
        for index in torch.cartesian_prod(*[torch.arange(n) for n in x.shape]).reshape(
            x.numel(), -1
        ):
            i = tuple(index.tolist())
            old = x[i].item()
            x[i] = old + eps
            f_plus = f(x)
            x[i] = old - eps
            f_minus = f(x)
            x[i] = old
            grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, (analytic - numeric).abs() / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    numeric = numerical_gradient(f, x)
    leaf = x.detach().clone().requires_grad_()
    f(leaf).backward()
    return gradient_error(leaf.grad, numeric)
