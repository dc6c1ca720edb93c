"""Markdown to HTML on the server, code blocks highlighted, cached per exercise version.

Raw HTML in Markdown is not passed through: statements and hints render to a known set
of tags, which the page's Content-Security-Policy does not need to trust.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return f'<pre class="highlight"><code>{highlight(code, lexer, _FORMATTER)}</code></pre>'


_MD = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")


@lru_cache(maxsize=512)
def render_markdown(text: str) -> str:
    """HTML for a statement or a hint (keyed by the text, hence by its version)."""
    return _MD.render(text)
