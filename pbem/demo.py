"""``pbem demo``: whole bot-vs-bot games through the referee's real path.

For each game: key pairs are made, every turn file is written by a bot
(``pipeline.next_turn_file``), signed (SSHSIG), submitted, processed; each
resolution's reports are written; at the end the game's folder is written as
its site (``pbem site``: index, every report, audit page, dice, archive) and the
archive is audited from the file.  An ``index.html`` links every game's site.

The Farrapos game is run the way an unattended referee runs it: with deadlines
(48h, grace 12h, reminder 6h before), its turn files dropped into a folder and
``pbem tick`` making each pass (intake, clock, resolution).  The empire misses
its first deadline: the clock is moved on (``tick``'s ``now``) to show the
reminder, the late notice and the turn resolved with no orders (NMR) at the end
of grace.  Its referee log and the outbox (every message owed, unsent: the demo
has no SMTP server) are written beside its reports.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from pbem import paths, store
from pbem.audit import archive, site
from pbem.audit import verify as audit
from pbem.referee import intake, lifecycle, resolve
from pbem.reports import assemble as reporting
from pbem.reports import render as report
from pbem.rules import find_ruleset
from pbem.turnfiles import keys, sshsig

DEMO_GAMES: tuple[tuple[str, str | None], ...] = (
    ("farrapos", None),
    ("furor-barbarus", "campus-mauriacus"),
    ("furor-barbarus", "soissons"),
    ("furor-barbarus", "tolbiac"),
    ("furor-barbarus", "vouille"),
)
MAX_RESOLUTIONS = 500  # a safety stop; every shipped game ends long before


@dataclass(frozen=True)
class DemoResult:
    game_id: str
    rules: str
    scenario: str
    resolutions: int
    files: int
    rolls: int
    result: dict | None
    folder: Path
    audit_lines: tuple[str, ...]
    last_k: int
    sides: tuple[str, ...]
    archive: Path
    links: tuple[tuple[str, str], ...] = ()  # (label, file in the game's folder)


def play_game(
    engine: Engine,
    out: Path,
    rules_id: str,
    scenario: str | None,
    seed: int = 1,
    bots: Sequence[str] = ("greedy", "random"),
    on_resolution: Callable[[], None] | None = None,
) -> DemoResult:
    ruleset = find_ruleset(rules_id)
    info = ruleset.scenario(scenario)
    game_id = f"demo-{rules_id}" if rules_id == "farrapos" else f"demo-{info.id}"
    folder = out / game_id
    keydir = out / "keys" / game_id
    signers, public = _demo_keys(keydir, info.sides)
    lifecycle.new_game(
        engine, game_id, rules_id, info.id, [], public, {side: f"{side}@example.org" for side in info.sides}
    )
    turns = folder / "turns"
    turns.mkdir(parents=True, exist_ok=True)
    reporting.write_resolution_reports(engine, game_id, 0, folder)
    bot_of = {side: bots[i % len(bots)] for i, side in enumerate(info.sides)}
    for _ in range(MAX_RESOLUTIONS):
        st = lifecycle.status(engine, game_id)
        if st.over:
            break
        for side in st.awaiting:
            text = lifecycle.next_turn_file(engine, game_id, side, bot=bot_of[side], seed=seed)
            message = text.encode("utf-8")
            signature = sshsig.sign(message, signers[side])
            path = turns / f"turn-{st.turn:03d}-{side}.txt"
            paths.write_file(path, message)
            paths.write_file(path.with_name(path.name + ".sig"), signature)
            intake.submit(engine, message, signature, source=str(path.name))
        outcome = resolve.resolve_next(engine, game_id)
        if outcome.resolved is None:
            raise RuntimeError(f"{game_id}: resolution {st.turn} did not resolve ({outcome.note or outcome.awaiting})")
        reporting.write_resolution_reports(engine, game_id, outcome.resolved, folder)
        if on_resolution is not None:
            on_resolution()
    return _finish(engine, game_id, folder, rules_id, info.id, info.sides)


def _demo_keys(keydir: Path, sides: Sequence[str]) -> tuple[dict[str, keys.PrivateKey], dict[str, str]]:
    """A new Ed25519 pair per side in ``keydir``: (signing keys, public key lines)."""
    signers: dict[str, keys.PrivateKey] = {}
    public: dict[str, str] = {}
    for side in sides:
        priv, pub = keys.generate_ed25519(side, keydir)
        signers[side] = keys.load_private_key(priv)
        public[side] = pub.read_text(encoding="utf-8").strip()
    return signers, public


def _log_at(lines: list[str], hours: int) -> Callable[[str], None]:
    """A referee log that appends each line to ``lines``, marked ``[+{hours}h]``."""
    return lambda line: lines.append(f"[+{hours}h] {line}")


def play_by_tick(
    engine: Engine, out: Path, seed: int = 1, on_resolution: Callable[[], None] | None = None
) -> DemoResult:
    """The Farrapos demo game run by ``pbem tick`` with deadlines (module docstring)."""
    from datetime import timedelta

    from pbem.mail import outbox
    from pbem.referee import deadlines
    from pbem.referee import service as referee

    ruleset = find_ruleset("farrapos")
    info = ruleset.scenario(None)
    game_id = "demo-farrapos"
    folder = out / game_id
    keydir = out / "keys" / game_id
    signers, public = _demo_keys(keydir, info.sides)
    clock = deadlines.Clock(deadline=48 * 3600, grace=12 * 3600, remind=6 * 3600)
    lifecycle.new_game(
        engine,
        game_id,
        "farrapos",
        info.id,
        [],
        public,
        {side: f"{side}@example.org" for side in info.sides},
        clock=clock,
    )
    drop = folder / "inbox"
    drop.mkdir(parents=True, exist_ok=True)
    log_lines: list[str] = []
    options = referee.Options(directory=drop)
    reporting.write_resolution_reports(engine, game_id, 0, folder)
    bot_of = {side: ("greedy", "random")[i % 2] for i, side in enumerate(info.sides)}
    late_side = "empire"
    written = 0
    for _ in range(MAX_RESOLUTIONS):
        st = lifecycle.status(engine, game_id)
        if st.over:
            break
        skip = late_side in st.awaiting
        for side in st.awaiting:
            if skip and side == late_side:
                continue
            text = lifecycle.next_turn_file(engine, game_id, side, bot=bot_of[side], seed=seed)
            message = text.encode("utf-8")
            path = drop / f"turn-{st.turn:03d}-{side}.txt"
            paths.write_file(path, message)
            paths.write_file(path.with_name(path.name + ".sig"), sshsig.sign(message, signers[side]))
        if skip:
            late_side = ""  # only once
            from pbem.store.transaction import transaction

            with transaction(engine, write=False) as tx:
                start = deadlines.last_activity(tx, game_id)
            for hours in (0, 43, 49, 61):  # now, the reminder, the late notice, the end of grace
                referee.tick(
                    engine,
                    options,
                    _log_at(log_lines, hours),
                    now=start + timedelta(hours=hours),
                )
        else:
            referee.tick(engine, options, log_lines.append)
        after = lifecycle.status(engine, game_id)
        for k in range(st.turn, after.turn):
            reporting.write_resolution_reports(engine, game_id, k, folder)
            written += 1
            if on_resolution is not None:
                on_resolution()
        if after.turn == st.turn:
            raise RuntimeError(f"{game_id}: turn {st.turn} did not resolve")
    paths.write_file(folder / "referee.log", "\n".join(log_lines) + "\n")
    rows = [r for r in outbox.rows(engine) if r.game_id == game_id]
    paths.write_file(
        folder / "outbox.txt", "".join(f"{r.id:>4} {r.state:<8} {r.kind:<9} {r.to:<22} {r.subject}\n" for r in rows)
    )
    result = _finish(engine, game_id, folder, "farrapos", info.id, info.sides)
    return DemoResult(**{**result.__dict__, "links": (("referee log", "referee.log"), ("outbox", "outbox.txt"))})


def _finish(
    engine: Engine, game_id: str, folder: Path, rules_id: str, scenario: str, sides: tuple[str, ...]
) -> DemoResult:
    """The game's folder becomes its site (``pbem site``: index, every report with
    links that resolve, audit page, dice, archive), and the archive is audited."""
    site.write_site(engine, game_id, folder)
    archive_path = folder / site.archive_name(game_id)
    data = archive.load(archive_path)
    summary = audit.audit_archive(data)
    return DemoResult(
        game_id=game_id,
        rules=rules_id,
        scenario=scenario,
        resolutions=summary.resolutions,
        files=summary.files,
        rolls=summary.rolls,
        result=data["final"]["result"],
        folder=folder,
        audit_lines=tuple(summary.lines()),
        last_k=data["resolutions"][-1]["k"] if data["resolutions"] else 0,
        sides=sides,
        archive=archive_path,
    )


def run_demo(
    out: Path,
    games: Sequence[tuple[str, str | None]] = DEMO_GAMES,
    seed: int = 1,
    progress: Callable[[str], Callable[[], None]] | None = None,
) -> list[DemoResult]:
    """Play every demo game into ``out`` (a fresh database ``out/demo.db``)."""
    out.mkdir(parents=True, exist_ok=True)
    db = out / "demo.db"
    for stale in (db, db.with_name("demo.db-wal"), db.with_name("demo.db-shm")):
        stale.unlink(missing_ok=True)
    shutil.rmtree(out / "keys", ignore_errors=True)
    engine = store.open_engine(db)
    results = []
    for rules_id, scenario in games:
        tick = progress(f"{rules_id} {scenario or ''}".strip()) if progress else None
        if rules_id == "farrapos" and scenario is None:
            results.append(play_by_tick(engine, out, seed=seed, on_resolution=tick))
        else:
            results.append(play_game(engine, out, rules_id, scenario, seed=seed, on_resolution=tick))
    engine.dispose()
    _write_index(out, results)
    return results


def _write_index(out: Path, results: list[DemoResult]) -> None:
    rows = []
    for r in results:
        rel = r.folder.relative_to(out)
        result = r.result or {}
        rows.append(
            '<tr><td><a href="{rel}/index.html">{game}</a></td><td>{rules}/{scen}</td><td>{winner}</td>'
            "<td>{res}</td><td>{files}</td><td>{rolls}</td>"
            '<td>{last} · <a href="{rel}/audit.html">audit page</a> · <a '
            'href="{rel}/{archive}">archive</a></td></tr>'.format(
                game=html.escape(r.game_id),
                rules=html.escape(r.rules),
                scen=html.escape(r.scenario),
                winner=html.escape(find_ruleset(r.rules).outcome_text(result) if result else "not over"),
                res=r.resolutions,
                files=r.files,
                rolls=r.rolls,
                rel=html.escape(str(rel)),
                archive=html.escape(site.archive_name(r.game_id)),
                last=" · ".join(
                    [
                        f'<a href="{html.escape(str(rel))}/'
                        f'{html.escape(report.report_filename(r.last_k, side))}">{html.escape(side)} report</a>'
                        for side in r.sides
                    ]
                    + [
                        f'<a href="{html.escape(str(rel))}/{html.escape(file)}">{html.escape(label)}</a>'
                        for label, file in r.links
                    ]
                ),
            )
        )
    page = (
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
        "content='width=device-width,initial-scale=1'>"
        "<title>pbem demo</title><style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:1rem "
        "auto;padding:0 1rem}"
        "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:.3rem;text-align:left}"
        # on a phone each game is a card: every cell on its own line, the links included
        "@media (max-width:700px){table,tbody,tr,td{display:block;width:100%}tr:first-child{display:none}"
        "tr{border-bottom:2px solid #999;padding:.4rem 0}td{border:none;padding:.1rem "
        "0}td:nth-child(4)::before{content:'resolutions: '}"
        "td:nth-child(5)::before{content:'turn files: '}td:nth-child(6)::before{content:'dice: '}}</style></head><body>"
        "<h1>pbem demo games</h1><p>Each game was played bot against bot through signed turn files, the database "
        "and the "
        "processor; its archive was exported and audited. The Farrapos game was run by <code>pbem tick</code> "
        "with deadlines "
        "(48h, grace 12h): the empire missed one and that turn was resolved with no orders, as its audit "
        "shows.</p><table><tr><th>game</th><th>rules</th><th>result</th>"
        "<th>resolutions</th><th>turn files</th><th>dice</th><th>open</th></tr>"
        + "".join(rows)
        + "</table></body></html>\n"
    )
    paths.write_file(out / "index.html", page)
