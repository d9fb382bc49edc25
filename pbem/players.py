"""``pbem player GAME SIDE --email ADDR --key FILE``: change a side's registration.

The change is one transaction: the player row, a ``player_change`` row (shown in
the archive as ``player_changes``, from which resolution the new address or key
holds), and a notice to every side in the outbox (on an address change, to the
old address too, so a player learns if someone else moved their mail).  A new
key sets aside that side's file queued for the next resolution: it was signed
with the old key, which no longer speaks for the side.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from pbem import keys, pipeline, store
from pbem.mail import notices
from pbem.mail.address import checked_address
from pbem.transaction import session_tx


@dataclass(frozen=True)
class Change:
    game_id: str
    side: str
    from_k: int
    what: tuple[str, ...]
    set_aside: int  # queued files set aside by a new key


def change_player(engine: Engine, game_id: str, side: str, email: str | None = None, key_line: str | None = None) -> Change:
    if email is None and key_line is None:
        raise pipeline.Refused(["give --email ADDR or --key FILE (or both)"])
    problems = []
    if email is not None:
        try:
            checked_address(email)
        except ValueError as exc:
            problems.append(f"--email: {exc}")
    new_key = None
    if key_line is not None:
        try:
            new_key = keys.PublicKey.from_openssh(key_line)
        except ValueError as exc:
            problems.append(f"--key: {exc}")
    if problems:
        raise pipeline.Refused(problems)
    with store.session_scope(engine) as session:
        game = store.get_game(session, game_id, lock=True)
        player = next((p for p in store.players(session, game_id) if p.side == side), None)
        if player is None:
            sides = ", ".join(p.side for p in store.players(session, game_id))
            raise pipeline.Refused([f"no side {side!r} in game {game_id} (sides: {sides})"])
        what: list[str] = []
        change = store.PlayerChange(game_id=game_id, side=side, from_k=game.next_k)
        old_email = player.email
        if email is not None and email != player.email:
            change.email, change.previous_email = email, player.email
            what.append(f"address {player.email or 'none'} -> {email}")
            player.email = email
        if new_key is not None and not keys.PublicKey.from_openssh(player.public_key).same_key(new_key):
            change.public_key, change.previous_public_key = new_key.openssh(), player.public_key
            what.append(f"key -> {new_key.fingerprint()}")
            player.public_key = new_key.openssh()
        if not what:
            raise pipeline.Refused([f"{game_id} {side}: nothing to change (the address and key are already these)"])
        set_aside = 0
        if change.public_key is not None:
            for sub in store.submissions_for(session, game_id, game.next_k, store.SubmissionStatus.QUEUED):
                if sub.side == side:
                    sub.status = store.SubmissionStatus.SET_ASIDE
                    session.add(sub)
                    set_aside += 1
            if set_aside:
                what.append(f"its queued file for resolution {game.next_k} is set aside (signed with the old key): write and sign new orders with the new key")
        session.add(player)
        session.add(change)
        session.flush()
        also = [old_email] if change.email is not None and old_email else []
        notices.queue_player_notice(session_tx(session), game_id, change.id or 0, side, what, also)
        return Change(game_id, side, game.next_k, tuple(what), set_aside)
