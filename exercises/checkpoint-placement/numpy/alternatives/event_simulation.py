"""Simulates both passes event by event with a dict of live buffers; recursive include/exclude."""


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    kept = set(checkpoints)
    live = {}  # name -> size of every buffer currently held
    peak = 0

    def measure():
        nonlocal peak
        peak = max(peak, sum(live.values()))

    # Forward: layer i reads activation i-1 and writes activation i.
    for i in range(n):
        live[("act", i)] = sizes[i]
        measure()
        if i - 1 >= 0 and i - 1 not in kept:
            del live[("act", i - 1)]
    # The output of the last layer is used by the loss; the gradient arrives in its place.
    del live[("act", n - 1)]
    bounds = [-1, *sorted(kept)]
    ends = [*sorted(kept), n - 1]
    for start, end in reversed(list(zip(bounds, ends))):
        live[("grad", end)] = sizes[end]
        if end in kept:
            del live[("act", end)]  # the checkpoint at the end of this segment is done
        for i in range(start + 1, end):
            live[("act", i)] = sizes[i]
            measure()
        measure()
        for i in range(start + 1, end):
            del live[("act", i)]
        del live[("grad", end)]
        # the gradient now arrives at activation start, kept until the segment below is done
    return peak


def best_checkpoints(sizes):
    n = len(sizes)

    def search(layer, chosen):
        if layer == n - 1:
            return peak_memory(sizes, chosen), chosen
        without = search(layer + 1, chosen)
        with_it = search(layer + 1, [*chosen, layer])
        return with_it if with_it[0] < without[0] else without

    return search(0, [])[1]
