"""Index loops for the peak, and a bitmask integer for each candidate list."""


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    peak = 0
    start = -1
    for j in range(len(checkpoints) + 1):
        end = n - 1
        if j < len(checkpoints):
            end = checkpoints[j]
        total = 0
        for c in checkpoints:
            if c < start:
                total += sizes[c]
        i = start
        if i < 0:
            i = 0
        while i <= end:
            total += sizes[i]
            i += 1
        if total > peak:
            peak = total
        start = end
    return peak


def best_checkpoints(sizes):
    n = len(sizes)
    best = []
    best_peak = peak_memory(sizes, [])
    for mask in range(1, 2 ** (n - 1)):
        chosen = []
        for layer in range(n - 1):
            if mask & (1 << layer):
                chosen.append(layer)
        peak = peak_memory(sizes, chosen)
        if peak < best_peak:
            best = chosen
            best_peak = peak
    return best
