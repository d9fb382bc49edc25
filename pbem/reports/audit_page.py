"""The audit page of a whole game (``pbem report --format audit``, the site's
audit.html): every resolution, the dice with a histogram per die size, the score
over time, the house tables and the audit's verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pbem.reports.render import RollLine, environment
from pbem.rules.base import ScoreLine


def render_audit_page(
    game_id: str,
    rules_title: str,
    anchor: str,
    resolutions: Sequence[tuple[int, str, str]],
    rolls: Sequence[tuple[int, RollLine]],
    score_history: Sequence[tuple[int, Sequence[ScoreLine]]],
    sides: Sequence[str] = (),
    house_tables: Sequence[tuple[str, str, Sequence[str]]] = (),
    home: str | None = None,
    link: Callable[[str], str | None] = lambda filename: filename,
    verdict: str | None = None,
    keys: Sequence[tuple[str, str]] = (),
) -> str:
    """The audit page of a whole game: every resolution linked (one link per side
    in ``sides``, else the referee's report), the house tables the game plays
    (name, SHA-256, the cells that differ from the shipped table), the dice
    table, a histogram per die size and the score over time."""
    from markupsafe import Markup

    from pbem.reports import charts

    by_size: dict[int, list[int]] = {}
    for _k, roll in rolls:
        by_size.setdefault(roll.sides, []).append(roll.value)
    histograms = [
        (sides_n, len(values), Markup(charts.histogram_svg(values, sides_n, title=f"d{sides_n}: {len(values)} rolls")))
        for sides_n, values in sorted(by_size.items())
    ]
    series: dict[str, list[tuple[int, int]]] = {}
    for k, lines in score_history:
        for line in lines:
            series.setdefault(line.side, []).append((k, line.value))
    heading = next((line.heading for _k, lines in score_history for line in lines), "score")
    title = f"{heading[0].upper()}{heading[1:]} by resolution"
    score_chart = Markup(charts.line_chart_svg(series, title=title, x_label="resolution")) if series else None
    return (
        environment()
        .get_template("audit.html.j2")
        .render(
            game_id=game_id,
            rules_title=rules_title,
            anchor=anchor,
            resolutions=list(resolutions),
            rolls=list(rolls),
            histograms=histograms,
            score_chart=score_chart,
            sides=list(sides) or [None],
            house_tables=list(house_tables),
            verdict=verdict,
            keys=list(keys),
            home=home,
            link=link,
        )
    )
