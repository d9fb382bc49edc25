"""Legal orders and bots: ``random`` and ``greedy`` build their orders from the one
legality source; their orders pass ``validate``; greedy beats random in most of 50
seeded games."""

import random

import pytest

from tests.support.farrapos_games import RULES, play_game


def test_bots_are_random_and_greedy():
    assert RULES.bots() == ("random", "greedy")
    with pytest.raises(ValueError, match="unknown bot"):
        RULES.bot_orders(RULES.setup(None, []), "republic", "clever", random.Random(1))


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_bots_orders_pass_validate_from_the_opening(bot):
    position = RULES.setup(None, ["siege", "port-transport"])
    for seed in range(30):
        body = RULES.bot_orders(position, "republic", bot, random.Random(seed))
        orders, problems = RULES.parse_orders(body)
        assert not problems and not RULES.validate(position, "republic", orders), body


def test_bots_random_tries_every_kind_of_action():
    position = RULES.setup(None, [])
    verbs = set()
    for seed in range(60):
        for line in RULES.bot_orders(position, "republic", "random", random.Random(seed)).splitlines():
            verbs.add(line.split()[0])
    assert {"attack", "invade", "move", "pass"} <= verbs


def test_bots_same_seed_same_orders():
    position = RULES.setup(None, [])
    assert RULES.bot_orders(position, "republic", "greedy", random.Random(5)) == RULES.bot_orders(
        position, "republic", "greedy", random.Random(5)
    )


def test_bots_greedy_beats_random_in_most_of_50_seeded_games():
    greedy_wins = 0
    for seed in range(50):
        greedy_side = "republic" if seed % 2 == 0 else "empire"
        bots = {greedy_side: "greedy", ("empire" if greedy_side == "republic" else "republic"): "random"}
        final = play_game(seed, bots)
        greedy_wins += RULES.outcome(final).winner == greedy_side
    assert greedy_wins > 25, greedy_wins


def test_legal_orders_generator_yields_only_orders_that_validate():
    from pbem.rules.base import OrderLine, Orders
    from pbem.rules.farrapos.legal import legal_actions

    seen = []
    play_game(3, {"republic": "random", "empire": "greedy"}, ("siege",), lambda b, a, s, e: seen.append(a))
    checked = 0
    for position in seen[:-1:3]:
        (side,) = RULES.due(position)
        for action in legal_actions(position, side):
            orders = Orders((OrderLine(1, str(action), action),))
            assert not RULES.validate(position, side, orders), str(action)
            checked += 1
        other = "empire" if side == "republic" else "republic"
        assert list(legal_actions(position, other)) == []
    assert checked > 100


def test_legal_orders_generator_covers_each_rulebook_action_at_the_opening():
    from pbem.rules.farrapos.legal import legal_actions
    from pbem.rules.farrapos.orders import Attack, Invade, Move, Pass

    actions = list(legal_actions(RULES.setup(None, []), "republic"))
    kinds = {type(a) for a in actions}
    assert kinds == {Attack, Invade, Move, Pass}
    assert {(a.origin, a.target) for a in actions if isinstance(a, Attack)} == {
        ("triunfo", "porto-alegre"),
        ("pelotas", "rio-grande"),
    }
