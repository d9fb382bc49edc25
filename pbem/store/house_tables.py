"""House tables: the designed tables of a ruleset that a game replaces (docs/formats.md,
"House tables").

``pbem tables RULES`` lists them, ``pbem table RULES NAME`` prints one as TOML, and
``pbem new ... --table NAME=FILE`` plays a game with a file in that form.  The
ruleset checks a table (``Ruleset.read_table``: the cell at fault is named); the
checked tables ride in the opening position (``rules.base.HOUSE_TABLES``), so the
position hash covers them, and are stored with the game (``store.HouseTable``) and
carried in its archive (``game.tables``).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem import limits
from pbem.rules.base import HOUSE_TABLES, Position, Ruleset, TableError, TableInfo
from pbem.turnfiles.canonical import canonical_json

if TYPE_CHECKING:
    from pbem.store.sql import Tx

MAX_TABLE_BYTES = 64 * 1024
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def digest(data: Mapping[str, Any]) -> str:
    """Hex SHA-256 of a table's canonical JSON (as the position hash is made)."""
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def find_table(ruleset: Ruleset, name: str, scenario_id: str | None) -> TableInfo:
    for info in ruleset.tables(scenario_id):
        if info.name == name:
            return info
    known = ", ".join(t.name for t in ruleset.tables(scenario_id)) or "none"
    raise TableError(f"{ruleset.id} has no replaceable table {name!r} (tables: {known})")


# --- TOML -----------------------------------------------------------------------------
def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _is_section(value: Any) -> bool:
    """A table holding tables or lists gets a ``[header]``; a table of scalars is
    written inline (``aetius = { strength = 2, mp = 8 }``)."""
    return isinstance(value, Mapping) and any(isinstance(v, (Mapping, list)) for v in value.values())


def _emit(data: Mapping[str, Any], path: tuple[str, ...], out: list[str]) -> None:
    plain = [(k, v) for k, v in data.items() if not _is_section(v)]
    sections = [(k, v) for k, v in data.items() if _is_section(v)]
    if path and (plain or not sections):
        out.append("")
        out.append("[" + ".".join(_key(p) for p in path) + "]")
    out.extend(f"{_key(k)} = {_value(v)}" for k, v in plain)
    for k, v in sections:
        _emit(v, (*path, k), out)


def to_toml(ruleset: Ruleset, name: str, data: Mapping[str, Any], scenario_id: str | None = None) -> str:
    """A table as the TOML that ``pbem new ... --table NAME=FILE`` reads back."""
    info = find_table(ruleset, name, scenario_id)
    scenario = ruleset.scenario(scenario_id).id if len(ruleset.scenarios()) > 1 else None
    where = ruleset.id + (f", scenario {scenario}" if scenario else "")
    lines = [f"# {info.title}: table {name!r} of {where}", f"# {info.status}; documented in {info.documented}"]
    lines += [f"# {note}" for note in info.notes]
    lines.append(
        f"# Use: pbem new GAME --rules {ruleset.id}"
        + (f" --scenario {scenario}" if scenario else "")
        + f" ... --table {name}=FILE"
    )
    out: list[str] = []
    _emit(data, (), out)
    return "\n".join(lines + out) + "\n"


# --- reading files ----------------------------------------------------------------------
def read_file(ruleset: Ruleset, name: str, path: Path, scenario_id: str | None) -> dict[str, Any]:
    """One ``--table NAME=FILE``: the checked table; :class:`TableError` with the
    file, the table and the cell at fault."""
    where = f"--table {name}={path}"
    try:
        find_table(ruleset, name, scenario_id)
    except TableError as exc:
        raise TableError(f"{where}: {exc}") from None
    try:
        raw = limits.read_at_most(path, MAX_TABLE_BYTES)
    except limits.TooLarge as exc:
        raise TableError(
            f"{where}: {exc.size} bytes is over the {MAX_TABLE_BYTES // 1024} KiB limit for a table"
        ) from None
    except OSError as exc:
        raise TableError(f"{where}: cannot read the file ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        limits.check_tree(data, "the table")
    except UnicodeDecodeError:
        raise TableError(f"{where}: not UTF-8 text") from None
    except RecursionError:
        raise TableError(f"{where}: nested too deeply (at most {limits.MAX_NESTING} deep)") from None
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{where}: not TOML: {exc}") from None
    except limits.Malformed as exc:
        raise TableError(f"{where}: past a limit for a table: {exc}") from None
    try:
        return ruleset.read_table(name, data, scenario_id)
    except TableError as exc:
        raise TableError(f"{where}: {exc}") from None


def read_files(
    ruleset: Ruleset, files: Mapping[str, Path], scenario_id: str | None
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every ``--table`` file: the checked tables, and one problem per file at fault."""
    tables: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for name, path in files.items():
        try:
            tables[name] = read_file(ruleset, name, Path(path), scenario_id)
        except TableError as exc:
            problems.append(str(exc))
    return tables, problems


# --- a game's tables ---------------------------------------------------------------------
def of_position(position: Position) -> dict[str, Any]:
    """The house tables an (opening) position plays with, by name."""
    return dict(position.get(HOUSE_TABLES, {}))


def store_tables(tx: Tx, game_id: str, tables: Mapping[str, Mapping[str, Any]]) -> None:
    for name in sorted(tables):
        tx.run(
            "INSERT INTO house_table (game_id, name, data, digest) VALUES (:game, :name, :data, :digest)",
            {"game": game_id, "name": name, "data": canonical_json(tables[name]), "digest": digest(tables[name])},
        )


def game_tables(tx: Tx, game_id: str) -> dict[str, Any]:
    """The house tables stored with a game, by name (empty: the shipped tables)."""
    rows = tx.all("SELECT name, data FROM house_table WHERE game_id = :game ORDER BY name", {"game": game_id})
    return {name: json.loads(data) for name, data in rows}


def differences(shipped: Any, house: Any, path: str = "") -> list[str]:
    """Where a house table differs from the shipped one, cell by cell, e.g.
    ``rows.4[2]: AR -> DR``.

    >>> differences({"rows": {"4": ["AT", "AR"]}}, {"rows": {"4": ["AT", "DR"]}})
    ['rows.4[2]: AR -> DR']
    """
    if isinstance(shipped, Mapping) and isinstance(house, Mapping):
        out: list[str] = []
        for key in sorted(set(shipped) | set(house), key=str):
            out += differences(shipped.get(key), house.get(key), f"{path}.{key}" if path else str(key))
        return out
    if isinstance(shipped, list) and isinstance(house, list) and len(shipped) == len(house):
        out = []
        for i, (a, b) in enumerate(zip(shipped, house), start=1):
            out += differences(a, b, f"{path}[{i}]")
        return out
    return [] if shipped == house else [f"{path}: {_shown(shipped)} -> {_shown(house)}"]


def _shown(value: Any) -> str:
    return "(none)" if value is None else str(value)


def summary(ruleset: Ruleset, scenario_id: str | None, tables: Mapping[str, Any]) -> list[tuple[str, str, list[str]]]:
    """For each house table: its name, its digest and the cells that differ from
    the shipped table (what the audit page shows)."""
    return [
        (name, digest(tables[name]), differences(ruleset.shipped_table(name, scenario_id), tables[name]))
        for name in sorted(tables)
    ]
