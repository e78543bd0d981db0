"""Rewriting the ids, classes and test hooks of an HTML document without breaking it.

The document's scripts (inlined by the site router) and the task spec are *code*: a
token that appears in them may be looked up at run time, so it keeps its name. Any
other id, class or test hook is renamed everywhere it is used in markup (``id``,
``class``, ``for``, ``aria-labelledby`` and the other id references, ``href="#id"``)
and in the document's CSS selectors. Elements with no id may get a random one (noise).
"""

from __future__ import annotations

import hashlib
import html as html_lib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

HOOK_ATTRS = (
    "data-testid",
    "data-test-id",
    "data-test",
    "data-qa",
    "data-cy",
    "data-automation-id",
)
ID_REF_ATTRS = frozenset(
    {
        "for",
        "aria-labelledby",
        "aria-describedby",
        "aria-controls",
        "aria-owns",
        "aria-activedescendant",
        "aria-details",
        "aria-errormessage",
        "aria-flowto",
        "headers",
        "list",
        "form",
    }
)
_NAMED_ATTRS = frozenset({"id", "class", "href", *ID_REF_ATTRS, *HOOK_ATTRS})
_NO_NOISE = frozenset(
    {
        "html",
        "head",
        "body",
        "script",
        "style",
        "meta",
        "link",
        "title",
        "template",
        "noscript",
        "base",
    }
)
_CSS_NAME = re.compile(r"([.#])(-?[A-Za-z_][\w-]*)")


@dataclass
class Renamer:
    """Seeded, per-token decisions: the same token gets the same new name all episode."""

    salt: int
    share: float  # the fraction of eligible tokens renamed (the strength)

    def _hash(self, *parts: object) -> str:
        return hashlib.blake2b(
            ":".join(map(str, (self.salt, *parts))).encode(), digest_size=8
        ).hexdigest()

    def rename(self, kind: str, token: str) -> str | None:
        """A new name for ``token``, or None when it keeps its name this episode."""
        digest = self._hash(kind, token)
        if int(digest[:8], 16) / 0xFFFFFFFF >= self.share:
            return None
        return {"id": "i", "class": "c", "hook": "t"}[kind] + digest[8:15]

    def noise(self, index: int, tag: str) -> str | None:
        digest = self._hash("noise", index, tag)
        return None if int(digest[:8], 16) / 0xFFFFFFFF >= self.share else "n" + digest[8:15]


@dataclass
class Rewrite:
    """What one document's rewrite did."""

    html: str
    title: str = ""
    ids: dict[str, str] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)
    hooks: dict[str, str] = field(default_factory=dict)
    kept_ids: list[str] = field(
        default_factory=list
    )  # used by scripts: renaming them would break the page
    noise_ids: int = 0


@dataclass
class _Tag:
    start: int
    end: int
    name: str
    attrs: list[tuple[str, str | None]]
    self_closing: bool


class _Scanner(HTMLParser):
    """Start tags (with their spans), script text, style text (with spans), other text."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.tags: list[_Tag] = []
        self.scripts: list[str] = []
        self.styles: list[tuple[int, int]] = []
        self.text: list[str] = []
        self.title = ""
        self._open: str | None = None

    def _offset(self) -> int:
        line, col = self.getpos()
        return self._line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add(tag, attrs, False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add(tag, attrs, True)

    def _add(self, tag: str, attrs: list[tuple[str, str | None]], self_closing: bool) -> None:
        raw = self.get_starttag_text() or ""
        start = self._offset()
        self.tags.append(_Tag(start, start + len(raw), tag, attrs, self_closing))
        self._open = tag
        for name, value in attrs:
            if name not in _NAMED_ATTRS and value:
                self.text.append(value)

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open == "script":
            self.scripts.append(data)
        elif self._open == "style":
            start = self._offset()
            self.styles.append((start, start + len(data)))
        else:
            if self._open == "title":
                self.title = data.strip()
            self.text.append(data)

    def handle_comment(self, data: str) -> None:
        pass


def randomize(source: str, renamer: Renamer, code: str = "") -> Rewrite:
    """Rename what no script can depend on; ``code`` is extra text to treat as scripts."""
    scanner = _Scanner(source)
    scanner.feed(source)
    scanner.close()
    scripts = "\n".join([code, *scanner.scripts])
    css = "\n".join(source[a:b] for a, b in scanner.styles)
    other = "\n".join(scanner.text)
    used = _mentions(scripts + "\n" + other)
    result = Rewrite(html=source, title=scanner.title)
    for tag in scanner.tags:
        for name, value in tag.attrs:
            if not value:
                continue
            if name == "id":
                _decide(value.strip(), "id", used, renamer, result.ids, result.kept_ids)
            elif name == "class":
                for token in value.split():
                    _decide(token, "class", used, renamer, result.classes, None)
            elif name in HOOK_ATTRS:
                _decide(
                    value, "hook", _mentions(scripts + css + other), renamer, result.hooks, None
                )
    result.html = _apply(source, scanner, renamer, result)
    return result


def _mentions(text: str) -> Callable[[str], bool]:
    words = set(re.findall(r"[\w-]+", text))
    return lambda token: token in words or (not re.fullmatch(r"[\w-]+", token) and token in text)


def _decide(
    token: str,
    kind: str,
    used: Callable[[str], bool],
    renamer: Renamer,
    renamed: dict[str, str],
    kept: list[str] | None,
) -> None:
    if not token or token in renamed or (kept is not None and token in kept):
        return
    if used(token):
        if kept is not None:
            kept.append(token)
        return
    new = renamer.rename(kind, token)
    if new is not None:
        renamed[token] = new


def _apply(source: str, scanner: _Scanner, renamer: Renamer, result: Rewrite) -> str:
    edits: list[tuple[int, int, str]] = []
    in_body = False
    for index, tag in enumerate(scanner.tags):
        in_body = in_body or tag.name == "body"
        attrs = [(name, _renamed_value(name, value, result)) for name, value in tag.attrs]
        if in_body and tag.name not in _NO_NOISE and not any(name == "id" for name, _ in attrs):
            noise = renamer.noise(index, tag.name)
            if noise is not None:
                attrs.append(("id", noise))
                result.noise_ids += 1
        if attrs != tag.attrs:
            edits.append((tag.start, tag.end, _render_tag(tag, attrs)))
    for start, end in scanner.styles:
        edits.append((start, end, rewrite_css(source[start:end], result.ids, result.classes)))
    out = source
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out


def _renamed_value(name: str, value: str | None, result: Rewrite) -> str | None:
    if value is None:
        return None
    if name == "id":
        return result.ids.get(value.strip(), value)
    if name == "class":
        return " ".join(result.classes.get(t, t) for t in value.split())
    if name in ID_REF_ATTRS:
        return " ".join(result.ids.get(t, t) for t in value.split())
    if name == "href" and value.startswith("#") and value[1:] in result.ids:
        return "#" + result.ids[value[1:]]
    if name in HOOK_ATTRS:
        return result.hooks.get(value, value)
    return value


def _render_tag(tag: _Tag, attrs: list[tuple[str, str | None]]) -> str:
    parts = [tag.name]
    for name, value in attrs:
        parts.append(name if value is None else f'{name}="{html_lib.escape(value, quote=True)}"')
    return "<" + " ".join(parts) + (" />" if tag.self_closing else ">")


def rewrite_css(css: str, ids: dict[str, str], classes: dict[str, str]) -> str:
    """``css`` with renamed ids and classes in its selectors (declarations untouched)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)

    def selector(prelude: str) -> str:
        if prelude.lstrip().startswith("@"):
            return prelude

        def swap(m: re.Match[str]) -> str:
            table = classes if m.group(1) == "." else ids
            return m.group(1) + table.get(m.group(2), m.group(2))

        return _CSS_NAME.sub(swap, prelude)

    out, start = [], 0
    for m in re.finditer(r"[{};]", css):
        chunk = css[start : m.start()]
        out.append((selector(chunk) if m.group() == "{" else chunk) + m.group())
        start = m.end()
    out.append(css[start:])
    return "".join(out)
