"""Works on clones of x with autograd on: when x requires grad, the values f returns
carry a graph, and writing them into the result gives it a grad_fn.

Breaks: no_graph
"""

import torch


def numerical_gradient(f, x, eps=1e-6):
    grad = torch.zeros_like(x)
    flat_grad = grad.view(-1)
    for i in range(x.numel()):
        plus = x.clone()
        plus.view(-1)[i] += eps
        minus = x.clone()
        minus.view(-1)[i] -= eps
        flat_grad[i] = (f(plus) - f(minus)) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, (analytic - numeric).abs() / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))

