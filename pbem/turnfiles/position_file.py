"""The position file: the position a report was written from, as a file a player
keeps beside the next turn file (``G-rK.position.json``, attached to every report).

With it ``pbem check turn.txt --position G-rK.position.json`` gives the referee's
verdict offline, with no database: the file holds what the referee's check reads
of the game (rules, the turn it waits for, the position and its hash, who is due,
each side's public key).  Nothing secret is in it: no dice seed, no reveal.

The position inside hashes (canonical JSON, docs/design.md, "Positions") to ``state``,
the hash a turn file written against it carries in its header; :func:`load`
refuses a file where the two disagree.

>>> f = PositionFile(
...     "g1", "farrapos", "campaign", (), 3, 4, "1836, turn 1", position_hash({"a": 1}), False, None, {}, {"a": 1}
... )
>>> load(f.to_text().encode()).state == f.state, file_name("g1", 3)
(True, 'g1-r3.position.json')
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from pbem import limits
from pbem.rules.frozen import Frozen, setter
from pbem.turnfiles.canonical import position_hash, sorted_json

FORMAT = "pbem-position/1"
MAX_BYTES = 4 * 1024 * 1024


def read(path: str | os.PathLike[str]) -> bytes:
    """A position file's bytes: its size checked before it is read, and at most
    :data:`MAX_BYTES` + 1 bytes read."""
    try:
        return limits.read_at_most(path, MAX_BYTES)
    except limits.TooLarge as exc:
        raise PositionFileError(
            f"{path}: {exc.size} bytes is over the {MAX_BYTES // (1024 * 1024)} MiB limit for a position file"
        ) from None
    except FileNotFoundError:
        raise PositionFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise PositionFileError(f"{path}: cannot read the position file ({exc.strerror or exc})") from None


class PositionFileError(ValueError):
    """A file that is not a position file, or one whose position does not hash to
    its ``state``."""


class PositionFile(Frozen):
    """What the referee's check reads of a game, after resolution ``resolution``.

    The attribute names ``id``, ``rules``, ``next_k``, ``state_hash``, ``over``,
    ``result`` and ``position`` are those of :class:`pbem.store.GameState`, so the
    one verdict function (:func:`pbem.pipeline.judge`) reads either."""

    _unshown = ("position",)
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
    position: dict[str, Any]  # left out of the repr
    rules_version: str | None  # the ruleset's version the game began with (None: a file that does not say)
    deadline: str | None  # ISO 8601 UTC: when the orders for ``next_k`` are due (None: no deadline)
    grace: int  # seconds after the deadline
    zones: dict[str, str]  # side -> the IANA zone its player reads deadlines in (default: none)

    def __init__(
        self,
        id: str,
        rules: str,
        scenario: str,
        options: tuple[str, ...],
        resolution: int,
        next_k: int,
        label: str,
        state_hash: str,
        over: bool,
        result: str | None,
        public_keys: dict[str, str],
        position: dict[str, Any],
        rules_version: str | None = None,
        deadline: str | None = None,
        grace: int = 0,
        zones: dict[str, str] | None = None,
    ) -> None:
        setter(self, "id", id)
        setter(self, "rules", rules)
        setter(self, "scenario", scenario)
        setter(self, "options", options)
        setter(self, "resolution", resolution)
        setter(self, "next_k", next_k)
        setter(self, "label", label)
        setter(self, "state_hash", state_hash)
        setter(self, "over", over)
        setter(self, "result", result)
        setter(self, "public_keys", public_keys)
        setter(self, "position", position)
        setter(self, "rules_version", rules_version)
        setter(self, "deadline", deadline)
        setter(self, "grace", grace)
        setter(self, "zones", {} if zones is None else zones)

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
            **({"rules_version": self.rules_version} if self.rules_version is not None else {}),
        }
        if self.deadline is not None:  # an addition within version 1: absent for a game without a deadline
            out["deadline"] = {"at": self.deadline, "grace": self.grace, "zones": dict(sorted(self.zones.items()))}
        return out

    def to_text(self) -> str:
        """The file's text: one line of JSON, sorted keys, UTF-8 (no indent: the C
        encoder writes it ten times faster, and it is written with every report: by one
        encoder made at import, ``json.dumps``'s text)."""
        return sorted_json(self.to_json()) + "\n"


def file_name(game_id: str, k: int) -> str:
    """``G-rK.position.json``: the position after resolution ``k`` of game ``G``."""
    word = re.sub(r"[^A-Za-z0-9._-]+", "_", game_id).strip("._") or "_"
    return f"{word}-r{k}.position.json"


_HEX64 = re.compile(r"[0-9a-f]{64}")


def _field(raw: dict[str, Any], key: str, kind: type | tuple[type, ...], expected: str) -> Any:
    """``raw[key]`` if it is of ``kind`` (a bool is no integer), else the one line
    naming the field."""
    if key not in raw:
        raise PositionFileError(f"position file field {key!r} is missing")
    value = raw[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PositionFileError(f"position file field {key!r}: expected {expected}, found {_kind(value)}")
    return value


def _optional_string(raw: dict[str, Any], key: str) -> str | None:
    """``raw[key]``, a string, or None where the file does not say (an older file)."""
    return None if raw.get(key) is None else _field(raw, key, str, "a string")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }
    return names.get(type(value), type(value).__name__)


def _strings(raw: dict[str, Any], key: str) -> tuple[str, ...]:
    values = _field(raw, key, list, "a list of strings")
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise PositionFileError(f"position file field '{key}[{i}]': expected a string, found {_kind(v)}")
    return tuple(values)


def _players(raw: dict[str, Any]) -> dict[str, str]:
    players: dict[str, str] = {}
    for i, p in enumerate(_field(raw, "players", list, "a list of players")):
        where = f"players[{i}]"
        if not isinstance(p, dict):
            raise PositionFileError(f"position file field '{where}': expected an object, found {_kind(p)}")
        for key in ("side", "public_key"):
            if not isinstance(p.get(key), str):
                raise PositionFileError(
                    f"position file field '{where}.{key}': expected a string, found {_kind(p.get(key))}"
                )
        players[p["side"]] = p["public_key"]
    return players


def _parse(data: bytes, name: str) -> dict[str, Any]:
    """The file's JSON object, within the limits of :mod:`pbem.limits`."""
    if len(data) > MAX_BYTES:
        raise PositionFileError(
            f"{name}: {len(data)} bytes is over the {MAX_BYTES // (1024 * 1024)} MiB limit for a position file"
        )
    try:
        raw = limits.loads_json(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError and limits.Malformed are ValueErrors
        raise PositionFileError(f"{name}: not a position file (not JSON within its limits: {exc})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        found = raw.get("format") if isinstance(raw, dict) else None
        raise PositionFileError(
            f"{name}: not a position file (format {found!r}, expected {FORMAT!r}; it is the G-rK.position.json "
            "attached to a report)"
        )
    return raw


def load(data: bytes, name: str = "position file") -> PositionFile:
    """Read and verify a position file; :class:`PositionFileError` names what is
    wrong in one line (past a limit of :mod:`pbem.limits`, a field missing or of
    the wrong type, a position that does not hash to its state)."""
    raw = _parse(data, name)
    try:
        state = _field(raw, "state", str, "a SHA-256 hash in lowercase hex")
        if not _HEX64.fullmatch(state):
            raise PositionFileError(
                f"position file field 'state': expected a SHA-256 hash in lowercase hex, found {state[:70]!r}"
            )
        result = raw.get("result")
        loaded = PositionFile(
            id=_field(raw, "game", str, "a string"),
            rules=_field(raw, "rules", str, "a string"),
            scenario=_field(raw, "scenario", str, "a string"),
            options=_strings(raw, "options"),
            resolution=_field(raw, "resolution", int, "an integer"),
            next_k=_field(raw, "turn", int, "an integer"),
            label=_field(raw, "label", str, "a string"),
            state_hash=state,
            over=_field(raw, "over", bool, "true or false"),
            result=json.dumps(result) if result else None,
            public_keys=_players(raw),
            position=_field(raw, "position", dict, "an object"),
            rules_version=_optional_string(raw, "rules_version"),
            **_deadline(raw.get("deadline")),
        )
    except PositionFileError as exc:
        raise PositionFileError(f"{name}: {exc}") from None
    if position_hash(loaded.position) != loaded.state_hash:
        raise PositionFileError(
            f"{name}: its position does not hash to its state {loaded.state_hash}; the file was changed after "
            "the referee wrote it"
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
