"""The catalog's sections: their order and a line about each, from ``exercises/sections.toml``.

An exercise names its section in ``exercise.toml``; ``sections.toml`` (optional) lists the
sections in the order the catalog shows them, each with a sentence for its header::

    [[sections]]
    name = "Tensors and autograd"
    summary = "What a PyTorch user needs first."

A section no entry names comes after the listed ones, in the order its first exercise
comes (by ``order``, then title), with no summary: an instructor who starts a section in
one ``exercise.toml`` sees it in the catalog at once. A listed section that no exercise
names is an error (most often a misspelt name, which would leave its exercises last).
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graders.errors import CatalogError

FILE_NAME = "sections.toml"


class SectionMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    summary: str = Field("", max_length=300)


class SectionsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sections: list[SectionMeta] = []


@dataclass(frozen=True)
class Section:
    name: str
    summary: str


def load_sections(folder: Path) -> list[SectionMeta]:
    """The sections ``folder/sections.toml`` lists, in its order (none without the file)."""
    path = folder / FILE_NAME
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        listed = SectionsFile.model_validate(data).sections
    except UnicodeDecodeError:
        raise CatalogError(str(path), "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(str(path), f"not valid TOML: {exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        raise CatalogError(str(path), f"{where}: {error['msg']}") from None
    seen: set[str] = set()
    for section in listed:
        if section.name in seen:
            raise CatalogError(str(path), f"section {section.name!r} is listed twice")
        seen.add(section.name)
    return listed


def sections_version(folder: Path) -> str:
    """A hash of ``sections.toml`` ("" without one): a live reload compares it."""
    path = folder / FILE_NAME
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else ""


def ordered_sections(listed: list[SectionMeta], used: Iterable[str], where: Path) -> list[Section]:
    """Every section in catalog order: the listed ones, then the others as ``used`` (the
    exercises' sections, in exercise order) first names them."""
    names = list(dict.fromkeys(used))
    unused = [s.name for s in listed if s.name not in names]
    if unused:
        raise CatalogError(
            str(where / FILE_NAME),
            f"no exercise is in section {unused[0]!r} (an exercise.toml names its section)",
        )
    listed_names = {s.name for s in listed}
    return [Section(s.name, s.summary) for s in listed] + [
        Section(name, "") for name in names if name not in listed_names
    ]
