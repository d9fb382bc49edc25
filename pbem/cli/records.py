"""The records' commands: ``dice``, ``export``, ``audit``, ``case``, ``report``,
``demo``, ``site``, ``tables``, ``table``."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, TypedDict

import typer
import typer.core
import typer.main
import typer.models

from pbem.cli.application import registry as app
from pbem.cli.common import _pairs, database, example, fail, is_stdout, refusals, write_output

if TYPE_CHECKING:
    from pbem.dice.stats import ChiSquare


class _DieSummary(TypedDict):
    """``pbem dice --stats`` of one die size."""

    faces: dict[str, int]
    chi_square: "ChiSquare"


@app.command(epilog=example("pbem dice g1 --stats", "pbem dice --archive g1.json --json"))
def dice(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Game in the database.")] = None,
    archive_file: Annotated[
        Optional[Path],
        typer.Option("--archive", metavar="FILE", help="Read the dice from an exported archive (no database)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Machine-readable output: the anchor and every roll (and --stats).")
    ] = False,
    stats: Annotated[
        bool, typer.Option("--stats", help="Counts per face and a chi-square figure per die size.")
    ] = False,
) -> None:
    """The dice history: resolution, index, die, value, purpose."""
    from pbem.dice import history as dice_history
    from pbem.dice import stats as dice_stats

    if (game is None) == (archive_file is None):
        typer.echo("pbem: give a GAME or --archive FILE", err=True)
        raise typer.Exit(2)
    with refusals():
        if archive_file is not None:
            from pbem.audit import archive

            try:
                found = dice_history.from_archive(archive.load(archive_file))
            except ValueError as exc:
                fail(str(exc))
        else:
            found = dice_history.from_store(database(), game or "")
    game = found.game
    history = found.rolls
    rows = history
    summary: dict[str, _DieSummary] | None = None
    if stats:
        counted = dice_stats.face_counts(rows)
        fits = dice_stats.fit(counted)
        summary = {
            str(sides): {"faces": {str(f): c for f, c in sorted(counts.items())}, "chi_square": fits[sides]}
            for sides, counts in sorted(counted.items())
        }
    if as_json:
        typer.echo(
            json.dumps(
                {"game": game, "anchor": found.anchor, "rolls": history, **({"stats": summary} if stats else {})},
                indent=1,
                ensure_ascii=False,
            )
        )
        return
    typer.echo(f"dice of {game} (anchor {found.anchor}): {len(history)} roll(s)")
    for h in history:
        mark = "  [set aside]" if h["set_aside"] else ""
        typer.echo(
            f"  k={h['resolution']:<4} #{h['index']:<3} d{h['sides']:<3} = {h['value']:<3}  {h['purpose']}{mark}"
        )
    if summary:
        for sides, s in summary.items():
            stat, dof, p = s["chi_square"]
            faces = " ".join(f"{f}:{c}" for f, c in s["faces"].items())
            typer.echo(f"  d{sides}: {faces}   chi-square {stat:.2f} (df {dof}, p = {p:.3f})")


@app.command(epilog=example("pbem export g1 -o g1.json"))
def export(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", metavar="FILE", help="Archive file to write ('-': standard output).")
    ],
) -> None:
    """Write the game archive (pbem-archive/1 JSON; -o - writes it to standard output)."""
    import json

    from pbem.audit import archive

    with refusals():
        if is_stdout(output):
            data = archive.build_archive(database(), game)
            text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        else:
            data = archive.export(database(), game, output)
    done = f"wrote {output}: {len(data['resolutions'])} resolution(s), anchor {data['dice']['anchor']}"
    if is_stdout(output):
        write_output(output, text, done)
    else:
        typer.echo(done)


@app.command(epilog=example("pbem audit --archive g1.json", "pbem audit g1"))
def audit(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Game in the database.")] = None,
    archive_file: Annotated[
        Optional[Path], typer.Option("--archive", metavar="FILE", help="Audit an exported archive (no database).")
    ] = None,
    anchor: Annotated[
        Optional[list[str]],
        typer.Option("--anchor", metavar="HEX", help="The dice anchor your reports printed; fails if it differs."),
    ] = None,
    key: Annotated[
        Optional[list[str]],
        typer.Option("--key", metavar="SIDE=PUBFILE", help="A side's public key file; fails if the archive's differs."),
    ] = None,
) -> None:
    """Re-verify signatures, headers, the dice chain, every roll and every position."""
    from pbem.audit import archive
    from pbem.audit import verify as auditing

    if (game is None) == (archive_file is None):
        typer.echo("pbem: give a GAME or --archive FILE", err=True)
        raise typer.Exit(2)
    keyfiles = _pairs(key or [], "--key")
    with refusals():
        held = {side: _key_line(Path(path)) for side, path in keyfiles.items()}
        try:
            data = archive.load(archive_file) if archive_file else archive.build_archive(database(), game or "")
            summary = auditing.audit_archive(data, anchor or [], held)
        except (auditing.AuditFailure, ValueError) as exc:
            fail(f"audit failed: {exc}")
    for line in summary.lines():
        typer.echo(line)


def _key_line(path: Path) -> str:
    """The OpenSSH public key line in ``path``."""
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError as exc:
        fail(f"{path}: cannot read the key file ({exc.strerror or exc})")


@app.command(epilog=example("pbem report g1 --side republic --format html -o report.html"))
def report(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="FILE", help="File to write ('-': stdout).")],
    turn: Annotated[
        Optional[int],
        typer.Option("--turn", metavar="K", help="Resolution k (default: the latest; 0: the game as created)."),
    ] = None,
    side: Annotated[
        Optional[str], typer.Option("--side", metavar="SIDE", help="The side's view (default: the referee's).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="html, text, eml, or audit (the whole game's audit page).")
    ] = "html",
) -> None:
    """Write one report (or the game's audit page)."""
    from pbem.reports import assemble as reporting

    if fmt not in ("html", "text", "eml", "audit"):
        typer.echo(f"pbem: --format must be html, text, eml or audit, not {fmt!r}", err=True)
        raise typer.Exit(2)
    with refusals():
        if fmt == "audit":
            from pbem.audit import archive, verify

            db = database()
            verdict = verify.verdict_of(archive.build_archive(db, game))
            content: str | bytes = reporting.audit_page(db, game, verdict=verdict)
        else:
            content = reporting.render(database(), game, turn, side, fmt)
        write_output(output, content, f"wrote {output}")


@app.command(epilog=example("pbem demo --rules farrapos --out demo"))
def demo(
    rules: Annotated[Optional[str], typer.Option("--rules", metavar="RULES", help="Only this ruleset.")] = None,
    scenario: Annotated[
        Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="Only this scenario.")
    ] = None,
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Output folder.")] = Path("demo"),
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Bot seed.")] = 1,
) -> None:
    """Whole bot-vs-bot games through signed files, the database and reports."""
    from pbem import demo as demos

    games = [g for g in demos.DEMO_GAMES if (rules is None or g[0] == rules) and (scenario is None or g[1] == scenario)]
    if rules and not games:
        games = [(rules, scenario)]
    with refusals():
        if sys.stderr.isatty():
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            with Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TextColumn("{task.completed} resolutions"),
                TimeElapsedColumn(),
            ) as bar:

                def progress(name: str) -> Callable[[], None]:
                    task = bar.add_task(name, total=None)
                    return lambda: bar.advance(task)

                results = demos.run_demo(out, games, seed, progress)
        else:
            results = demos.run_demo(out, games, seed)
    from pbem.rules import find_ruleset

    for r in results:
        outcome = find_ruleset(r.rules).outcome_text(r.result) if r.result else "not over"
        typer.echo(
            f"{r.game_id}: {outcome}; {r.resolutions} resolutions, {r.files} signed turn files, {r.rolls} rolls "
            "verified by audit"
        )
    typer.echo(f"open {out / 'index.html'}")


@app.command(epilog=example("pbem site g1 -o site/g1 --site-url https://example.org/pbem/g1"))
def site(
    game: Annotated[str, typer.Argument(metavar="GAME", help="Game id.")],
    output: Annotated[
        Path, typer.Option("-o", "--output", metavar="DIR", help="The folder to write (created if needed).")
    ],
    site_url: Annotated[
        Optional[str],
        typer.Option(
            "--site-url",
            metavar="URL",
            help="Where the folder is published (http/https); recorded with the game, mailed reports link to it.",
        ),
    ] = None,
) -> None:
    """Write the game's site: index, every report, audit page, dice, archive, Atom feed; every link resolves."""
    from pbem.audit import site as game_site

    if is_stdout(output):
        fail("site writes a folder (index.html, reports, feed.atom, ...): give -o DIR, not '-'")
    try:
        with refusals():
            written = game_site.write_site(database(), game, output, site_url)
    except game_site.SiteError as exc:
        fail(str(exc))
    typer.echo(
        f"wrote {len(written.files)} files to {written.folder}"
        + (f"; reports now link to {written.site_url}" if written.site_url else "")
    )
