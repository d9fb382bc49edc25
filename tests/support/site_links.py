"""Links of a generated site folder that lead nowhere."""

from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Links(HTMLParser):
    """Every href and src of a page, and every id it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "xlink:href") and value is not None:
                self.refs.append(value)
            if name == "id" and value:
                self.ids.add(value)

    handle_startendtag = handle_starttag


def links_of(html: str) -> Links:
    parser = Links()
    parser.feed(html)
    return parser


def data_uri_decodes(ref: str) -> bool:
    head, sep, payload = ref.partition(",")
    if not sep:
        return False
    try:
        (base64.b64decode(payload, validate=True) if head.endswith(";base64") else unquote(payload).encode()).decode(
            "utf-8"
        )
    except (ValueError, UnicodeDecodeError):
        return False
    return True


def broken_links_in_folder(folder: Path) -> list[str]:
    """Every href/src of every page in ``folder`` that does not resolve to a file of
    the folder (and, with a fragment, to an id in it)."""
    pages = {p.name: links_of(p.read_text(encoding="utf-8")) for p in folder.glob("*.html")}
    broken = []
    for name, page in pages.items():
        for ref in page.refs:
            parts = urlsplit(ref)
            if parts.scheme == "data":  # a file carried in the page itself (the position and turn files)
                if not data_uri_decodes(ref):
                    broken.append(f"{name}: {ref[:60]}... does not decode")
                continue
            if parts.scheme or parts.netloc:
                broken.append(f"{name}: {ref} leaves the site")
                continue
            target = unquote(parts.path) or name
            if not (folder / target).is_file():
                broken.append(f"{name}: {ref} (no file {target})")
            elif parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                broken.append(f"{name}: {ref} (no id {parts.fragment} in {target})")
    return broken
