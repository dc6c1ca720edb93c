"""F.softmax on -inf-filled logits, then nan_to_num for the fully masked slices."""

import torch
import torch.nn.functional as F


def logsumexp(x, dim=-1):
    m = x.max(dim=dim, keepdim=True).values
    return m.squeeze(dim) + (x - m).exp().sum(dim).log()


def softmax(x, dim=-1, mask=None):
    if mask is not None:
        x = torch.where(mask, x, torch.tensor(float("-inf"), dtype=x.dtype))
    return F.softmax(x, dim=dim).nan_to_num(0.0)
