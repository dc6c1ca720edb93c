"""Typed results as plain data, so that a test can compare them with a literal."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def plain(value: Any) -> Any:
    """``value`` with every pydantic model in it (in lists and dict values too) dumped to
    a dict."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
