"""Section 3: scenarios as data, and the loader of scenario and map files.

Data files live in ``rules/furor_barbarus/data/{maps,scenarios}/<id>.toml``.  A
:class:`DataLibrary` searches the package's data folder, then any extra folders it
is given (tests use ``tests/data/furor-barbarus``).  Loaded files are immutable and
cached by path.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.rules import data_cache
from pbem.rules.furor_barbarus.counters import Counter, CounterError, counter_from_dict
from pbem.rules.furor_barbarus.hexgrid import Hex, hex_id
from pbem.rules.furor_barbarus.maps import GameMap, load_map

PACKAGE_DATA = Path(__file__).with_name("data")
REPO_TEST_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "furor-barbarus"


class ScenarioError(ValueError):
    """A scenario file that does not follow the schema, or an unknown id."""


@dataclass(frozen=True)
class SideInfo:
    id: str
    name: str
    threshold: int
    colour: str = "grey"


@dataclass(frozen=True)
class Deployment:
    """``[[deploy]]``: units that go into given hexes (fixed or the player's choice)."""

    units: tuple[str, ...]
    hexes: tuple[str, ...]
    fixed: bool = False


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    map_id: str
    turns: int
    sides: tuple[str, ...]
    first_player: str
    roll_ties: str
    setup_first: str
    side_info: Mapping[str, SideInfo]
    counters: Mapping[str, Counter]
    deployments: tuple[Deployment, ...]
    options: tuple[Mapping[str, Any], ...] = ()
    overlay: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)
    map_size: tuple[int, int] = (99, 99)  # columns, rows: areas are limited to the map
    secret_commanders: bool = False  # commanders' hexes noted secretly, revealed together (3)

    def option_ids(self) -> tuple[str, ...]:
        return tuple(str(o["id"]) for o in self.options)

    def with_options(self, chosen: Sequence[str]) -> Scenario:
        """The scenario with its chosen ``[[option]]`` tables applied: ``unit_change``
        replaces counter values, ``deploy`` replaces the deployment of the units
        it names."""
        counters = dict(self.counters)
        deployments = list(self.deployments)
        for opt in self.options:
            if opt["id"] not in chosen:
                continue
            for change in opt.get("unit_change", []):
                uid = str(change["unit"]).lower()
                if uid not in counters:
                    raise ScenarioError(f"option {opt['id']!r}: unknown unit {uid!r}")
                values = {k: v for k, v in change.items() if k in ("strength", "reduced", "mp", "range", "name")}
                counters[uid] = counters[uid].changed(**values)
            new = [_deployment(d, self.map_id, *self.map_size) for d in opt.get("deploy", [])]
            if new:
                moved = {u for d in new for u in d.units}
                kept = []
                for d in deployments:
                    rest = tuple(u for u in d.units if u not in moved)
                    if rest:
                        hexes = d.hexes if not d.fixed else tuple(h for u, h in zip(d.units, d.hexes) if u not in moved)
                        kept.append(Deployment(rest, hexes, d.fixed))
                deployments = kept + new
        return Scenario(
            self.id,
            self.title,
            self.map_id,
            self.turns,
            self.sides,
            self.first_player,
            self.roll_ties,
            self.setup_first,
            self.side_info,
            counters,
            tuple(deployments),
            self.options,
            self.overlay,
            self.raw,
            self.map_size,
            self.secret_commanders,
        )


def expand_area(area: str, columns: int = 99, rows: int = 99) -> tuple[str, ...]:
    """``"line:04"`` (every hex of column 04) or ``"range:0806-0814"``, joined by ``,``,
    limited to the hexes of a map of ``columns`` x ``rows``.

    >>> expand_area("range:0806-0808")
    ('0806', '0807', '0808')
    >>> expand_area("line:04", columns=12, rows=3)
    ('0401', '0402', '0403')
    """
    out: list[str] = []
    for part in area.split(","):
        part = part.strip()
        kind, _, arg = part.partition(":")
        if kind == "line":
            col = int(arg)
            out += [f"{col:02d}{r:02d}" for r in range(1, rows + 1)]
        elif kind == "range":
            a, _, b = arg.partition("-")
            ha, hb = Hex.parse(a), Hex.parse(b)
            if ha.col != hb.col:
                raise ScenarioError(f"area {part!r}: a range stays in one column")
            out += [f"{ha.col:02d}{r:02d}" for r in range(ha.row, hb.row + 1)]
        elif kind == "hex":
            out.append(hex_id(arg))
        else:
            raise ScenarioError(f"unknown area {part!r} (line:CC, range:CCRR-CCRR)")
    on_map = [h for h in out if 1 <= int(h[:2]) <= columns and 1 <= int(h[2:]) <= rows]
    if out and not on_map:
        raise ScenarioError(f"area {area!r} has no hex on a map of {columns} x {rows}")
    return tuple(dict.fromkeys(on_map))


def _deployment(data: Mapping[str, Any], where: str, columns: int = 99, rows: int = 99) -> Deployment:
    units = tuple(str(u).lower() for u in data["units"])
    if "hexes" in data:
        hexes = tuple(hex_id(h) for h in data["hexes"])
    elif "area" in data:
        hexes = expand_area(str(data["area"]), columns, rows)
    else:
        raise ScenarioError(f"{where}: a deploy needs hexes or area")
    fixed = bool(data.get("fixed", False))
    if fixed and len(hexes) != len(units):
        raise ScenarioError(f"{where}: fixed deploy of {units} needs one hex per unit")
    return Deployment(units, hexes, fixed)


def scenario_from_dict(data: Mapping[str, Any], columns: int = 99, rows: int = 99) -> Scenario:
    """A scenario from its TOML table; areas are limited to a map of
    ``columns`` x ``rows`` (its map's size, when the loader knows it)."""
    sid = str(data.get("id", "?"))
    try:
        sides = tuple(str(s) for s in data["sides"])
        side_info = {
            s: SideInfo(
                s,
                str(data["side"][s].get("name", s)),
                int(data["side"][s]["threshold"]),
                str(data["side"][s].get("colour", "grey")),
            )
            for s in sides
        }
        counters: dict[str, Counter] = {}
        for u in data.get("unit", []):
            c = counter_from_dict(u)
            if c.id in counters:
                raise ScenarioError(f"scenario {sid}: unit {c.id!r} twice")
            if c.side not in sides and c.side != "neutral":
                raise ScenarioError(f"scenario {sid}: unit {c.id!r} of unknown side {c.side!r}")
            counters[c.id] = c
        if data.get("setup_first", "") not in ("", *sides):
            raise ScenarioError(
                f"scenario {sid}: setup_first {data['setup_first']!r} is not one of the sides {list(sides)}"
            )
        deployments = tuple(_deployment(d, sid, columns, rows) for d in data.get("deploy", []))
        for d in deployments:
            for u in d.units:
                if u not in counters:
                    raise ScenarioError(f"scenario {sid}: deploy names unknown unit {u!r}")
        return Scenario(
            id=sid,
            title=str(data.get("title", sid)),
            map_id=str(data["map"]),
            turns=int(data["turns"]),
            sides=sides,
            first_player=str(data.get("first_player", sides[0])),
            roll_ties=str(data.get("roll_ties", sides[0])),
            setup_first=str(data.get("setup_first", "")),  # "": both sides set up at once
            side_info=side_info,
            counters=counters,
            deployments=deployments,
            options=tuple(data.get("option", [])),
            overlay=dict(data.get("overlay", {})),
            raw=dict(data),
            map_size=(columns, rows),
            secret_commanders=bool(data.get("secret_commanders", False)),
        )
    except KeyError as exc:
        raise ScenarioError(f"scenario {sid}: missing key {exc}") from None
    except CounterError as exc:
        raise ScenarioError(f"scenario {sid}: {exc}") from None


@functools.lru_cache(maxsize=64)
def _load_toml(path: Path) -> dict[str, Any]:
    return data_cache.load_toml(path)


@functools.lru_cache(maxsize=64)
def _load_scenario_cached(path: Path, columns: int = 99, rows: int = 99) -> Scenario:
    return scenario_from_dict(_load_toml(path), columns, rows)


@functools.lru_cache(maxsize=64)
def _load_map_cached(path: Path) -> GameMap:
    return load_map(path)


def load_scenario(path: Path | str) -> Scenario:
    """A scenario from an explicit file (tests); its areas are limited to its map
    when the map file is found beside it (``../maps/<map>.toml``)."""
    p = Path(path).resolve()
    data = _load_toml(p)
    map_path = p.parent.parent / "maps" / f"{data.get('map', '')}.toml"
    if map_path.is_file():
        gm = _load_map_cached(map_path)
        return _load_scenario_cached(p, gm.columns, gm.rows)
    return _load_scenario_cached(p)


def _scenario_ids(folders: tuple[Path, ...]) -> tuple[str, ...]:
    """The scenario ids in ``folders`` (each folder's ``scenarios/*.toml``), the first folder's first."""
    ids: list[str] = []
    for folder in folders:
        for name in _tomls(os.path.join(folder, "scenarios")):
            stem = name[:-5] if name != ".toml" else name  # Path.stem's
            if stem not in ids:
                ids.append(stem)
    return tuple(ids)


def _tomls(folder: str) -> list[str]:
    """The names ``sorted(Path(folder).glob("*.toml"))`` finds, sorted, without the
    pattern ``glob`` compiles in each process (0.9 M instructions under callgrind):
    every entry whose name ends in ``.toml``; none when the folder is absent or
    unreadable."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    return sorted(name for name in names if name.endswith(".toml"))


@functools.lru_cache(maxsize=16)
def _listed(folders: tuple[Path, ...]) -> frozenset[str]:
    """``_scenario_ids(folders)``, listed once per process (:meth:`DataLibrary.knows`)."""
    return frozenset(_scenario_ids(folders))


@functools.lru_cache(maxsize=256)
def _located(folders: tuple[Path, ...], kind: str, ident: str) -> Path:
    """The file of a scenario or map (``kind``), found once per process: the data
    folders do not change while it runs (before the speed work, every resolution looked again,
    nine file-system calls each time).  A file not found is looked for again next
    time (``FileNotFoundError`` is not cached)."""
    for folder in folders:
        p = folder / kind / f"{ident}.toml"
        if p.is_file():
            return p.resolve()
    # development checkouts: "test-..." ids also come from tests/data
    p = REPO_TEST_DATA / kind / f"{ident}.toml"
    if ident.startswith("test-") and p.is_file():
        return p.resolve()
    raise FileNotFoundError(ident)


@dataclass(frozen=True)
class DataLibrary:
    """Where scenario and map files are found: the package data, then ``extra``."""

    extra: tuple[Path, ...] = ()

    @property
    def folders(self) -> tuple[Path, ...]:
        return (PACKAGE_DATA, *self.extra)

    def scenario_ids(self) -> tuple[str, ...]:
        return _scenario_ids(self.folders)

    def scenario_files(self) -> tuple[tuple[str, Path], ...]:
        """Each scenario id of :meth:`scenario_ids` with the file :meth:`scenario`
        loads it from (``FileNotFoundError`` for a listed id with no such file)."""
        return tuple((sid, _located(self.folders, "scenarios", sid)) for sid in self.scenario_ids())

    def knows(self, scenario_id: str) -> bool:
        """Whether ``scenario_id`` is among :meth:`scenario_ids`, listed once per process
        (the data folders do not change while it runs, as ``_located`` has it: each
        report's view listed them again); an id not among them is looked for in a
        fresh listing, so a file added since is found."""
        if scenario_id in _listed(self.folders):
            return True
        _listed.cache_clear()
        return scenario_id in _listed(self.folders)

    def _find(self, kind: str, ident: str) -> Path:
        try:
            return _located(self.folders, kind, ident)
        except FileNotFoundError:
            pass
        raise ScenarioError(f"unknown {kind[:-1]} {ident!r} (looked in {', '.join(str(f) for f in self.folders)})")

    def scenario(self, scenario_id: str) -> Scenario:
        """The scenario, kept by ``(extra, id)`` once found: its file, its TOML and the
        scenario are each cached already (``_located``, ``_load_toml``,
        ``_load_scenario_cached``), but each keyed by the folders' ``Path`` objects,
        whose hashing is a Python call each (some nine a submitted file)."""
        key = (self.extra, scenario_id)
        found = _SCENARIOS.get(key)
        if found is None:
            found = _kept(_SCENARIOS, key, self._scenario(scenario_id))
        return found

    def _scenario(self, scenario_id: str) -> Scenario:
        path = self._find("scenarios", scenario_id)
        map_id = _load_toml(path).get("map")
        if map_id is None:
            return _load_scenario_cached(path)  # the loader names the missing key
        gm = self.game_map(str(map_id))
        return _load_scenario_cached(path, gm.columns, gm.rows)

    def game_map(self, map_id: str) -> GameMap:
        """The map, kept by ``(extra, id)`` once found (as :meth:`scenario`)."""
        key = (self.extra, map_id)
        found = _MAPS.get(key)
        if found is None:
            found = _kept(_MAPS, key, _load_map_cached(self._find("maps", map_id)))
        return found


_SCENARIOS: dict[tuple[tuple[Path, ...], str], Scenario] = {}
_MAPS: dict[tuple[tuple[Path, ...], str], GameMap] = {}


def _kept(memory: dict[Any, Any], key: Any, value: Any) -> Any:
    """``value`` kept in ``memory`` under ``key`` (the oldest 256 forgotten at once: a
    test process makes libraries of many folders)."""
    if len(memory) >= 256:
        memory.clear()
    memory[key] = value
    return value
