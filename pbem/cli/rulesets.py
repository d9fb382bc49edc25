"""The ruleset author's commands: ``rules`` (what is installed), ``conformance``
(what the referee relies on a ruleset for, checked), ``case`` (rule cases),
``tables`` and ``table`` (the tables a game may replace)."""

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from pbem.cli.application import registry as app
from pbem.cli.common import _ruleset_or_usage, example, fail


@app.command("rules", epilog=example("pbem rules --json"))
def rules_command(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """The installed rulesets: id, title, version, sides, scenarios, where from."""
    from pbem.rules import installed_rulesets

    infos = installed_rulesets()
    if as_json:
        typer.echo(json.dumps([i.to_json() for i in infos], indent=2, ensure_ascii=False))
        return
    for i in infos:
        typer.echo(f"{i.id}: {i.title}, version {i.version} (from {i.distribution} {i.distribution_version})")
        for scenario in i.scenarios:
            typer.echo(f"  {scenario}: {', '.join(i.sides[scenario])}")


@app.command(epilog=example("pbem conformance farrapos", "pbem conformance furor-barbarus --scenario vouille"))
def conformance(
    rules: Annotated[str, typer.Argument(metavar="RULESET", help="An installed ruleset's id (see 'pbem rules').")],
    scenario: Annotated[
        Optional[str], typer.Option("--scenario", metavar="SCENARIO", help="One scenario (default: every one).")
    ] = None,
    games: Annotated[int, typer.Option("--games", metavar="N", help="Bot games played per scenario.")] = 2,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="The first game's seed.")] = 1,
    cases: Annotated[
        Optional[Path],
        typer.Option("--cases", metavar="DIR", help="A folder of rule cases to run instead of the ruleset's own."),
    ] = None,
) -> None:
    """Check what the referee relies on a ruleset for: determinism, JSON round trips, order templates,
    legal bots, refusals by line, games that end, the SVG map, its rule cases; exit 0 only if all hold."""
    from pbem.rules.conformance import check

    ruleset = _ruleset_or_usage(rules, scenario)
    if games < 1:
        typer.echo("pbem: --games must be at least 1", err=True)
        raise typer.Exit(2)
    failures = check(ruleset, scenario=scenario, games=games, seed=seed, cases=cases)
    for line in failures:
        typer.echo(f"{rules}: {line}", err=True)
    if failures:
        fail(f"{rules} {ruleset.version}: {len(failures)} conformance failure(s)")
    scenarios = [scenario] if scenario else [s.id for s in ruleset.scenarios()]
    typer.echo(f"{rules} {ruleset.version} conforms: {', '.join(scenarios)}, {games} game(s) each from seed {seed}")


@app.command(epilog=example("pbem case rules/farrapos/cases"))
def case(files: Annotated[list[Path], typer.Argument(metavar="FILE", help="Rule case TOML files or folders.")]) -> None:
    """Run rule cases; exit 0 only if all pass."""
    from pbem.rules.cases import run_cases

    results = run_cases(files)
    for r in results:
        typer.echo(r.summary())
    failed = sum(not r.passed for r in results)
    typer.echo(f"{len(results) - failed} passed, {failed} failed")
    if failed or not results:
        raise typer.Exit(1)


@app.command("tables", epilog=example("pbem tables furor-barbarus --scenario soissons"))
def tables_command(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")],
    scenario: Annotated[
        Optional[str],
        typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (tables may differ by scenario)."),
    ] = None,
) -> None:
    """List the tables a game may replace: name, printed or designed, where documented."""
    ruleset = _ruleset_or_usage(rules, scenario)
    infos = ruleset.tables(scenario)
    if not infos:
        typer.echo(f"{rules}: no replaceable tables")
        return
    for info in infos:
        typer.echo(f"{info.name}\t{info.status}\t{info.documented}")


@app.command("table", epilog=example("pbem table farrapos battle-table > my-table.toml"))
def table_command(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Ruleset: farrapos or furor-barbarus.")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="Table name (see 'pbem tables RULES').")],
    scenario: Annotated[
        Optional[str],
        typer.Option("--scenario", metavar="SCENARIO", help="Scenario id (tables may differ by scenario)."),
    ] = None,
) -> None:
    """Print one shipped table as TOML, in the form 'pbem new ... --table NAME=FILE' takes."""
    from pbem.rules.base import TableError
    from pbem.store import house_tables

    ruleset = _ruleset_or_usage(rules, scenario)
    try:
        scenario_id = ruleset.scenario(scenario).id
        sys.stdout.write(house_tables.to_toml(ruleset, name, ruleset.shipped_table(name, scenario_id), scenario_id))
    except TableError as exc:
        fail(str(exc))
