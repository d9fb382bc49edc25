"""What writing a resolution's report pages no longer costs (the instruction budget
of ``process --all --reports``, ``bench/budgets.py``): each test counts what is done,
never time, and fails on the reports before this work.

- the UTF-8 of a page: the map and the parts every reader sees alike (events, dice,
  the earlier resolutions, the footer, the board in words) are encoded once for all
  the resolution's pages, and only the rest of each page is encoded on its own; a
  Farrapos page holds accented city names, so CPython encoded each whole page (about
  60 kB) character by character, twice per side (HTML and text).  The bytes written
  are those of the whole page encoded;
- the templates' globals are copied into each page's context from a plain dict, not
  from Jinja's ``ChainMap`` key by key through Python;
- the text report's wrap works out the hyphenated chunks only of the word where a
  line is broken, not of every hyphenated word of every line (a Farrapos board line
  names units such as ``inf-22`` in cities such as ``cruz-alta``, and most fit);
- each file is written through its descriptor, a page's pieces with one ``writev``:
  no buffered file object per file, no join of the pieces into one more copy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem import paths
from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports import wrap
from pbem.store.transaction import transaction


def test_the_pages_accented_parts_are_encoded_once_per_resolution(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every piece of text a resolution's pages encode is counted: the map is encoded
    once for both sides' pages, no non-ASCII text twice, and the non-ASCII text
    encoded in all is less than one HTML page (it was all four pages)."""
    db, game = farrapos_game
    encoded: list[str] = []

    def counted(text: str) -> bytes:
        encoded.append(text)
        return text.encode("utf-8")

    monkeypatch.setattr(report, "_encode", counted)
    reporting.write_resolution_reports(db, game, 3, tmp_path)
    with transaction(db, write=False) as tx:
        views = reporting.report_views(tx, game, 3, ("empire", "republic"))
    svg = report.map_look(views[0].map_svg).embedded
    assert not svg.isascii()  # the city names: what kept the pages off CPython's ASCII copy
    assert [text for text in encoded if text == svg] == [svg]
    accented = [text for text in encoded if not text.isascii()]
    assert len(accented) == len(set(accented))
    pages = [report.render_html(view) for view in views]
    assert sum(map(len, accented)) < min(map(len, pages))


def test_the_pages_written_are_the_pages_encoded(farrapos_game: tuple[Any, str], tmp_path: Path) -> None:
    """Each file's bytes are its whole page in UTF-8 (as the mail and ``pbem report`` render it)."""
    db, game = farrapos_game
    reporting.write_resolution_reports(db, game, 3, tmp_path)
    with transaction(db, write=False) as tx:
        views = reporting.report_views(tx, game, 3, ("empire", "republic"))
    for view in views:
        html = (tmp_path / report.report_filename(3, view.side, "html")).read_bytes()
        text = (tmp_path / report.report_filename(3, view.side, "txt")).read_bytes()
        assert html == report.render_html(view).encode("utf-8")
        assert text == report.render_text(view).encode("utf-8")


def test_a_part_not_among_the_pieces_is_encoded_with_the_rest() -> None:
    """A part looked for in vain, or out of the page's order, leaves the bytes those of the whole page."""
    shared = report.Shared.__new__(report.Shared)
    shared._utf8 = []
    pieces = ["<p>", "Bagé", "</p>", "<p>", "Caçapava", "</p>"]
    whole = "".join(pieces).encode("utf-8")
    assert b"".join(shared.utf8(pieces, ["Caçapava", "Bagé", "nowhere", ""])) == whole
    assert b"".join(shared.utf8(pieces, ["Bagé", "Caçapava"])) == whole
    assert b"".join(shared.utf8(pieces, ["<p>", "<p>"])) == whole


def test_a_pages_context_reads_no_chainmap(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jinja keeps a template's globals as a ``ChainMap``; each page's context
    copied it twice (a dict and a set of its keys), each key looked up in Python."""
    import collections

    db, game = farrapos_game
    looked_up = [0]
    real = collections.ChainMap.__getitem__

    def counted(self: Any, key: Any) -> Any:
        looked_up[0] += 1
        return real(self, key)

    monkeypatch.setattr(collections.ChainMap, "__getitem__", counted)
    reporting.write_resolution_reports(db, game, 3, tmp_path)
    assert looked_up[0] == 0


def test_a_line_that_fits_is_not_cut_into_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line within the width has no hyphenated word split; a long one, only the
    words where it breaks (one per line made at most)."""
    cut: list[str] = []
    real = wrap._word_cuts

    def counted(word: str) -> tuple[int, ...]:
        cut.append(word)
        return real(word)

    monkeypatch.setattr(wrap, "_word_cuts", counted)
    env = jinja2.Environment()
    line = "Cruz Alta (cruz-alta), empire: inf-22 full MF2 AF2 DF3, inf-23 full MF2"
    assert wrap.wordwrap(env, line, 80, False) == line and cut == []
    long = ", ".join(f"inf-{n} full MF2 AF2 DF3" for n in range(12))
    lines = wrap.wordwrap(env, long, 30, False).split("\n")
    assert len(lines) > 5 and len(cut) <= len(lines) - 1 < long.count("-")


def test_the_files_are_written_through_their_descriptors(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of the six files made a buffered file object over its descriptor, and
    each page was joined into one bytes object first; the pieces now go to the
    kernel as they are."""
    import os

    db, game = farrapos_game
    opened: list[Any] = []
    monkeypatch.setattr(paths, "open", lambda *a, **k: opened.append(a) or open(*a, **k), raising=False)
    vectors: list[int] = []
    real = os.writev

    def counted(fd: int, pieces: list[Any]) -> int:
        vectors.append(len(pieces))
        return real(fd, pieces)

    monkeypatch.setattr(os, "writev", counted)
    written = reporting.write_resolution_reports(db, game, 3, tmp_path)
    assert len(written) == 6 and opened == []
    # one call a file (tests/test_costs_report_files.py); each side's HTML and text page in pieces
    assert len(vectors) == 6 and sum(n > 1 for n in vectors) >= 4


def test_a_page_looks_its_templates_up_once_per_process(
    farrapos_game: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page looked up its template and its parts' template through Jinja's
    ``get_template`` (a weak reference, a lock and its LRU cache's queue, some 5,000
    instructions): eight lookups a resolution.  Only the style sheet each HTML page
    includes is looked up now (in the template's own code)."""
    db, game = farrapos_game
    reporting.write_resolution_reports(db, game, 3, tmp_path / "first")
    names: list[str] = []
    real = jinja2.Environment.get_template

    def counted(env: jinja2.Environment, name: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(name)
        return real(env, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "get_template", counted)
    reporting.write_resolution_reports(db, game, 3, tmp_path / "again")
    assert sorted(names) == ["report.css", "report.css"]
    for name in ("report-k3-empire.html", "report-k3-republic.txt"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "first" / name).read_bytes()


def test_a_page_reads_what_it_names_often_once(farrapos_game: tuple[Any, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's side, the resolution, its label and whether the reader is due were
    read off the data through Jinja's ``getattr`` (some 1,000 instructions each, a
    property's call besides) each time a page named them: up to five times a page.
    The parts every reader sees are rendered first, so that only the page reads."""
    db, game = farrapos_game
    with transaction(db, write=False) as tx:
        views = reporting.report_views(tx, game, 3, ("empire", "republic"))
    shared = report.Shared(views[0])
    for view in views:
        report.render_html(view, shared=shared), report.render_text(view, shared=shared)
    read: list[str] = []
    real = jinja2.Environment.getattr

    def counted(env: jinja2.Environment, obj: Any, attribute: str) -> Any:
        if isinstance(obj, report.ReportData):
            read.append(attribute)
        return real(env, obj, attribute)

    monkeypatch.setattr(jinja2.Environment, "getattr", counted)
    for view in views:
        for render in (report.render_html, report.render_text):
            read.clear()
            render(view, shared=shared)
            assert [read.count(name) for name in ("side", "k", "label", "your_move")] == [1, 1, 1, 1]
