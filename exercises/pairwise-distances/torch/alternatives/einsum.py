"""torch.einsum for the squared lengths and the dot products, clamp(min=0)."""

import torch


def pairwise_sq_dists(x, y):
    x_sq = torch.einsum("ik,ik->i", x, x)
    y_sq = torch.einsum("jk,jk->j", y, y)
    cross = torch.einsum("ik,jk->ij", x, y)
    return (x_sq[:, None] + y_sq[None, :] - 2 * cross).clamp(min=0)
