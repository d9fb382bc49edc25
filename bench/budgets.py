"""Instruction budgets, measured from outside through the command line only.

Each figure is instructions (valgrind's callgrind: the same count however busy
the machine is), never CPU seconds.  Per-resolution figures are the difference
between a database of N mid-game games and the same command on one game,
divided by N - 1, so that start-up and one-off imports cancel:

- ``ingest --dir`` of every awaited side's signed file (per resolution: both files);
- ``process --all``;
- ``process --all --reports DIR``;

for 8 Farrapos games about to make resolution 13 and 5 Vouille games about to
make resolution 7, each played there by the bots; then 5 games of each other Furor
Barbarus scenario at resolution 7, the same way, against Vouille's budgets.  Start-up figures are one
command against ``python -c pass`` of a plain interpreter (a venv with nothing
installed): ``pbem --help``, ``pbem check FILE --position POS`` on a mid-game
Farrapos position, and an idle ``pbem tick`` over the 8 Farrapos games.

Usage: ``python bench/budgets.py [--workdir DIR]``; writes ``bench/budgets.json``
and prints each figure beside its budget.  Exit 1 when a figure is over budget.

``--only growth`` measures that no per-resolution cost grows with a game's length
or with the games in the database: the Farrapos figures of games about to make
resolution 13 (as above), of the same games played on to resolution 40, and of
the resolution-13 games in a database that also holds 40 other games (played to
resolution 5, waiting for files); it prints each against the first, and writes
nothing.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import pbem.dice
from pbem import store
from pbem.referee import intake, lifecycle, resolve
from pbem.reports import assemble
from pbem.turnfiles import keys, sshsig

PBEM = [sys.executable, "-m", "pbem"]

BUDGETS: dict[str, float] = {
    "farrapos.ingest": 2.5e6,
    "farrapos.process": 2.0e6,
    "farrapos.process_reports": 7.0e6,
    "vouille.ingest": 3.5e6,
    "vouille.process": 4.5e6,
    "vouille.process_reports": 16.0e6,
    "start.help": 8.0,
    "start.check_position": 10.0,
    "start.idle_tick": 10.0,
}
"""Per-resolution instructions, and start-up as a multiple of a plain ``-c pass``."""


@dataclass(frozen=True)
class Game:
    rules: str
    scenario: str | None
    sides: tuple[str, str]
    games: int
    at: int  # the resolution measured
    files: int  # the turn files it waits for (the sides due)


FARRAPOS = Game("farrapos", None, ("empire", "republic"), 8, 13, 1)
VOUILLE = Game("furor-barbarus", "vouille", ("franks", "visigoths"), 5, 7, 1)


FARRAPOS_LATE = Game("farrapos", None, ("empire", "republic"), 8, 40, 1)
"""The same games played on: a game's length must not raise a resolution's cost."""
OTHERS, OTHERS_AT = 40, 5
"""Waiting games beside the measured ones: the games in the database must not either."""
GROWTH_ALLOWED = 0.02
"""How far a late or crowded figure may be above the early one (a fraction of it)."""


def growth(work: Path) -> int:
    """``--only growth``: the Farrapos figures early, late and among other games,
    each against the early one; 1 when one is more than ``GROWTH_ALLOWED`` above."""
    early, _ = per_resolution(FARRAPOS, work)
    late, _ = per_resolution(FARRAPOS_LATE, work, tag="-late")
    crowded, _ = per_resolution(FARRAPOS, work, OTHERS, tag="-crowded")
    over = 0
    for key, value in early.items():
        for label, other in ((f"at resolution {FARRAPOS_LATE.at}", late), (f"among {OTHERS} more games", crowded)):
            change = other[key] / value - 1
            over += change > GROWTH_ALLOWED
            print(
                f"farrapos.{key:16} {value:>12,} at resolution {FARRAPOS.at}, {other[key]:>12,} {label}: {change:+.1%}"
            )
    return 1 if over else 0


def other_scenarios() -> list[str]:
    """Every Furor Barbarus scenario but Vouille, each held to Vouille's budgets."""
    from pbem.rules import find_ruleset

    return [info.id for info in find_ruleset(VOUILLE.rules).scenarios() if info.id != VOUILLE.scenario]


def scenario_game(scenario: str) -> Game:
    """Vouille's measure (5 games, resolution 7, one file) on another Furor Barbarus
    scenario, with that scenario's sides."""
    from pbem.rules import find_ruleset

    sides = tuple(find_ruleset(VOUILLE.rules).sides(scenario))
    if len(sides) != 2:
        raise SystemExit(f"budgets: scenario {scenario!r} has sides {sides}, not two")
    return Game(VOUILLE.rules, scenario, (sides[0], sides[1]), VOUILLE.games, VOUILLE.at, VOUILLE.files)


class CommandFailed(RuntimeError):
    """A measured command failed, or did not do the work it was measured for."""


@dataclass(frozen=True)
class Run:
    """One measured command: ``argv_for()`` lays out a fresh state (copies of the
    database and of the turn files) and returns the command line; ``check(stdout,
    folder)`` raises ``CommandFailed`` unless the run did the expected work."""

    label: str
    argv_for: Callable[[], list[str]]
    check: Callable[[str], None]


def environment() -> dict[str, str]:
    """The same environment for every run: hash seed fixed (set and dict orders, so
    the same code paths), the user's caches (compiled templates, rules data) in the
    work folder, no colour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PBEM_", "COVERAGE"))}
    env.update(PYTHONHASHSEED="0", PBEM_CACHE_DIR=str(HERE / "work" / "cache"), NO_COLOR="1", COLUMNS="120")
    return env


def _collected(stderr: str) -> int:
    found = [line.rsplit(":", 1)[1].strip().replace(",", "") for line in stderr.splitlines() if "Collected" in line]
    if not found:
        raise CommandFailed(f"callgrind counted nothing: {stderr[-400:]}")
    return int(found[-1])


def _checked(run: Run, result: subprocess.CompletedProcess[str], argv: list[str]) -> None:
    if result.returncode != 0:
        raise CommandFailed(
            f"{run.label}: exit {result.returncode}: {' '.join(argv)}\n{result.stdout[-800:]}{result.stderr[-800:]}"
        )
    try:
        run.check(result.stdout)
    except CommandFailed as exc:
        raise CommandFailed(f"{run.label}: {exc}\n{' '.join(argv)}\n{result.stdout[-800:]}") from None


def instructions(run: Run) -> int:
    """Instructions of one run under callgrind, after one run not counted (it fills
    the caches a second command finds: Python's compiled modules, the compiled
    templates, the rules data); both runs must succeed and do the expected work."""
    env = environment()
    argv = run.argv_for()
    _checked(run, subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900), argv)
    argv = run.argv_for()
    log = HERE / "work" / "callgrind.log"
    counted = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    _checked(run, counted, argv)
    return _collected(log.read_text(encoding="utf-8"))


def fresh_copy(folder: Path, db: Path, files: Path | None = None) -> tuple[Path, Path | None]:
    """A copy of ``db`` (and of the turn-file folder, whose seen-file a run writes)
    for one run, and no report folder."""
    run = folder / "run"
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir()
    copy = run / "referee.db"
    shutil.copy(db, copy)
    turns = None
    if files is not None:
        turns = run / "turns"
        shutil.copytree(files, turns)
    return copy, turns


def said(wanted: str) -> Callable[[str], None]:
    """A check that the command's output holds the line ``wanted``."""

    def check(stdout: str) -> None:
        if wanted not in stdout.splitlines():
            raise CommandFailed(f"expected the line {wanted!r}")

    return check


def checkpointed(db: Path) -> None:
    """Fold the write-ahead log into the file, so that a copy of the file alone is
    the whole database."""
    connection = sqlite3.connect(db)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    for extra in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        if extra.exists() and extra.stat().st_size:
            raise RuntimeError(f"{extra} is not empty after a checkpoint")


def kept_key(side: str) -> tuple[Path, Path]:
    """The side's key pair, made on first use and kept in ``bench/work/keys-budgets``, so that
    every run signs with the same keys (with the dice seeds fixed, every run plays
    the same games and writes the same reports)."""
    folder = HERE / "work" / "keys-budgets"
    private, public = folder / side, folder / f"{side}.pub"
    if not (private.is_file() and public.is_file()):
        folder.mkdir(parents=True, exist_ok=True)
        private, public = keys.generate_ed25519(side, folder)
    return private, public


def played_to(game: Game, folder: Path, count: int, others: int = 0) -> tuple[Path, Path]:
    """A database of ``count`` games of ``game`` played by the bots until resolution
    ``game.at`` is the next, and a folder of every awaited side's signed turn file;
    ``others`` more games (``x0``...), played after them to resolution
    ``OTHERS_AT``, wait in the database for files no folder holds."""
    folder.mkdir(parents=True)
    signers, public = {}, {}
    for side in game.sides:
        private, pub = kept_key(side)
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    seeds = iter(range(10**9))  # the same dice in every run, and g0 alike in both databases
    pbem.dice.new_seed = lambda: hashlib.sha256(b"budgets %d" % next(seeds)).digest()  # type: ignore[assignment]
    db = folder / "referee.db"
    engine = store.create_database(db)
    # the measured games first, so that their dice are those of every other run
    for game_id, at in [*((f"g{n}", game.at) for n in range(count)), *((f"x{n}", OTHERS_AT) for n in range(others))]:
        lifecycle.new_game(engine, game_id, game.rules, game.scenario, [], public)
        for k in range(1, at):
            for side in lifecycle.status(engine, game_id).awaiting:
                message = lifecycle.next_turn_file(engine, game_id, side, bot="random", seed=k).encode("utf-8")
                intake.submit(engine, message, sshsig.sign(message, signers[side]))
            if resolve.resolve_next(engine, game_id).resolved != k:
                raise RuntimeError(f"{game_id}: resolution {k} was not made (the game ended early?)")
    files = folder / "turns"
    files.mkdir()
    for n in range(count):
        awaiting = lifecycle.status(engine, f"g{n}").awaiting
        if len(awaiting) != game.files:
            raise RuntimeError(f"g{n}: awaits {awaiting}, not {game.files} side(s): the games are not alike")
        for side in awaiting:
            message = lifecycle.next_turn_file(engine, f"g{n}", side, bot="random", seed=game.at).encode("utf-8")
            (files / f"g{n}-{side}.txt").write_bytes(message)
            (files / f"g{n}-{side}.txt.sig").write_text(sshsig.sign(message, signers[side]), encoding="utf-8")
    # every game's reports of the resolution before, as a referee writes or mails them at each
    # resolution: the store then keeps each game's list of earlier resolutions, as in a game in play
    for n in range(count):
        assemble.write_resolution_reports(engine, f"g{n}", game.at - 1, folder / "reports" / f"g{n}")
    reports = folder / "positions"
    assemble.write_resolution_reports(engine, "g0", game.at - 1, reports)
    engine.dispose()
    checkpointed(db)
    return db, files


def measured(game: Game, folder: Path, db: Path, files: Path, count: int, others: int = 0) -> dict[str, int]:
    """The three commands' instructions on ``count`` games of ``folder`` (and
    ``others`` waiting games, which ``process`` finds waiting)."""
    files_in = count * game.files

    def ingest() -> list[str]:
        copy, turns = fresh_copy(folder, db, files)
        return [*PBEM, "--db", str(copy), "ingest", "--dir", str(turns), "-q"]

    counts = {
        "ingest": instructions(Run("ingest", ingest, said(f"{files_in} accepted, 0 refused, 0 checked, 0 skipped")))
    }
    ingested = folder / "ingested.db"
    copy, turns = fresh_copy(folder, db, files)
    result = subprocess.run(
        [*PBEM, "--db", str(copy), "ingest", "--dir", str(turns), "-q"],
        env=environment(),
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 or f"{files_in} accepted, 0 refused" not in result.stdout:
        raise CommandFailed(f"ingest before process: {result.stdout[-400:]}{result.stderr[-400:]}")
    checkpointed(copy)
    shutil.copy(copy, ingested)
    made = said(f"{count} resolution(s) made, {others} game(s) waiting")

    def process() -> list[str]:
        copy, _ = fresh_copy(folder, ingested)
        return [*PBEM, "--db", str(copy), "process", "--all", "-q"]

    counts["process"] = instructions(Run("process", process, made))

    def with_reports() -> list[str]:
        copy, _ = fresh_copy(folder, ingested)
        return [*PBEM, "--db", str(copy), "process", "--all", "-q", "--reports", str(folder / "run" / "out")]

    def reported(stdout: str) -> None:
        made(stdout)
        out = folder / "run" / "out"
        per_game = [sum(1 for f in (out / f"g{n}").rglob("*") if f.is_file()) for n in range(count)]
        if min(per_game) < 2 * len(game.sides) or len(set(per_game)) != 1:
            raise CommandFailed(f"report files per game: {per_game}")

    counts["process_reports"] = instructions(Run("process --reports", with_reports, reported))
    return counts


def per_resolution(
    game: Game, work: Path, others: int = 0, tag: str = ""
) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """The three per-resolution figures of one game, and the raw counts they come
    from (``others``: waiting games in both databases; ``tag``: their folders' name)."""
    name = (game.scenario or game.rules) + tag
    raw: dict[str, dict[str, int]] = {}
    for label, count in (("many", game.games), ("one", 1)):
        folder = work / f"{name}-{label}"
        db, files = played_to(game, folder, count, others)
        raw[label] = measured(game, folder, db, files, count, others)
        print(f"  {name} {label} ({count} games): {raw[label]}", flush=True)
    n = game.games - 1
    return {key: round((raw["many"][key] - raw["one"][key]) / n) for key in raw["many"]}, raw


def start_up(work: Path) -> dict[str, Any]:
    """Start-up of three commands as multiples of a plain interpreter's ``-c pass``."""
    plain = work / "plain-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(plain)], check=True)
    ok = lambda stdout: None  # noqa: E731
    floor = instructions(Run("-c pass", lambda: [str(plain / "bin" / "python"), "-c", "pass"], ok))
    farrapos = work / "farrapos-many"
    turn = sorted((farrapos / "turns").glob("g0-*.txt"))[0]
    [position] = sorted((farrapos / "positions").glob("*.position.json"))

    def help_shown(stdout: str) -> None:
        if "Usage:" not in stdout:
            raise CommandFailed("no usage line")

    def tick() -> list[str]:
        copy, _ = fresh_copy(farrapos, farrapos / "referee.db")
        return [*PBEM, "--db", str(copy), "tick"]

    raw = {
        "help": instructions(Run("--help", lambda: [*PBEM, "--help"], help_shown)),
        "check_position": instructions(
            Run("check --position", lambda: [*PBEM, "check", str(turn), "--position", str(position)], ok)
        ),
        "idle_tick": instructions(Run("idle tick", tick, ok)),
    }
    print(f"  start-up: floor {floor}, {raw}", flush=True)
    return {"floor": floor, "raw": raw, **{key: round(value / floor, 2) for key, value in raw.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=HERE / "work" / "budgets")
    parser.add_argument(
        "--only",
        default="",
        help="farrapos, vouille, start or growth: measure that part alone, print it, write no file",
    )
    parser.add_argument(
        "--scenario",
        default="",
        help="with --only vouille: play that Furor Barbarus scenario instead of Vouille (soissons, tolbiac...)",
    )
    args = parser.parse_args()
    if args.scenario and args.only != "vouille":
        parser.error("--scenario goes with --only vouille")
    if os.environ.get("PYTHONHASHSEED") != "0":  # the bots' games themselves are played in this process
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    if not shutil.which("valgrind"):
        print("budgets: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    for package in ("pbem", "rules", "templates"):
        compileall.compile_dir(str(ROOT / package), quiet=2)
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    if args.only == "growth":
        return growth(args.workdir)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    loads = [os.getloadavg()[0]]
    figures: dict[str, float] = {}
    raw: dict[str, Any] = {}
    furor = scenario_game(args.scenario) if args.scenario else VOUILLE
    for name, game in (("farrapos", FARRAPOS), ("vouille", furor)):
        if args.only and args.only != name and not (args.only == "start" and name == "farrapos"):
            continue
        per, counts = per_resolution(game, args.workdir)
        raw[name] = {"games": game.games, "at": game.at, **counts}
        figures.update({f"{name}.{key}": value for key, value in per.items()})
        loads.append(os.getloadavg()[0])
    if args.only in ("farrapos", "vouille"):
        print(json.dumps(figures, indent=1))
        return 0
    scenarios: dict[str, dict[str, int]] = {}
    if not args.only:  # every other scenario, on Vouille's measure and against its budgets
        for scenario in other_scenarios():
            per, counts = per_resolution(scenario_game(scenario), args.workdir)
            scenarios[scenario] = per
            raw[scenario] = {"games": VOUILLE.games, "at": VOUILLE.at, **counts}
            loads.append(os.getloadavg()[0])
    start = start_up(args.workdir)
    raw["start"] = {"floor": start["floor"], **start["raw"]}
    figures.update({f"start.{key}": start[key] for key in start["raw"]})
    loads.append(os.getloadavg()[0])
    if args.only:
        print(json.dumps(figures, indent=1))
        return 0
    results = {
        "when": started,
        "python": sys.version.split()[0],
        "load_average": [round(x, 1) for x in loads],
        "budgets": BUDGETS,
        "figures": figures,
        "scenarios": scenarios,
        "raw": raw,
    }
    (HERE / "budgets.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    over = 0
    for key, budget in BUDGETS.items():
        value = figures[key]
        unit = "x" if key.startswith("start.") else " instructions per resolution"
        verdict = "within" if value <= budget else "OVER"
        over += value > budget
        shown = f"{value:,.2f}" if key.startswith("start.") else f"{value:,}"
        print(f"{key:34} {shown:>14}{unit}  budget {budget:,.6g}  {verdict}")
    for scenario, per in scenarios.items():
        for key, value in per.items():
            budget = BUDGETS[f"vouille.{key}"]
            over += value > budget
            verdict = "within" if value <= budget else "OVER"
            name = f"{scenario}.{key}"
            print(f"{name:34} {value:>14,} instructions per resolution  budget {budget:,.6g}  {verdict}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
