"""Computes in float64 and converts the result back to x's dtype (autograd follows .to)."""


def logsumexp(x, dim=-1):
    d = x.double()
    m = d.amax(dim=dim, keepdim=True)
    return (m + (d - m).exp().sum(dim=dim, keepdim=True).log()).squeeze(dim).to(x.dtype)


def softmax(x, dim=-1, mask=None):
    d = x.double()
    if mask is not None:
        d = d.masked_fill(~mask, float("-inf"))
    m = d.amax(dim=dim, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = (d - m).exp()
    s = e.sum(dim=dim, keepdim=True)
    return (e / s.clamp_min(1e-300)).to(x.dtype)
