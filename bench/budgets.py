"""Instruction budgets, measured from outside through the command line only.

Each figure is instructions (valgrind's callgrind: the same count however busy
the machine is), never CPU seconds.  Per-resolution figures are the difference
between a database of N mid-game games and the same command on one game,
divided by N - 1, so that start-up and one-off imports cancel:

- ``ingest --dir`` of every awaited side's signed file (per resolution: both files);
- ``process --all``;
- ``process --all --reports DIR``;

for 8 Farrapos games about to make resolution 13 and 5 Vouille games about to
make resolution 7, each played there by the bots.  Start-up figures are one
command against ``python -c pass`` of a plain interpreter (a venv with nothing
installed): ``pbem --help``, ``pbem check FILE --position POS`` on a mid-game
Farrapos position, and an idle ``pbem tick`` over the 8 Farrapos games.

Usage: ``python bench/budgets.py [--workdir DIR]``; writes ``bench/budgets.json``
and prints each figure beside its budget.  Exit 1 when a figure is over budget.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

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


FARRAPOS = Game("farrapos", None, ("empire", "republic"), 8, 13)
VOUILLE = Game("furor-barbarus", "vouille", ("franks", "visigoths"), 5, 7)


def instructions(argv_for: Callable[[], list[str]]) -> int:
    """Instructions of one run of ``argv_for()`` under callgrind, after one run that
    compiles what Python and the templates compile once; ``argv_for`` lays out a
    fresh state for each run (a copy of the database)."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PBEM_CACHE_DIR": str(HERE / "work" / "cache")}
    subprocess.run(argv_for(), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    counted = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv_for()],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=3600,
    )
    found = [
        line.rsplit(":", 1)[1].strip().replace(",", "") for line in counted.stderr.splitlines() if "Collected" in line
    ]
    if not found:
        raise RuntimeError(f"callgrind counted nothing: {counted.stderr[-400:]}")
    return int(found[-1])


def on_copy(db: Path, argv: Callable[[Path], list[str]]) -> Callable[[], list[str]]:
    """``argv`` on a fresh copy of ``db`` (and no report folder) each time."""

    def fresh() -> list[str]:
        copy = db.parent / "run.db"
        shutil.copy(db, copy)
        shutil.rmtree(db.parent / "out", ignore_errors=True)
        return argv(copy)

    return fresh


def played_to(game: Game, folder: Path, count: int) -> tuple[Path, Path]:
    """A database of ``count`` games of ``game`` played by the bots until resolution
    ``game.at`` is the next, and a folder of every awaited side's signed turn file."""
    folder.mkdir(parents=True)
    signers, public = {}, {}
    for side in game.sides:
        private, pub = keys.generate_ed25519(side, folder)
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    db = folder / "referee.db"
    engine = store.create_database(db)
    for n in range(count):
        game_id = f"g{n}"
        lifecycle.new_game(engine, game_id, game.rules, game.scenario, [], public)
        for k in range(1, game.at):
            for side in lifecycle.status(engine, game_id).awaiting:
                message = lifecycle.next_turn_file(engine, game_id, side, bot="random", seed=k).encode("utf-8")
                intake.submit(engine, message, sshsig.sign(message, signers[side]))
            if resolve.resolve_next(engine, game_id).resolved != k:
                raise RuntimeError(f"{game_id}: resolution {k} was not made (the game ended early?)")
    files = folder / "turns"
    files.mkdir()
    for n in range(count):
        for side in lifecycle.status(engine, f"g{n}").awaiting:
            message = lifecycle.next_turn_file(engine, f"g{n}", side, bot="random", seed=game.at).encode("utf-8")
            (files / f"g{n}-{side}.txt").write_bytes(message)
            (files / f"g{n}-{side}.txt.sig").write_text(sshsig.sign(message, signers[side]), encoding="utf-8")
    reports = folder / "positions"
    assemble.write_resolution_reports(engine, "g0", game.at - 1, reports)
    engine.dispose()
    return db, files


def per_resolution(game: Game, work: Path) -> dict[str, int]:
    """The three per-resolution figures of one game, and the databases they ran on."""
    many_db, many_files = played_to(game, work / f"{game.scenario or game.rules}-many", game.games)
    one_db, one_files = played_to(game, work / f"{game.scenario or game.rules}-one", 1)
    counts: dict[str, dict[str, int]] = {}
    for label, db, files in (("many", many_db, many_files), ("one", one_db, one_files)):
        ingest = instructions(on_copy(db, lambda d, f=files: [*PBEM, "--db", str(d), "ingest", "--dir", str(f), "-q"]))
        ingested = db.parent / "ingested.db"
        shutil.copy(db, ingested)
        subprocess.run([*PBEM, "--db", str(ingested), "ingest", "--dir", str(files), "-q"], capture_output=True)
        process = instructions(on_copy(ingested, lambda d: [*PBEM, "--db", str(d), "process", "--all", "-q"]))
        reports = instructions(
            on_copy(
                ingested,
                lambda d: [*PBEM, "--db", str(d), "process", "--all", "-q", "--reports", str(d.parent / "out")],
            )
        )
        counts[label] = {"ingest": ingest, "process": process, "process_reports": reports}
    n = game.games - 1
    return {key: round((counts["many"][key] - counts["one"][key]) / n) for key in counts["many"]}


def start_up(work: Path) -> dict[str, float]:
    """Start-up of three commands as multiples of a plain interpreter's ``-c pass``."""
    plain = work / "plain-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(plain)], check=True)
    floor = instructions(lambda: [str(plain / "bin" / "python"), "-c", "pass"])
    farrapos = work / "farrapos-many"
    turn = sorted((farrapos / "turns").glob("g0-*.txt"))[0]
    [position] = sorted((farrapos / "positions").glob("*.position.json"))
    figures = {
        "help": instructions(lambda: [*PBEM, "--help"]),
        "check_position": instructions(lambda: [*PBEM, "check", str(turn), "--position", str(position)]),
        "idle_tick": instructions(on_copy(farrapos / "referee.db", lambda d: [*PBEM, "--db", str(d), "tick"])),
    }
    return {"floor": floor, **{key: round(value / floor, 2) for key, value in figures.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=HERE / "work" / "budgets")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("budgets: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    results: dict[str, Any] = {"load": os.getloadavg()}
    for name, game in (("farrapos", FARRAPOS), ("vouille", VOUILLE)):
        for key, value in per_resolution(game, args.workdir).items():
            results[f"{name}.{key}"] = value
    start = start_up(args.workdir)
    results["start.floor_instructions"] = start.pop("floor")
    for key, value in start.items():
        results[f"start.{key}"] = value
    (HERE / "budgets.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    over = 0
    for key, budget in BUDGETS.items():
        value = results[key]
        unit = "x" if key.startswith("start.") else " instructions per resolution"
        verdict = "within" if value <= budget else "OVER"
        over += value > budget
        shown = f"{value:,.2f}" if key.startswith("start.") else f"{value:,}"
        print(f"{key:28} {shown:>14}{unit}  budget {budget:,.6g}  {verdict}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
