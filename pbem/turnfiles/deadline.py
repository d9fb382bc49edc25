"""A deadline as a player reads it: the moment in UTC and in the player's own
zone, the grace after it, and what happens when nothing comes.

Zones are IANA names (``Europe/Lisbon``, ``America/Sao_Paulo``), read with the
standard library's :mod:`zoneinfo` (the ``tzdata`` package supplies the zone data
where the system has none).

>>> from datetime import datetime, UTC
>>> for line in deadline_lines(datetime(2026, 3, 1, 12, 0, tzinfo=UTC), 7200, "America/Sao_Paulo"):
...     print(line)
Deadline: 2026-03-01 12:00 UTC (2026-03-01 09:00 America/Sao_Paulo)
Grace: 2h, until 2026-03-01 14:00 UTC; no orders by then: your side takes no action this resolution (NMR).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
NMR_WORDS = "no orders by then: your side takes no action this resolution (NMR)"


def format_duration(seconds: int) -> str:
    """``259200`` as ``3d``; the largest whole unit."""
    for unit in ("d", "h", "m"):
        if seconds and seconds % UNITS[unit] == 0:
            return f"{seconds // UNITS[unit]}{unit}"
    return f"{seconds}s"


def check_zone(name: str) -> str:
    """``name`` if it is an IANA time zone this machine knows; :class:`ValueError`
    naming it otherwise."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        if not name or name != name.strip() or name.startswith("/") or ".." in name:
            raise ValueError(name)
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(
            f"unknown time zone {name!r}: give an IANA name such as UTC, Europe/Lisbon or America/Sao_Paulo"
        ) from None
    return name


def utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def zone_text(moment: datetime, zone: str) -> str:
    """The moment on the wall clocks of ``zone``: ``2026-03-01 09:00 America/Sao_Paulo``."""
    from zoneinfo import ZoneInfo

    return f"{moment.astimezone(ZoneInfo(zone)).strftime('%Y-%m-%d %H:%M')} {zone}"


def moment_text(moment: datetime, zone: str | None) -> str:
    """UTC, and the zone's time beside it unless the zone is UTC."""
    if not zone or zone in ("UTC", "Etc/UTC"):
        return utc_text(moment)
    return f"{utc_text(moment)} ({zone_text(moment, zone)})"


def deadline_lines(deadline: datetime, grace: int, zone: str | None) -> tuple[str, str]:
    """Two lines: when, in UTC and in ``zone``; the grace and what happens after it."""
    if grace:
        after = f"Grace: {format_duration(grace)}, until {utc_text(deadline + timedelta(seconds=grace))}; {NMR_WORDS}."
    else:
        after = f"No grace; {NMR_WORDS}."
    return f"Deadline: {moment_text(deadline, zone)}", after


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``; None stays None."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)
