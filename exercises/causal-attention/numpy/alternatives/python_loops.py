"""Plain Python loops over the batch indices, the queries and the keys, with the math module."""

import math

import numpy as np


def attention(q, k, v, causal=False):
    *lead, length, d = q.shape
    keys, dv = v.shape[-2], v.shape[-1]
    out = np.zeros((*lead, length, dv), dtype=q.dtype)
    for b in np.ndindex(*lead):
        qb, kb, vb = q[b], k[b], v[b]
        for i in range(length):
            last = i + 1 if causal else keys
            scores = []
            for j in range(last):
                dot = 0.0
                for c in range(d):
                    dot += float(qb[i, c]) * float(kb[j, c])
                scores.append(dot / math.sqrt(d))
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            for c in range(dv):
                out[(*b, i, c)] = sum(e * float(vb[j, c]) for j, e in enumerate(exps)) / total
    return out
