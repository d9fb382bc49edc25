"""The macros of the report templates' shared parts, as Python calls them: a
template's module has its macros as attributes (``report_parts.txt.j2`` and
``report_parts.html.j2``; :mod:`pbem.reports.render` renders them once per
resolution, :mod:`pbem.reports.history` the list of earlier resolutions)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pbem.reports.battle_table import Block, TextBlock
    from pbem.reports.render import ReportData


class ReportParts(Protocol):
    """The macros both part templates have."""

    def dice(self, d: ReportData, verify: str | None) -> str: ...


class TextReportParts(ReportParts, Protocol):
    """report_parts.txt.j2: its events (each block's text put together once:
    ``battle_table.text_blocks``) and the board in words."""

    def events(self, blocks: list[TextBlock], k: int) -> str: ...
    def board(self, lines: tuple[str, ...]) -> str: ...


class HtmlReportParts(ReportParts, Protocol):
    """report_parts.html.j2: its events, the history and its lines, the footer."""

    def events(self, blocks: list[Block], k: int) -> str: ...
    def history(self, d: ReportData, link: Callable[[str], str | None]) -> str: ...
    def history_lines(
        self, rows: Sequence[tuple[int, str, str]], link: Callable[[str], str | None] | None, side: str | None
    ) -> str: ...
    def footer(self, d: ReportData, link: Callable[[str], str | None]) -> str: ...
