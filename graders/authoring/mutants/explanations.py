"""The explained survivors: reading ``<track>/mutants.toml``.

A survivor the author does not kill with a test is explained there, mutant id -> why it
survives::

    [survivors]
    "flip-compare@12:15 '<' -> '<='" = "equivalent: the two are never equal here"
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from graders.errors import CatalogError

EXPLANATIONS = "mutants.toml"


def load_explanations(folder: Path) -> dict[str, str]:
    """``<track>/mutants.toml``'s ``[survivors]``: mutant id -> why it survives."""
    path = folder / EXPLANATIONS
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CatalogError(str(path), f"not valid TOML: {exc}") from None
    unknown = [key for key in data if key != "survivors"]
    if unknown:
        raise CatalogError(str(path), f"{unknown[0]}: unknown field (only [survivors])")
    survivors = data.get("survivors", {})
    if not isinstance(survivors, dict):
        raise CatalogError(str(path), "survivors: must be a table of mutant id = reason")
    for key, reason in survivors.items():
        if not isinstance(reason, str) or not reason.strip():
            raise CatalogError(str(path), f"survivors.{key!r}: the reason must be a text")
    return {key: reason.strip() for key, reason in survivors.items()}
