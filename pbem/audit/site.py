"""A game's site: one folder a referee can publish as it is (``pbem site G -o DIR``).

    index.html                     the game, players, whose move, deadline, score chart,
                                   every resolution with its reports
    report-kK-SIDE.html            every active resolution's report for each side
                                   (K = 0: the game as set up)
    map-kK-SIDE.svg                its whole map on its own (a phone zooms into it)
    audit.html                     the audit page (dice histograms, score, resolutions)
    dice.html, dice.json           every die rolled, set-aside ones marked
    feed.atom                      an Atom feed of the active resolutions (pbem/audit/feed.py)
    GAME.json                      the archive (pbem-archive/1) for ``pbem audit --archive``

Every link inside points at a file of the folder.  Run again, it brings the folder
up to date, removing the pages of resolutions a rollback has set aside since.  ``--site-url`` records where the
folder will be published; reports made afterwards (mail, ``pbem report``) link to
it instead of naming pages the reader does not have.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from markupsafe import Markup

from pbem import paths, store
from pbem.audit import archive, feed, verify
from pbem.referee import deadlines
from pbem.reports import assemble as reporting
from pbem.reports import charts
from pbem.reports import reads as report_reads
from pbem.reports import render as report
from pbem.rules import find_ruleset
from pbem.store.transaction import transaction
from pbem.turnfiles import keys

if TYPE_CHECKING:
    from pbem.store.database import Database


class SiteError(ValueError):
    """A site URL that cannot be used."""


@dataclass(frozen=True)
class SiteWritten:
    folder: Path
    files: tuple[Path, ...]
    site_url: str | None


def check_site_url(url: str) -> str:
    """An absolute http(s) URL of the folder, kept with one trailing slash."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or re.search(r"\s", url.strip()):
        raise SiteError(f"--site-url {url!r} is not an http:// or https:// address of the published folder")
    return url.strip().rstrip("/") + "/"


def record_site_url(db: Database, game_id: str, url: str) -> None:
    with transaction(db) as tx:
        store.known_game(tx, game_id)  # its row locked where the database locks rows
        params = {"game": game_id, "url": url, "updated": store.utcnow()}
        if not tx.run("UPDATE site SET url = :url, updated = :updated WHERE game_id = :game", params):
            tx.run("INSERT INTO site (game_id, url, updated) VALUES (:game, :url, :updated)", params)


def archive_name(game_id: str) -> str:
    return f"{re.sub(r'[^A-Za-z0-9._-]+', '_', game_id).strip('._') or 'game'}.json"


def write_site(db: Database, game_id: str, folder: Path, site_url: str | None = None) -> SiteWritten:
    """Write (or bring up to date) the game's site in ``folder``; with ``site_url``
    record where it is published first (checked before anything is written)."""
    url = check_site_url(site_url) if site_url is not None else None
    with transaction(db, write=False) as tx:
        report_reads.game(tx, game_id)  # an unknown game is refused before anything is written
    if url is not None:
        record_site_url(db, game_id, url)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def put(name: str, text: str) -> None:
        written.append(paths.write_file(folder / name, text))

    latest, ks, sides = _write_reports(db, game_id, put)
    _drop_set_aside_pages(folder, ks, sides)
    verdict = verify.verdict_of(archive.build_archive(db, game_id))
    put("audit.html", reporting.audit_page(db, game_id, home="index.html", verdict=verdict))
    _write_dice(db, game_id, put)
    archive_file = folder / archive_name(game_id)
    archive.export(db, game_id, archive_file)
    written.append(archive_file)
    with transaction(db, write=False) as tx:
        title = f"[pbem {game_id}] {latest.rules_title}: {latest.scenario_title}"
        put(feed.FEED_NAME, feed.atom_feed(tx, game_id, title, sides, url or report_reads.game(tx, game_id).site_url))
    put("index.html", _index_page(db, game_id, latest, sides, archive_file.name, url))
    return SiteWritten(folder, tuple(written), url)


def _write_reports(
    db: Database, game_id: str, put: Callable[[str, str], None]
) -> tuple[report.ReportData, list[int], list[str]]:
    """Every active resolution's report for each side (and its whole map on its
    own); returns the latest report's data, the resolutions and the sides."""
    with transaction(db, write=False) as tx:
        game = report_reads.game(tx, game_id)
        sides = list(find_ruleset(game.rules).sides(game.scenario))
        ks = [0] + [r.k for r in report_reads.active_history(tx, game_id)]
        latest: report.ReportData | None = None
        for k in ks:
            views = reporting.report_views(tx, game_id, k, sides, links="site")
            shared = report.Shared(views[0]) if views else None  # what every side's report shows alike, written once
            for data in views:
                put(report.report_filename(k, data.side), report.render_html(data, shared=shared))
                if data.map_svg:
                    put(report.map_filename(k, data.side), data.map_svg)
                latest = data
    if latest is None:
        raise LookupError(f"game {game_id} has no side to report to")
    return latest, ks, sides


def _drop_set_aside_pages(folder: Path, ks: list[int], sides: list[str]) -> None:
    """Remove the pages an earlier run wrote for resolutions a rollback has set
    aside since (only files named as this module names them)."""
    keep = {name(k, side) for k in ks for side in sides for name in (report.report_filename, report.map_filename)}
    for old in [*folder.glob("report-k*.html"), *folder.glob("map-k*.svg")]:
        ours = re.fullmatch(r"(report|map)-k\d+-.+\.(html|svg)", old.name) and any(
            old.name.endswith(f"-{side}{old.suffix}") for side in sides
        )
        if ours and old.name not in keep:
            old.unlink()


def _write_dice(db: Database, game_id: str, put: Callable[[str, str], None]) -> None:
    """Every die rolled, set-aside ones marked: ``dice.json`` and ``dice.html``."""
    with transaction(db, write=False) as tx:
        game = report_reads.game(tx, game_id)
        active = {r.k: r.active for r in report_reads.resolutions(tx, game_id)}
        rows = [
            {
                "resolution": r.k,
                "index": r.idx,
                "sides": r.sides,
                "value": r.value,
                "purpose": r.purpose,
                "set_aside": not active.get(r.k, True),
            }
            for r in report_reads.rolls(tx, game_id)
        ]
    put(
        "dice.json",
        json.dumps({"game": game_id, "anchor": game.anchor, "rolls": rows}, indent=1, ensure_ascii=False) + "\n",
    )
    put(
        "dice.html",
        report.environment().get_template("dice.html.j2").render(game_id=game_id, anchor=game.anchor, rolls=rows),
    )


def _index_page(
    db: Database, game_id: str, latest: report.ReportData, sides: list[str], archive_file: str, url: str | None
) -> str:
    """The site's front page: the game, players, whose move, deadline, score chart,
    every resolution with its reports, rollbacks, and the audit, dice and archive."""
    with transaction(db, write=False) as tx:
        game = report_reads.game(tx, game_id)
        actives = [r for r in report_reads.resolutions(tx, game_id) if r.active]
        players = [(p.side, _key_words(p.public_key)) for p in report_reads.players(tx, game_id)]
        rollbacks = [
            (f"{rb.at:%Y-%m-%d %H:%M} UTC", rb.to_k, rb.discarded) for rb in report_reads.rollbacks(tx, game_id)
        ]
        clock = deadlines.timing(tx, game_id)  # None once the game is over
    ruleset = find_ruleset(game.rules)
    scores = [(0, ruleset.score(json.loads(game.initial_position)))] + [
        (r.k, ruleset.score(json.loads(r.position))) for r in actives
    ]
    url = url or game.site_url
    resolutions = [(0, "the game as set up", game.initial_state_hash)] + [(r.k, r.label, r.state_hash) for r in actives]
    deadline = clock.deadline if clock else None  # a game without --deadline waits forever
    series: dict[str, list[tuple[int, int]]] = {}
    for k, lines in scores:
        for line in lines:
            series.setdefault(line.side, []).append((k, line.value))
    chart = Markup(charts.line_chart_svg(series, title="Score by resolution", x_label="resolution")) if series else None
    return (
        report.environment()
        .get_template("site_index.html.j2")
        .render(
            d=latest,
            sides=sides,
            players=players,
            resolutions=resolutions,
            rollbacks=rollbacks,
            deadline=f"{deadline:%Y-%m-%d %H:%M} UTC" if deadline else None,
            chart=chart,
            archive=archive_file,
            site_url=url,
        )
    )


def _key_words(line: str) -> str:
    """A player's key as a reader can compare it: type and SHA256 fingerprint."""
    try:
        key = keys.PublicKey.from_openssh(line)
    except ValueError:
        return line.split()[0] if line else ""
    return f"{line.split()[0]} {key.fingerprint()}"
