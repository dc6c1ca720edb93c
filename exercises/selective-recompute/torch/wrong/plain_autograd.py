"""No custom Function: plain autograd keeps both h and the GELU output.

Breaks: memory_kept
"""

import torch.nn.functional as F


def mlp_block(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)
