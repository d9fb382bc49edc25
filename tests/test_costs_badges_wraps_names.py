"""What a Farrapos resolution's reports no longer work out, a fifth round: each test
counts, never times, and fails on the code before the change it guards.

- an MU badge on the map at a city, holder and count new to the process was drawn
  through ``_text`` (its place written, its colour quoted, the whole element put
  together); its opening ``<text ...>`` is now made once per board, city and holder
  (``svg._Drawing.badge_heads``, filled as met), and a badge is that opening, its
  words and its end;
- the text report's wrap looked, at each line break of a long line, for the cuts
  textwrap may make inside the word after the break's space (``wrap._cuts_in_word``:
  two searches, a list and a ``max``), though a word is cut only beside a hyphen and
  most words of the board in words have none within the line's reach; it now looks
  only where a hyphen lies between that space and the line's end;
- each page, the HTML page's list of its files and the file written named the
  position file through ``position_file.file_name`` (an import and a regular
  expression, some 15,000 instructions): six times a resolution; it is named once
  per game and resolution in a process (``render._position_file_name``), as the
  next turn file is (``render.turn_file_name``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.reports import wrap
from pbem.rules import find_ruleset
from pbem.rules.farrapos import svg
from pbem.turnfiles import position_file
from tests.support.calls import counted_calls
from tests.support.desk import reported_farrapos_game
from tests.support.farrapos_games import play_game


def _positions_with_events() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each position of a bot game after a turn, with that turn's events."""
    seen: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    play_game(
        11, {"republic": "random", "empire": "greedy"}, after_turn=lambda b, after, s, ev: seen.append((after, ev))
    )
    return seen


def _counted_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The body of each text the map draws through ``svg._text`` from now on."""
    real, bodies = svg._text, []

    def counted(*args: Any, **kwargs: Any) -> str:
        bodies.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(svg, "_text", counted)
    return bodies


def test_a_badge_new_to_the_process_is_drawn_without_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no badge kept, a map draws each of its MU badges without a call of ``_text``
    (it made one per badge new to the process); the map is the same as with them kept."""
    positions = _positions_with_events()[::3]
    first = [svg.render(position, events) for position, events in positions]  # the board's drawing made
    texts = _counted_texts(monkeypatch)
    badges = 0
    for (position, events), before in zip(positions, first):
        svg._shipped_drawing().badge_texts.clear()
        texts.clear()
        assert svg.render(position, events) == before
        assert texts  # the title and the tracks' texts are still drawn through it
        assert [t for t in texts if t.endswith((" MU", " Mil"))] == []
        badges += before.count(" MU</text>") + before.count(" Mil</text>")
    assert badges > 20


def test_a_badge_is_the_text_it_was() -> None:
    """Each badge's markup and label mark are what ``_text`` and ``_label_mark`` give
    for its words at its city's place, in its holder's colour."""
    drawing = svg._shipped_drawing()
    checked = 0
    for cid, (cx, y) in drawing.badges.items():
        for owner in svg.SIDE_COLOURS:
            for mu, militia in ((1, 0), (0, 2), (3, 1), (12, 4)):
                text, mark = svg._badge(drawing, cid, owner, mu, militia)
                words = f"{mu} MU +{militia} Mil" if mu and militia else f"{mu} MU" if mu else f"{militia} Mil"
                colour = svg.SIDE_COLOURS[owner]
                assert text == svg._text(svg._coord(cx), svg._coord(y), words, 12, "middle", "bold", colour)
                assert mark == svg._label_mark(cx, y, words, 12, True)
                checked += 1
    assert checked > 300


def test_a_board_line_is_wrapped_without_looking_into_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board in words of a bot game's positions, wrapped as the text report wraps
    it: at most one line break in ten looks at the cuts of a word (each did), and the
    lines are textwrap's."""
    rules = find_ruleset("farrapos")
    lines = [line for position, _ in _positions_with_events()[::2] for line in rules.board_lines(position)]
    looked = counted_calls(monkeypatch, wrap, "_cuts_in_word")
    breaks = 0
    for line in lines:
        wrapped = wrap.fill(line, 70)
        assert wrapped == textwrap.wrap(line, 70, break_long_words=False)
        breaks += len(wrapped) - 1
    assert breaks > 50
    assert len(looked) * 10 <= breaks


def test_a_resolutions_reports_name_the_position_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing both sides' reports of a resolution works out the position file's name
    once (it did six times: each page, the HTML page's list of its files, the file),
    and the next turn file's once; each is named as before."""
    db, game = reported_farrapos_game(tmp_path / "desk")
    try:
        report._position_file_name.cache_clear()
        report.turn_file_name.cache_clear()
        named = counted_calls(monkeypatch, position_file, "file_name")
        written = reporting.write_resolution_reports(db, game, 3, tmp_path / "out")
    finally:
        db.dispose()
    assert len(named) == 1
    assert report.turn_file_name.cache_info().misses == 1
    names = {path.name for path in written}
    assert position_file.file_name(game, 3) in names
    assert any(name.startswith("turn-") for name in names)


def test_a_badge_new_to_the_process_is_marked_without_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A badge's label mark is worked out in ``_badge`` from its width (it went through
    ``_label_mark`` and ``mapdraw.mark``, two Python calls a badge new to the process);
    the maps are the same, and each mark is ``_label_mark``'s (the test above)."""
    positions = _positions_with_events()[::3]
    first = [svg.render(position, events) for position, events in positions]
    calls: list[str] = []

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(svg, "_label_mark", counted("_label_mark", svg._label_mark))
    monkeypatch.setattr(svg, "mark", counted("mark", svg.mark))
    for (position, events), before in zip(positions, first):
        svg._shipped_drawing().badge_texts.clear()
        assert svg.render(position, events) == before
    assert calls == [] and sum(map(lambda s: s.count(" MU</text>"), first)) > 20


def test_a_badge_at_counts_met_before_is_neither_worded_nor_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """A badge new to the process at MU and Militia counts some badge had before takes
    its words and their width from ``_BADGE_WORDS``: no words written, no ``text_width``
    looked up (one each a badge before); the maps are the same."""
    positions = _positions_with_events()[::3]
    first = [svg.render(position, events) for position, events in positions]
    widths = counted_calls(monkeypatch, svg, "text_width")
    for (position, events), before in zip(positions, first):
        svg._shipped_drawing().badge_texts.clear()
        assert svg.render(position, events) == before
    assert widths == [] and sum(page.count(" MU</text>") for page in first) > 20
