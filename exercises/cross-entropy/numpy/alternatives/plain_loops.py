"""Plain Python loops over the rows, with math.exp and math.log."""

import math

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    n_rows, n_classes = logits.shape
    kept = [i for i in range(n_rows) if targets[i] != ignore_index]
    count = max(len(kept), 1)
    total = 0.0
    grad = np.zeros_like(logits)
    for i in kept:
        row = [float(v) for v in logits[i]]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        s = sum(exps)
        y = int(targets[i])
        total += top + math.log(s) - row[y]
        for j in range(n_classes):
            grad[i, j] = (exps[j] / s - (1.0 if j == y else 0.0)) / count
    return total / count, grad
