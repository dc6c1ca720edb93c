"""A fresh detached clone for every call of f, values gathered in a list and turned into
a tensor; the error as a Python loop over .tolist()."""

import torch


def numerical_gradient(f, x, eps=1e-6):
    values = []
    for k in range(x.numel()):
        plus = x.detach().clone()
        plus.view(-1)[k] += eps
        minus = x.detach().clone()
        minus.view(-1)[k] -= eps
        values.append((float(f(plus)) - float(f(minus))) / (2 * eps))
    return torch.tensor(values, dtype=torch.float64).reshape(x.shape)


def gradient_error(analytic, numeric):
    worst = 0.0
    for a, n in zip(analytic.reshape(-1).tolist(), numeric.reshape(-1).tolist(), strict=True):
        if a != 0 or n != 0:
            worst = max(worst, abs(a - n) / max(abs(a), abs(n)))
    return worst


def check_gradient(f, x):
    point = x.clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), [point])
    return gradient_error(analytic, numerical_gradient(f, x))
