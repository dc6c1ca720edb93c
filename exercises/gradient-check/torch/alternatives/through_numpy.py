"""Does the differences in NumPy on a float64 copy and converts back with
torch.from_numpy; the error computed in NumPy too."""

import numpy as np
import torch


def numerical_gradient(f, x, eps=1e-6):
    base = x.detach().numpy().copy()
    grad = np.zeros_like(base)
    for index in np.ndindex(base.shape):
        old = base[index]
        base[index] = old + eps
        f_plus = float(f(torch.from_numpy(base)))
        base[index] = old - eps
        f_minus = float(f(torch.from_numpy(base)))
        base[index] = old
        grad[index] = (f_plus - f_minus) / (2 * eps)
    return torch.from_numpy(grad)


def gradient_error(analytic, numeric):
    a = analytic.detach().numpy()
    n = numeric.detach().numpy()
    scale = np.maximum(np.abs(a), np.abs(n))
    ratios = np.divide(np.abs(a - n), scale, out=np.zeros_like(scale), where=scale > 0)
    return float(ratios.max())


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    y = f(point)
    y.backward()
    return gradient_error(point.grad, numerical_gradient(f, x))
