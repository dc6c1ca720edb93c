"""Plain torch operations and the detach trick, no torch.autograd.Function: the values and
gradients are right, but no custom backward runs.

Breaks: custom_function
"""

import torch


def softplus(x):
    return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))


def ste_clamp(x, low, high):
    # The forward value is the clamp; the gradient of x is 1 through the first term.
    return x + (torch.clamp(x, low, high) - x).detach()
