"""The referee's configuration file: one TOML file holding what ``tick``, ``serve``,
``send``, ``ingest`` and ``new`` would otherwise be told on every command line.

Found as ``--config FILE``, else ``$PBEM_CONFIG``, else ``./pbem.toml`` when there
is one.  The command line overrides the file, setting by setting.  Paths in the
file (``db`` when it is a path, the password files) are read relative to the
file's own folder, with ``~`` expanded, so a crontab can run ``pbem`` from
anywhere.  Unknown keys are refused, naming the key and its line.  Passwords are
never in the file: only the files that hold them (docs/guide.md, section 8)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

DEFAULT_NAME = "pbem.toml"
ENV = "PBEM_CONFIG"


class ConfigError(ValueError):
    """The configuration file cannot be used: names the file, the line and the key."""


@dataclass(frozen=True)
class Settings:
    """The file's settings (None: not set).  ``path`` is None when there is no file."""

    path: Path | None = None
    db: str | None = None
    smtp_host: str | None = None
    smtp_port: int | None = None
    sender: str | None = None
    smtp_user: str | None = None
    smtp_password_file: Path | None = None
    starttls: bool = False
    ssl: bool = False
    imap_url: str | None = None
    imap_password_file: Path | None = None
    defaults: dict[str, str] = field(default_factory=dict)  # deadline, grace, remind, tz

    @property
    def smtp(self) -> str | None:
        """``HOST:PORT`` as ``--smtp`` takes it (port 25 when only the host is given)."""
        if self.smtp_host is None:
            return None
        return f"{self.smtp_host}:{self.smtp_port or (465 if self.ssl else 25)}"

    def shown(self) -> list[tuple[str, str]]:
        """Every setting that is set, as ``key = value`` pairs (no secret is ever
        in the file; a password file is shown by its path only)."""
        out: list[tuple[str, str]] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "path" or value in (None, False, {}):
                continue
            if f.name == "defaults":
                out.extend((f"defaults.{k}", v) for k, v in sorted(value.items()))
            else:
                out.append((f.name, str(value)))
        return out


# section -> key -> (Settings field, type)
_KEYS: dict[str, dict[str, tuple[str, type]]] = {
    "": {"db": ("db", str)},
    "smtp": {
        "host": ("smtp_host", str),
        "port": ("smtp_port", int),
        "sender": ("sender", str),
        "user": ("smtp_user", str),
        "password_file": ("smtp_password_file", Path),
        "starttls": ("starttls", bool),
        "ssl": ("ssl", bool),
    },
    "imap": {"url": ("imap_url", str), "password_file": ("imap_password_file", Path)},
    "defaults": {"deadline": ("", str), "grace": ("", str), "remind": ("", str), "tz": ("", str)},
}


def find(given: str | None) -> Path | None:
    """The configuration file to read: ``--config``/``$PBEM_CONFIG`` (which must
    exist), else ``./pbem.toml`` when present, else None."""
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            raise ConfigError(f"configuration file {given}: no such file")
        return path
    local = Path(DEFAULT_NAME)
    return local if local.is_file() else None


def load(path: Path | None) -> Settings:
    """The settings of ``path`` (empty settings for None)."""
    if path is None:
        return Settings()
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not TOML: {exc}") from None
    values: dict[str, Any] = {"path": path}
    defaults: dict[str, str] = {}
    for section, key, value in _entries(path, text, data):
        name, kind = _KEYS[section][key]
        where = f"{path} line {_line_of(text, section, key)}: {_dotted(section, key)}"
        value = _typed(where, kind, value)
        if section == "defaults":
            defaults[key] = _default(where, key, value)
        elif kind is Path:
            values[name] = _relative(path, value)
        elif name == "db":
            values[name] = value if "://" in value else str(_relative(path, value))
        else:
            values[name] = value
    if values.get("starttls") and values.get("ssl"):
        raise ConfigError(f"{path}: [smtp] sets both starttls and ssl; choose one")
    return Settings(**values, defaults=defaults)


def _entries(path: Path, text: str, data: dict[str, Any]) -> list[tuple[str, str, Any]]:
    out = []
    for key, value in data.items():
        if isinstance(value, dict) and key in _KEYS and key != "":
            for sub, item in value.items():
                if sub not in _KEYS[key]:
                    raise ConfigError(
                        f"{path} line {_line_of(text, key, sub)}: unknown key {sub!r} in [{key}]"
                        f" (known: {', '.join(_KEYS[key])})"
                    )
                out.append((key, sub, item))
        elif key in _KEYS[""]:
            out.append(("", key, value))
        else:
            known = ", ".join([*_KEYS[""], *(f"[{s}]" for s in _KEYS if s)])
            raise ConfigError(f"{path} line {_line_of(text, '', key)}: unknown key {key!r} (known: {known})")
    return out


def _dotted(section: str, key: str) -> str:
    return f"[{section}] {key}" if section else key


def _typed(where: str, kind: type, value: Any) -> Any:
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
            raise ConfigError(f"{where} must be a port number (1-65535)")
        return value
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} must be a non-empty string")
    return value


def _default(where: str, key: str, value: str) -> str:
    """A ``[defaults]`` value checked as ``pbem new`` would check its option."""
    if key == "tz":
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"{where}: {value!r} is not an IANA time zone (such as Europe/Lisbon)") from None
        return value
    if not re.fullmatch(r"\d+[smhd]", value):
        raise ConfigError(f"{where}: {value!r} is not a duration such as 90s, 45m, 72h, 3d")
    return value


def _relative(config: Path, value: str) -> Path:
    """A path of the file: ``~`` expanded, relative to the file's folder."""
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else config.parent / path


def _line_of(text: str, section: str, key: str) -> int:
    """The line where ``key`` is set in ``[section]`` (top level: ``section`` ""),
    as a person reads the file; 0 when it cannot be told (an inline table)."""
    current = ""
    pattern = re.compile(rf"""^\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*=""")
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1).strip("\"'")
            if section == "" and current == key:
                return number
            continue
        if current == section and pattern.match(line):
            return number
    return 0
