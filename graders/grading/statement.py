"""Track-only parts of a statement: the ``::: track NAME`` blocks of ``statement.md``.

A statement is shared by every track of its exercise, except the blocks fenced like this
(the container syntax of markdown-it, from mdit-py-plugins), which only that track's
learners read::

    ::: track numpy
    ## NumPy track

    `np.copy(a)` makes an exact copy.
    :::

A block starts at the top level of the statement (not inside a list, a quote or another
block), names one track that the exercise has, and ends at a line of ``:::``. Loading
the catalog rejects anything else, naming the file and the line: a misspelt marker would
otherwise show up as text in every track's view.

This module parses; ``app.rendering`` renders with the same parser rules, and
``drill validate`` searches each track's view (:func:`track_view`) for its entry points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin

from graders.errors import CatalogError

KEYWORD = "track"  # the word after the colons: "::: track numpy"
OPEN = f"container_{KEYWORD}_open"
CLOSE = f"container_{KEYWORD}_close"
# Every track name a marker may use (graders.grading.catalog.TRACKS), as learners read it.
TRACK_LABELS = {"numpy": "NumPy", "torch": "PyTorch"}


def _any_params(_params: str, _markup: str) -> bool:
    # Every line of three or more colons is parsed as a block, so that a misspelt or
    # stray marker is an error of the catalog instead of text in the statement.
    return True


def use_track_blocks(md: MarkdownIt, render: Callable[..., str] | None = None) -> MarkdownIt:
    """Teach ``md`` the track blocks (``render``: the render rule of their tokens)."""
    container_plugin(md, KEYWORD, validate=_any_params, render=render)
    return md


_PARSER = use_track_blocks(MarkdownIt("commonmark").enable("table"))


def track_of(token: Token) -> str:
    """The track a block's opening token names ("" if it names none)."""
    words = token.info.split()
    return words[1] if len(words) == 2 and words[0] == KEYWORD else ""


@dataclass(frozen=True)
class TrackBlock:
    track: str
    start: int  # the line of "::: track NAME", counted from 0
    end: int  # the line of the closing ":::", counted from 0


def _blocks(text: str) -> list[tuple[Token, int]]:
    """Each block's opening token and the line just past its content."""
    return [
        (token, token.map[1])
        for token in _PARSER.parse(text)
        if token.type == OPEN and token.map is not None
    ]


def _lines(text: str) -> list[str]:
    """The lines as the parser counts them (it breaks lines at \\n, \\r\\n and \\r only)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _closed(lines: list[str], end: int, markup: str) -> bool:
    """Whether line ``end`` is the closing ":::" (the parser runs an unclosed block to
    the end of the statement, which is not an error it reports)."""
    if end >= len(lines):
        return False
    line = lines[end].strip()
    return set(line) == {":"} and len(line) >= len(markup)


def _problem(token: Token, marker: str, closed: bool, declared: list[str]) -> str | None:
    """What is wrong with one block's marker, or None."""
    words = token.info.split()
    if not words:
        return (
            f"{marker!r} closes no track block (a block opens with "
            f"'{token.markup} {KEYWORD} NAME' and ends with '{token.markup}')"
        )
    if words[0] != KEYWORD or len(words) != 2:
        choices = " or ".join(f"'::: {KEYWORD} {name}'" for name in declared)
        return f"{marker!r} is not a track marker; write {choices}"
    track = words[1]
    if track not in TRACK_LABELS:
        return (
            f"unknown track {track!r} in {marker!r} (tracks are named {' or '.join(TRACK_LABELS)})"
        )
    if track not in declared:
        tracks = ", ".join(declared)
        return f"{marker!r} names a track this exercise does not have (its tracks: {tracks})"
    if token.level != 0:
        return (
            f"{marker!r} is inside a list, a quote or another track block; a track block "
            "starts at the top level, after the one before it is closed"
        )
    if not closed:
        return f"the block {marker!r} is never closed (end it with a line '{token.markup}')"
    return None


def track_blocks(text: str, where: str, tracks: Iterable[str]) -> tuple[TrackBlock, ...]:
    """The track blocks of a statement; CatalogError (``where``: the file) on a marker
    that is not ``::: track NAME`` for one of ``tracks``, a block inside another block,
    or a block that is never closed."""
    declared = list(tracks)
    lines = _lines(text)
    found = []
    for token, end in _blocks(text):
        assert token.map is not None  # _blocks keeps only tokens with lines
        start = token.map[0]
        marker = lines[start].strip()
        problem = _problem(token, marker, _closed(lines, end, token.markup), declared)
        if problem:
            raise CatalogError(where, f"line {start + 1}: {problem}")
        found.append(TrackBlock(track_of(token), start, end))
    return tuple(found)


def track_view(text: str, track: str) -> str:
    """The Markdown of the statement as ``track``'s learners read it: the shared text
    and that track's blocks, without the marker lines and without the other tracks'
    blocks. Removed lines become blank lines, so that line numbers stay those of the
    file and no paragraph runs into the next. ``text`` must have loaded."""
    lines = _lines(text)
    for token, end in _blocks(text):
        assert token.map is not None
        start = token.map[0]
        hidden = range(start, end + 1) if track_of(token) != track else (start, end)
        for number in hidden:
            if number < len(lines):
                lines[number] = ""
    return "\n".join(lines)
