"""Wording that more than one ``drill`` command prints."""

from __future__ import annotations


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
