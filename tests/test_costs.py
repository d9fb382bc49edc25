"""Costs that must not grow (the speed work): each test counts queries or calls,
never time.

- a report reads one resolution's whole row, however long the game;
- the archive reads a game in a fixed number of statements;
- a turn file's orders are validated once: at submit, and not again by ``process``
  nor by the Farrapos engine it calls; once per file by the audit;
- Farrapos works out each side's VP breakdown once per score;
- Furor Barbarus finds its scenario and map files once per process;
- Farrapos reads a position through few Views, works out placements and Militia
  only for a turn that orders them, and copies only what a resolution changes;
- a resolution parses its stored position once, and its orders once in a process
  that also submitted them; a dice reveal walks up from its checkpoint once; a
  time limit installs its handler without the enum round trip.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import pytest

from pbem import store
from pbem.audit import archive
from pbem.dice import DiceStream
from pbem.referee import judging
from pbem.referee import resolve as resolving
from pbem.reports import assemble as reporting
from pbem.rules import find_ruleset
from pbem.store import records
from pbem.store.transaction import transaction
from pbem.turnfiles import sshsig
from pbem.turnfiles.envelope import parse_turn_file, render_turn_file
from tests.support.desk import Desk, new_games, open_desk, play_resolutions, queue_next_turns
from tests.support.position_reads import counted_parses


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    d = open_desk(tmp_path)
    yield d
    d.engine.dispose()


def test_a_report_reads_one_whole_resolution_however_long_the_game(desk: Desk) -> None:
    """It read every active resolution's row (position and events included), so a
    game's reports cost O(k^2) in all; then ten ORM statements, then ten plain ones.
    Now five however long the game (the game, its kept list of earlier resolutions,
    the resolution, the game's small rows and pauses in one, the dice), one of them
    reading whole resolution rows: the resolution reported and the one before it
    (its reveal)."""
    short, long = new_games(desk, 2)
    play_resolutions(desk, short, 2)
    play_resolutions(desk, long, 8)
    db = store.open_database(desk.db)
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    read: dict[str, tuple[int, list[str]]] = {}
    try:
        for game_id, k in ((short, 2), (long, 8)):
            statements.clear()
            with transaction(db, write=False) as tx:
                views = reporting.report_views(tx, game_id, None, ("republic", "empire"))
            assert len(views) == 2 and views[0].history_lines.count("<li>resolution ") == k
            selects = [s for s in statements if s.lstrip().upper().startswith(("SELECT", "WITH"))]
            whole = [s for s in selects if "FROM resolution" in s and "position" in s]
            read[game_id] = (len(selects), [s.split(" IN ", 1)[1] for s in whole])
    finally:
        db.dispose()
    # (the dice chains, refused files, players, rollbacks, civil disorder, observers and pauses: one statement, six
    # before)
    assert read == {short: (5, ["(2, 1)"]), long: (5, ["(8, 7)"])}, read


def test_the_archive_reads_a_game_in_a_fixed_number_of_statements(desk: Desk) -> None:
    """It made two queries per resolution (its files, its rolls)."""
    short, long = new_games(desk, 2)
    play_resolutions(desk, short, 1)
    play_resolutions(desk, long, 6)
    db = store.open_database(desk.db)
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    try:
        counts = {}
        for game_id in (short, long):
            statements.clear()
            data = archive.build_archive(db, game_id)
            counts[game_id] = sum(1 for s in statements if s.lstrip().upper().startswith("SELECT"))
    finally:
        db.dispose()
    assert len(data["resolutions"]) == 6
    assert counts[short] == counts[long] <= 15, (
        counts
    )  # the game, players, resolutions, files, rolls, rollbacks, chains, house tables, late turns, player changes,
    # bot turns, the civil disorder allowance and periods, observers, ledger


def _count_validations(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often Farrapos orders are validated: by the ruleset's ``validate`` (the
    verdict on a file) and inside its engine (``resolve``)."""
    import pbem.rules.farrapos.ruleset as ruleset_module
    import pbem.rules.farrapos.turn as turn_module

    calls: dict[str, int] = {"ruleset": 0, "engine": 0}

    def counting(where: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[where] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(ruleset_module, "validate_orders", counting("ruleset", ruleset_module.validate_orders))
    monkeypatch.setattr(turn_module, "validate_orders", counting("engine", turn_module.validate_orders))
    return calls


def test_orders_are_validated_once_at_submit_and_not_again_by_process(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They were validated at submit, again by ``process``, and again inside the
    Farrapos engine.  ``process`` now only parses them and resolves them with
    ``resolve_validated`` (submit checked them against this very position)."""
    calls = _count_validations(monkeypatch)
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game])
    assert calls == {"ruleset": 1, "engine": 0}
    assert resolving.process(desk.engine, [game])[0].resolved == 1
    assert calls == {"ruleset": 1, "engine": 0}


def test_the_farrapos_engine_called_alone_still_refuses_illegal_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    """``resolve`` validates what it is given; only ``resolve_validated`` trusts
    its caller."""
    from pbem.rules.base import IllegalOrderError

    calls = _count_validations(monkeypatch)
    farrapos = find_ruleset("farrapos")
    position = farrapos.setup(None, [])
    side = farrapos.due(position)[0]
    orders, problems = farrapos.parse_orders("attack porto-alegre from bage with inf-5\n")
    assert problems == []
    with pytest.raises(IllegalOrderError, match="refused"):
        farrapos.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"illegal").digest()))
    assert calls == {"ruleset": 0, "engine": 1}


def test_the_audit_validates_each_farrapos_file_once(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit validated every file and then replayed it through ``resolve``,
    which validated it again (44% of a Farrapos audit); now the replay trusts the
    audit's own check, which still refuses illegal orders (tests/test_hardening.py)."""
    from pbem.audit import verify as audit

    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 4)
    db = store.open_database(desk.db)
    try:
        data = archive.build_archive(db, game)
    finally:
        db.dispose()
    files = sum(len(r["submissions"]) for r in data["resolutions"])
    calls = _count_validations(monkeypatch)
    audit.audit_archive(data)
    assert files == 4 and calls == {"ruleset": files, "engine": 0}
    # an archive whose orders are illegal (signed, with no dice to give it away) is still refused
    quiet = next(r for r in data["resolutions"] if not r["rolls"])
    [sub] = quiet["submissions"]
    tf = parse_turn_file(sub["turn_file"].encode("utf-8"))
    doctored = render_turn_file(tf.game, tf.rules, tf.side, tf.turn, tf.state, "pass\npass\n").encode(
        "utf-8"
    )  # two actions
    sub["turn_file"] = doctored.decode("utf-8")
    sub["signature"] = sshsig.sign(doctored, desk.signers[tf.side])
    with pytest.raises(audit.AuditFailure, match=f"resolution {tf.turn}, {tf.side} turn file: orders are not legal"):
        audit.audit_archive(data)


def test_farrapos_works_out_each_sides_vp_breakdown_once_per_resolution_and_per_score(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A resolution worked each side's breakdown out twice (the VP totals, then the
    event's text), and so did each score line: four times per resolution and
    four per report.  Now once per side in each."""
    import pbem.rules.farrapos.victory_points as vp_module

    calls: list[str] = []
    real = vp_module._breakdown
    monkeypatch.setattr(
        vp_module, "_breakdown", lambda view, side, held, real=real: calls.append(side) or real(view, side, held)
    )
    farrapos = find_ruleset("farrapos")
    position = farrapos.setup(None, [])
    calls.clear()  # the opening position's own count
    lines = farrapos.score(position)
    assert sorted(line.side for line in lines) == ["empire", "republic"]
    assert sorted(calls) == ["empire", "republic"]
    calls.clear()
    side = farrapos.due(position)[0]
    orders = farrapos.parse_orders(farrapos.bot_orders(position, side, "random", random.Random(1)))[0]
    result = farrapos.resolve(position, {side: orders}, DiceStream(hashlib.sha256(b"vp").digest()))
    assert any(e["type"] == "vp" for e in result.events)
    assert sorted(calls) == ["empire", "republic"]


def test_furor_barbarus_finds_its_data_files_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each resolution looked for the scenario and map files again (nine
    file-system calls); now the second resolution touches the file system not at all."""
    ruleset = find_ruleset("furor-barbarus")
    position = ruleset.setup("soissons", [])

    def resolve(pos: dict[str, Any], n: int) -> dict[str, Any]:
        rng = random.Random(n)
        orders = {
            side: ruleset.parse_orders(ruleset.bot_orders(pos, side, "random", rng))[0] for side in ruleset.due(pos)
        }
        return ruleset.resolve(pos, orders, DiceStream(hashlib.sha256(f"costs-{n}".encode()).digest())).position

    position = resolve(position, 1)
    looked: list[str] = []
    real_is_file = Path.is_file
    monkeypatch.setattr(Path, "is_file", lambda self: looked.append(str(self)) or real_is_file(self))
    resolve(position, 2)
    assert looked == []


def test_furor_barbarus_works_out_zones_of_control_a_few_times_per_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every move cleared the whole cache, so a movement phase worked the enemy
    zone of control out again after each unit moved (up to 23 times in one
    resolution of these games); now a move keeps the moving side's cached enemy
    zone, and each resolution works a zone out a handful of times (at most 5 in
    these games since the two-step set-up; the bound below leaves one spare)."""
    from pbem.rules.furor_barbarus import zones_of_control

    ruleset = find_ruleset("furor-barbarus")
    computed: list[int] = [0]
    real = zones_of_control._zone_of_enemies

    def counting(*args: Any) -> Any:
        computed[0] += 1
        return real(*args)

    monkeypatch.setattr(zones_of_control, "_zone_of_enemies", counting)
    per_resolution = []
    for scenario in ("campus-mauriacus", "tolbiac"):
        position = ruleset.setup(scenario, [])
        for n in range(1, 9):
            if not ruleset.due(position):
                break
            rng = random.Random(n)
            orders = {
                side: ruleset.parse_orders(ruleset.bot_orders(position, side, "greedy", rng))[0]
                for side in ruleset.due(position)
            }
            computed[0] = 0
            position = ruleset.resolve(position, orders, DiceStream(hashlib.sha256(f"z{n}".encode()).digest())).position
            per_resolution.append(computed[0])
    assert max(per_resolution) <= 6, (
        per_resolution
    )  # it was up to 23; a retreat or an elimination of the other side still counts
    assert sum(per_resolution) > 0  # the zones were worked out: the count means something


def test_farrapos_validation_lists_the_sides_cities_a_fixed_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking a turn's orders asked for the side's cities once per city of the
    board (a list rebuilt inside a comprehension): quadratic in the board, and
    half of a Farrapos audit's time.  Now a few times per check."""
    from pbem.rules.farrapos.position import View

    calls = [0]
    real = View.owned_cities

    def counting(self: View, side: str) -> list[str]:
        calls[0] += 1
        return real(self, side)

    monkeypatch.setattr(View, "owned_cities", counting)
    farrapos = find_ruleset("farrapos")
    position = farrapos.setup(None, [])
    side = farrapos.due(position)[0]
    orders = farrapos.parse_orders(farrapos.bot_orders(position, side, "random", random.Random(3)))[0]
    calls[0] = 0
    assert farrapos.validate(position, side, orders) == []
    assert calls[0] <= 4, calls[0]


def test_farrapos_reads_a_position_through_few_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """A resolution built about 14 Views of its positions, each indexing the whole
    board again (validation made two of the same position, and one more per order
    line checked).  Now the check makes one, and one more per MU movement it
    applies; the resolution one per step that changes the position."""
    from pbem.rules.farrapos.orders import Carry, DeployMilitia, Invade, Move
    from pbem.rules.farrapos.position import View

    built = [0]
    real = View.__init__

    def counting(self: View, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(View, "__init__", counting)
    farrapos = find_ruleset("farrapos")
    position = farrapos.setup(None, [])
    for n in range(24):
        side = farrapos.due(position)[0]
        orders = farrapos.parse_orders(
            farrapos.bot_orders(position, side, ("random", "greedy")[n % 2], random.Random(n))
        )[0]
        moves = sum(isinstance(line.order, (Carry, Invade, Move)) for line in orders)
        militia = sum(isinstance(line.order, DeployMilitia) for line in orders)
        built[0] = 0
        assert farrapos.validate(position, side, orders) == []
        assert built[0] == 1 + moves
        built[0] = 0
        position = farrapos.resolve_validated(
            position, {side: orders}, DiceStream(hashlib.sha256(f"views-{n}".encode()).digest())
        ).position
        assert built[0] <= 4 + militia  # the start, a battle, the militia, the arrivals, the VP count


def test_a_resolution_parses_its_position_once(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """Submit, the look before resolving and the resolution each read the game's
    position and parsed its JSON again (three times per resolution); now the
    first read parses it and the others copy that parse."""

    [game] = new_games(desk, 1)
    play_resolutions(desk, game, 1)
    parsed = counted_parses(monkeypatch)
    monkeypatch.setattr(
        records, "_positions", {}
    )  # none parsed yet in this process (another test may have played these very positions)
    for n in range(1, 4):
        parsed.clear()
        queue_next_turns(desk, [game], seed=n)
        assert resolving.process(desk.engine, [game])[0].resolved == n + 1
        assert len(parsed) == 1, len(parsed)


def test_a_dice_reveal_walks_up_from_its_checkpoint_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each resolution's reveal hashed its way up from the nearest checkpoint (up
    to 127 hashes); the values on the way are the next resolutions' reveals, so
    now they are kept and the game's next reveals cost no hash."""
    from pbem import dice

    commitment = dice.Commitment.new(1000)
    hashed = [0]
    real = dice.H
    monkeypatch.setattr(dice, "H", lambda data: hashed.__setitem__(0, hashed[0] + 1) or real(data))
    first = commitment.reveal(1)
    walked = hashed[0]
    assert 0 < walked < dice.CHECKPOINT_INTERVAL
    for k in range(2, 8):
        assert dice.H(commitment.reveal(k)) == (first if k == 2 else commitment.reveal(k - 1))
    assert hashed[0] == walked + 6  # the checks' own hashes above: no walking
    assert [commitment.reveal(k) for k in range(1, 8)] == [
        dice.chain_value(commitment.seed, 1000 - k) for k in range(1, 8)
    ]


def test_a_time_limit_installs_its_handler_without_the_enum_wrapper(monkeypatch: pytest.MonkeyPatch) -> None:
    """``signal.signal`` converts each handler to an enum and back (about 4% of a
    Farrapos resolution, two limits per turn file); the limits call the C
    function it wraps, and still fire."""
    import signal

    from pbem import limits

    wrapped = [0]
    real = signal.signal
    monkeypatch.setattr(signal, "signal", lambda *args: wrapped.__setitem__(0, wrapped[0] + 1) or real(*args))
    before = signal.getsignal(signal.SIGALRM)
    with limits.time_limit(5, "a file"):
        pass
    with pytest.raises(limits.TimeLimit, match="reading a slow file took over 0.05 s"):
        with limits.time_limit(0.05, "a slow file"):
            while True:
                pass
    assert wrapped[0] == 0 and signal.getsignal(signal.SIGALRM) == before


def test_farrapos_validation_works_out_placements_and_militia_only_for_a_turn_that_orders_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every check worked out the MU arriving, the Militia left and the cities
    either may go to, whatever the orders; now only for ``place`` and ``militia``
    lines."""
    from pbem.rules.farrapos.position import View

    asked: list[str] = []
    for name in ("arrivals_now", "militia_available", "owned_cities"):
        real = getattr(View, name)
        monkeypatch.setattr(View, name, lambda self, side, real=real, name=name: asked.append(name) or real(self, side))
    farrapos = find_ruleset("farrapos")
    position = farrapos.setup(None, [])
    side = farrapos.due(position)[0]
    orders = farrapos.parse_orders("pass\n")[0]
    assert farrapos.validate(position, side, orders) == []
    assert asked == []
    orders = farrapos.parse_orders("militia bage\n")[0]
    farrapos.validate(position, side, orders)
    assert "militia_available" in asked and "arrivals_now" not in asked


def test_a_process_that_submits_and_resolves_a_file_parses_its_orders_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``process`` parsed each queued file again, though the same process had just
    parsed the same bytes at submit; now it takes that parse (and still parses a
    file queued by another process)."""
    import pbem.rules.farrapos.ruleset as ruleset_module

    parsed = [0]
    real = ruleset_module.Farrapos.parse_orders
    monkeypatch.setattr(
        ruleset_module.Farrapos,
        "parse_orders",
        lambda self, text: parsed.__setitem__(0, parsed[0] + 1) or real(self, text),
    )
    [game] = new_games(desk, 1)
    queue_next_turns(desk, [game])
    assert parsed[0] == 1
    assert resolving.process(desk.engine, [game])[0].resolved == 1
    assert parsed[0] == 1
    queue_next_turns(desk, [game], seed=1)
    monkeypatch.setattr(judging, "_orders_read", {})  # as if another process had queued it
    assert resolving.process(desk.engine, [game])[0].resolved == 2
    assert parsed[0] == 3


def test_a_farrapos_resolution_copies_only_what_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving (and checking moves) deep-copied the whole position (a third of a
    resolution); now each city, the standing loss orders and the Militia lost are
    copied, and what is shared is left as it was."""
    import json

    from pbem.rules.base import Ruleset

    copies = [0]
    real = Ruleset.copy_position
    monkeypatch.setattr(
        Ruleset, "copy_position", staticmethod(lambda position: copies.__setitem__(0, copies[0] + 1) or real(position))
    )
    farrapos = find_ruleset("farrapos")
    seen: set[str] = set()
    militia_lost = False
    for game in range(4):  # until a battle has cost a Militia (the Militia lost change in place)
        position = farrapos.setup(None, [])
        for n in range(60):
            if farrapos.outcome(position) or militia_lost and len(seen) >= 6:
                break
            side = farrapos.due(position)[0]
            body = farrapos.bot_orders(position, side, ("random", "greedy")[n % 2], random.Random(game * 100 + n))
            body += "losses militia\n" if n % 3 else "defend porto-alegre losses militia\n"
            orders = farrapos.parse_orders(body)[0]
            if farrapos.validate(position, side, orders):
                orders = farrapos.parse_orders(body.replace("defend porto-alegre ", ""))[0]
            seen.update(type(line.order).__name__ for line in orders)
            before = json.dumps(position, sort_keys=True)
            copies[0] = 0
            assert farrapos.validate(position, side, orders) == []
            result = farrapos.resolve_validated(
                position, {side: orders}, DiceStream(hashlib.sha256(f"copy-{game}-{n}".encode()).digest())
            )
            assert copies[0] == 0
            assert json.dumps(position, sort_keys=True) == before
            militia_lost = militia_lost or result.position["militia_lost"] != position["militia_lost"]
            position = result.position
    assert militia_lost and {"Attack", "Move", "Invade", "StandingLosses"} <= seen, seen
