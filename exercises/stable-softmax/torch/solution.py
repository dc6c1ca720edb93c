import torch


def logsumexp(x, dim=-1):
    """log(sum(exp(x))) along ``dim``, with the slice's maximum taken out first."""
    top = torch.amax(x, dim=dim, keepdim=True)
    total = torch.sum(torch.exp(x - top), dim=dim, keepdim=True)
    return torch.squeeze(top + torch.log(total), dim=dim)


def softmax(x, dim=-1, mask=None):
    """exp(x - max) normalised along ``dim``; masked entries count as -inf."""
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    kept = x.masked_fill(~mask, float("-inf"))  # exp(-inf) is 0: masked entries drop out
    top = torch.amax(kept, dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))  # fully masked slice
    weights = torch.exp(kept - top)
    total = torch.sum(weights, dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))  # 0 / 1 there
