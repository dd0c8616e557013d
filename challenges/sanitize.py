"""The HTML allow-list for poems and instructions (docs/decisions.md, "Poem HTML allow-list").

Staff write poem and instruction HTML in the admin; players' browsers render it as HTML. nh3
(the Ammonia sanitiser) keeps only the tags and attributes below and drops everything else, so a
script, an event handler, a style or a `javascript:`/`data:` link can never reach a player,
whoever typed it. `removed_parts` tells staff what was dropped, so nothing vanishes silently."""

import re
from dataclasses import dataclass
from html.parser import HTMLParser

import nh3

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
ALLOWED_TAGS = frozenset({"p", "br", "em", "strong", "i", "b", "ul", "ol", "li", "a"} | HEADINGS)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer"
# Dropped together with everything inside them; other unknown tags lose the tag, keep the text.
CLEAN_CONTENT_TAGS = frozenset({"script", "style", "template", "iframe", "object", "embed", "noscript", "textarea"})

# What a URL's scheme looks like once browsers ignore whitespace and control characters in it.
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):", re.ASCII)
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]+")


def sanitize_html(html: str) -> str:
    """The HTML a player will see: only the allow-list survives; links get rel="noopener noreferrer"."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(CLEAN_CONTENT_TAGS),
        # "*": none, or Ammonia would keep its generic `lang` and `title` on every tag.
        attributes={"*": set(), **{tag: set(attrs) for tag, attrs in ALLOWED_ATTRIBUTES.items()}},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )


def _url_scheme(url: str) -> str | None:
    match = _SCHEME.match(_IGNORED_IN_URL.sub("", url).lower())
    return match.group(1) if match else None


class _Inventory(HTMLParser):
    """Every tag, attribute and link scheme in the staff's input, to name what the sanitiser drops."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.removed: list[str] = []

    def _note(self, text: str) -> None:
        if text not in self.removed:
            self.removed.append(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self._note(f"<{tag}> element")
            return
        allowed = ALLOWED_ATTRIBUTES.get(tag, set())
        for name, value in attrs:
            if name not in allowed:
                if not (tag == "a" and name == "rel"):  # rel is always rewritten, not removed
                    self._note(f'"{name}" attribute on <{tag}>')
            elif name == "href" and value is not None:
                scheme = _url_scheme(value)
                if scheme is not None and scheme not in URL_SCHEMES:
                    self._note(f"{scheme}: link")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_comment(self, data: str) -> None:
        self._note("HTML comment")

    def handle_decl(self, decl: str) -> None:
        self._note("declaration")

    def handle_pi(self, data: str) -> None:
        self._note("processing instruction")

    def unknown_decl(self, data: str) -> None:
        self._note("declaration")


def removed_parts(html: str) -> list[str]:
    """What sanitize_html(html) drops, in words staff understand, each once, in order of appearance."""
    inventory = _Inventory()
    inventory.feed(html)
    inventory.close()
    return inventory.removed


@dataclass(frozen=True)
class SanitizeResult:
    html: str
    removed: list[str]


def sanitize_with_report(html: str) -> SanitizeResult:
    return SanitizeResult(html=sanitize_html(html), removed=removed_parts(html))
