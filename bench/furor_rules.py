"""The Furor Barbarus rules engine's own share of a resolution, per scenario, in instructions.

``python bench/furor_rules.py [--scenario ID ...] [--games N] [--workdir DIR]`` plays
``--games`` games of each scenario with the seeded random bot (in this process, through
the ruleset alone: no database, no signatures), keeping each play resolution's
position and turn file; then it counts under valgrind's callgrind the instructions of
a process that checks (``validate``, what ``submit`` does) and resolves
(``resolve_validated``, what ``process`` does) every kept resolution, against the same
process that only loads them, and prints per scenario the instructions per resolution:
``validate`` alone, ``resolve`` alone and both.  The dice are a seeded
``random.Random``, the same in every run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

SCENARIOS = ("vouille", "soissons", "tolbiac", "campus-mauriacus")


class SeededDice:
    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def roll(self, sides: int, purpose: str) -> int:
        return self.rng.randint(1, sides)


def record(scenario: str, games: int) -> list[dict[str, Any]]:
    """Every play resolution of ``games`` bot games: position, side and orders."""
    from pbem.rules import find_ruleset

    ruleset = find_ruleset("furor-barbarus")
    kept: list[dict[str, Any]] = []
    for g in range(games):
        position = ruleset.setup(scenario, [])
        for k in range(1, 200):
            due = ruleset.due(position)
            if not due:
                break
            texts = {
                s: ruleset.bot_orders(position, s, "random", random.Random(f"{scenario}/{g}/{k}/{s}")) for s in due
            }
            if position["phase"] == "play":
                kept.append({"position": position, "orders": texts, "seed": f"{g}/{k}"})
            orders = {s: ruleset.parse_orders(t)[0] for s, t in texts.items()}
            position = ruleset.resolve_validated(position, orders, SeededDice(f"{g}/{k}")).position
    return kept


def replay(path: Path, part: str) -> int:
    """Check and/or resolve every kept resolution of ``path`` (``part``: none,
    validate, resolve, both); the number of resolutions."""
    from pbem.rules import find_ruleset

    ruleset = find_ruleset("furor-barbarus")
    kept = json.loads(path.read_text(encoding="utf-8"))
    for n, item in enumerate([kept[0], *kept]):  # the first once more, uncounted: imports, data, names
        warm = n == 0
        if part == "none" and not warm:
            continue
        position = item["position"]
        orders = {s: ruleset.parse_orders(t)[0] for s, t in item["orders"].items()}
        if part in ("validate", "both") or warm:
            for side, given in orders.items():
                if ruleset.validate(position, side, given):
                    raise SystemExit(f"refused: {item['seed']} {side}")
        if part in ("resolve", "both") or warm:
            ruleset.resolve_validated(position, orders, SeededDice(item["seed"]))
    return len(kept)


def counted(path: Path, part: str) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PBEM_CACHE_DIR": str(HERE / "work" / "cache")}
    argv = [sys.executable, __file__, "--replay", str(path), "--part", part]
    subprocess.run(argv, env=env, check=True, capture_output=True)
    log = path.with_suffix(".callgrind.log")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}", *argv],
        env=env,
        check=True,
        capture_output=True,
    )
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if "Collected" in line]
    return int(lines[-1].rsplit(":", 1)[1].strip().replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scenario", action="append", default=[], help="one scenario (repeatable; default all)")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=HERE / "work" / "furor-rules")
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--part", default="both", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay:
        replay(args.replay, args.part)
        return 0
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    args.workdir.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict[str, int]] = {}
    for scenario in args.scenario or SCENARIOS:
        path = args.workdir / f"{scenario}.json"
        kept = record(scenario, args.games)
        path.write_text(json.dumps(kept), encoding="utf-8")
        base = counted(path, "none")
        figures = {part: round((counted(path, part) - base) / len(kept)) for part in ("validate", "resolve")}
        figures["resolutions"] = len(kept)
        out[scenario] = figures
        print(f"{scenario:18} {figures}", flush=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
