import torch  # noqa: F401


def checkpoint_forward(layers, x, checkpoint_indices):
    """Run ``x`` through ``layers`` once without recording a graph, keeping a few activations.

    Runs under ``torch.no_grad()``: the output and every saved tensor have
    ``requires_grad=False`` and no ``grad_fn``.

    Args:
        layers: list (or ``nn.ModuleList``) of callables; ``layers[i]`` turns activation
            ``i - 1`` into activation ``i``.
        x: the input tensor (activation ``-1``).
        checkpoint_indices: the layers whose outputs to keep (possibly empty, in any
            order).

    Returns:
        ``(output, saved)``: the output of the last layer, and a dict holding a clone of
        ``x`` under ``-1`` and a clone of the output of ``layers[i]`` under each ``i`` in
        ``checkpoint_indices``, and nothing else.
    """
    raise NotImplementedError


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    """Rebuild the output of ``layers[layer_idx]`` with autograd on, from the closest saved
    activation below it.

    Runs inside ``torch.enable_grad()`` (even when called under ``torch.no_grad()``) and
    starts from the saved tensor itself, so the result is part of the graph of the layers
    it ran, and of the starting tensor when that one requires grad.

    Args:
        layers: the same layers that ``checkpoint_forward`` ran.
        saved_activations: the ``saved`` dict returned by ``checkpoint_forward``.
        checkpoint_indices: the indices that were checkpointed.
        layer_idx: which activation to rebuild, ``0 <= layer_idx < len(layers)``.

    Returns:
        Activation ``layer_idx``, computed by running only the layers after the largest
        saved key strictly below ``layer_idx``.
    """
    raise NotImplementedError
