"""Dice, version 1 (docs/design.md, "Dice, version 1"; docs/dice.md): the published test
vectors, an independent re-implementation, uniformity, the rejection step, the
statistics behind ``pbem dice --stats`` and the third-party verifier."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import itertools
import json
import math
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import dice
from pbem.dice.stats import chi_square, chi_square_p_value, face_counts, fit
from pbem.rules.dice import Roll
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
VECTORS = json.loads((ROOT / "tests" / "data" / "dice-vectors.json").read_text(encoding="utf-8"))
VERIFIER = ROOT / "tools" / "verify_dice.py"


# --- an independent re-implementation: hashlib/hmac only, nothing from pbem.dice ----------
def ref_enc(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def ref_chain(seed: bytes, n: int) -> list[bytes]:
    """``[s_0, s_1, ..., s_n]``."""
    chain = [seed]
    for _ in range(n):
        chain.append(hashlib.sha256(chain[-1]).digest())
    return chain


def ref_key_message(game_id: str, k: int, files: list[bytes]) -> bytes:
    return (
        ref_enc(b"pbem-dice-v1")
        + ref_enc(game_id.encode())
        + ref_enc(str(k).encode())
        + b"".join(ref_enc(hashlib.sha256(f).digest()) for f in files)
    )


def ref_key(reveal: bytes, game_id: str, k: int, files: list[bytes]) -> bytes:
    return hmac.new(reveal, ref_key_message(game_id, k, files), hashlib.sha256).digest()


def ref_bytes(key: bytes) -> Iterator[int]:
    for block in itertools.count():
        yield from hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest()


def ref_rolls(key: bytes, sides: list[int]) -> tuple[list[int], int]:
    """The values and how many bytes the rejection step dropped."""
    stream, values, skipped = ref_bytes(key), [], 0
    for n in sides:
        b = next(stream)
        while b >= 256 - 256 % n:
            skipped, b = skipped + 1, next(stream)
        values.append(b % n + 1)
    return values, skipped


def production_rolls(key: bytes, sides: list[int]) -> list[int]:
    stream = dice.DiceStream(key)
    return [stream.roll(n, f"test roll {i}") for i, n in enumerate(sides)]


def seeded_key(seed: int | str) -> bytes:
    return hashlib.sha256(f"test-{seed}".encode()).digest()


# --- the published test vectors --------------------------------------------------------------
VECTOR_SEED = bytes.fromhex(VECTORS["seed"])
VECTOR_FILES = [f["text"].encode("utf-8") for f in sorted(VECTORS["turn_files"], key=lambda f: f["side"])]
VECTOR_SETS = {s["chain_length"]: s for s in VECTORS["sets"]}


def test_vectors_inputs_are_what_they_say() -> None:
    assert VECTOR_SEED == hashlib.sha256(VECTORS["seed_label"].encode()).digest()
    for f in VECTORS["turn_files"]:
        assert hashlib.sha256(f["text"].encode("utf-8")).hexdigest() == f["sha256"]
        assert f"side: {f['side']}\n" in f["text"]
    assert sorted(VECTOR_SETS) == [16, dice.DEFAULT_CHAIN_LENGTH]


@pytest.mark.parametrize("n", sorted(VECTOR_SETS))
def test_dice_v1_step_1_and_2_vectors_anchor_and_reveals(n: int) -> None:
    vs = VECTOR_SETS[n]
    commitment = dice.Commitment.new(n, seed=VECTOR_SEED)
    assert commitment.anchor.hex() == dice.anchor(VECTOR_SEED, n).hex() == vs["anchor"]
    previous = bytes.fromhex(vs["anchor"])
    for k in (1, 2, 3):
        reveal = commitment.reveal(k)
        assert reveal.hex() == vs["reveals"][str(k)]
        assert dice.reveal_follows(reveal, previous)
        previous = reveal
    chain = ref_chain(VECTOR_SEED, n)
    assert chain[n].hex() == vs["anchor"]
    assert [chain[n - k].hex() for k in (1, 2, 3)] == [vs["reveals"][str(k)] for k in (1, 2, 3)]


@pytest.mark.parametrize("n", sorted(VECTOR_SETS))
def test_dice_v1_step_3_vectors_dice_key(n: int) -> None:
    vs = VECTOR_SETS[n]
    for case, files in (("with_files", VECTOR_FILES), ("without_files", [])):
        k = vs[case]["k"]
        reveal = bytes.fromhex(vs["reveals"][str(k)])
        assert ref_key_message(VECTORS["game_id"], k, files).hex() == vs[case]["key_message"]
        assert ref_key(reveal, VECTORS["game_id"], k, files).hex() == vs[case]["dice_key"]
        assert dice.dice_key(reveal, VECTORS["game_id"], k, files).hex() == vs[case]["dice_key"]


@pytest.mark.parametrize("n", sorted(VECTOR_SETS))
def test_dice_v1_step_4_vectors_rolls(n: int) -> None:
    vs = VECTOR_SETS[n]
    for case in ("with_files", "without_files"):
        key = bytes.fromhex(vs[case]["dice_key"])
        for sides, expected in vs[case]["rolls"].items():
            wanted = [int(sides)] * 20
            assert production_rolls(key, wanted) == expected["values"], f"d{sides}"
            assert ref_rolls(key, wanted) == (expected["values"], expected["bytes_skipped"]), f"d{sides}"
    key = bytes.fromhex(vs["with_files"]["dice_key"])
    mixed = vs["with_files"]["mixed"]
    assert production_rolls(key, mixed["sides"]) == mixed["values"]
    assert ref_rolls(key, mixed["sides"]) == (mixed["values"], mixed["bytes_skipped"])
    assert bytes(itertools.islice(ref_bytes(key), 64)).hex() == vs["with_files"]["stream_head"]


@pytest.mark.parametrize("n", sorted(VECTOR_SETS))
def test_dice_v1_step_4_vectors_exercise_the_rejection_step(n: int) -> None:
    """A re-implementation that forgot to drop biased bytes fails these vectors."""
    with_files = VECTOR_SETS[n]["with_files"]
    assert with_files["rolls"]["6"]["bytes_skipped"] >= 1
    assert with_files["rolls"]["10"]["bytes_skipped"] >= 1
    head = bytes.fromhex(with_files["stream_head"])
    naive_d6 = [b % 6 + 1 for b in head[:20]]
    assert naive_d6 != with_files["rolls"]["6"]["values"]


def test_docs_publish_the_vectors() -> None:
    text = (ROOT / "docs" / "dice.md").read_text(encoding="utf-8")
    assert VECTORS["seed"] in text and VECTORS["game_id"] in text
    for f in VECTORS["turn_files"]:
        assert f["text"] in text and f["sha256"] in text
    for vs in VECTORS["sets"]:
        published = [vs["anchor"], *vs["reveals"].values()]
        for case in ("with_files", "without_files"):
            published.append(vs[case]["dice_key"])
            published += [" ".join(map(str, r["values"])) for r in vs[case]["rolls"].values()]
        published.append(" ".join(map(str, vs["with_files"]["mixed"]["values"])))
        for value in published:
            assert value in text, value


# --- production against the independent re-implementation -----------------------------------
def test_dice_v1_production_agrees_with_the_reference_over_many_keys_and_every_die_size() -> None:
    rng = random.Random(1835)
    for i in range(300):
        key = seeded_key(i)
        sides = (
            list(range(2, 257))
            if i == 0
            else [rng.choice([2, 3, 4, 6, 8, 10, 12, 20, 100, rng.randint(2, 256)]) for _ in range(60)]
        )
        assert production_rolls(key, sides) == ref_rolls(key, sides)[0], f"key test-{i}"


@settings(max_examples=200, deadline=None)
@given(key=st.binary(min_size=32, max_size=32), sides=st.lists(st.integers(2, 256), max_size=80))
def test_dice_v1_production_agrees_with_the_reference_for_any_key(key: bytes, sides: list[int]) -> None:
    assert production_rolls(key, sides) == ref_rolls(key, sides)[0]


@settings(max_examples=200, deadline=None)
@given(
    reveal=st.binary(min_size=32, max_size=32),
    game_id=st.text(min_size=1, max_size=40),
    k=st.integers(1, 10**6),
    files=st.lists(st.binary(max_size=300), max_size=4),
)
def test_dice_v1_step_3_production_key_agrees_with_the_reference(
    reveal: bytes, game_id: str, k: int, files: list[bytes]
) -> None:
    assert dice.dice_key(reveal, game_id, k, files) == ref_key(reveal, game_id, k, files)


def test_dice_v1_step_2_every_reveal_hashes_to_the_one_before() -> None:
    seed, n = seeded_key("chain"), 16
    commitment = dice.Commitment.new(n, seed=seed)
    previous = commitment.anchor
    for k in range(1, n):
        reveal = commitment.reveal(k)
        assert dice.reveal_follows(reveal, previous)
        assert not dice.reveal_follows(previous, reveal)
        previous = reveal
    assert previous == hashlib.sha256(seed).digest()  # k = N - 1 reveals s_1, never s_0


# --- uniformity and the rejection step --------------------------------------------------------
def _uniformity_keys() -> list[bytes]:
    """100 resolutions of one committed game, as the referee would derive them."""
    n = 101
    chain = ref_chain(seeded_key("uniformity"), n)
    return [dice.dice_key(chain[n - k], "uniformity", k, []) for k in range(1, n)]


def test_dice_v1_step_4_600000_d6_every_face_within_1_percent_of_one_sixth() -> None:
    rolls: list[Roll] = []
    for key in _uniformity_keys():
        stream = dice.DiceStream(key)
        for _ in range(6000):
            stream.roll(6, "uniformity")
        rolls += stream.rolls
    assert len(rolls) == 600_000
    counted = face_counts(rolls)
    counts = counted[6]
    for face in range(1, 7):
        share = counts[face] / len(rolls)
        assert abs(share - 1 / 6) <= 0.01 / 6, f"face {face}: {counts[face]} of {len(rolls)}"
    statistic, df, p_value = fit(counted)[6]
    assert df == 5 and p_value > 0.001, (statistic, p_value)


def test_dice_v1_step_4_without_rejection_the_same_bytes_miss_the_1_percent_bound() -> None:
    """The bound has teeth: ``b mod 6`` over raw bytes favours faces 1-4 (43/256 against 42/256)."""
    counts: Counter[int] = Counter()
    for key in _uniformity_keys():
        counts.update(b % 6 + 1 for b in itertools.islice(ref_bytes(key), 6000))
    total = sum(counts.values())
    outside = [face for face in range(1, 7) if abs(counts[face] / total - 1 / 6) > 0.01 / 6]
    assert {5, 6} <= set(outside)  # each 1.6 % short of 1/6


@pytest.mark.parametrize("sides", [6, 10, 20, 100])
def test_dice_v1_step_4_a_byte_at_or_above_the_limit_is_dropped(sides: int) -> None:
    """The first byte of the found key's stream is >= the limit (252 for a d6): the
    first roll is made from the second byte, and every later roll moves on by one."""
    limit = 256 - 256 % sides

    def first_two(i: int) -> list[int]:
        return list(itertools.islice(ref_bytes(seeded_key(i)), 2))

    key = next(seeded_key(i) for i in itertools.count() if first_two(i)[0] >= limit > first_two(i)[1])
    raw = list(itertools.islice(ref_bytes(key), 64))
    stream = dice.DiceStream(key)
    values = [stream.roll(sides, f"roll {i}") for i in range(5)]
    assert values[0] == raw[1] % sides + 1
    assert values == [b % sides + 1 for b in raw if b < limit][:5]
    assert values != [b % sides + 1 for b in raw[:5]]


def test_dice_v1_step_4_a_d256_takes_every_byte() -> None:
    key = seeded_key("d256")
    assert production_rolls(key, [256] * 64) == [b + 1 for b in itertools.islice(ref_bytes(key), 64)]


def test_dice_v1_step_4_stream_crosses_hmac_blocks() -> None:
    key = seeded_key("blocks")
    sides = [100] * 200  # several 32-byte blocks, many rejections
    assert production_rolls(key, sides) == ref_rolls(key, sides)[0]


# --- the contract's edges ----------------------------------------------------------------------
@pytest.mark.parametrize("sides", [0, 1, 257, 1000])
def test_dice_v1_step_4_die_size_outside_2_to_256_is_refused(sides: int) -> None:
    with pytest.raises(ValueError, match=str(sides)):
        dice.DiceStream(seeded_key(0)).roll(sides, "bad die")


def test_dice_v1_step_5_every_roll_is_recorded_in_order_with_its_purpose() -> None:
    stream = dice.DiceStream(seeded_key("record"))
    a = stream.roll(6, "battle of Porto Alegre, round 1, attacker")
    b = stream.roll(20, "morale of inf-1")
    assert stream.rolls == [
        Roll(0, 6, a, "battle of Porto Alegre, round 1, attacker"),
        Roll(1, 20, b, "morale of inf-1"),
    ]


@pytest.mark.parametrize("k", [0, -1, 16, 17])
def test_dice_v1_step_2_reveal_outside_1_to_n_minus_1_is_refused(k: int) -> None:
    """``k = N`` would reveal ``s_0``: the seed never leaves the database."""
    with pytest.raises(ValueError, match=f"resolution {k} is outside"):
        dice.Commitment.new(16, seed=seeded_key("edge")).reveal(k)


@pytest.mark.parametrize("n", [0, 1])
def test_dice_v1_step_1_chain_too_short_to_hide_the_seed_is_refused(n: int) -> None:
    with pytest.raises(ValueError, match="too short"):
        dice.Commitment.new(n)


def test_dice_v1_step_1_the_commitment_never_shows_its_seed() -> None:
    commitment = dice.Commitment.new(16)
    assert len(commitment.seed) == 32
    shown = repr(commitment) + str(commitment)
    for form in _seed_forms(commitment.seed):
        assert form not in shown
    assert dice.Commitment.new(16).seed != commitment.seed


def _seed_forms(seed: bytes) -> list[str]:
    return [
        seed.hex(),
        seed.hex().upper(),
        base64.b64encode(seed).decode(),
        base64.urlsafe_b64encode(seed).decode().rstrip("="),
    ]


# --- statistics for `pbem dice --stats` ----------------------------------------------------------
def test_stats_face_counts_cover_every_face_per_die_size() -> None:
    rolls = [Roll(0, 6, 3, "a"), {"sides": 6, "value": 3}, Roll(2, 2, 1, "b")]
    assert face_counts(rolls) == {2: {1: 1, 2: 0}, 6: {1: 0, 2: 0, 3: 2, 4: 0, 5: 0, 6: 0}}
    assert face_counts([]) == {}


def test_stats_a_value_not_on_the_die_is_refused() -> None:
    with pytest.raises(ValueError, match="7"):
        face_counts([{"sides": 6, "value": 7}])


def test_stats_chi_square_statistic_is_the_sum_over_faces() -> None:
    rolls = [{"sides": 6, "value": 1}] * 6 + [{"sides": 2, "value": v} for v in (1, 2, 2, 2)]
    result = chi_square(rolls)
    # d6: expected 1 per face; observed 6, 0, 0, 0, 0, 0
    assert result[6].statistic == pytest.approx(25 + 5)
    assert result[6].degrees_of_freedom == 5
    # d2: expected 2 per face; observed 1, 3 -> (1 + 1) / 2
    assert result[2].statistic == pytest.approx(1.0)
    assert result[2].p_value == pytest.approx(math.erfc(math.sqrt(0.5)))


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 150.0])
def test_stats_p_value_matches_closed_forms(x: float) -> None:
    # df = 1: erfc(sqrt(x/2));  even df = 2m: exp(-x/2) * sum_{j<m} (x/2)^j / j!
    assert chi_square_p_value(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)
    for m in (1, 2, 5, 50, 128):
        closed = math.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(m))
        assert chi_square_p_value(x, 2 * m) == pytest.approx(closed, rel=1e-9, abs=1e-300), m


@pytest.mark.parametrize(
    ("df", "critical"),
    [(1, 3.841459), (5, 11.070498), (9, 16.918978), (19, 30.143527), (99, 123.225221), (255, 293.247835)],
)
def test_stats_p_value_at_published_5_percent_critical_values(df: int, critical: float) -> None:
    assert chi_square_p_value(critical, df) == pytest.approx(0.05, rel=1e-5)


def test_stats_p_value_edges() -> None:
    assert chi_square_p_value(0.0, 5) == 1.0
    with pytest.raises(ValueError, match="0"):
        chi_square_p_value(1.0, 0)


# --- tools/verify_dice.py: the third-party verifier ---------------------------------------------
GAME_ID = "verify-1835"
SEED = seeded_key("verify")
N = 16


def _turn_file(side: str, turn: int, orders: str) -> str:
    return f"game: {GAME_ID}\nrules: farrapos\nside: {side}\nturn: {turn}\nstate: {'ab' * 32}\n\n{orders}\n"


def _resolution(commitment: dice.Commitment, k: int, files: dict[str, str], sides: list[int]) -> dict[str, Any]:
    reveal = commitment.reveal(k)
    key = dice.dice_key(reveal, GAME_ID, k, [files[s].encode("utf-8") for s in sorted(files)])
    stream = dice.DiceStream(key)
    for i, n in enumerate(sides):
        stream.roll(n, f"battle {i}, attacker")
    return {
        "k": k,
        "label": f"turn {k}",
        "reveal": reveal.hex(),
        "previous_state_hash": f"{k - 1:064x}",
        # deliberately not in side order: the key orders the files by side id itself
        "submissions": [
            {
                "side": s,
                "turn_file": files[s],
                "signature": "-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n",
            }
            for s in sorted(files, reverse=True)
        ],
        "rolls": [{"index": r.index, "sides": r.sides, "value": r.value, "purpose": r.purpose} for r in stream.rolls],
        "state_hash": f"{k:064x}",
        "events": [],
    }


def _archive() -> dict[str, Any]:
    """k = 1 setup (no files), k = 2 a turn, k = 3 rolled back, k = 4 the same turn replayed."""
    commitment = dice.Commitment.new(N, seed=SEED)
    turn_2 = {
        "republic": _turn_file("republic", 2, "attack porto-alegre from triunfo with inf-1 inf-2  # ação"),
        "empire": _turn_file("empire", 2, "hold porto-alegre"),
    }
    turn_3 = {
        "republic": _turn_file("republic", 3, "move cav-1 from camaqua to pelotas"),
        "empire": _turn_file("empire", 3, "attack triunfo from porto-alegre with inf-3"),
    }
    return {
        "format": "pbem-archive/1",
        "game": {
            "id": GAME_ID,
            "rules": "farrapos",
            "scenario": "1835",
            "options": [],
            "created": "2026-11-29T13:00:00+00:00",
        },
        "players": [{"side": "republic", "public_key": "ssh-ed25519 AAAA republic", "email": None}],
        "dice": {"version": 1, "chain_length": N, "anchor": commitment.anchor.hex()},
        "initial_state_hash": f"{0:064x}",
        "resolutions": [
            _resolution(commitment, 1, {}, [6, 6, 10]),
            _resolution(commitment, 2, turn_2, [6] * 12 + [100, 20, 2]),
            _resolution(commitment, 4, turn_3, [6] * 12),
        ],
        "set_aside": [
            {"to": 2, "at": "2026-11-29T14:00:00+00:00", "resolutions": [_resolution(commitment, 3, turn_3, [6] * 12)]}
        ],
        "final": {"over": False, "result": None},
    }


def _run_verifier(archive: dict[str, Any], tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "archive.json"
    path.write_text(json.dumps(archive, ensure_ascii=False), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(VERIFIER), str(path), *extra], capture_output=True, text=True, timeout=60
    )


def _verifier_module() -> Any:
    return load_script("tools/verify_dice.py", "verify_dice")


def test_verifier_accepts_an_honest_archive_with_a_rollback(tmp_path: Path) -> None:
    archive = _archive()
    done = _run_verifier(archive, tmp_path, archive["dice"]["anchor"])
    assert done.returncode == 0, done.stderr
    assert "4 resolutions (1 set aside), 42 rolls" in done.stdout
    assert _verifier_module().verify(archive).startswith("dice verified")


def test_verifier_uses_only_the_standard_library() -> None:
    imports = [line for line in VERIFIER.read_text().splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["import hashlib, hmac, json, sys"]


def test_rollback_replays_as_a_new_k_with_fresh_dice() -> None:
    archive = _archive()
    discarded = archive["set_aside"][0]["resolutions"][0]
    replayed = archive["resolutions"][-1]
    assert [s["turn_file"] for s in discarded["submissions"]] == [s["turn_file"] for s in replayed["submissions"]]
    assert (discarded["k"], replayed["k"]) == (3, 4)
    assert discarded["reveal"] != replayed["reveal"]
    assert [r["value"] for r in discarded["rolls"]] != [r["value"] for r in replayed["rolls"]]


def _tamper_roll_value(a: dict[str, Any]) -> None:
    roll = a["resolutions"][1]["rolls"][4]
    roll["value"] = roll["value"] % 6 + 1


def _tamper_set_aside_roll(a: dict[str, Any]) -> None:
    roll = a["set_aside"][0]["resolutions"][0]["rolls"][0]
    roll["value"] = roll["value"] % 6 + 1


def _tamper_reveal(a: dict[str, Any]) -> None:
    a["resolutions"][1]["reveal"] = hashlib.sha256(b"another").hexdigest()


def _tamper_turn_file_byte(a: dict[str, Any]) -> None:
    sub = a["resolutions"][1]["submissions"][0]
    sub["turn_file"] = sub["turn_file"].replace("inf-2", "inf-3")


def _tamper_swap_files_between_sides(a: dict[str, Any]) -> None:
    subs = a["resolutions"][1]["submissions"]
    subs[0]["side"], subs[1]["side"] = subs[1]["side"], subs[0]["side"]


def _drop_resolution(a: dict[str, Any]) -> None:
    del a["resolutions"][1]


def _drop_set_aside(a: dict[str, Any]) -> None:
    del a["set_aside"]


def _tamper_anchor(a: dict[str, Any]) -> None:
    a["dice"]["anchor"] = hashlib.sha256(b"another anchor").hexdigest()


def _reuse_k_for_the_replay(a: dict[str, Any]) -> None:
    """Replaying under the old k: same reveal, same files, so the very same dice."""
    a["resolutions"][-1] = copy.deepcopy(a["set_aside"][0]["resolutions"][0])


def _reorder_rolls(a: dict[str, Any]) -> None:
    rolls = a["resolutions"][1]["rolls"]
    rolls[12], rolls[13] = rolls[13], rolls[12]


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (_tamper_roll_value, "resolution 2, roll 4 (d6, battle 4, attacker): expected"),
        (_tamper_set_aside_roll, "resolution 3, roll 0"),
        (_tamper_reveal, "resolution 2: reveal"),
        (_tamper_turn_file_byte, "resolution 2, roll"),
        (_tamper_swap_files_between_sides, "resolution 2, roll"),
        (_drop_resolution, "resolution 2: expected next in the chain"),
        (_drop_set_aside, "resolution 3: expected next in the chain"),
        (_tamper_anchor, "resolution 1: reveal"),
        (_reuse_k_for_the_replay, "resolution 4: expected next in the chain"),
        (_reorder_rolls, "resolution 2, roll 12: expected index 12"),
    ],
)
def test_verifier_names_the_first_discrepancy(tmp_path: Path, tamper: Any, message: str) -> None:
    archive = _archive()
    tamper(archive)
    done = _run_verifier(archive, tmp_path)
    assert done.returncode == 1
    assert message in done.stderr, done.stderr
    assert done.stdout == ""


def test_verifier_holds_the_archive_to_the_anchor_you_were_sent(tmp_path: Path) -> None:
    sent = _archive()["dice"]["anchor"]
    forged = _archive()
    forged_commitment = dice.Commitment.new(N, seed=seeded_key("forged"))
    forged["dice"]["anchor"] = forged_commitment.anchor.hex()
    for res in forged["resolutions"] + forged["set_aside"][0]["resolutions"]:
        res["reveal"] = forged_commitment.reveal(res["k"]).hex()
    # a wholly re-forged chain is self-consistent (its rolls fail) ... and the anchor catches it first
    done = _run_verifier(forged, tmp_path, sent)
    assert done.returncode == 1
    assert f"anchor: expected {sent}, found {forged['dice']['anchor']}" in done.stderr


def test_verifier_refuses_an_archive_of_another_format(tmp_path: Path) -> None:
    archive = _archive()
    archive["format"] = "pbem-archive/2"
    done = _run_verifier(archive, tmp_path)
    assert done.returncode == 1 and "pbem-archive/2" in done.stderr


def test_verifier_usage_error_exits_2() -> None:
    done = subprocess.run([sys.executable, str(VERIFIER)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "verify_dice.py ARCHIVE.json" in done.stderr


def test_a_reveal_walks_fewer_than_32_links_and_chains_kept_every_128th_still_reveal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new chain keeps every 32nd value, so a reveal in a fresh process hashes at
    most 31 times (127 with every 128th: about 0.85 M instructions at a game's
    13th resolution); a chain made before, keeping every 128th, reveals the same
    values, its interval read from how many it keeps."""
    seed = bytes(range(32))
    n = 4096
    new = dice.checkpoints(seed, n)
    old = dice.checkpoints(seed, n, interval=dice.LEGACY_CHECKPOINT_INTERVAL)
    assert len(new) == 32 * 128 and len(old) == 32 * 32
    assert dice.kept_interval(n, new) == 32 and dice.kept_interval(n, old) == 128
    assert dice.Commitment.new(n, seed).kept == new
    real, counted = dice.H, [0]

    def counting(data: bytes) -> bytes:
        counted[0] += 1
        return real(data)

    walks, values = [], []
    for k in (1, 2, 13, 31, 32, 33, 127, 128, 129, 1000, 4064, 4095):
        dice._walks.clear()  # a fresh process
        counted[0] = 0
        monkeypatch.setattr(dice, "H", counting)
        values.append(dice.reveal(seed, n, k, new))
        walks.append(counted[0])
        monkeypatch.setattr(dice, "H", real)
        assert values[-1] == dice.reveal(seed, n, k, old) == dice.chain_value(seed, n - k)
    assert 0 < max(walks) < 32
    with pytest.raises(ValueError, match="do not fit"):
        dice.reveal(seed, n, 5, new[:-32])
