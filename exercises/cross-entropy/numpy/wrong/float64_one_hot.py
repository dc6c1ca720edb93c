"""Builds the one-hot matrix with np.eye, which is float64: a float32 gradient becomes float64.

Breaks: float32
"""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    keep = targets != ignore_index
    one_hot = np.eye(logits.shape[1])[np.where(keep, targets, 0)]
    n = max(int(keep.sum()), 1)
    loss = -(log_p * one_hot).sum(axis=1)[keep].sum() / n
    grad = (np.exp(log_p) - one_hot) * keep[:, None] / n
    return loss, grad
