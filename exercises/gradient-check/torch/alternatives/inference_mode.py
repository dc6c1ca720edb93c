"""Works under torch.inference_mode() on a clone, with index_put_-free flat indexing;
check_gradient computes the analytic gradient first."""

import torch


def numerical_gradient(f, x, eps=1e-6):
    with torch.inference_mode():
        work = x.detach().clone().reshape(-1)
        grad = torch.zeros(work.numel(), dtype=torch.float64)
        for k in range(work.numel()):
            saved = float(work[k])
            work[k] = saved + eps
            f_plus = float(f(work.reshape(x.shape)))
            work[k] = saved - eps
            f_minus = float(f(work.reshape(x.shape)))
            work[k] = saved
            grad[k] = (f_plus - f_minus) / (2 * eps)
    return grad.reshape(x.shape).clone()


def gradient_error(analytic, numeric):
    scale = torch.maximum(analytic.abs(), numeric.abs())
    ratios = torch.zeros_like(scale)
    ratios[scale > 0] = (analytic - numeric).abs()[scale > 0] / scale[scale > 0]
    return ratios.max().item()


def check_gradient(f, x):
    point = x.detach().clone().requires_grad_(True)
    (analytic,) = torch.autograd.grad(f(point), point)
    numeric = numerical_gradient(f, x)
    return gradient_error(analytic, numeric)
