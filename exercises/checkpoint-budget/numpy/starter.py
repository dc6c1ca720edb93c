import numpy as np  # noqa: F401


def peak_memory(sizes, checkpoints):
    """The peak memory of a training step that keeps ``checkpoints``.

    Args:
        sizes: ``sizes[i]`` is the memory of activation ``i`` (and of the gradient with
            respect to it); a list of ints or a 1-D NumPy integer array, length n >= 1.
        checkpoints: a strictly increasing list of layer indices from 0 to n - 2
            (possibly empty).

    Returns:
        The largest memory held at any moment of the forward and backward passes, an
        integer. The network input (activation -1) is not counted.
    """
    raise NotImplementedError


def recompute_cost(costs, checkpoints):
    """The compute cost of the layers the backward pass runs again.

    Args:
        costs: ``costs[i]`` is the cost of running layer ``i`` once; a list of ints or a
            1-D NumPy integer array, length n >= 1.
        checkpoints: a strictly increasing list of layer indices from 0 to n - 2
            (possibly empty).

    Returns:
        The sum, over the segments ``b + 1 .. e``, of the costs of layers
        ``b + 1 .. e - 1``, an integer.
    """
    raise NotImplementedError


def plan_checkpoints(sizes, costs, budget):
    """The cheapest checkpoint list that fits the memory budget.

    Args:
        sizes: the activation sizes, as for ``peak_memory``.
        costs: the layer costs, as for ``recompute_cost``.
        budget: the memory available, an int >= 0.

    Returns:
        A checkpoint list (list, tuple or 1-D array of ints) whose peak memory is at
        most ``budget`` and whose recompute cost is the least among all such lists, or
        None when no checkpoint list fits.
    """
    raise NotImplementedError
