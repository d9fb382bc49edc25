"""Turn reports: one per side per resolution, as HTML and as plain text.

The templates live in ``templates/`` (Jinja): the report is ``report.html.j2``
and ``report.txt.j2``, with the parts every reader of one resolution sees alike
in ``report_parts.html.j2`` and ``report_parts.txt.j2`` (rendered once per
resolution, before the speed work); the audit page, the site's pages and mail receipts are
there too.  Compiled templates are kept between processes
(:mod:`pbem.reports.template_cache`).  HTML templates (``*.html.j2``) are autoescaped:
every string from the game (side names, unit names, emails, order lines, event
texts) is escaped; the one exception is the ruleset's map SVG, which the rules
layer promises is well-formed XML with all its text escaped, so the page writes
it as it is (in an ``autoescape false`` block: as :class:`markupsafe.Markup` it
was copied whole each time a page wrote it).  Text templates (``*.txt.j2``) are not escaped:
plain text has no markup to inject into.

The report is built from a :class:`ReportData` value the store fills in; this
module never touches the database.

HTML design, against the usual complaints about PBEM mail:
- readable on a phone: a single column, ``max-width`` and ``viewport`` meta, the
  map SVG scaled with ``width:100%; height:auto``; wide tables scroll on their own;
- printable: a print stylesheet drops colours behind text and keeps the map on
  one page;
- no scripts, no external resources: the page works offline and in mail clients.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pbem.templates as _templates_package
from pbem.reports.battle_table import EventLine, battle_blocks, text_blocks, text_table
from pbem.reports.event_lines import detail_value, event_lines
from pbem.reports.map_look import MapLook, map_look
from pbem.reports.parts import HtmlReportParts, TextReportParts
from pbem.reports.utf8 import utf8
from pbem.rules.base import ScoreLine

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup

TEMPLATE_DIR = Path(_templates_package.__file__).parent


@dataclass(frozen=True)
class RollLine:
    """One die of a resolution, as stored: its index within the resolution (from
    0), the die size, the value and the purpose a person can read."""

    index: int
    sides: int
    value: int
    purpose: str


@dataclass(frozen=True)
class ProblemLine:
    """A refused submission to show in a report: whose, what was received (a file
    or an order line), and why it was refused."""

    side: str
    received: str
    reason: str


@dataclass(frozen=True)
class RollbackNote:
    """A rollback back to this report's resolution: when, what it set aside, and
    (for the latest report) the resolution the game now awaits."""

    at: str
    to_k: int
    discarded: tuple[int, ...]
    awaits: int | None


LINK_MODES = ("none", "site", "url")


@dataclass(frozen=True)
class ReportData:
    """Everything one report shows.  ``side`` is the recipient (``None`` = the
    referee's view).  ``map_svg`` is trusted markup from the rules layer; every
    other string is escaped in HTML.  ``links`` says where the other pages are:
    ``site`` (beside it, in a folder ``pbem site`` wrote), ``url`` (the published
    site at ``site_url``), ``none`` (nowhere: the report names only itself and what
    is attached)."""

    game_id: str
    rules_id: str
    rules_title: str
    scenario_id: str
    scenario_title: str
    options: tuple[str, ...]
    k: int
    label: str
    next_label: str
    awaiting: tuple[str, ...]
    side: str | None
    sides: tuple[tuple[str, str | None], ...]
    score: tuple[ScoreLine, ...]
    over: bool
    result: dict | None
    events: tuple[dict, ...]
    rolls: tuple[RollLine, ...]
    reveal: str | None
    anchor: str
    chain_length: int
    previous_reveal: str | None
    state_hash: str
    previous_state_hash: str | None
    map_svg: str
    problems: tuple[ProblemLine, ...]
    next_turn_file: str | None
    history: tuple[tuple[int, str, str], ...] = ()
    history_lines: str = ""
    """The lines of the list of earlier resolutions without links, as the store
    keeps them (:mod:`pbem.reports.history`; trusted markup like ``map_svg``):
    when given, the report shows them instead of rendering ``history``'s."""
    site_url: str | None = None
    next_k: int = 0
    links: str = "none"
    rollbacks: tuple[RollbackNote, ...] = ()
    absences: tuple[str, ...] = ()  # "paused since ...", "republic on vacation until ..." (pbem/store/absences.py)
    chain_first_k: int = 1  # the first resolution of the dice chain that serves k (1 unless extended)
    result_text: str = ""
    """The outcome in plain words ("Romans win a major victory: ...")."""
    board: tuple[str, ...] = ()
    """The board in words (``Ruleset.board_lines``) as this reader may see it."""
    keys: tuple[tuple[str, str], ...] = ()
    """Each side's key fingerprint, as ``ssh-keygen -l`` prints it (``SHA256:...``):
    what ``pbem audit --archive A --anchor HEX --key SIDE=PUBFILE`` binds to."""
    position_file: str = ""
    """The position file (``G-rK.position.json``) this report was written from:
    ``pbem check FILE --position`` checks orders against it offline."""
    civil_disorder: tuple[tuple[str, int], ...] = ()
    """The sides in civil disorder at this resolution, each with the resolution it started at."""
    observers: int = 0
    """How many observers receive the game's public reports."""
    observer: bool = False
    """The public report an observer is sent: what every side sees, nothing one side alone knows."""
    preface: str = ""
    """Words before the report (the welcome of a player who takes a side over)."""
    deadline: datetime | None = None
    """When the orders for ``next_k`` are due (UTC); None: no deadline, or not the latest report."""
    grace: int = 0
    zone: str = "UTC"
    """The reader's IANA zone (the player's own, else the game's)."""
    zones: tuple[tuple[str, str], ...] = ()
    """Each side's zone (the position file carries them)."""

    @property
    def deadline_lines(self) -> tuple[str, ...]:
        """When the orders are due, in UTC and the reader's zone; what follows if none come."""
        if self.deadline is None or self.over:
            return ()
        from pbem.turnfiles.deadline import deadline_lines

        return deadline_lines(self.deadline, self.grace, self.zone)

    @property
    def archive_name(self) -> str:
        """The archive's file name on the game's site (``G.json``)."""
        return f"{re.sub(r'[^A-Za-z0-9._-]+', '_', self.game_id).strip('._') or 'game'}.json"  # as pbem site names it

    @property
    def audit_hint(self) -> str:
        """How a reader re-derives every die on their own machine."""
        url = self.site_url.rstrip("/") + "/" + self.archive_name if self.site_url else None
        if url:
            return f"'pbem audit --archive {self.archive_name}' re-derives every die; download it from {url}"
        return (
            f"ask the referee for the game's archive ('pbem export {self.game_id}'); "
            "'pbem audit --archive' on it re-derives every die."
        )

    @property
    def rules_doc(self) -> str:
        """Where the rules and their order syntax are, in the pbem distribution."""
        return f"docs/rules/{self.rules_id}.md"

    @property
    def deadline_short(self) -> str:
        """``due 2026-03-01 12:00 UTC`` for a subject line; empty without a deadline."""
        if self.deadline is None or self.over:
            return ""
        from pbem.turnfiles.deadline import utc_text

        return f"due {utc_text(self.deadline)}"

    @property
    def chain_link(self) -> int:
        """How many times this resolution's reveal hashes to ``anchor``."""
        return self.k - self.chain_first_k + 1

    @property
    def position_file_name(self) -> str:
        return _position_file_name(self.game_id, self.k)

    @property
    def your_move(self) -> bool:
        """The recipient is due to send orders for the next turn."""
        return not self.over and self.side is not None and self.side in self.awaiting

    @property
    def viewer(self) -> str:
        """Whom the report is for, as it names them."""
        return "an observer" if self.observer else self.side or "referee"

    @property
    def next_turn_file_name(self) -> str | None:
        """The name of the next turn file this report carries, if it carries one."""
        return turn_file_name(self.game_id, self.k, self.side) if self.side and self.next_turn_file else None


def report_filename(k: int, side: str | None, ext: str = "html") -> str:
    """The file name of one report, as the audit page and history links expect:
    ``report-k3-republic.html`` (``referee`` for the referee's view)."""
    return f"report-k{k}-{_file_word(side or 'referee')}.{ext}"


def map_filename(k: int, side: str | None) -> str:
    """The file of one report's whole map in the game's site: ``map-k3-republic.svg``
    (a phone opens it on its own, to zoom and pan)."""
    return f"map-k{k}-{_file_word(side or 'referee')}.svg"


def site_link(data: ReportData, filename: str) -> str | None:
    """Where a page of the game's site is, seen from this report: beside it in a
    site folder, under the published ``site_url``, or nowhere (``None``)."""
    if data.links == "site":
        return filename
    if data.links == "url" and data.site_url:
        return data.site_url.rstrip("/") + "/" + filename
    return None


@lru_cache(maxsize=1024)
def _position_file_name(game_id: str, k: int) -> str:
    """``position_file.file_name``, once per game and resolution in a process (its
    regular expression and import were some 15,000 instructions, and a resolution's
    pages and files name the position file six times)."""
    from pbem.turnfiles.position_file import file_name

    return file_name(game_id, k)


@lru_cache(maxsize=1024)
def turn_file_name(game_id: str, k: int, side: str) -> str:
    """The name of the next turn file attached to a report, for resolution ``k``
    (the orders written after report ``k`` are for resolution ``k + 1``; once per
    game, resolution and side in a process: each page and file names it)."""
    return f"turn-{_file_word(game_id)}-{k + 1}-{_file_word(side)}.txt"


@lru_cache(maxsize=1024)
def _file_word(text: str) -> str:
    """``text`` as a word of a file name (the history names each earlier report: once per side)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "_"


def verify_command(reveal: str | None, previous: str | None, anchor: str, k: int) -> str | None:
    """A one-line check anyone can run: hashing this resolution's reveal ``k``
    times (its link in its chain) must give the chain's anchor (and once, the
    previous reveal)."""
    if reveal is None or k < 1:
        return None
    return (
        "python3 -c \"import hashlib;h=bytes.fromhex('" + reveal + "');"
        f"[h:=hashlib.sha256(h).digest() for _ in range({k})];"
        "print(h.hex()=='" + anchor + "')\""
    )


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The Jinja environment over ``templates/``: autoescaping for ``*.html.j2``
    (and any template string), none for ``*.txt.j2``; undefined names fail;
    compiled templates kept in the user's cache folder.  Jinja is imported on
    first use: commands that write no page do not load it."""
    import jinja2

    from pbem.reports import html_escape, template_cache, wrap

    class PlainGlobals(jinja2.Environment):
        template_class = html_escape.Template  # autoescape's escape without a Markup a plain value

        def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
            """A template's globals as a plain dict, not Jinja's ``ChainMap`` over the
            environment's (each page's context copied it twice, key by key through
            Python); the globals are all set before any template is loaded."""
            return {**self.globals, **(d or {})}

    env = PlainGlobals(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        bytecode_cache=template_cache.bytecode_cache(),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html.j2", "html", "xml", "svg"),
            disabled_extensions=("txt.j2", "txt", "css"),
            default_for_string=True,
            default=True,
        ),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # the templates are the installed package's: no stat of each file per page rendered
    )
    env.filters["detail_value"] = detail_value
    env.filters["die_name"] = lambda sides: f"d{sides}"
    env.filters["text_table"] = text_table
    env.filters["wordwrap"] = jinja2.pass_environment(wrap.wordwrap)  # Jinja's, with the same lines, faster
    env.filters["indent"] = wrap.indent  # Jinja's, with the same text, a one-line text given back
    env.filters["wrap_indent"] = jinja2.pass_environment(wrap.wrap_indent)  # wordwrap then indent, in one call
    env.filters["wrap_lines"] = jinja2.pass_environment(wrap.wrap_lines)  # wrap_indent of each line, joined
    env.globals["report_filename"] = report_filename
    env.globals["map_filename"] = map_filename
    return env


class Shared:
    """What the reports of one resolution show alike whoever reads them (its
    events as blocks, its dice and their proof, the footer, the position file's
    link), worked out and rendered (``report_parts.*.j2``) once for all its
    readers' HTML and text reports (since the speed work).
    A report of another resolution, or of other data, gets its own
    (:meth:`serves`)."""

    def __init__(self, data: ReportData) -> None:
        self.data = data
        self.emails = dict(data.sides)
        self.events: list[EventLine] = event_lines(data.events, data.rolls)
        self.blocks = battle_blocks(self.events)
        self.verify = verify_command(data.reveal, data.previous_reveal, data.anchor, data.chain_link)
        self._parts: dict[str, str] = {}
        self._maps: list[tuple[str, MapLook]] = []  # each map with its look, found by identity
        self._position_link: tuple[str, Markup] | None = None
        self._utf8: list[tuple[str, bytes]] = []  # each alike part with its UTF-8, found by identity

    def serves(self, data: ReportData) -> bool:
        """Whether ``data`` is a report of this same resolution (another reader's)."""
        first = self.data
        return data is first or (
            data.events is first.events
            and data.rolls is first.rolls
            and data.sides is first.sides
            and data.history is first.history
            and data.history_lines == first.history_lines
            and data.position_file is first.position_file
            and (
                data.game_id,
                data.rules_id,
                data.scenario_id,
                data.k,
                data.next_k,
                data.reveal,
                data.previous_reveal,
                data.anchor,
            )
            == (
                first.game_id,
                first.rules_id,
                first.scenario_id,
                first.k,
                first.next_k,
                first.reveal,
                first.previous_reveal,
                first.anchor,
            )
            and (
                data.chain_length,
                data.chain_first_k,
                data.state_hash,
                data.previous_state_hash,
                data.links,
                data.site_url,
            )
            == (
                first.chain_length,
                first.chain_first_k,
                first.state_hash,
                first.previous_state_hash,
                first.links,
                first.site_url,
            )
        )

    def part(self, name: str, make: Callable[[], str]) -> str:
        """A section every reader sees alike, rendered once, as a plain string: a
        page writes it as it is (an HTML part is markup its macro escaped; as
        ``Markup``, each page's autoescape copied it whole, and so would ``str``)."""
        text = self._parts.get(name)
        if text is None:
            text = self._parts[name] = str(make())
        return text

    def map_look(self, svg: str) -> MapLook:
        """The look of ``svg``, once for the readers given the same map object (found
        by identity: hashing tens of kB to look it up in a dict cost more than that)."""
        return _kept(self._maps, svg, map_look)

    def utf8(self, pieces: list[str], alike: Sequence[str]) -> list[bytes]:
        """The page Jinja yielded as ``pieces``, in UTF-8, in pieces (written one after
        the other, not joined into one more copy of the page): each part of ``alike`` (the map,
        the parts every reader sees, in the page's order) is encoded once for all the resolution's pages, and
        the rest, mostly ASCII, is copied (CPython encodes a string holding one accented
        city name character by character).  A part is found among the pieces by its
        text (the page's autoescape yields a copy of it); one not found is encoded with
        the rest, so the bytes are always those of the whole page encoded."""
        out, start = [], 0
        for part in alike:  # in the page's order: each looked for after the one before
            if not part:
                continue
            try:
                at = pieces.index(part, start)
            except ValueError:
                continue
            out.append(_encode("".join(pieces[start:at])))
            out.append(self._encoded(part))
            start = at + 1
        out.append(_encode("".join(pieces[start:])))
        return out

    def _encoded(self, part: str) -> bytes:
        return _kept(self._utf8, part, _encode)

    def downloads(self, data: ReportData) -> list[tuple[str, Markup]]:
        """The files a report carries, as ``(name, data: URI)`` links, so the HTML
        page alone (saved, or opened from the site) holds them: for a side due to
        move its next turn file, and the position file."""
        files = []
        name = data.next_turn_file_name
        if data.next_turn_file and data.side and name:
            files.append((name, _data_uri("text/plain", data.next_turn_file)))
        if data.position_file:
            if self._position_link is None:
                self._position_link = (data.position_file_name, _data_uri("application/json", data.position_file))
            files.append(self._position_link)
        return files


_Made = TypeVar("_Made")


def _kept(memo: list[tuple[str, _Made]], text: str, make: Callable[[str], _Made]) -> _Made:
    """``make(text)``, made once for each text object in ``memo`` (found by identity:
    hashing tens of kB of text to look it up in a dict cost more than the search)."""
    for known, made in memo:
        if known is text:
            return made
    made = make(text)
    memo.append((text, made))
    return made


def _encode(text: str) -> bytes:
    """``text`` in UTF-8: each piece of a page :meth:`Shared.utf8` encodes (a long one,
    the map, through :func:`pbem.reports.utf8.utf8`: its Latin-1 copied, its accented
    names found by ``str.find``, where CPython encodes it character by character)."""
    return utf8(text)


def _data_uri(kind: str, text: str) -> Markup:
    """A ``data:`` URI of ``text``: base64, nothing to escape (Markup: no page scans it)."""
    import base64

    from markupsafe import Markup

    return Markup(f"data:{kind};charset=utf-8;base64,{base64.b64encode(text.encode('utf-8')).decode('ascii')}")


def render_html(
    data: ReportData, map_cid: str | None = None, detail_cid: str | None = None, shared: Shared | None = None
) -> str:
    """The HTML report.  With ``map_cid`` the map is an ``<img src="cid:...">``
    (for the e-mail's HTML part, where many clients drop inline SVG) instead of
    the inline SVG, and ``detail_cid`` the enlarged area of this resolution's
    action.  ``shared``: what the reports of this resolution show alike, when
    another reader's report was written from it (else worked out here)."""
    return "".join(_html_pieces(data, map_cid, detail_cid, _shared(data, shared))[0])


def html_bytes(data: ReportData, shared: Shared | None = None) -> list[bytes]:
    """:func:`render_html` in UTF-8, as a report file holds it (:meth:`Shared.utf8`)."""
    shared = _shared(data, shared)
    return shared.utf8(*_html_pieces(data, None, None, shared))


def _html_pieces(
    data: ReportData, map_cid: str | None, detail_cid: str | None, shared: Shared
) -> tuple[list[str], list[str]]:
    """The pieces of the HTML report as Jinja yields them, and the parts among them
    that every reader of the resolution sees alike."""
    parts = cast(HtmlReportParts, _template(environment(), "report_parts.html.j2").module)

    def link(filename: str) -> str | None:
        return site_link(data, filename)

    history = ""
    if data.history or data.history_lines:  # with no links, every side's list is alike
        history = (
            shared.part(f"html-history-{bool(data.side)}", lambda: parts.history(data, link))
            if data.links == "none"
            else parts.history(data, link)
        )
    look = shared.map_look(data.map_svg)
    alike = [
        shared.part("html-events", lambda: parts.events(shared.blocks, data.k)),
        shared.part("html-dice", lambda: parts.dice(data, shared.verify)),
        shared.part("html-footer", lambda: parts.footer(data, link)),
    ]
    pieces = _pieces(
        "report.html.j2",
        dict(
            d=data,
            emails=shared.emails,
            map=look,
            map_cid=map_cid,
            detail_cid=detail_cid,
            link=link,
            downloads=shared.downloads(data),
            events=alike[0],
            dice=alike[1],
            history=history,
            footer=alike[2],
        ),
    )
    return pieces, [look.embedded, alike[0], alike[1], history if data.links == "none" else "", alike[2]]


def render_text(data: ReportData, shared: Shared | None = None) -> str:
    """The plain-text report (72 columns, no markup), readable in any mail client."""
    return "".join(_text_pieces(data, _shared(data, shared))[0])


def text_bytes(data: ReportData, shared: Shared | None = None) -> list[bytes]:
    """:func:`render_text` in UTF-8, as a report file holds it (:meth:`Shared.utf8`)."""
    shared = _shared(data, shared)
    return shared.utf8(*_text_pieces(data, shared))


def _text_pieces(data: ReportData, shared: Shared) -> tuple[list[str], list[str]]:
    """The pieces of the text report as Jinja yields them, and its parts every reader sees alike."""
    parts = cast(TextReportParts, _template(environment(), "report_parts.txt.j2").module)
    # the board in words, each line wrapped: once for every reader given the same lines (a game hiding nothing)
    alike_board = data.board is shared.data.board
    board = shared.part("text-board", lambda: parts.board(data.board)) if alike_board else parts.board(data.board)
    events = shared.part("text-events", lambda: parts.events(text_blocks(shared.blocks, environment()), data.k))
    dice = shared.part("text-dice", lambda: parts.dice(data, shared.verify))
    pieces = _pieces(
        "report.txt.j2",
        dict(
            d=data,
            emails=shared.emails,
            link=lambda filename: site_link(data, filename),
            events=events,
            dice=dice,
            board=board,
        ),
    )
    return pieces, [events, dice, board if alike_board else ""]


def _pieces(name: str, context: dict[str, Any]) -> list[str]:
    """What template ``name`` yields in ``context``: ``Template.render`` without the join."""
    template = _template(environment(), name)
    try:
        return list(template.root_render_func(template.new_context(context)))
    except Exception:
        environment().handle_exception()  # raises the error with the template's lines in its traceback


@lru_cache(maxsize=8)
def _template(env: jinja2.Environment, name: str) -> jinja2.Template:
    """``env.get_template(name)``, looked up once per environment and name: Jinja's own
    lookup (a weak reference, its LRU cache's lock and queue) was some 5,000
    instructions, twice per page.  The environment never reloads a template
    (``auto_reload`` off), so the one it gave is the one it would give again."""
    return env.get_template(name)


def _shared(data: ReportData, shared: Shared | None) -> Shared:
    """``shared`` when it is of ``data``'s resolution, else what ``data`` shows alike."""
    return shared if shared is not None and shared.serves(data) else Shared(data)
