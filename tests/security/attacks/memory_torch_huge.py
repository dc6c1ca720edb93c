"""Allocates a 16 GiB torch tensor."""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded \(line \d+(: [^\n]*)?\)$"
import torch


def double(x):
    block = torch.ones(16 * 2**30, dtype=torch.uint8)
    return block.numpy()
