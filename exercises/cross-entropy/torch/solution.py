import torch


def cross_entropy(logits, targets, ignore_index=-100):
    """Mean cross-entropy of ``logits`` against ``targets`` over the kept rows, by hand."""
    log_probs = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    safe_targets = torch.where(keep, targets, torch.zeros_like(targets))
    picked = log_probs.gather(1, safe_targets.unsqueeze(1)).squeeze(1)
    n_kept = keep.sum().clamp(min=1)
    return -(picked * keep).sum() / n_kept
