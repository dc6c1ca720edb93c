def peak_memory(sizes, checkpoints):
    """The peak memory of a training step (forward and backward) with these checkpoints.

    Args:
        sizes: the memory of each activation, ``sizes[i]`` for the output of layer ``i``
            (a list of non-negative ints or a 1-D NumPy integer array, length n >= 1).
            The input of the network is not counted.
        checkpoints: a strictly increasing list of layer indices between 0 and n - 2
            (possibly empty).

    Returns:
        The largest memory held at any moment of either pass, as an integer (a Python
        int or a NumPy integer).
    """
    raise NotImplementedError


def best_checkpoints(sizes):
    """A checkpoint list whose peak memory is the smallest of all valid lists.

    Args:
        sizes: as for ``peak_memory``.

    Returns:
        A strictly increasing list of layer indices between 0 and n - 2 (a list, a tuple
        or a 1-D NumPy integer array; possibly empty). Any list that reaches the smallest
        peak is accepted.
    """
    raise NotImplementedError
