"""Markdown to HTML on the server, code blocks highlighted, cached per exercise version.
A statement's track-only blocks (graders.grading.statement) render per track.

Raw HTML in Markdown is not passed through: statements and hints render to a known set
of tags, which the page's Content-Security-Policy does not need to trust.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererProtocol
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from graders.grading.statement import CLOSE, OPEN, TRACK_LABELS, track_of, use_track_blocks

_FORMATTER = HtmlFormatter(nowrap=True)


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    html = highlight(code, lexer, _FORMATTER)
    # Focusable: a wide block scrolls sideways, and a keyboard must be able to scroll it.
    return f'<pre class="highlight" tabindex="0"><code>{html}</code></pre>'


_MD = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")
GOING_FURTHER = "going-further"  # the id of a statement's "Going further" heading


def _mark_going_further(state: StateCore) -> None:
    """Give the first heading that reads "Going further" an id, so that the page can
    point at (and highlight) the questions for a learner who solved the exercise."""
    for heading, inline in itertools.pairwise(state.tokens):
        title = inline.content.strip().rstrip(".:!").casefold()
        if heading.type == "heading_open" and title == "going further":
            heading.attrSet("id", GOING_FURTHER)
            return


_MD.core.ruler.push("going_further", _mark_going_further)


@lru_cache(maxsize=512)
def render_markdown(text: str) -> str:
    """HTML for a hint (keyed by the text, hence by its version)."""
    html: str = _MD.render(text)
    return html


# Statements: the same Markdown, plus the "::: track NAME" blocks of graders.grading.statement.
def _render_track_block(
    renderer: RendererProtocol,
    tokens: Sequence[Token],
    idx: int,
    _options: OptionsDict,
    env: EnvType,
) -> str:
    """A block as a ``<div class="track-only" data-track=NAME>``; in the view of every
    track, it opens with a label naming its track, for a reader who sees them all."""
    token = tokens[idx]
    if token.nesting < 0:
        return "</div>\n"
    track = track_of(token)
    html = f'<div class="track-only" data-track="{escape(track)}">\n'
    if not env.get("track"):
        label = TRACK_LABELS.get(track, track)
        html += f'<p class="track-only-label">{escape(label)} track only</p>\n'
    return html


def _keep_one_track(state: StateCore) -> None:
    """In one track's view (``env["track"]``), drop the other tracks' blocks."""
    track = state.env.get("track")
    if not track:
        return
    kept, depth = [], 0
    for token in state.tokens:
        if depth:  # inside a dropped block
            depth += (token.type == OPEN) - (token.type == CLOSE)
        elif token.type == OPEN and track_of(token) != track:
            depth = 1
        else:
            kept.append(token)
    state.tokens = kept


_STATEMENT_MD = use_track_blocks(
    MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table"),
    _render_track_block,
)
_STATEMENT_MD.core.ruler.push("one_track", _keep_one_track)
_STATEMENT_MD.core.ruler.push("going_further", _mark_going_further)  # of what is kept


@lru_cache(maxsize=512)
def render_statement(text: str, track: str | None = None) -> str:
    """HTML for a statement: as ``track``'s learners read it (the shared text and that
    track's blocks), or, with no track, every block, each labelled with its track."""
    html: str = _STATEMENT_MD.render(text, {"track": track} if track else {})
    return html


# Learners' code on the instructor pages. Pygments escapes every character of the code;
# the limits keep a hostile submission from making a page slow or huge (lexing costs
# about 10-20 us a character, and a dense line can come out 16 times larger as spans).
HIGHLIGHT_CHARS = 8_000  # a real solution is under 3,000
HIGHLIGHT_HTML_CHARS = 64_000
_PYTHON = get_lexer_by_name("python", stripnl=False, ensurenl=False)  # keep the code's edges


@lru_cache(maxsize=256)
def highlight_python(code: str) -> Markup:
    """Python source as HTML spans with Pygments' classes (the page's ``.highlight``
    colours), or the escaped plain text when it is too long to highlight."""
    if len(code) <= HIGHLIGHT_CHARS:
        html = highlight(code, _PYTHON, _FORMATTER)
        if len(html) <= HIGHLIGHT_HTML_CHARS:
            return Markup(html)  # noqa: S704 -- Pygments escaped every character
    return escape(code)
