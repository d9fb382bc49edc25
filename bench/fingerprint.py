"""Fingerprints of the referee's outputs, to show that a speed change changes none.

Plays seeded bot games of every shipped game (Farrapos and each Furor Barbarus
scenario) through the referee's own functions with fixed keys and fixed dice
seeds, and prints one line per game: the sha256 of every resolution's state hash,
events and reveal, and of every report file (both sides' HTML and text, the next
turn files, the position file) written after each resolution.  Run it before and
after a change and compare the output:

    python bench/fingerprint.py --keys bench/work/keys > before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import pbem.dice
from pbem import store
from pbem.referee import intake, lifecycle, resolve
from pbem.reports import assemble
from pbem.turnfiles import keys, sshsig

GAMES = [
    ("farrapos", None, ("empire", "republic")),
    ("furor-barbarus", "campus-mauriacus", None),
    ("furor-barbarus", "soissons", None),
    ("furor-barbarus", "tolbiac", None),
    ("furor-barbarus", "vouille", None),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--keys", type=Path, required=True, help="a folder of key pairs, made on first use")
    parser.add_argument("--games", type=int, default=2, help="games of each (default 2)")
    parser.add_argument("--resolutions", type=int, default=14, help="at most this many per game (default 14)")
    args = parser.parse_args()
    counter = iter(range(10**9))
    pbem.dice.new_seed = lambda: hashlib.sha256(b"fingerprint %d" % next(counter)).digest()  # type: ignore[assignment]
    args.keys.mkdir(parents=True, exist_ok=True)
    (HERE / "work").mkdir(exist_ok=True)  # a fresh clone has no bench/work yet
    with tempfile.TemporaryDirectory(dir=HERE / "work") as tmp:
        work = Path(tmp)
        db = work / "referee.db"
        engine = store.create_database(db)
        for rules, scenario, _ in GAMES:
            for n in range(args.games):
                game_id = f"{scenario or rules}-{n}"
                from pbem.rules import find_ruleset

                sides = find_ruleset(rules).sides(scenario)
                signers, public = {}, {}
                for side in sides:
                    private = args.keys / side
                    if not private.exists():
                        keys.generate_ed25519(side, args.keys)
                    signers[side] = keys.load_private_key(private)
                    public[side] = (args.keys / f"{side}.pub").read_text(encoding="utf-8").strip()
                lifecycle.new_game(engine, game_id, rules, scenario, [], public)
                digest = hashlib.sha256()
                for k in range(1, args.resolutions + 1):
                    state = lifecycle.status(engine, game_id)
                    if not state.awaiting:
                        break
                    for side in state.awaiting:
                        bot = "greedy" if (k + n) % 2 else "random"
                        message = lifecycle.next_turn_file(engine, game_id, side, bot=bot, seed=k + n).encode()
                        intake.submit(engine, message, sshsig.sign(message, signers[side]))
                    if resolve.resolve_next(engine, game_id).resolved != k:
                        break
                    out = work / "reports" / game_id / str(k)
                    for path in sorted(assemble.write_resolution_reports(engine, game_id, k, out)):
                        digest.update(path.name.encode() + b"\0" + path.read_bytes())
                connection = sqlite3.connect(db)
                rows = connection.execute(
                    "SELECT k, state_hash, events, reveal FROM resolution WHERE game_id = ? ORDER BY k", (game_id,)
                ).fetchall()
                connection.close()
                for row in rows:
                    digest.update(repr(row).encode())
                print(f"{game_id}: {len(rows)} resolutions {digest.hexdigest()}", flush=True)
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
