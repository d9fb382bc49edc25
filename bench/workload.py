"""The benchmark's workload: many Farrapos games between the same two players,
one signed turn each, submitted and processed through the library (the same
functions ``pbem submit`` and ``pbem process`` call), each call timed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from pbem.referee import intake, lifecycle, resolve
from pbem.reports import assemble as reporting
from pbem.turnfiles import keys, sshsig

RULES = "farrapos"


@dataclass(frozen=True)
class Players:
    signers: dict[str, keys.PrivateKey]
    public: dict[str, str]


def make_players(folder: Path) -> Players:
    signers, public = {}, {}
    for side in ("republic", "empire"):
        private, pub = keys.generate_ed25519(side, folder)
        signers[side] = keys.load_private_key(private)
        public[side] = pub.read_text(encoding="utf-8").strip()
    return Players(signers, public)


def create_games(engine: Engine, count: int, players: Players, prefix: str = "g") -> tuple[list[str], list[float]]:
    """``pbem new`` ``count`` times; (game ids, seconds per call)."""
    ids, times = [], []
    for n in range(count):
        game_id = f"{prefix}{n:05d}"
        start = time.perf_counter()
        lifecycle.new_game(engine, game_id, RULES, None, [], players.public)
        times.append(time.perf_counter() - start)
        ids.append(game_id)
    return ids, times


@dataclass(frozen=True)
class TurnFile:
    game_id: str
    side: str
    message: bytes
    signature: str


def write_turns(
    engine: Engine, game_ids: list[str], players: Players, seed: int = 0
) -> tuple[list[TurnFile], list[float], list[float]]:
    """The players' side (not the referee's cost): a bot writes each awaited
    side's turn file, the player signs it.  (files, seconds writing, seconds signing)."""
    files, writing, signing = [], [], []
    for game_id in game_ids:
        for side in lifecycle.status(engine, game_id).awaiting:
            t0 = time.perf_counter()
            message = lifecycle.next_turn_file(engine, game_id, side, bot="random", seed=seed).encode("utf-8")
            t1 = time.perf_counter()
            signature = sshsig.sign(message, players.signers[side])
            t2 = time.perf_counter()
            files.append(TurnFile(game_id, side, message, signature))
            writing.append(t1 - t0)
            signing.append(t2 - t1)
    return files, writing, signing


def submit_all(engine: Engine, files: list[TurnFile]) -> list[float]:
    """``pbem submit`` for every file; seconds per call."""
    times = []
    for f in files:
        start = time.perf_counter()
        intake.submit(engine, f.message, f.signature, source="bench")
        times.append(time.perf_counter() - start)
    return times


def process_all(engine: Engine, reports: Path | None = None) -> tuple[int, list[float], list[float], float]:
    """``pbem process --all [--reports DIR]``: (resolutions made, seconds per
    resolution, seconds per resolution's reports, wall seconds in all)."""
    stamps: list[float] = []
    start = time.perf_counter()
    outcomes = resolve.process(engine, None, on_resolved=lambda _o: stamps.append(time.perf_counter()))
    per_resolution = [b - a for a, b in zip([start, *stamps], stamps)]
    rendering = []
    if reports is not None:
        for o in outcomes:
            if o.resolved is not None:
                t0 = time.perf_counter()
                reporting.write_resolution_reports(engine, o.game_id, o.resolved, reports / o.game_id)
                rendering.append(time.perf_counter() - t0)
    wall = time.perf_counter() - start
    made = sum(1 for o in outcomes if o.resolved is not None)
    return made, per_resolution, rendering, wall


def play_whole_game(engine: Engine, game_id: str, players: Players, limit: int = 200) -> int:
    """Bot against bot to the end (for the audit benchmark); resolutions made."""
    made = 0
    for _ in range(limit):
        st = lifecycle.status(engine, game_id)
        if st.over:
            break
        files, _w, _s = write_turns(engine, [game_id], players, seed=made)
        submit_all(engine, files)
        outcome = resolve.resolve_next(engine, game_id)
        if outcome.resolved is None:
            raise RuntimeError(f"{game_id}: turn {st.turn} did not resolve")
        made += 1
    return made
