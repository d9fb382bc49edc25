"""``pbem player GAME SIDE --email ADDR --key FILE``: change a side's registration.

The change is one transaction: the player row, a ``player_change`` row (shown in
the archive as ``player_changes``, from which resolution the new address or key
holds), and a notice to every side in the outbox (on an address change, to the
old address too, so a player learns if someone else moved their mail).  A new
key sets aside that side's file queued for the next resolution: it was signed
with the old key, which no longer speaks for the side; a file signed by the old
key later is refused naming it ("signed by the previous SIDE key, replaced on
DATE").

A new key is a new player taking the side over: a side in civil disorder leaves
it (pbem/referee/disorder.py), and the new player is sent a welcome at the
side's address: the latest report as a report mail is (text, HTML, map, the next
turn file, the position file), after a few lines with the game's site if it has
one and how to play.  :func:`record` is the one place the act is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbem import store
from pbem.mail import outbox
from pbem.mail.address import checked_address
from pbem.referee import disorder, ledger, notices, verdict
from pbem.store.sql import Tx
from pbem.store.transaction import transaction
from pbem.turnfiles import keys, weak_keys
from pbem.turnfiles.deadline import check_zone

if TYPE_CHECKING:
    from pbem.store.database import Database as Engine


@dataclass(frozen=True)
class Change:
    game_id: str
    side: str
    from_k: int
    what: tuple[str, ...]
    set_aside: int  # queued files set aside by a new key


def _checked(email: str | None, key_line: str | None, tz: str | None) -> keys.PublicKey | None:
    """:class:`verdict.Refused` naming each bad value; the new key, if one is given."""
    if email is None and key_line is None and tz is None:
        raise verdict.Refused(["give --email ADDR, --key FILE or --tz ZONE"])
    problems = []
    new_key = None
    for option, value, check in (
        ("--tz", tz, check_zone),
        ("--email", email, checked_address),
        ("--key", key_line, weak_keys.registrable),
    ):
        if value is None:
            continue
        try:
            result = check(value)
        except ValueError as exc:
            problems.append(f"{option}: {exc}")
            continue
        if option == "--key":
            new_key = result
    if problems:
        raise verdict.Refused(problems)
    return new_key  # type: ignore[return-value]


def change_player(
    engine: Engine,
    game_id: str,
    side: str,
    email: str | None = None,
    key_line: str | None = None,
    referee_key: ledger.RefereeKey | None = None,
    tz: str | None = None,
) -> Change:
    """``tz`` (the player's own zone for deadlines) is the player's view only: it
    is stored, not archived, and nobody is told."""
    new_key = _checked(email, key_line, tz)
    with transaction(engine) as tx:
        game = store.known_game(tx, game_id)
        ledger.check_key(tx, game_id, referee_key, "player change")
        registered = {
            row[0]: (row[1], row[2])
            for row in tx.all(
                "SELECT side, email, public_key FROM player WHERE game_id = :game ORDER BY side", {"game": game_id}
            )
        }
        if side not in registered:
            raise verdict.Refused([f"no side {side!r} in game {game_id} (sides: {', '.join(registered)})"])
        old_email, old_key = registered[side]
        what: list[str] = []
        change: dict[str, str | None] = {
            "email": None,
            "previous_email": None,
            "public_key": None,
            "previous_public_key": None,
        }
        if email is not None and email != old_email:
            change.update(email=email, previous_email=old_email)
            what.append(f"address {old_email or 'none'} -> {email}")
        if new_key is not None and not keys.PublicKey.from_openssh(old_key).same_key(new_key):
            change.update(public_key=new_key.openssh(), previous_public_key=old_key)
            what.append(f"key -> {new_key.fingerprint()}")
        if tz is not None:
            tx.run(
                "UPDATE player SET tz = :tz WHERE game_id = :game AND side = :side",
                {"tz": tz, "game": game_id, "side": side},
            )
            if email is None and key_line is None:
                return Change(game_id, side, game.next_k, (f"deadlines shown in {tz}",), 0)
        if not what:
            raise verdict.Refused([f"{game_id} {side}: nothing to change (the address and key are already these)"])
        params = {"game": game_id, "side": side}
        set_aside = 0
        if change["public_key"] is not None:
            set_aside = tx.run(
                "UPDATE submission SET status = :set_aside WHERE game_id = :game AND turn = :k AND side = :side "
                "AND status = :queued",
                {
                    **params,
                    "k": game.next_k,
                    "set_aside": store.SubmissionStatus.SET_ASIDE.name,
                    "queued": store.SubmissionStatus.QUEUED.name,
                },
            )
            if set_aside:
                what.append(
                    f"its queued file for resolution {game.next_k} is set aside (signed with the old key): write "
                    "and sign new orders with the new key"
                )
        change_id = record(tx, game_id, side, game.next_k, change, old_email, old_key)
        if change["public_key"] is not None:
            what.extend(_hand_over(tx, game, side, change_id, change["email"] or old_email))
        also = [old_email] if change["email"] is not None and old_email else []
        notices.queue_player_notice(tx, game_id, change_id, side, what, also)
        ledger.record(
            tx,
            game_id,
            "player",
            {"side": side, "from_k": game.next_k, **{k: v for k, v in change.items() if v is not None}},
            referee_key,
            summary=f"{side}: {'; '.join(what)}",
        )
    return Change(game_id, side, game.next_k, tuple(what), set_aside)


def record(
    tx: Tx,
    game_id: str,
    side: str,
    from_k: int,
    change: dict[str, str | None],
    old_email: str | None,
    old_key: str,
) -> int:
    """The act ``player``: the side's new address or key (a new key is a new
    player), from resolution ``from_k`` on.  The one place the act is made;
    returns the change's id."""
    params = {"game": game_id, "side": side}
    tx.run(
        "UPDATE player SET email = :email, public_key = :key WHERE game_id = :game AND side = :side",
        {**params, "email": change["email"] or old_email, "key": change["public_key"] or old_key},
    )
    tx.run(
        "INSERT INTO player_change (game_id, side, from_k, at, email, previous_email, public_key, previous_public_key)"
        " VALUES (:game, :side, :from_k, :at, :email, :previous_email, :public_key, :previous_public_key)",
        {**params, **change, "from_k": from_k, "at": store.utcnow()},
    )
    return tx.one("SELECT MAX(id) FROM player_change WHERE game_id = :game", params)[0]  # type: ignore[index]


def _hand_over(tx: Tx, game: store.GameState, side: str, change_id: int, email: str | None) -> list[str]:
    """A new key is a new player: civil disorder ends, and the new player is sent
    the welcome (the latest report, the site, the position file, how to play)."""
    said = []
    if side in disorder.current(tx, game.id):
        disorder.mark(tx, game.id, side, "end", game.next_k, "player")
        said.append(f"civil disorder ends: from resolution {game.next_k} the new player writes the {side} orders")
    if email:
        from pbem.reports.message import report_message_id

        outbox.queue(
            tx,
            "welcome",
            [email],
            f"[pbem {game.id}] welcome: you now play {side}",
            report_message_id(game.id, game.current_k, side, f".welcome-{change_id}"),
            f"welcome:{game.id}:{change_id}",
            None,
            game.id,
            side,
            game.current_k,
        )
        said.append(f"the new player is sent the game so far at {email}")
    return said
