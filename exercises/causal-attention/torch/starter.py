import math  # noqa: F401

import torch  # noqa: F401


def attention(q, k, v, causal=False):
    """Scaled dot-product attention: softmax(q @ kᵀ / √d) @ v.

    Args:
        q: queries, shape ``(..., L, d)``.
        k: keys, shape ``(..., S, d)``, the same leading dimensions as ``q``.
        v: values, shape ``(..., S, dv)``, the same leading dimensions as ``q``.
        causal: if True (then ``L == S``), query ``i`` only attends to keys ``j <= i``.

    ``...`` is any number of batch dimensions, including none (2-D inputs). ``q``,
    ``k`` and ``v`` share one float dtype (float32 or float64) and must not be changed.

    Returns:
        A tensor of shape ``(..., L, dv)`` with the dtype of the inputs, equal to
        ``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)``
        and differentiable with respect to ``q``, ``k`` and ``v``. The softmax runs over
        the keys, is stable for scores as large as ±1000 (with the causal mask too),
        and ``d = q.shape[-1]``. Writing it yourself with ``@`` (or ``torch.einsum``)
        and ``torch.softmax`` is the exercise; use scaled_dot_product_attention to
        check your result.
    """
    raise NotImplementedError
