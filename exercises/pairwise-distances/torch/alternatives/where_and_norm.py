"""torch.linalg.vector_norm for the lengths, torch.where to clamp."""

import torch


def pairwise_sq_dists(x, y):
    x_len = torch.linalg.vector_norm(x, dim=1)
    y_len = torch.linalg.vector_norm(y, dim=1)
    d = x_len[:, None] ** 2 + y_len[None, :] ** 2 - 2 * (x @ y.T)
    return torch.where(d < 0, torch.zeros_like(d), d)
