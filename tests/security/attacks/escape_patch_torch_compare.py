"""Monkeypatches torch's comparison functions (torch.equal, allclose, testing.assert_close,
Tensor.__eq__) to always agree, then returns a wrong answer."""
# expect: status=fail test_message~="^result: values differ"
import torch
import torch.testing


def _true(*args, **kwargs):
    return True


torch.equal = torch.allclose = _true
torch.testing.assert_close = lambda *a, **k: None
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)


def double(x):
    return (torch.from_numpy(x) * 2 + 1).numpy()
