"""The site's Atom feed (RFC 4287): one entry per active resolution, for feed
readers to follow a game (``feed.atom`` in ``pbem site``'s folder).

Written with the standard library's ElementTree: the feed is a dozen elements,
and a feed library (feedgen) would bring lxml and dateutil for nothing the
format needs.  Ids are ``urn:uuid:`` UUIDs (version 5) made from the game id, its
dice commitment and ``k``: the same on every run, and never the same for two
games, even two of one id in different databases.  A resolution set aside by a
rollback is no entry (the feed drops it the next time the site is written)."""

from __future__ import annotations

import json
import uuid
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from pbem.reports import reads as report_reads
from pbem.reports import render as report
from pbem.rules import find_ruleset
from pbem.store.sql import Tx

ATOM = "http://www.w3.org/2005/Atom"
FEED_NAME = "feed.atom"


def _id(game_id: str, anchor: str, k: int | None = None) -> str:
    name = f"pbem:{game_id}:{anchor}" + (f":k{k}" if k is not None else "")
    return uuid.uuid5(uuid.NAMESPACE_URL, name).urn


def _stamp(when: datetime | str) -> str:
    moment = when if isinstance(when, datetime) else datetime.fromisoformat(str(when))
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    if text is not None:
        element.text = text
    return element


def atom_feed(tx: Tx, game_id: str, title: str, sides: list[str], site_url: str | None) -> str:
    """The feed's XML text; links are relative to the folder (``xml:base`` the
    site's URL when one is recorded)."""
    from pbem.referee.resolve import public_summary

    game = report_reads.game(tx, game_id)
    ruleset = find_ruleset(game.rules)
    rows = tx.all(
        "SELECT k, label, position, created FROM resolution WHERE game_id = :game AND active = :active ORDER BY k",
        {"game": game_id, "active": True},
    )
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    if site_url:
        feed.set("{http://www.w3.org/XML/1998/namespace}base", site_url)
    _add(feed, "id", _id(game_id, game.anchor))
    _add(feed, "title", title)
    created = tx.one("SELECT created FROM game WHERE id = :game", {"game": game_id})
    _add(feed, "updated", _stamp(rows[-1][3] if rows else created[0]))  # type: ignore[index]
    author = _add(feed, "author")
    _add(author, "name", "pbem referee")
    _add(feed, "link", rel="alternate", type="text/html", href="index.html")
    _add(feed, "link", rel="self", type="application/atom+xml", href=FEED_NAME)
    _add(feed, "generator", "pbem")
    for k, label, position, created in reversed(rows):
        entry = _add(feed, "entry")
        _add(entry, "id", _id(game_id, game.anchor, k))
        _add(entry, "title", f"Resolution {k}: {label}")
        _add(entry, "updated", _stamp(created))
        for number, side in enumerate(sides):
            _add(
                entry,
                "link",
                rel="alternate" if number == 0 else "related",
                type="text/html",
                href=report.report_filename(k, side),
                title=f"{side}'s report",
            )
        parsed = json.loads(position)
        _add(entry, "summary", public_summary(ruleset, parsed, ruleset.outcome(parsed)) or label)
    ET.indent(feed)
    return "<?xml version='1.0' encoding='utf-8'?>\n" + ET.tostring(feed, encoding="unicode") + "\n"
