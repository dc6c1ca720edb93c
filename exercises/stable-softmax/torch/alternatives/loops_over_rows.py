"""Loops over the rows of x moved to the last dim, then torch.stack (autograd follows)."""

import torch


def _row_lse(row):
    top = max(row[j] for j in range(len(row)))
    total = sum(torch.exp(row[j] - top) for j in range(len(row)))
    return top + torch.log(total)


def _row_softmax(row, keep):
    kept = [j for j in range(len(row)) if keep[j]]
    if not kept:
        return torch.zeros_like(row)
    top = max(row[j] for j in kept)
    exps = {j: torch.exp(row[j] - top) for j in kept}
    total = sum(exps.values())
    zero = torch.zeros((), dtype=row.dtype)
    return torch.stack([exps[j] / total if j in exps else zero for j in range(len(row))])


def logsumexp(x, dim=-1):
    moved = x.movedim(dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = torch.stack([_row_lse(rows[i]) for i in range(rows.shape[0])])
    return out.reshape(moved.shape[:-1])


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    moved = x.movedim(dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    keep = mask.movedim(dim, -1).reshape(rows.shape).tolist()
    out = torch.stack([_row_softmax(rows[i], keep[i]) for i in range(rows.shape[0])])
    return out.reshape(moved.shape).movedim(-1, dim)
