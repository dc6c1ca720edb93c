import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    """Squared distances between the rows of x (n, d) and of y (m, d), shape (n, m)."""
    x_sq = (x * x).sum(dim=1, keepdim=True)  # (n, 1): squared length of each row of x
    y_sq = (y * y).sum(dim=1)  # (m,), broadcast as a row
    d = x_sq - 2 * (x @ y.T) + y_sq
    return d.clamp_min(0)  # rounding can leave tiny negatives
