import numpy as np  # noqa: F401


def checkpoint_forward(layers, x, checkpoint_indices):
    """Run ``x`` through ``layers`` once, keeping only a few activations.

    Args:
        layers: list of callables; ``layers[i]`` turns activation ``i - 1`` into
            activation ``i``.
        x: the input array (activation ``-1``).
        checkpoint_indices: the layers whose outputs to keep (possibly empty, in any
            order).

    Returns:
        ``(output, saved)``: the output of the last layer, and a dict holding a copy of
        ``x`` under ``-1`` and a copy of the output of ``layers[i]`` under each ``i`` in
        ``checkpoint_indices``, and nothing else.
    """
    raise NotImplementedError


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    """Rebuild the output of ``layers[layer_idx]`` from the closest saved activation below.

    Args:
        layers: the same list of callables that ``checkpoint_forward`` ran.
        saved_activations: the ``saved`` dict returned by ``checkpoint_forward``.
        checkpoint_indices: the indices that were checkpointed.
        layer_idx: which activation to rebuild, ``0 <= layer_idx < len(layers)``.

    Returns:
        Activation ``layer_idx``, computed by running only the layers after the largest
        saved key strictly below ``layer_idx``.
    """
    raise NotImplementedError
