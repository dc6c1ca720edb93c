"""In-place exp_, log_ and masked_fill_ on fresh tensors that autograd has not saved."""

import torch


def logsumexp(x, dim=-1):
    top = x.amax(dim=dim, keepdim=True)
    shifted = x - top
    shifted.exp_()
    return shifted.sum(dim=dim).log_() + top.squeeze(dim)


def softmax(x, dim=-1, mask=None):
    shifted = x.clone()
    if mask is not None:
        shifted.masked_fill_(~mask, float("-inf"))
    top = shifted.amax(dim=dim, keepdim=True)
    top = top.masked_fill(top == float("-inf"), 0.0)  # amax keeps top for backward
    shifted = shifted - top
    shifted.exp_()
    total = shifted.sum(dim=dim, keepdim=True)
    return shifted / torch.where(total == 0, 1.0, total)
