"""What the parts every reader of a resolution sees alike no longer spend (the
instruction budget of ``process --all --reports``, ``bench/budgets.py``): each test
counts what is done, never time, and fails on the parts before this work.

- the text report's board in words: when a board held a line longer than the page
  (most Farrapos boards: a city with three or four units), every line went through
  the ``wrap_indent`` filter and its checks one by one; now the lines are checked
  all at once as before, a line that fits is itself and only a longer one is
  wrapped (``wrap._filled``), the same text as line by line, compared here on the
  boards of bot games of every shipped game, for every reader;
- a page's map (some 40 kB, a few dozen accented names) was encoded by
  ``str.encode``, character by character: ``utf8.utf8`` copies its Latin-1 and
  writes each accented character met before as its UTF-8, the same bytes, compared
  here on every shipped game's maps and on random texts.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from typing import cast

from pbem.dice import DiceStream
from pbem.reports import render as report
from pbem.reports import utf8, wrap
from pbem.reports.parts import TextReportParts
from pbem.rules import find_ruleset
from tests.support.calls import python_codes
from tests.support.map_positions import SHIPPED, every_map


def _line_by_line(lines: tuple[str, ...], width: int) -> str:
    """The board as ``wrap_lines`` gave it before: each line through ``wrap_indent``."""
    env = report.environment()
    return "\n".join(wrap.wrap_indent(env, line, width, 4) for line in lines)


def test_a_board_with_long_lines_is_wrapped_without_a_filter_call_a_line() -> None:
    """A Farrapos-like board, some lines longer than the page: one ``wrap_lines`` call,
    one wrap a long line, and no ``wrap_indent`` call nor check a line (there were
    one of each for each of the fourteen lines)."""
    board = tuple(
        f"City {n} (city-{n}), republic: " + ", ".join(f"inf-{n * 4 + u} full MF2 AF2 DF3" for u in range(1 + n % 4))
        for n in range(14)
    )
    long_lines = sum(len(line) > 70 for line in board)
    assert 0 < long_lines < len(board)
    env = report.environment()
    parts = cast(TextReportParts, env.get_template("report_parts.txt.j2").module)
    text, codes = python_codes(lambda: parts.board(board))
    assert text.endswith(":\n" + _line_by_line(board, 70) + "\n")
    assert codes.count(wrap.wrap_lines.__code__) == 1
    assert codes.count(wrap.wrap_indent.__code__) == 0  # one a line before
    assert codes.count(wrap._simple.__code__) == 0
    assert codes.count(wrap.fill.__code__) <= long_lines


def _boards(rules_id: str, scenario: str | None, resolutions: int) -> Iterator[tuple[str, ...]]:
    """The board in words of each resolution of a random-against-greedy bot game, as each
    reader sees it (each side and the referee)."""
    ruleset = find_ruleset(rules_id)
    position = ruleset.setup(scenario, ())
    sides: tuple[str | None, ...] = (None, *ruleset.sides(scenario))
    for k in range(1, resolutions + 1):
        for side in sides:
            yield tuple(ruleset.board_lines(position, side))
        due = ruleset.due(position)
        if not due or ruleset.outcome(position) is not None:
            return
        orders = {
            s: ruleset.parse_orders(
                ruleset.bot_orders(position, s, "greedy" if i == 0 else "random", random.Random(k))
            )[0]
            for i, s in enumerate(due)
        }
        position = ruleset.resolve(
            position, orders, DiceStream(hashlib.sha256(f"board-{k}".encode()).digest())
        ).position


def test_the_boards_of_bot_games_are_wrapped_as_line_by_line() -> None:
    """Every shipped game's board in words, for each reader, at each resolution of a bot
    game: the same text as each line through ``wrap_indent``, at the page's width and
    at narrower ones (where most lines wrap)."""
    env = report.environment()
    boards = wrapped = 0
    for rules_id, scenario in SHIPPED:
        for lines in _boards(rules_id, scenario, 25):
            boards += 1
            for width in (70, 40, 12):
                assert wrap.wrap_lines(env, lines, width, 4) == _line_by_line(lines, width), (rules_id, lines)
            wrapped += max(map(len, lines), default=0) > 70
    assert boards > 200 and wrapped > 20


def test_a_pages_map_is_encoded_without_str_encode() -> None:
    """A Farrapos-like map (some 40 kB, accented names here and there): once its accented
    characters were met, its UTF-8 is found by ``utf8.utf8``'s search, not by ``str.encode``
    of the whole map (about ten instructions a character)."""
    names = ["Caçapava do Sul", "São Gabriel", "Bagé", "Jaguarão", "Piratiní", "Mostardas"]
    svg = "\n".join(f'<text x="{n}" y="{n * 3}" font-size="12">{names[n % 6]} ({n})</text>' for n in range(600))
    assert len(svg) > 4 * utf8.LONG
    utf8.utf8(svg)  # meets the accented characters, if no map before met them
    before = dict(utf8.calls)
    other = svg.replace("(1", "(7")
    shared = report.Shared.__new__(report.Shared)
    shared._utf8 = []
    assert shared.utf8([other], [other]) == [b"", other.encode(), b""]
    assert utf8.calls["searched"] == before["searched"] + 1
    assert utf8.calls["encoded"] == before["encoded"]


def _random_texts(rng: random.Random) -> Iterator[str]:
    ascii_part = 'abc <>/="0123456789\n'
    latin = "áãçéêíóôõúüÁÇÉ\xa0\xff\x80"
    beyond = "őĉ€\u2028😀"
    for _ in range(400):
        alphabet = ascii_part * 20 + "".join(rng.sample(latin, rng.randint(0, 4)))
        if rng.random() < 0.15:
            alphabet += rng.choice(beyond)
        length = rng.choice((10, utf8.LONG - 1, utf8.LONG, utf8.LONG + 1, 3 * utf8.LONG))
        text = "".join(rng.choice(alphabet) for _ in range(length))
        if rng.random() < 0.3:  # an accented character at either end
            text = rng.choice(latin) + text[1:-1] + rng.choice(latin)
        yield text


def test_utf8_gives_str_encodes_bytes() -> None:
    """``utf8.utf8`` against ``str.encode`` on each shipped game's maps (as each reader
    sees them) and on random texts: short and long, ASCII, Latin-1 characters met
    before and new ones, characters beyond Latin-1, accents at either end."""
    searched = 0
    for drawn in every_map():
        ruleset = find_ruleset(drawn.rules_id)
        for side in (None, *ruleset.sides(drawn.scenario)):
            svg = ruleset.map_svg(drawn.position, drawn.events, side)
            for _ in range(2):  # the second time, every character was met
                before = utf8.calls["searched"]
                assert utf8.utf8(svg) == svg.encode("utf-8"), drawn.name
                searched += utf8.calls["searched"] - before
    assert searched > 10
    for text in _random_texts(random.Random(5)):
        assert utf8.utf8(text) == text.encode("utf-8")
