import itertools

import torch


def numerical_gradient(f, x, eps=1e-6):
    """Central differences of ``f`` at ``x``, one element at a time, recording no graph."""
    grad = torch.zeros_like(x)
    with torch.no_grad():
        for index in itertools.product(*(range(n) for n in x.shape)):
            saved = x[index].item()  # a Python float, not a view of the element
            x[index] = saved + eps
            f_plus = f(x)
            x[index] = saved - eps
            f_minus = f(x)
            x[index] = saved  # put the element back exactly as it was
            grad[index] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    """The largest |a - n| / max(|a|, |n|), counting 0 where both are 0, as a float."""
    difference = (analytic - numeric).abs()
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.where(scale > 0, difference / scale, torch.zeros_like(scale))
    return ratios.max().item()


def check_gradient(f, x):
    """The relative error between autograd's gradient of ``f`` at ``x`` and the numerical one."""
    point = x.detach().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    return gradient_error(analytic, numerical_gradient(f, x))
