"""The position file: the position a report was written from, as a file a player
keeps beside the next turn file (``G-rK.position.json``, attached to every report).

With it ``pbem check turn.txt --position G-rK.position.json`` gives the referee's
verdict offline, with no database: the file holds what the referee's check reads
of the game (rules, the turn it waits for, the position and its hash, who is due,
each side's public key).  Nothing secret is in it: no dice seed, no reveal.

The position inside hashes (canonical JSON, DESIGN.md "Positions") to ``state``,
the hash a turn file written against it carries in its header; :func:`load`
refuses a file where the two disagree.

>>> f = PositionFile("g1", "farrapos", "campaign", (), 3, 4, "1836, turn 1", position_hash({"a": 1}), False, None, {}, {"a": 1})
>>> load(f.to_text().encode()).state == f.state, file_name("g1", 3)
(True, 'g1-r3.position.json')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pbem.turnfiles.canonical import position_hash

FORMAT = "pbem-position/1"
MAX_BYTES = 4 * 1024 * 1024


class PositionFileError(ValueError):
    """A file that is not a position file, or one whose position does not hash to
    its ``state``."""


@dataclass(frozen=True)
class PositionFile:
    """What the referee's check reads of a game, after resolution ``resolution``.

    The attribute names ``id``, ``rules``, ``next_k``, ``state_hash``, ``over``,
    ``result`` and ``position`` are those of :class:`pbem.store.GameState`, so the
    one verdict function (:func:`pbem.pipeline.judge`) reads either."""

    id: str
    rules: str
    scenario: str
    options: tuple[str, ...]
    resolution: int
    next_k: int
    label: str
    state_hash: str
    over: bool
    result: str | None  # the stored outcome, JSON text (as ``Game.result``)
    public_keys: dict[str, str]  # side -> OpenSSH public key line
    position: dict[str, Any] = field(repr=False)
    deadline: str | None = None  # ISO 8601 UTC: when the orders for ``next_k`` are due (None: no deadline)
    grace: int = 0  # seconds after the deadline
    zones: dict[str, str] = field(default_factory=dict)  # side -> the IANA zone its player reads deadlines in

    @property
    def state(self) -> str:
        return self.state_hash

    def to_json(self) -> dict[str, Any]:
        out = {
            "format": FORMAT,
            "game": self.id,
            "rules": self.rules,
            "scenario": self.scenario,
            "options": list(self.options),
            "resolution": self.resolution,
            "turn": self.next_k,
            "label": self.label,
            "state": self.state_hash,
            "over": self.over,
            "result": json.loads(self.result) if self.result else None,
            "players": [{"side": side, "public_key": key} for side, key in sorted(self.public_keys.items())],
            "position": self.position,
        }
        if self.deadline is not None:  # an addition within version 1: absent for a game without a deadline
            out["deadline"] = {"at": self.deadline, "grace": self.grace, "zones": dict(sorted(self.zones.items()))}
        return out

    def to_text(self) -> str:
        """The file's text: one line of JSON, sorted keys, UTF-8 (no indent: the C
        encoder writes it ten times faster, and it is written with every report)."""
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False) + "\n"


def file_name(game_id: str, k: int) -> str:
    """``G-rK.position.json``: the position after resolution ``k`` of game ``G``."""
    word = re.sub(r"[^A-Za-z0-9._-]+", "_", game_id).strip("._") or "_"
    return f"{word}-r{k}.position.json"


def load(data: bytes, name: str = "position file") -> PositionFile:
    """Read and verify a position file; :class:`PositionFileError` names what is
    wrong in one line."""
    if len(data) > MAX_BYTES:
        raise PositionFileError(
            f"{name}: {len(data)} bytes is over the {MAX_BYTES // (1024 * 1024)} MiB limit for a position file"
        )
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PositionFileError(f"{name}: not a position file (not JSON: {exc})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        found = raw.get("format") if isinstance(raw, dict) else None
        raise PositionFileError(
            f"{name}: not a position file (format {found!r}, expected {FORMAT!r}; it is the G-rK.position.json attached to a report)"
        )
    try:
        players = {str(p["side"]): str(p["public_key"]) for p in raw["players"]}
        loaded = PositionFile(
            id=str(raw["game"]),
            rules=str(raw["rules"]),
            scenario=str(raw["scenario"]),
            options=tuple(str(o) for o in raw["options"]),
            resolution=int(raw["resolution"]),
            next_k=int(raw["turn"]),
            label=str(raw["label"]),
            state_hash=str(raw["state"]),
            over=bool(raw["over"]),
            result=json.dumps(raw["result"]) if raw["result"] else None,
            public_keys=players,
            position=raw["position"],
            **_deadline(raw.get("deadline")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PositionFileError(f"{name}: position file lacks or garbles {exc}") from None
    if not isinstance(loaded.position, dict) or position_hash(loaded.position) != loaded.state_hash:
        raise PositionFileError(
            f"{name}: its position does not hash to its state {loaded.state_hash}; the file was changed after the referee wrote it"
        )
    return loaded


def _deadline(raw: Any) -> dict[str, Any]:
    """The optional ``deadline`` object's fields (none when absent)."""
    if raw is None:
        return {}
    return {
        "deadline": str(raw["at"]),
        "grace": int(raw["grace"]),
        "zones": {str(side): str(zone) for side, zone in dict(raw["zones"]).items()},
    }
