"""NumPy evaluates every candidate list at once (a boolean row per list); returns NumPy integers."""

import numpy as np


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    row = np.zeros((1, max(n - 1, 0)), dtype=bool)
    row[0, list(checkpoints)] = True
    return int(peaks_of(np.asarray(sizes, dtype=np.int64), row)[0])


def peaks_of(sizes, rows):
    """The peak of every row of rows (shape m x (n-1), True where a layer is a checkpoint)."""
    m, n = rows.shape[0], len(sizes)
    # ends[r, e]: layer e ends a segment (a checkpoint, or the last layer n-1)
    ends = np.concatenate([rows, np.ones((m, 1), dtype=bool)], axis=1)
    positions = np.arange(n)
    prefix = np.concatenate([[0], np.cumsum(sizes)])
    # start[r, e]: the boundary before layer e (largest checkpoint < e, or -1)
    marks = np.where(ends, positions, -1)
    last_mark = np.maximum.accumulate(marks, axis=1)[:, :-1]
    start = np.concatenate([np.full((m, 1), -1), last_mark], axis=1)
    # kept[r, e]: the sizes of the checkpoints strictly below start[r, e]
    ckpt_sizes = np.where(rows, sizes[:-1], 0)
    zero = np.zeros((m, 1), dtype=np.int64)
    kept_upto = np.concatenate([zero, np.cumsum(ckpt_sizes, axis=1)], axis=1)
    kept = np.where(start >= 0, np.take_along_axis(kept_upto, np.maximum(start, 0), axis=1), 0)
    step = kept + prefix[positions + 1] - prefix[np.maximum(start, 0)]
    return np.where(ends, step, 0).max(axis=1)


def best_checkpoints(sizes):
    n = len(sizes)
    masks = np.arange(2 ** (n - 1))[:, None]
    rows = (masks >> np.arange(n - 1)) & 1 == 1
    best = rows[np.argmin(peaks_of(np.asarray(sizes, dtype=np.int64), rows))]
    return list(np.flatnonzero(best))  # a list of np.int64
