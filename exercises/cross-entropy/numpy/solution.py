import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    """Mean cross-entropy of ``logits`` against ``targets`` over the kept rows, and its gradient."""
    rows = np.arange(logits.shape[0])
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))

    keep = targets != ignore_index
    safe_targets = np.where(keep, targets, 0)
    n_kept = max(int(keep.sum()), 1)

    picked = log_probs[rows, safe_targets]
    loss = -np.sum(picked[keep]) / n_kept

    grad = np.exp(log_probs)
    grad[rows, safe_targets] -= 1
    grad[~keep] = 0
    grad /= n_kept
    return float(loss), grad
