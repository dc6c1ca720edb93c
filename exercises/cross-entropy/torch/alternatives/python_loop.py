"""A Python loop over the rows, the per-row losses stacked and summed."""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    losses = []
    for i in range(logits.shape[0]):
        y = int(targets[i])
        if y == ignore_index:
            continue
        row = logits[i]
        losses.append(torch.logsumexp(row, dim=0) - row[y])
    if not losses:
        return (logits * 0).sum()
    return torch.stack(losses).sum() / len(losses)
